"""Events, streams and report threads as a hypothesis state machine, every observation checked against a model of
the documented states (docs/contract/sync-events-callbacks.md#event-and-stream-states).

Two streams each have a report thread of their own. A blocking host callback holds its stream until the machine has
its report thread run it, so "the recorded work is still queued" is a state the machine sets up on any backend; every
other piece of work may finish whenever the device likes, and the model then accepts either answer until something
settles it (a synchronisation, a callback that ran after it, a COMPLETE already seen).
"""

from __future__ import annotations

import queue
import threading
from dataclasses import dataclass, field
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import Phase, settings
from hypothesis import strategies as st
from hypothesis.stateful import (RuleBasedStateMachine, initialize, invariant, precondition, rule,
                                 run_state_machine_as_test)

from aclcts.cases import strategies  # noqa: F401  (strategies: the suite's hypothesis profiles)
from aclcts.core.constants import ErrorCode, EventRecordedStatus, EventStatus, MemcpyKind, StreamStatus
from aclcts.drive import flow

pytestmark = [pytest.mark.sync, pytest.mark.leak]

OK = int(ErrorCode.ACL_SUCCESS)
INVALID_PARAM = int(ErrorCode.ACL_ERROR_INVALID_PARAM)
STREAM_SUBSCRIBE = int(ErrorCode.ACL_ERROR_RT_STREAM_SUBSCRIBE)
STREAM_NO_CB_REG = int(ErrorCode.ACL_ERROR_RT_STREAM_NO_CB_REG)
REPORT_TIMEOUT = int(ErrorCode.ACL_ERROR_RT_REPORT_TIMEOUT)
STREAM_SYNC_TIMEOUT = int(ErrorCode.ACL_ERROR_RT_STREAM_SYNC_TIMEOUT)
#: UNCONFIRMED named expectation (docs/contract/sync-events-callbacks.md#event-and-stream-states): the code of
#: synchronize_event_with_timeout when the record has not run in time.
EVENT_SYNC_TIMEOUT = int(ErrorCode.ACL_ERROR_RT_EVENT_SYNC_TIMEOUT)
RECORDED_COMPLETE = int(EventRecordedStatus.ACL_EVENT_RECORDED_STATUS_COMPLETE)
RECORDED_NOT_READY = int(EventRecordedStatus.ACL_EVENT_RECORDED_STATUS_NOT_READY)
EVENT_COMPLETE, EVENT_NOT_READY = int(EventStatus.ACL_EVENT_STATUS_COMPLETE), int(EventStatus.ACL_EVENT_STATUS_NOT_READY)
STREAM_COMPLETE = int(StreamStatus.ACL_STREAM_STATUS_COMPLETE)
STREAM_NOT_READY = int(StreamStatus.ACL_STREAM_STATUS_NOT_READY)
H2H, H2D, D2H = (int(MemcpyKind.ACL_MEMCPY_HOST_TO_HOST), int(MemcpyKind.ACL_MEMCPY_HOST_TO_DEVICE),
                 int(MemcpyKind.ACL_MEMCPY_DEVICE_TO_HOST))
