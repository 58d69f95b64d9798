"""Draining a stream while other threads drain it too: report threads, synchronisations and events (issue 38)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from aclcts.sim import core
from aclcts.sim.stress import stress

BLOCK = 1


@pytest.fixture
def report_thread(session: Any) -> Iterator[int]:
    """A thread from acl.util.start_thread calling process_report(10) in the session context until the test ends."""
    acl, running = session.acl, [True]

    def serve(args: list) -> None:
        acl.rt.set_context(args[0])
        while running[0]:
            acl.rt.process_report(10)

    thread, ret = acl.util.start_thread(serve, [session.context])
    assert ret == 0
    yield thread
    running[0] = False
    assert acl.util.stop_thread(thread) == 0


def _event_synchronised(acl: Any, stream: int) -> int:
    event, ret = acl.rt.create_event()
    assert ret == 0 and acl.rt.record_event(event, stream) == 0
    try:
        return acl.rt.synchronize_event(event)
    finally:
        assert acl.rt.destroy_event(event) == 0


#: Every call that waits for a stream's work: a name and the call on (acl, stream).
WAITING_CALLS: dict[str, Callable[[Any, int], int]] = {
    "synchronize_stream": lambda acl, stream: acl.rt.synchronize_stream(stream),
    "synchronize_stream_with_timeout": lambda acl, stream: acl.rt.synchronize_stream_with_timeout(stream, 5000),
    "synchronize_device": lambda acl, stream: acl.rt.synchronize_device(),
    "synchronize_event": _event_synchronised,
}


@pytest.mark.parametrize("call", list(WAITING_CALLS))
def test_two_blocking_callbacks_then_a_wait_with_a_report_thread_runs_both(session, report_thread, call):
    # The 15-line program: the report thread runs the stream while the waiting call waits for the first
    # callback; the wait must see the stream as the report thread left it (it popped an empty queue before).
    acl, seen = session.acl, []
    assert acl.rt.subscribe_report(report_thread, session.stream) == 0
    for number in range(2):
        assert acl.rt.launch_callback(lambda data: (time.sleep(0.05), seen.append(data)), number, BLOCK,
                                      session.stream) == 0
    assert WAITING_CALLS[call](acl, session.stream) == 0
    assert seen == [0, 1]
    assert acl.rt.unsubscribe_report(report_thread, session.stream) == 0


def test_destroy_stream_behind_two_blocking_callbacks_with_a_report_thread_runs_both(session, report_thread):
    acl, seen = session.acl, []
    stream, ret = acl.rt.create_stream()
    assert ret == 0 and acl.rt.subscribe_report(report_thread, stream) == 0
    for number in range(2):
        assert acl.rt.launch_callback(lambda data: (time.sleep(0.05), seen.append(data)), number, BLOCK, stream) == 0
    with pytest.warns(Warning, match="queued task"):
        assert acl.rt.destroy_stream(stream) == 0
    assert seen == [0, 1]


def test_a_stream_another_thread_is_running_is_waited_for_not_run_past(session, report_thread):
    # Stream A waits on an event recorded on stream B behind a blocking callback. While one thread runs A (and waits in
    # B for the callback), a second thread synchronises A: it must wait for the task in flight, not run A's later
    # work before it.
    acl, a = session.acl, session.stream
    b, ret = acl.rt.create_stream()
    assert ret == 0
    event, ret = acl.rt.create_event()
    assert ret == 0
    memory, ret = acl.rt.malloc(64, 0)
    assert ret == 0
    stream_a = core.STATE.lookup("stream", a, "test")
    second_started, queued_when_the_callback_ran = threading.Event(), []

    def callback(_: Any) -> None:
        second_started.wait(10)
        time.sleep(0.1)  # the second thread reaches its wait meanwhile
        queued_when_the_callback_ran.append([task.call for task in stream_a.queue])

    assert acl.rt.subscribe_report(report_thread, b) == 0
    assert acl.rt.launch_callback(callback, None, BLOCK, b) == 0
    assert acl.rt.record_event(event, b) == 0
    assert acl.rt.stream_wait_event(a, event) == 0
    assert acl.rt.memset_async(memory, 64, 0x5A, 64, a) == 0
    codes: dict[str, int] = {}

    def synchronise(name: str, started: threading.Event | None) -> None:
        acl.rt.set_context(session.context)
        if started is not None:
            started.set()
        codes[name] = acl.rt.synchronize_stream(a)

    first = threading.Thread(target=synchronise, args=("first", None))
    second = threading.Thread(target=synchronise, args=("second", second_started))
    first.start()
    time.sleep(0.05)
    second.start()
    first.join(30)
    second.join(30)
    assert codes == {"first": 0, "second": 0}
    assert queued_when_the_callback_ran == [["acl.rt.memset_async"]]
    assert acl.rt.unsubscribe_report(report_thread, b) == 0
    for ret in (acl.rt.free(memory), acl.rt.destroy_event(event), acl.rt.destroy_stream(b)):
        assert ret == 0


def test_a_short_stress_run_has_no_failures():
    tally = stress(seconds=3, workers=4, lanes=3, seed=38)
    assert tally.failures == []
    assert tally.launched > 0 and tally.ran == tally.launched
    assert {"acl.rt.synchronize_device", "acl.rt.synchronize_event", "acl.rt.stream_wait_event",
            "acl.rt.destroy_stream"} <= set(tally.calls)

