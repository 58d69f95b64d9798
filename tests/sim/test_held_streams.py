"""Queries and timed synchronisations of work held back by a blocking host callback that no report thread has run
yet, and records replaced before they ran (issue 40; found by conformance/test_event_states.py)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from aclcts.sim import streams

BLOCK = 1
NOT_READY_STATUS, COMPLETE_STATUS = 1, 0  # aclrtEventStatus and aclrtStreamStatus
RECORDED_NOT_READY = 0  # aclrtEventRecordedStatus
STREAM_SYNC_TIMEOUT, EVENT_SYNC_TIMEOUT = 507046, 507047


@pytest.fixture
def held(session: Any, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Any, int, int]]:
    """The session stream held by a blocking callback, an event recorded behind it; the stream is let go at the end by
    a report thread. A wait for the callback fails after 1 s instead of 60 (so that a query that waits fails fast)."""
    monkeypatch.setattr(streams, "CALLBACK_WAIT_S", 1.0)
    acl = session.acl
    served = threading.Event()
    reporter = threading.Thread(target=lambda: (served.wait(30), acl.rt.process_report(5000)))
    reporter.start()
    assert acl.rt.subscribe_report(reporter.ident, session.stream) == 0
    assert acl.rt.launch_callback(lambda _: None, None, BLOCK, session.stream) == 0
    event, ret = acl.rt.create_event()
    assert ret == 0 and acl.rt.record_event(event, session.stream) == 0
    yield acl, session.stream, event
    served.set()
    reporter.join(30)
    assert acl.rt.synchronize_stream(session.stream) == 0
    assert acl.rt.unsubscribe_report(reporter.ident, session.stream) == 0
    assert acl.rt.destroy_event(event) == 0


def test_queries_of_held_work_answer_not_ready_at_once(held):
    acl, stream, event = held
    start = time.monotonic()
    assert acl.rt.query_event(event) == (NOT_READY_STATUS, 0)
    assert acl.rt.query_event_status(event) == (RECORDED_NOT_READY, 0)
    assert acl.rt.stream_query(stream) == (NOT_READY_STATUS, 0)
    assert acl.rt.stream_query(stream) == (NOT_READY_STATUS, 0), "a second query let the blocking callback pass"
    assert time.monotonic() - start < 0.5


def test_timed_synchronisations_of_held_work_give_their_timeout_codes(held):
    acl, stream, event = held
    assert acl.rt.synchronize_stream_with_timeout(stream, 20) == STREAM_SYNC_TIMEOUT
    assert acl.rt.synchronize_event_with_timeout(event, 20) == EVENT_SYNC_TIMEOUT


def test_a_record_replaced_before_it_ran_does_not_complete_the_event(held, session):
    acl, stream, event = held
    other, ret = acl.rt.create_stream()
    assert ret == 0
    assert acl.rt.record_event(event, other) == 0
    assert acl.rt.record_event(event, stream) == 0  # the record behind the callback replaces the one on `other`
    assert acl.rt.synchronize_stream(other) == 0
    assert acl.rt.query_event_status(event) == (RECORDED_NOT_READY, 0)
    assert acl.rt.destroy_stream(other) == 0


def test_a_reset_event_stays_not_ready_when_its_earlier_record_runs(session):
    acl = session.acl
    event, ret = acl.rt.create_event_with_flag(1)  # ACL_EVENT_SYNC
    assert ret == 0
    assert acl.rt.record_event(event, session.stream) == 0
    assert acl.rt.reset_event(event, session.stream) == 0
    assert acl.rt.synchronize_stream(session.stream) == 0
    assert acl.rt.query_event_status(event) == (RECORDED_NOT_READY, 0)
    assert acl.rt.destroy_event(event) == 0