NO_BLOCK, BLOCK = 0, 1
#: Event flags of aclrtCreateEventWithFlag (docs/contract/sync-events-callbacks.md#event-and-stream-states).
SYNC, CAPTURE_STREAM_PROGRESS, TIME_LINE, DEVICE_USE_ONLY, EXTERNAL = 0x1, 0x2, 0x8, 0x10, 0x20
#: How each event of the machine is made: None is acl.rt.create_event, a number create_event_with_flag(number).
MAKERS = (None, SYNC, TIME_LINE, SYNC | TIME_LINE, CAPTURE_STREAM_PROGRESS)
#: Flags an event is only created and destroyed with (their events serve model capture or the device alone).
CREATE_ONLY_FLAGS = (DEVICE_USE_ONLY, EXTERNAL)
#: The device buffer each stream copies into, in bytes (the largest copy).
BUFFER = 1 << 18
#: process_report's timeout where a callback is due (it returns as soon as it ran) and where none can be.
DUE_MS, NOT_DUE_MS = 10_000, 5
#: A synchronisation timeout that work held by an unrun blocking callback cannot meet.
SHORT_MS = 5
#: Where the model says the work can run, the machine first synchronises with this timeout (ms) and only then without
#: one, so that a backend that disagrees fails the check at once instead of waiting for ever.
DONE_WITHIN_MS = 2_000
#: Seconds the machine waits for its report thread to answer a request.
THREAD_WAIT_S = 60
#: Examples of this machine per example of the hypothesis profile: its steps are cheap (no operator runs), and a
#: profile's few examples seldom reach the states that matter (ci: 8 examples take under a second).
EXAMPLES_PER_PROFILE_EXAMPLE = 6
#: Profiles under which a failing sequence is reported as found, not shrunk: the machine's steps wait out timeouts
#: (DONE_WITHIN_MS, SHORT_MS) where a backend disagrees with the model, so shrinking a failure takes minutes (hypothesis
#: gives up after five). A found sequence has at most the profile's stateful_step_count steps (ci: 12), and its
#: reproduce_failure blob replays it; the `default` and `qualification` profiles shrink it.
UNSHRUNK_PROFILES = ("ci",)


class ReportThread:
    """A thread that calls acl.rt.process_report(timeout) once per request, in the session context, and hands back
    what it returned."""

    def __init__(self, acl: Any, context: int) -> None:
        self.acl, self.context = acl, context
        self.requests: queue.SimpleQueue = queue.SimpleQueue()
        self.answers: queue.SimpleQueue = queue.SimpleQueue()
        self.thread = threading.Thread(target=self._serve, name="aclcts report thread", daemon=True)
        self.thread.start()
        self.ident: int = self.thread.ident  # type: ignore[assignment]

    def _serve(self) -> None:
        self.answers.put(self.acl.rt.set_context(self.context))
        while (timeout := self.requests.get()) is not None:
            try:
                self.answers.put(self.acl.rt.process_report(timeout))
            except BaseException as exc:  # noqa: BLE001 - handed to the machine's thread, which raises it
                self.answers.put(exc)

    def answer(self) -> Any:
        """The next answer of the thread; an exception it met is raised here."""
        result = self.answers.get(timeout=THREAD_WAIT_S)
        if isinstance(result, BaseException):
            raise result
        return result

    def process_report(self, timeout: int) -> int:
        """What acl.rt.process_report(timeout) returned in the thread."""
        self.requests.put(timeout)
        return self.answer()

    def stop(self) -> None:
        """End the thread."""
        self.requests.put(None)
        self.thread.join(THREAD_WAIT_S)


@dataclass(eq=False)
class Item:
    """One piece of queued work in the model: a copy, an event record or reset, a wait for a record, a callback."""

    kind: str
    event: "ModelEvent | None" = None
    waits_for: "tuple[ModelStream, int] | None" = None  # a wait: the stream and index of the record it waits for
    callback: int = 0  # a callback: its number
    block: bool = False
    ran: bool = False  # a callback: its report thread has run it


@dataclass(eq=False)
class ModelStream:
    """A stream of the model: its handle, its report thread, what was queued on it and how much of that is known done."""

    index: int
    handle: int
    reporter: ReportThread
    items: list[Item] = field(default_factory=list)
    known_done: int = 0  # items[:known_done] have run for certain
    copied: bytes = b""  # what the stream's last copy put at the start of its buffer


@dataclass(eq=False)
class ModelEvent:
    """An event of the model: how it was made, and where its last record (or reset) is queued."""

    handle: int
    flag: int | None
    record: tuple[ModelStream, int] | None = None
    reset: tuple[ModelStream, int] | None = None

    @property
    def syncs(self) -> bool:
        """Whether stream_wait_event and reset_event may use it: create_event's, or a flag with ACL_EVENT_SYNC."""
        return self.flag is None or bool(self.flag & SYNC)

    @property
    def timed(self) -> bool:
        """Whether it is documented to give elapsed times: create_event's, or a flag with ACL_EVENT_TIME_LINE."""
        return self.flag is None or bool(self.flag & TIME_LINE)


def passable(stream: ModelStream, upto: int) -> bool:
    """Whether the device can run stream.items[:upto] without the machine doing anything (no unrun blocking callback
    on the way, on this stream or on a stream it waits for)."""
    for item in stream.items[:upto]:
        if item.kind == "callback" and item.block and not item.ran:
            return False
        if item.kind == "wait" and not passable(item.waits_for[0], item.waits_for[1] + 1):
            return False
    return True


def settle(stream: ModelStream, upto: int) -> None:
    """Record that stream.items[:upto] have run, and so the records they waited for."""
    for item in stream.items[stream.known_done:upto]:
        if item.kind == "wait":
            settle(item.waits_for[0], item.waits_for[1] + 1)
    stream.known_done = max(stream.known_done, upto)


def done(place: tuple[ModelStream, int] | None) -> bool:
    """Whether the item at place is known to have run."""
    return place is not None and place[0].known_done > place[1]


def resettable(event: ModelEvent) -> bool:
    """Whether reset_event may be given the event now: documented only for create_event_with_flag events with
    ACL_EVENT_SYNC, and the model resets only events whose record (if any) has run."""
    return event.flag is not None and bool(event.flag & SYNC) and (event.record is None or done(event.record))


def runnable(event: ModelEvent) -> bool:
    """Whether the event has a record the device can run without the machine doing anything."""
    return event.record is not None and passable(event.record[0], event.record[1] + 1)


class EventMachine(RuleBasedStateMachine):
    """Random sequences of event, stream and callback calls; `acl` and `context` are set by the test."""

    acl: Any = None
    context = 0

    def __init__(self) -> None:
        super().__init__()
        acl = self.acl
        self.streams: list[ModelStream] = []
        self.live: list[ModelEvent] = []
        self.scratch: list[int] = []  # host memory of copies not known done yet
        self.ran: list[tuple[int, Any, int]] = []
        self.callbacks = 0
        for index in range(2):
            reporter = ReportThread(acl, self.context)
            assert reporter.answer() == OK, "acl.rt.set_context in the report thread failed"
            stream = flow.value(acl.rt.create_stream(), "acl.rt.create_stream")
            self.streams.append(ModelStream(index, stream, reporter))
            assert acl.rt.subscribe_report(reporter.ident, stream) == OK
        self.buffers = [flow.value(acl.rt.malloc(BUFFER, flow.NORMAL_ONLY), "acl.rt.malloc") for _ in self.streams]
        self.host = flow.value(acl.rt.malloc_host(BUFFER), "acl.rt.malloc_host")

    # ---------------------------------------------------------------- model helpers

    def queue(self, stream: ModelStream, item: Item) -> int:
        stream.items.append(item)
        return len(stream.items) - 1

    def done_within(self, stream: ModelStream) -> None:
        ret = self.acl.rt.synchronize_stream_with_timeout(stream.handle, DONE_WITHIN_MS)
        assert ret == OK, \
            f"synchronize_stream_with_timeout({DONE_WITHIN_MS}) of stream {stream.index}, whose work can run, gave {ret}"

    def blocked(self, stream: ModelStream) -> bool:
        return not passable(stream, len(stream.items))

    def check_copy(self, stream: ModelStream) -> None:
        if stream.copied:
            size = len(stream.copied)
            flow.check(self.acl.rt.memcpy(self.host, size, self.buffers[stream.index], size, D2H), "acl.rt.memcpy D2H")
            assert self.acl.util.ptr_to_bytes(self.host, size) == stream.copied, \
                f"stream {stream.index}: its copy is not in device memory after the stream was synchronised"

    def next_callback(self, stream: ModelStream) -> int | None:
        return next((i for i, item in enumerate(stream.items) if item.kind == "callback" and not item.ran), None)

    def expected_status(self, event: ModelEvent) -> set[int]:
        """aclrtEventRecordedStatus values query_event_status may give now."""
        if event.reset is not None:
            return {RECORDED_NOT_READY} if done(event.reset) else {RECORDED_NOT_READY, RECORDED_COMPLETE}
        if event.record is None:
            return {RECORDED_NOT_READY}
        stream, index = event.record
        if done(event.record):
            return {RECORDED_COMPLETE}
        if not passable(stream, index + 1):
            return {RECORDED_NOT_READY}
        return {RECORDED_NOT_READY, RECORDED_COMPLETE}

    def saw_complete(self, event: ModelEvent) -> None:
        if event.record is not None and event.reset is None:
            settle(event.record[0], event.record[1] + 1)

    # ---------------------------------------------------------------- events

    def make(self, maker: int | None) -> ModelEvent:
        acl = self.acl
        handle, ret = acl.rt.create_event() if maker is None else acl.rt.create_event_with_flag(maker)
        assert ret == OK and handle != 0, f"creating an event ({maker}) gave ({handle}, {ret})"
        event = ModelEvent(handle, maker)
        self.live.append(event)
        assert self.status(event) == RECORDED_NOT_READY, "a new event is not NOT_READY"
        return event

    @initialize(makers=st.lists(st.sampled_from(MAKERS), min_size=2, max_size=3), hold=st.sampled_from([0, 1, None]))
    def start(self, makers, hold):
        for maker in makers:
            self.make(maker)
        if hold is not None:
            self.launch_callback(hold, True)

    @precondition(lambda self: len(self.live) < 6)
    @rule(maker=st.sampled_from(MAKERS))
    def create(self, maker):
        self.make(maker)

    @rule(flag=st.sampled_from(CREATE_ONLY_FLAGS))
    def create_and_destroy_with_a_documented_flag(self, flag):
        handle, ret = self.acl.rt.create_event_with_flag(flag)
        assert ret == OK and handle != 0, f"create_event_with_flag({flag:#x}) gave ({handle}, {ret})"
        assert self.acl.rt.destroy_event(handle) == OK

    def status(self, event: ModelEvent) -> int:
        status, ret = self.acl.rt.query_event_status(event.handle)
        assert ret == OK, f"query_event_status gave {ret}"
        return status

    def pick(self, data: Any, fits: Callable[[ModelEvent], bool]) -> ModelEvent:
        return data.draw(st.sampled_from([e for e in self.live if fits(e)]))

    @precondition(lambda self: self.live)
    @rule(data=st.data(), which=st.integers(0, 1))
    def record(self, data, which):
        event, stream = self.pick(data, lambda e: True), self.streams[which]
        assert self.acl.rt.record_event(event.handle, stream.handle) == OK
        event.record, event.reset = (stream, self.queue(stream, Item("record", event))), None

    @precondition(lambda self: any(resettable(e) for e in self.live))
    @rule(data=st.data(), which=st.integers(0, 1))
    def reset(self, data, which):
        event, stream = self.pick(data, resettable), self.streams[which]
        assert self.acl.rt.reset_event(event.handle, stream.handle) == OK
        event.record, event.reset = None, (stream, self.queue(stream, Item("reset", event)))

    @invariant()
    def every_event_status_is_one_the_model_allows(self):
        for event in self.live:
            status, expected = self.status(event), self.expected_status(event)
            assert status in expected, f"query_event_status gave {status}, the model allows {sorted(expected)}"
            if status == RECORDED_COMPLETE:
                self.saw_complete(event)

    @precondition(lambda self: self.live)
    @rule(data=st.data())
    def query_event(self, data):
        event = self.pick(data, lambda e: True)
        status, ret = self.acl.rt.query_event(event.handle)
        assert ret == OK, f"query_event gave {ret}"
        if event.record is None or event.reset is not None:
            return  # an event without a record: UNCONFIRMED, the model takes either status
        recorded = self.expected_status(event)
        expected = {EVENT_COMPLETE if s == RECORDED_COMPLETE else EVENT_NOT_READY for s in recorded}
        assert status in expected, f"query_event gave {status}, the model allows {sorted(expected)}"
        if status == EVENT_COMPLETE:
            self.saw_complete(event)

    @precondition(lambda self: any(runnable(e) for e in self.live))
    @rule(data=st.data())
    def synchronize_event(self, data):
        event = self.pick(data, runnable)
        ret = self.acl.rt.synchronize_event_with_timeout(event.handle, DONE_WITHIN_MS)
        assert ret == OK, f"synchronize_event_with_timeout({DONE_WITHIN_MS}) of a record the device can run gave {ret}"
        assert self.acl.rt.synchronize_event(event.handle) == OK
        self.saw_complete(event)
        assert self.status(event) == RECORDED_COMPLETE, "an event is not COMPLETE after synchronize_event"

    @precondition(lambda self: any(e.record is not None for e in self.live))
    @rule(data=st.data(), timeout=st.sampled_from([-1, 10_000]))
    def synchronize_event_with_timeout(self, data, timeout):
        event = self.pick(data, lambda e: e.record is not None)
        if runnable(event):
            assert self.acl.rt.synchronize_event_with_timeout(event.handle, DONE_WITHIN_MS) == OK
            assert self.acl.rt.synchronize_event_with_timeout(event.handle, timeout) == OK
            self.saw_complete(event)
        else:
            ret = self.acl.rt.synchronize_event_with_timeout(event.handle, SHORT_MS)
            assert ret == EVENT_SYNC_TIMEOUT, \
                f"synchronize_event_with_timeout({SHORT_MS}) of a record held back by a blocking callback gave {ret}"

    @precondition(lambda self: any(e.syncs and e.record is not None for e in self.live))
    @rule(data=st.data(), which=st.integers(0, 1))
    def stream_wait_event(self, data, which):
        event, stream = self.pick(data, lambda e: e.syncs and e.record is not None), self.streams[which]
        assert self.acl.rt.stream_wait_event(stream.handle, event.handle) == OK
        self.queue(stream, Item("wait", event, waits_for=event.record))

    @precondition(lambda self: self.live)
    @rule(data=st.data())
    def elapsed_time(self, data):
        start, end = self.pick(data, lambda e: True), self.pick(data, lambda e: True)
        ms, ret = self.acl.rt.event_elapsed_time(start.handle, end.handle)
        if not (start.timed and end.timed):
            assert ret != OK or type(ms) is float  # without ACL_EVENT_TIME_LINE: UNCONFIRMED, either
            return
        if any(e.reset is not None for e in (start, end)):
            return
        recorded = [start.record, end.record]
        if any(place is None or not passable(place[0], place[1] + 1) for place in recorded):
            assert ret != OK, f"event_elapsed_time of an unrecorded or held-back record gave ({ms}, {ret})"
            return
        if not all(done(place) for place in recorded):
            return  # the device may or may not have run them
        assert ret == OK and type(ms) is float, f"event_elapsed_time of two completed records gave ({ms!r}, {ret})"
        (s_stream, s_index), (e_stream, e_index) = recorded
        if s_stream is e_stream and s_index < e_index:
            between = s_stream.items[s_index + 1:e_index]
            assert ms >= 0.0, f"event_elapsed_time of records in stream order is {ms} ms"
            if any(item.kind == "copy" for item in between):
                assert ms > 0.0, "event_elapsed_time is 0 ms with a copy queued between the records"

    @precondition(lambda self: any(self.settled(e) for e in self.live))
    @rule(data=st.data())
    def destroy(self, data):
        event = self.pick(data, self.settled)
        assert self.acl.rt.destroy_event(event.handle) == OK
        self.live.remove(event)

    def settled(self, event: ModelEvent) -> bool:
        """Whether nothing queued refers to the event any more (its record, reset and the waits for it have run)."""
        waits = [(s, i) for s in self.streams for i, item in enumerate(s.items) if item.kind == "wait"
                 and item.event is event]
        return all(place is None or done(place) for place in [event.record, event.reset, *waits])

    @rule()
    def recorded_events_have_distinct_ids(self):
        recorded = [e for e in self.live if done(e.record) and e.reset is None]
        ids = [self.acl.rt.get_event_id(e.handle) for e in recorded]
        assert all(ret == OK for _, ret in ids), f"get_event_id gave {ids}"
        assert len({i for i, _ in ids}) == len(ids), f"recorded events share ids: {ids}"

    @rule()
    def a_null_event_is_100000(self):
        acl = self.acl
        assert acl.rt.query_event_status(0)[1] == INVALID_PARAM
        assert acl.rt.record_event(0, self.streams[0].handle) == INVALID_PARAM
        assert acl.rt.synchronize_event(0) == INVALID_PARAM

    # ---------------------------------------------------------------- streams and copies

    @rule(which=st.integers(0, 1), size=st.sampled_from([64, 4096, BUFFER]), byte=st.integers(0, 255))
    def copy(self, which, size, byte):
        stream, acl = self.streams[which], self.acl
        data = bytes([byte]) * size
        host = flow.value(acl.rt.malloc_host(size), "acl.rt.malloc_host")
        self.scratch.append(host)
        flow.check(acl.rt.memcpy(host, size, acl.util.bytes_to_ptr(data), size, H2H), "acl.rt.memcpy H2H")
        assert acl.rt.memcpy_async(self.buffers[which], size, host, size, H2D, stream.handle) == OK
        self.queue(stream, Item("copy"))
        stream.copied = data + stream.copied[size:]

    @rule(which=st.integers(0, 1))
    def synchronize_stream(self, which):
        stream = self.streams[which]
        if self.blocked(stream):
            ret = self.acl.rt.synchronize_stream_with_timeout(stream.handle, SHORT_MS)
            assert ret == STREAM_SYNC_TIMEOUT, \
                f"synchronize_stream_with_timeout({SHORT_MS}) of a stream held by a blocking callback gave {ret}"
            return
        self.done_within(stream)
        assert self.acl.rt.synchronize_stream(stream.handle) == OK
        settle(stream, len(stream.items))
        self.check_copy(stream)
        self.free_scratch()

    @rule(which=st.integers(0, 1))
    def stream_query(self, which):
        stream = self.streams[which]
        status, ret = self.acl.rt.stream_query(stream.handle)
        assert ret == OK, f"stream_query gave {ret}"
        if self.blocked(stream):
            assert status == STREAM_NOT_READY, "stream_query is COMPLETE with a blocking callback not yet run"
        elif stream.known_done == len(stream.items):
            assert status == STREAM_COMPLETE, "stream_query is NOT_READY after everything on the stream ran"
        if status == STREAM_COMPLETE:
            settle(stream, len(stream.items))

    @precondition(lambda self: not any(self.blocked(s) for s in self.streams))
    @rule()
    def synchronize_device(self):
        for stream in self.streams:
            self.done_within(stream)
        assert self.acl.rt.synchronize_device() == OK
        for stream in self.streams:
            settle(stream, len(stream.items))
            self.check_copy(stream)
        self.free_scratch()

    def free_scratch(self) -> None:
        if all(s.known_done == len(s.items) for s in self.streams):
            for host in self.scratch:
                flow.check(self.acl.rt.free_host(host), "acl.rt.free_host")
            self.scratch.clear()

    # ---------------------------------------------------------------- callbacks and report threads

    @rule(which=st.integers(0, 1), block=st.booleans())
    def launch_callback(self, which, block):
        stream = self.streams[which]
        self.callbacks += 1
        number = self.callbacks
        ran = self.ran
        assert self.acl.rt.launch_callback(lambda args: ran.append((number, args, threading.get_ident())),
                                           ("args", number), BLOCK if block else NO_BLOCK, stream.handle) == OK
        self.queue(stream, Item("callback", callback=number, block=block))

    @rule(which=st.integers(0, 1))
    def process_report(self, which):
        stream = self.streams[which]
        index = self.next_callback(stream)
        due = index is not None and passable(stream, index)
        before = len(self.ran)
        ret = stream.reporter.process_report(DUE_MS if due else NOT_DUE_MS)
        if not due:
            assert ret == REPORT_TIMEOUT, f"process_report with no callback due gave {ret}"
            assert len(self.ran) == before, f"process_report ran a callback that was not due: {self.ran[before:]}"
            return
        item = stream.items[index]
        assert ret == OK, f"process_report with callback {item.callback} due gave {ret}"
        item.ran = True
        settle(stream, index)
        assert self.ran[before:] == [(item.callback, ("args", item.callback), stream.reporter.ident)], \
            f"process_report ran {self.ran[before:]}, the model expects callback {item.callback} in its thread"

    @rule(which=st.integers(0, 1))
    def resubscribe(self, which):
        stream, acl = self.streams[which], self.acl
        if self.next_callback(stream) is not None:
            return  # callbacks not run yet: what unsubscribing does to them is UNCONFIRMED
        assert acl.rt.subscribe_report(stream.reporter.ident, stream.handle) == STREAM_SUBSCRIBE
        assert acl.rt.unsubscribe_report(stream.reporter.ident, stream.handle) == OK
        assert acl.rt.launch_callback(lambda _: None, None, NO_BLOCK, stream.handle) == STREAM_NO_CB_REG
        assert acl.rt.unsubscribe_report(stream.reporter.ident, stream.handle) == STREAM_SUBSCRIBE
        assert acl.rt.subscribe_report(stream.reporter.ident, stream.handle) == OK

    @rule(which=st.integers(0, 1))
    def bad_callback_arguments_are_100000(self, which):
        acl = self.acl
        assert acl.rt.launch_callback(lambda _: None, None, 2, self.streams[which].handle) == INVALID_PARAM
        assert acl.rt.process_report(0) == INVALID_PARAM

    # ---------------------------------------------------------------- teardown

    def run_every_callback_due(self) -> None:
        """Have the report threads run whatever callbacks come due, unchecked, so that after a failed check nothing
        is left waiting for a blocking callback when the streams are destroyed."""
        for _ in range(self.callbacks + 1):
            if all(s.reporter.process_report(NOT_DUE_MS) != OK for s in self.streams):
                return

    def teardown(self):
        acl = self.acl
        try:
            while any(self.next_callback(s) is not None for s in self.streams):
                for stream in self.streams:
                    index = self.next_callback(stream)
                    if index is not None and passable(stream, index):
                        self.process_report(stream.index)
            for stream in self.streams:
                self.done_within(stream)
            assert acl.rt.synchronize_device() == OK
            for stream in self.streams:
                settle(stream, len(stream.items))
            for event in self.live:
                assert self.status(event) in self.expected_status(event)
                assert acl.rt.destroy_event(event.handle) == OK
        finally:
            self.run_every_callback_due()
            for stream in self.streams:
                acl.rt.unsubscribe_report(stream.reporter.ident, stream.handle)
                stream.reporter.stop()
                acl.rt.destroy_stream(stream.handle)
            for ptr in self.buffers:
                acl.rt.free(ptr)
            for host in [self.host, *self.scratch]:
                acl.rt.free_host(host)


def machine_settings(profile: settings, name: str | None) -> settings:
    """The machine's settings under a profile: EXAMPLES_PER_PROFILE_EXAMPLE times its examples, not shrunk under
    UNSHRUNK_PROFILES."""
    phases = [phase for phase in profile.phases if name not in UNSHRUNK_PROFILES or phase is not Phase.shrink]
    return settings(profile, max_examples=profile.max_examples * EXAMPLES_PER_PROFILE_EXAMPLE, phases=phases)


def test_event_stream_and_callback_states_follow_the_documented_model(acl, session):
    machine = type("EventMachine", (EventMachine,), {"acl": acl, "context": session.context})
    run_state_machine_as_test(machine, settings=machine_settings(settings.default, settings.get_current_profile_name()))


# ---------------------------------------------------------------- pinned sequences
# The machine reaches these states seldom in the ci profile's few examples; each is stated once more as a plain test.


@pytest.fixture
def held(acl: Any, session: Any) -> Any:
    """A new stream held by a blocking callback its own report thread runs when the test calls release()."""
    reporter = ReportThread(acl, session.context)
    assert reporter.answer() == OK
    stream = flow.value(acl.rt.create_stream(), "acl.rt.create_stream")
    assert acl.rt.subscribe_report(reporter.ident, stream) == OK
    assert acl.rt.launch_callback(lambda _: None, None, BLOCK, stream) == OK
    released = []

    def release() -> None:
        if not released:
            released.append(reporter.process_report(DUE_MS))
            assert released == [OK], f"process_report with the blocking callback due gave {released[0]}"

    try:
        yield stream, release
    finally:
        release()
        assert acl.rt.synchronize_stream(stream) == OK
        assert acl.rt.unsubscribe_report(reporter.ident, stream) == OK
        reporter.stop()
        assert acl.rt.destroy_stream(stream) == OK


@pytest.fixture
def sync_event(acl: Any) -> Any:
    """An event of create_event_with_flag(ACL_EVENT_SYNC), destroyed at the end."""
    event = flow.value(acl.rt.create_event_with_flag(SYNC), "acl.rt.create_event_with_flag")
    yield event
    assert acl.rt.destroy_event(event) == OK


def recorded_status(acl: Any, event: int) -> int:
    status, ret = acl.rt.query_event_status(event)
    assert ret == OK, f"query_event_status gave {ret}"
    return status


def test_an_event_is_not_ready_again_once_its_reset_ran(acl, stream, sync_event):
    assert acl.rt.record_event(sync_event, stream) == OK
    assert acl.rt.synchronize_stream(stream) == OK
    assert recorded_status(acl, sync_event) == RECORDED_COMPLETE
    assert acl.rt.reset_event(sync_event, stream) == OK
    assert acl.rt.synchronize_stream(stream) == OK
    assert recorded_status(acl, sync_event) == RECORDED_NOT_READY


def test_a_later_record_held_back_replaces_a_record_that_ran(acl, stream, held, sync_event):
    held_stream, release = held
    assert acl.rt.record_event(sync_event, stream) == OK
    assert acl.rt.synchronize_stream(stream) == OK
    assert recorded_status(acl, sync_event) == RECORDED_COMPLETE
    assert acl.rt.record_event(sync_event, held_stream) == OK
    assert recorded_status(acl, sync_event) == RECORDED_NOT_READY
    release()
    assert acl.rt.synchronize_event(sync_event) == OK
    assert recorded_status(acl, sync_event) == RECORDED_COMPLETE


def test_a_stream_waiting_for_a_held_back_record_is_held_too(acl, stream, held, sync_event):
    held_stream, release = held
    assert acl.rt.record_event(sync_event, held_stream) == OK
    assert acl.rt.stream_wait_event(stream, sync_event) == OK
    assert acl.rt.synchronize_stream_with_timeout(stream, SHORT_MS) == STREAM_SYNC_TIMEOUT
    assert acl.rt.stream_query(stream) == (STREAM_NOT_READY, OK)
    release()
    assert acl.rt.synchronize_stream(stream) == OK
    assert recorded_status(acl, sync_event) == RECORDED_COMPLETE


def test_event_elapsed_time_needs_two_records_that_ran(acl, stream, held):
    held_stream, release = held
    start = flow.value(acl.rt.create_event(), "acl.rt.create_event")
    end = flow.value(acl.rt.create_event(), "acl.rt.create_event")
    try:
        assert acl.rt.record_event(end, stream) == OK
        assert acl.rt.synchronize_stream(stream) == OK
        ms, ret = acl.rt.event_elapsed_time(start, end)
        assert ret != OK, f"event_elapsed_time with a start event never recorded gave ({ms}, {ret})"
        assert acl.rt.record_event(start, held_stream) == OK
        ms, ret = acl.rt.event_elapsed_time(start, end)
        assert ret != OK, f"event_elapsed_time with a start record held back gave ({ms}, {ret})"
    finally:
        release()
        assert acl.rt.synchronize_stream(held_stream) == OK
        assert acl.rt.destroy_event(start) == OK
        assert acl.rt.destroy_event(end) == OK
