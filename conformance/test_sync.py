"""Streams, events and synchronisation (docs/contract/sync-events-callbacks.md): queued work, its order, and when it is
visible."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from aclcts.drive import flow
from aclcts.core.constants import (DataType, DeviceStatus, ErrorCode, EventRecordedStatus, EventStatus,
                                   EventWaitStatus, Format, LogLevel, MemcpyKind, StreamStatus)
from fresh_process import run_fresh

pytestmark = pytest.mark.sync

OK = ErrorCode.ACL_SUCCESS
RT_PARAM_INVALID = ErrorCode.ACL_ERROR_RT_PARAM_INVALID
INVALID_PARAM = ErrorCode.ACL_ERROR_INVALID_PARAM
INVALID_DEVICEID = ErrorCode.ACL_ERROR_RT_INVALID_DEVICEID
REPEAT_INITIALIZE, REPEAT_FINALIZE = ErrorCode.ACL_ERROR_REPEAT_INITIALIZE, ErrorCode.ACL_ERROR_REPEAT_FINALIZE
INT32 = int(DataType.ACL_INT32)
ND = int(Format.ACL_FORMAT_ND)
H2H = int(MemcpyKind.ACL_MEMCPY_HOST_TO_HOST)
H2D = int(MemcpyKind.ACL_MEMCPY_HOST_TO_DEVICE)
D2H = int(MemcpyKind.ACL_MEMCPY_DEVICE_TO_HOST)
D2D = int(MemcpyKind.ACL_MEMCPY_DEVICE_TO_DEVICE)
#: Add int32 [8, 16] is a suite model (aclcts/pytest_plugin/library.py SUITE_MODEL_CASES): the session's model folder
#: holds it on every backend whatever --cases selects.
SHAPE = (8, 16)
X1 = np.arange(128, dtype=np.int32).reshape(SHAPE) * 3 - 5
X2 = np.arange(128, dtype=np.int32).reshape(SHAPE) + 1000
N = X1.nbytes
POISON = 0x7B


@pytest.fixture
def deferred(aclcts_backend: Any) -> bool:
    """Whether the backend declares deferred execution (queued work waits for a synchronisation); elsewhere results
    seen before synchronising are legal (a device may finish first) and only results missing after it are a defect."""
    return aclcts_backend.deferred_execution


@pytest.fixture
def second_stream(acl: Any) -> Iterator[int]:
    """A stream of the session context besides the session stream, destroyed at the end."""
    stream = flow.value(acl.rt.create_stream(), "acl.rt.create_stream")
    yield stream
    flow.check(acl.rt.destroy_stream(stream), "acl.rt.destroy_stream")


#: The ways to create an event, each called with the acl module: a name and the call.
EVENT_MAKERS = {
    "create_event": lambda acl: acl.rt.create_event(),
    "create_event_ex_with_flag-sync": lambda acl: acl.rt.create_event_ex_with_flag(1),  # ACL_EVENT_SYNC
}


@pytest.fixture
def event(acl: Any) -> Iterator[int]:
    """An event, destroyed at the end."""
    handle = flow.value(acl.rt.create_event(), "acl.rt.create_event")
    yield handle
    flow.check(acl.rt.destroy_event(handle), "acl.rt.destroy_event")


@pytest.fixture(params=list(EVENT_MAKERS))
def any_event(acl: Any, request: pytest.FixtureRequest) -> Iterator[int]:
    """An event made each way EVENT_MAKERS gives, destroyed at the end."""
    handle = flow.value(EVENT_MAKERS[request.param](acl), f"acl.rt.{request.param}")
    yield handle
    flow.check(acl.rt.destroy_event(handle), "acl.rt.destroy_event")


def host_copy(res: flow.Resources, data: bytes) -> int:
    """Page-locked host memory (malloc_host) holding data."""
    host = flow.malloc_host(res, len(data))
    flow.check(res.acl.rt.memcpy(host, len(data), res.acl.util.bytes_to_ptr(data), len(data), H2H), "acl.rt.memcpy")
    return host


def device_copy(res: flow.Resources, data: bytes) -> int:
    """Device memory holding data (synchronous copy)."""
    ptr = flow.malloc(res, len(data))
    flow.copy_to_device(res.acl, ptr, np.frombuffer(data, np.uint8))
    return ptr


def read_now(res: flow.Resources, ptr: int, size: int = N) -> bytes:
    """Device bytes through a synchronous memcpy, which does not synchronise any stream."""
    return flow.copy_to_host(res, ptr, size)


def execute_add(res: flow.Resources, p1: int, p2: int, py: int, stream: int) -> None:
    """Queue execute_v2 of Add int32 [8, 16] on stream: py = p1 + p2."""
    acl = res.acl
    descs = [flow.create_desc(res, INT32, SHAPE, ND) for _ in range(3)]
    bufs = [flow.create_buffer(res, p, N) for p in (p1, p2, py)]
    flow.check(acl.op.execute_v2("Add", descs[:2], bufs[:2], descs[2:], bufs[2:], 0, stream), "acl.op.execute_v2")


def as_array(data: bytes) -> np.ndarray:
    """Bytes of an int32 [8, 16] tensor."""
    return np.frombuffer(data, np.int32).reshape(SHAPE)


# ---------------------------------------------------------------- deferred results


def queue_execute(res: flow.Resources, stream: int) -> tuple[int, bytes]:
    """execute_v2 Add into a poisoned output; (output pointer, expected bytes)."""
    p1, p2 = device_copy(res, X1.tobytes()), device_copy(res, X2.tobytes())
    py = device_copy(res, bytes([POISON]) * N)
    execute_add(res, p1, p2, py, stream)
    return py, (X1 + X2).tobytes()


def queue_memcpy_async(res: flow.Resources, stream: int) -> tuple[int, bytes]:
    """memcpy_async device to device into a poisoned buffer."""
    src, dst = device_copy(res, X1.tobytes()), device_copy(res, bytes([POISON]) * N)
    flow.check(res.acl.rt.memcpy_async(dst, N, src, N, D2D, stream), "acl.rt.memcpy_async")
    return dst, X1.tobytes()


def queue_memset_async(res: flow.Resources, stream: int) -> tuple[int, bytes]:
    """memset_async over a poisoned buffer."""
    dst = device_copy(res, bytes([POISON]) * N)
    flow.check(res.acl.rt.memset_async(dst, N, 0x22, N, stream), "acl.rt.memset_async")
    return dst, b"\x22" * N


PRODUCERS = [pytest.param(queue_execute, id="execute_v2"), pytest.param(queue_memcpy_async, id="memcpy_async"),
             pytest.param(queue_memset_async, id="memset_async")]


@pytest.mark.parametrize("produce", PRODUCERS)
def test_queued_results_are_visible_only_after_synchronize_stream(acl, res, stream, deferred, produce):
    ptr, expected = produce(res, stream)
    if deferred:
        assert read_now(res, ptr) == bytes([POISON]) * N, "the result was visible before synchronize_stream"
    assert acl.rt.synchronize_stream(stream) == OK
    assert read_now(res, ptr) == expected


# ---------------------------------------------------------------- one stream, one synchronisation


def sync_stream(acl: Any, stream: int) -> int:
    """synchronize_stream."""
    return acl.rt.synchronize_stream(stream)


def sync_with_timeout_forever(acl: Any, stream: int) -> int:
    """synchronize_stream_with_timeout(stream, -1)."""
    return acl.rt.synchronize_stream_with_timeout(stream, -1)


def sync_with_timeout_5s(acl: Any, stream: int) -> int:
    """synchronize_stream_with_timeout(stream, 5000)."""
    return acl.rt.synchronize_stream_with_timeout(stream, 5000)


def sync_device(acl: Any, stream: int) -> int:
    """synchronize_device."""
    return acl.rt.synchronize_device()


def sync_event(acl: Any, stream: int) -> int:
    """record_event on the stream, then synchronize_event."""
    event = flow.value(acl.rt.create_event(), "acl.rt.create_event")
    try:
        flow.check(acl.rt.record_event(event, stream), "acl.rt.record_event")
        return acl.rt.synchronize_event(event)
    finally:
        flow.check(acl.rt.destroy_event(event), "acl.rt.destroy_event")


def poll_stream_query(acl: Any, stream: int) -> int:
    """stream_query until it reports COMPLETE (at most about 10 s)."""
    for _ in range(1000):
        status, ret = acl.rt.stream_query(stream)
        if ret != OK or status == StreamStatus.ACL_STREAM_STATUS_COMPLETE:
            return ret
        time.sleep(0.01)
    return -1


SYNCS = [pytest.param(sync_stream, id="synchronize_stream"),
         pytest.param(sync_with_timeout_forever, id="synchronize_stream_with_timeout-minus-1"),
         pytest.param(sync_with_timeout_5s, id="synchronize_stream_with_timeout-5000"),
         pytest.param(sync_device, id="synchronize_device"),
         pytest.param(sync_event, id="record_event-synchronize_event"),
         pytest.param(poll_stream_query, id="stream_query-until-complete")]


@pytest.mark.parametrize("synchronize", SYNCS)
def test_h2d_execute_d2h_queued_on_one_stream_need_one_synchronisation(acl, res, stream, deferred,
                                                                       synchronize: Callable):
    h1, h2 = host_copy(res, X1.tobytes()), host_copy(res, X2.tobytes())
    hy = host_copy(res, bytes([POISON]) * N)
    p1, p2, py = (flow.malloc(res, N) for _ in range(3))
    flow.check(acl.rt.memcpy_async(p1, N, h1, N, H2D, stream), "acl.rt.memcpy_async H2D")
    flow.check(acl.rt.memcpy_async(p2, N, h2, N, H2D, stream), "acl.rt.memcpy_async H2D")
    execute_add(res, p1, p2, py, stream)
    flow.check(acl.rt.memcpy_async(hy, N, py, N, D2H, stream), "acl.rt.memcpy_async D2H")
    if deferred:
        assert acl.util.ptr_to_bytes(hy, N) == bytes([POISON]) * N, "the copy-back ran before any synchronisation"
    assert synchronize(acl, stream) == OK
    np.testing.assert_array_equal(as_array(acl.util.ptr_to_bytes(hy, N)), X1 + X2)


@pytest.mark.parametrize("synchronize", SYNCS)
def test_every_synchronisation_form_completes_work_queued_on_the_default_stream_0(acl, res, synchronize: Callable):
    dst, expected = queue_memcpy_async(res, 0)
    assert synchronize(acl, 0) == OK
    assert read_now(res, dst) == expected


def test_work_on_one_stream_runs_in_queue_order_where_a_later_write_follows_a_read(acl, res, stream):
    ptr, copy = device_copy(res, bytes(N)), device_copy(res, bytes(N))
    flow.check(acl.rt.memset_async(ptr, N, 0x01, N, stream), "acl.rt.memset_async")
    flow.check(acl.rt.memcpy_async(copy, N, ptr, N, D2D, stream), "acl.rt.memcpy_async")
    flow.check(acl.rt.memset_async(ptr, N, 0x02, 64, stream), "acl.rt.memset_async")
    assert acl.rt.synchronize_stream(stream) == OK
    assert (read_now(res, copy), read_now(res, ptr)) == (b"\x01" * N, b"\x02" * 64 + b"\x01" * (N - 64))


@pytest.mark.filterwarnings("ignore::UserWarning")  # a backend may warn that work was still queued; it must wait
def test_destroy_stream_waits_for_its_queued_work(acl, res):
    stream = flow.value(acl.rt.create_stream(), "acl.rt.create_stream")
    dst, expected = queue_memcpy_async(res, stream)
    assert acl.rt.destroy_stream(stream) == OK
    assert read_now(res, dst) == expected


def pageable(data: bytes) -> np.ndarray:
    """64-byte aligned pageable host memory (a NumPy array, not malloc_host) holding data."""
    raw = np.zeros(len(data) + 64, np.uint8)
    offset = (-raw.ctypes.data) % 64
    view = raw[offset:offset + len(data)]
    view[:] = np.frombuffer(data, np.uint8)
    return view


def test_memcpy_async_from_pageable_memory_copies_the_source_as_it_was_at_the_call(acl, res, stream):
    source = pageable(X1.tobytes())
    dst = device_copy(res, bytes([POISON]) * N)
    assert acl.rt.memcpy_async(dst, N, source.ctypes.data, N, H2D, stream) == OK
    source[:] = POISON
    assert acl.rt.synchronize_stream(stream) == OK
    assert read_now(res, dst) == X1.tobytes()


def test_memcpy_async_to_pageable_memory_returns_with_the_stream_done_and_the_data_there(acl, res, stream):
    src = device_copy(res, X1.tobytes())
    target = pageable(bytes([POISON]) * N)
    flow.check(acl.rt.memset_async(src, N, 0x22, N, stream), "acl.rt.memset_async")
    assert acl.rt.memcpy_async(target.ctypes.data, N, src, N, D2H, stream) == OK
    assert target.tobytes() == b"\x22" * N
    assert acl.rt.stream_query(stream) == (int(StreamStatus.ACL_STREAM_STATUS_COMPLETE), OK)


def test_work_queued_on_the_default_stream_0_is_done_after_synchronize_stream_0(acl, res):
    src, dst = device_copy(res, X1.tobytes()), device_copy(res, bytes([POISON]) * N)
    assert acl.rt.memcpy_async(dst, N, src, N, D2D, 0) == OK
    assert acl.rt.synchronize_stream(0) == OK
    assert read_now(res, dst) == X1.tobytes()


def test_stream_query_reports_complete_after_synchronize(acl, res, stream):
    queue_memset_async(res, stream)
    assert acl.rt.synchronize_stream(stream) == OK
    assert acl.rt.stream_query(stream) == (int(StreamStatus.ACL_STREAM_STATUS_COMPLETE), OK)


# ---------------------------------------------------------------- two streams and events


def test_a_second_stream_waiting_on_an_event_sees_the_first_streams_work(acl, res, stream, second_stream, event):
    h1, h2 = host_copy(res, X1.tobytes()), host_copy(res, X2.tobytes())
    hy = host_copy(res, bytes([POISON]) * N)
    p1, p2, py = (flow.malloc(res, N) for _ in range(3))
    flow.check(acl.rt.memcpy_async(p1, N, h1, N, H2D, stream), "acl.rt.memcpy_async H2D")
    flow.check(acl.rt.memcpy_async(p2, N, h2, N, H2D, stream), "acl.rt.memcpy_async H2D")
    assert acl.rt.record_event(event, stream) == OK
    assert acl.rt.stream_wait_event(second_stream, event) == OK
    execute_add(res, p1, p2, py, second_stream)
    flow.check(acl.rt.memcpy_async(hy, N, py, N, D2H, second_stream), "acl.rt.memcpy_async D2H")
    assert acl.rt.synchronize_stream(second_stream) == OK
    np.testing.assert_array_equal(as_array(acl.util.ptr_to_bytes(hy, N)), X1 + X2)
    assert acl.rt.synchronize_stream(stream) == OK


def test_chained_executions_on_two_streams_are_ordered_by_an_event(acl, res, stream, second_stream, any_event):
    event = any_event
    p1, p2 = device_copy(res, X1.tobytes()), device_copy(res, X2.tobytes())
    mid, out = device_copy(res, bytes([POISON]) * N), device_copy(res, bytes([POISON]) * N)
    execute_add(res, p1, p2, mid, stream)
    assert acl.rt.record_event(event, stream) == OK
    assert acl.rt.stream_wait_event(second_stream, event) == OK
    execute_add(res, mid, p2, out, second_stream)
    assert acl.rt.synchronize_stream(second_stream) == OK
    np.testing.assert_array_equal(as_array(read_now(res, out)), X1 + 2 * X2)
    assert acl.rt.synchronize_stream(stream) == OK


def test_query_event_reports_complete_after_synchronize_event(acl, res, stream, event):
    queue_memset_async(res, stream)
    assert acl.rt.record_event(event, stream) == OK
    assert acl.rt.synchronize_event(event) == OK
    assert acl.rt.query_event(event) == (int(EventStatus.ACL_EVENT_STATUS_COMPLETE), OK)


def test_synchronize_device_completes_the_work_of_every_stream(acl, res, stream, second_stream):
    first, first_expected = queue_memcpy_async(res, stream)
    second, second_expected = queue_memset_async(res, second_stream)
    default, default_expected = queue_memcpy_async(res, 0)
    assert acl.rt.synchronize_device() == OK
    assert (read_now(res, first), read_now(res, second), read_now(res, default)) == \
        (first_expected, second_expected, default_expected)


# ---------------------------------------------------------------- synchronize_stream_with_timeout codes


@pytest.mark.parametrize("timeout, expected", [
    pytest.param(-1, OK, id="minus-1-waits-forever"),
    pytest.param(1, OK, id="1ms"),
    pytest.param(1000, OK, id="1000ms"),
    pytest.param(0, RT_PARAM_INVALID, id="0", marks=pytest.mark.negative),
    pytest.param(-2, RT_PARAM_INVALID, id="minus-2", marks=pytest.mark.negative),
    pytest.param(-1000, RT_PARAM_INVALID, id="minus-1000", marks=pytest.mark.negative),
])
def test_synchronize_stream_with_timeout_codes(acl, stream, timeout, expected):
    assert acl.rt.synchronize_stream_with_timeout(stream, timeout) == expected


def test_an_event_polled_with_query_event_status_until_complete_shows_its_work_done(acl, res, stream, event):
    # No synchronisation call: the event's status alone says the work recorded before it has finished.
    done, expected = queue_memcpy_async(res, stream)
    assert acl.rt.record_event(event, stream) == OK
    deadline = time.monotonic() + 30
    status = acl.rt.query_event_status(event)
    while status == (int(EventRecordedStatus.ACL_EVENT_RECORDED_STATUS_NOT_READY), OK) and time.monotonic() < deadline:
        time.sleep(0.001)
        status = acl.rt.query_event_status(event)
    assert status == (int(EventRecordedStatus.ACL_EVENT_RECORDED_STATUS_COMPLETE), OK)
    assert read_now(res, done) == expected


def test_query_event_status_of_an_event_never_recorded_is_not_ready(acl, event):
    assert acl.rt.query_event_status(event) == (int(EventRecordedStatus.ACL_EVENT_RECORDED_STATUS_NOT_READY), OK)


def test_query_event_wait_status_after_synchronize_event_is_complete(acl, res, stream, event):
    queue_memset_async(res, stream)
    assert acl.rt.record_event(event, stream) == OK
    assert acl.rt.synchronize_event(event) == OK
    assert acl.rt.query_event_wait_status(event) == (int(EventWaitStatus.ACL_EVENT_WAIT_STATUS_COMPLETE), OK)


@pytest.mark.parametrize("timeout, expected", [
    pytest.param(-1, OK, id="minus-1-waits-forever"),
    pytest.param(1000, OK, id="1000ms"),
    pytest.param(0, RT_PARAM_INVALID, id="0", marks=pytest.mark.negative),
    pytest.param(-2, RT_PARAM_INVALID, id="minus-2", marks=pytest.mark.negative),
])
def test_synchronize_device_with_timeout_codes(acl, timeout, expected):
    assert acl.rt.synchronize_device_with_timeout(timeout) == expected


def test_synchronize_device_with_timeout_completes_the_work_of_every_stream(acl, res, stream, second_stream):
    first, first_expected = queue_memcpy_async(res, stream)
    second, second_expected = queue_memset_async(res, second_stream)
    assert acl.rt.synchronize_device_with_timeout(-1) == OK
    assert (read_now(res, first), read_now(res, second)) == (first_expected, second_expected)


# ---------------------------------------------------------------- host callbacks and report threads

ACL_CALLBACK_NO_BLOCK, ACL_CALLBACK_BLOCK = 0, 1
REPORT_TIMEOUT = ErrorCode.ACL_ERROR_RT_REPORT_TIMEOUT
STREAM_NO_CB_REG = ErrorCode.ACL_ERROR_RT_STREAM_NO_CB_REG
STREAM_SUBSCRIBE, THREAD_SUBSCRIBE = ErrorCode.ACL_ERROR_RT_STREAM_SUBSCRIBE, ErrorCode.ACL_ERROR_RT_THREAD_SUBSCRIBE


@pytest.fixture
def report_thread(acl: Any, session: flow.Session) -> Iterator[tuple[int, list[int]]]:
    """A thread started with acl.util.start_thread that calls process_report(20) in the session context until the
    test ends; its id and the codes process_report gave it."""
    running, codes = [True], []

    def serve(context: int) -> None:
        acl.rt.set_context(context)
        while running[0]:
            codes.append(acl.rt.process_report(20))

    thread, ret = acl.util.start_thread(serve, session.context)
    assert ret == OK
    yield thread, codes
    running[0] = False
    assert acl.util.stop_thread(thread) == OK


@pytest.mark.parametrize("block_type", [ACL_CALLBACK_BLOCK, ACL_CALLBACK_NO_BLOCK], ids=["block", "no-block"])
def test_a_callback_runs_in_the_subscribed_thread_after_the_work_before_it(acl, res, second_stream, report_thread,
                                                                           block_type):
    thread, _ = report_thread
    seen: list[tuple[Any, int, bytes]] = []
    dst, expected = queue_memset_async(res, second_stream)
    assert acl.rt.subscribe_report(thread, second_stream) == OK
    try:
        callback = lambda data: seen.append((data, threading.get_ident(), read_now(res, dst)))  # noqa: E731
        assert acl.rt.launch_callback(callback, "user data", block_type, second_stream) == OK
        assert acl.rt.synchronize_stream(second_stream) == OK
        deadline = time.monotonic() + 30
        while not seen and time.monotonic() < deadline:
            time.sleep(0.001)
    finally:
        assert acl.rt.unsubscribe_report(thread, second_stream) == OK
    assert seen == [("user data", thread, expected)]


def test_a_non_blocking_callback_comes_due_with_no_synchronisation_after_the_work_before_it(acl, res, second_stream,
                                                                                         report_thread):
    # Nothing synchronises the stream: the report thread alone brings the callback due, once the memset has run.
    thread, _ = report_thread
    seen: list[bytes] = []
    dst, expected = queue_memset_async(res, second_stream)
    assert acl.rt.subscribe_report(thread, second_stream) == OK
    try:
        assert acl.rt.launch_callback(lambda _: seen.append(read_now(res, dst)), None, ACL_CALLBACK_NO_BLOCK,
                                      second_stream) == OK
        deadline = time.monotonic() + 30
        while not seen and time.monotonic() < deadline:
            time.sleep(0.001)
    finally:
        assert acl.rt.synchronize_stream(second_stream) == OK
        assert acl.rt.unsubscribe_report(thread, second_stream) == OK
    assert seen == [expected]


def test_work_behind_a_blocking_callback_waits_for_it(acl, res, second_stream, report_thread):
    thread, _ = report_thread
    order: list[str] = []
    dst = device_copy(res, bytes([POISON]) * N)
    assert acl.rt.subscribe_report(thread, second_stream) == OK
    try:
        def callback(_: Any) -> None:
            time.sleep(0.05)
            order.append("callback")

        assert acl.rt.launch_callback(callback, None, ACL_CALLBACK_BLOCK, second_stream) == OK
        flow.check(acl.rt.memset_async(dst, N, 0x33, N, second_stream), "acl.rt.memset_async")
        assert acl.rt.synchronize_stream(second_stream) == OK
        order.append("synchronized")
    finally:
        assert acl.rt.unsubscribe_report(thread, second_stream) == OK
    assert order == ["callback", "synchronized"]
    assert read_now(res, dst) == b"\x33" * N


@pytest.mark.negative
def test_process_report_with_nothing_due_times_out(acl, second_stream, report_thread):
    thread, codes = report_thread
    assert acl.rt.subscribe_report(thread, second_stream) == OK
    try:
        deadline = time.monotonic() + 30
        while REPORT_TIMEOUT not in codes and time.monotonic() < deadline:
            time.sleep(0.005)
    finally:
        assert acl.rt.unsubscribe_report(thread, second_stream) == OK
    assert REPORT_TIMEOUT in codes


@pytest.mark.negative
@pytest.mark.parametrize("block_type", [ACL_CALLBACK_NO_BLOCK, ACL_CALLBACK_BLOCK], ids=["no-block", "block"])
def test_launch_callback_on_a_stream_no_thread_serves_is_107015(acl, second_stream, block_type):
    # A real Ascend 910C gave 107015 for both block types, on device 0 and 1 (FlagRT/runtime-team,
    # dev/device-context/benchmarks/inference/results_p3/acl_107015_exclusivity_result.json).
    assert acl.rt.launch_callback(lambda data: None, None, block_type, second_stream) == STREAM_NO_CB_REG
    assert acl.rt.synchronize_stream(second_stream) == OK


@pytest.mark.negative
def test_launch_callback_after_the_stream_was_unsubscribed_is_107015(acl, second_stream, report_thread):
    thread, _ = report_thread
    assert acl.rt.subscribe_report(thread, second_stream) == OK
    assert acl.rt.unsubscribe_report(thread, second_stream) == OK
    assert acl.rt.launch_callback(lambda data: None, None, ACL_CALLBACK_NO_BLOCK, second_stream) == STREAM_NO_CB_REG


@pytest.mark.negative
def test_subscribing_a_subscribed_stream_again_is_107011(acl, second_stream, report_thread):
    thread, _ = report_thread
    assert acl.rt.subscribe_report(thread, second_stream) == OK
    try:
        assert acl.rt.subscribe_report(thread, second_stream) == STREAM_SUBSCRIBE
        assert acl.rt.subscribe_report(threading.get_ident(), second_stream) == STREAM_SUBSCRIBE
    finally:
        assert acl.rt.unsubscribe_report(thread, second_stream) == OK


@pytest.mark.negative
def test_unsubscribe_report_of_a_stream_no_thread_serves_is_107011(acl, second_stream, report_thread):
    thread, _ = report_thread
    assert acl.rt.unsubscribe_report(thread, second_stream) == STREAM_SUBSCRIBE


@pytest.mark.negative
def test_unsubscribe_report_by_a_thread_that_does_not_serve_the_stream_is_107012(acl, second_stream, report_thread):
    thread, _ = report_thread
    assert acl.rt.subscribe_report(thread, second_stream) == OK
    try:
        assert acl.rt.unsubscribe_report(threading.get_ident(), second_stream) == THREAD_SUBSCRIBE
    finally:
        assert acl.rt.unsubscribe_report(thread, second_stream) == OK


@pytest.mark.negative
def test_process_report_in_a_thread_that_serves_no_stream_is_107012(acl):
    assert acl.rt.process_report(10) == THREAD_SUBSCRIBE


@pytest.mark.negative
@pytest.mark.parametrize("timeout", [0, -2])
def test_process_report_with_a_timeout_neither_minus_1_nor_positive_is_100000(acl, timeout):
    assert acl.rt.process_report(timeout) == INVALID_PARAM


def test_event_timestamps_follow_the_order_of_their_records(acl, res, stream):
    first = flow.value(acl.rt.create_event(), "acl.rt.create_event")
    second = flow.value(acl.rt.create_event(), "acl.rt.create_event")
    try:
        assert acl.rt.record_event(first, stream) == OK
        queue_memcpy_async(res, stream)
        assert acl.rt.record_event(second, stream) == OK
        assert acl.rt.synchronize_stream(stream) == OK
        (start, ret1), (end, ret2) = acl.rt.event_get_timestamp(first), acl.rt.event_get_timestamp(second)
        assert (ret1, ret2) == (OK, OK)
        assert isinstance(start, int) and start <= end
    finally:
        flow.check(acl.rt.destroy_event(first), "acl.rt.destroy_event")
        flow.check(acl.rt.destroy_event(second), "acl.rt.destroy_event")


def test_the_streams_available_count_goes_down_by_one_for_each_stream_and_back(acl):
    before = flow.value(acl.rt.get_stream_available_num(), "acl.rt.get_stream_available_num")
    assert before > 0
    stream = flow.value(acl.rt.create_stream(), "acl.rt.create_stream")
    try:
        assert acl.rt.get_stream_available_num() == (before - 1, OK)
    finally:
        flow.check(acl.rt.destroy_stream(stream), "acl.rt.destroy_stream")
    assert acl.rt.get_stream_available_num() == (before, OK)


# ---------------------------------------------------------------- device status and the thread's last error


def test_the_session_device_reports_normal_status(acl, session):
    assert acl.rt.query_device_status(session.device_id) == (int(DeviceStatus.ACL_RT_DEVICE_STATUS_NORMAL), OK)


def test_device_utilization_is_a_dict_of_percentages(acl, session):
    rates, ret = acl.rt.get_device_utilization_rate(session.device_id)
    assert ret == OK
    percentages = ("cube_utilization", "vector_utilization", "aicpu_utilization", "memory_utilization")
    assert set(rates) == {*percentages, "utilization_extend"}
    assert all(isinstance(rates[key], int) and 0 <= rates[key] <= 100 for key in percentages), rates


@pytest.mark.negative
@pytest.mark.parametrize("query", [
    pytest.param(lambda acl, device: acl.rt.query_device_status(device)[1], id="query_device_status"),
    pytest.param(lambda acl, device: acl.rt.get_device_utilization_rate(device)[1], id="get_device_utilization_rate"),
])
def test_device_queries_of_a_device_beyond_the_count_are_107001(acl, query):
    count = flow.value(acl.rt.get_device_count(), "acl.rt.get_device_count")
    assert query(acl, count) == INVALID_DEVICEID


@pytest.mark.negative
def test_the_last_error_is_peeked_without_clearing_and_got_with_clearing(acl):
    thread_level = 0  # ACL_RT_THREAD_LEVEL
    acl.rt.get_last_error(thread_level)  # whatever earlier calls of this thread left
    count = flow.value(acl.rt.get_device_count(), "acl.rt.get_device_count")
    assert acl.rt.set_device(count) == INVALID_DEVICEID
    assert acl.rt.peek_at_last_error(thread_level) == INVALID_DEVICEID
    assert acl.rt.peek_at_last_error(thread_level) == INVALID_DEVICEID
    assert acl.rt.get_last_error(thread_level) == INVALID_DEVICEID
    assert acl.rt.get_last_error(thread_level) == OK


@pytest.mark.parametrize("level", list(LogLevel), ids=lambda level: level.name)
def test_app_log_takes_every_level_and_returns_none(acl, level):
    assert acl.app_log(int(level), f"aclcts conformance: app_log at {level.name}") is None


# -------------------------------------------------------- devices, contexts and threads (init-device-context-stream.md)


def run_in_thread(func: Callable[[], Any]) -> Any:
    """func's result in a new thread (its exception re-raised here)."""
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["value"] = func()
        except BaseException as exc:  # noqa: BLE001 - re-raised in the calling thread
            box["error"] = exc

    thread = threading.Thread(target=target)
    thread.start()
    thread.join(timeout=30)
    assert not thread.is_alive(), "the thread did not finish in 30 s"
    if "error" in box:
        raise box["error"]
    return box["value"]


@pytest.fixture
def restore_context(acl: Any, session: flow.Session) -> Iterator[flow.Session]:
    """The session, whose context is made current again after the test."""
    yield session
    flow.check(acl.rt.set_context(session.context), "acl.rt.set_context")


#: More streams than any Ascend device supports (CANN's aclrtCreateStream documentation: 512 to 2048 a device).
STREAMS_BEYOND_ANY_DEVICE = 4096


@pytest.mark.negative
def test_creating_streams_beyond_the_device_limit_is_207008(acl):
    created: list[int] = []
    try:
        for _ in range(STREAMS_BEYOND_ANY_DEVICE):
            stream, ret = acl.rt.create_stream()
            if ret != OK:
                break
            created.append(stream)
        assert ret == ErrorCode.ACL_ERROR_RT_NO_STREAM_RESOURCE, f"{len(created)} streams created, then {ret}"
        assert 0 < len(created) < STREAMS_BEYOND_ANY_DEVICE
    finally:
        for stream in created:
            flow.check(acl.rt.destroy_stream(stream), "acl.rt.destroy_stream")
    again, ret = acl.rt.create_stream()
    assert ret == OK, "a stream must be creatable again once the others are destroyed"
    flow.check(acl.rt.destroy_stream(again), "acl.rt.destroy_stream")


@pytest.mark.negative
def test_calls_needing_a_context_after_the_current_one_was_destroyed_are_107002(acl, restore_context):
    session = restore_context
    context = flow.value(acl.rt.create_context(session.device_id), "acl.rt.create_context")
    assert acl.rt.destroy_context(context) == OK
    no_context = ErrorCode.ACL_ERROR_RT_CONTEXT_NULL
    assert acl.rt.get_context()[1] == no_context
    assert acl.rt.create_stream()[1] == no_context
    assert acl.rt.malloc(64, 0)[1] == no_context
    assert acl.rt.create_event()[1] == no_context


def test_set_device_accepts_every_id_below_the_device_count_and_get_device_reports_it(acl, restore_context):
    session = restore_context
    for device_id in range(flow.value(acl.rt.get_device_count(), "acl.rt.get_device_count")):
        assert acl.rt.set_device(device_id) == OK
        assert acl.rt.get_device() == (device_id, OK)
        if device_id != session.device_id:
            assert acl.rt.reset_device(device_id) == OK
        flow.check(acl.rt.set_context(session.context), "acl.rt.set_context")


def test_set_device_makes_the_devices_default_context_current(acl, restore_context):
    assert acl.rt.set_device(restore_context.device_id) == OK
    context, ret = acl.rt.get_context()
    assert ret == OK and context not in (0, restore_context.context)


def test_create_context_makes_the_new_context_current(acl, restore_context):
    context = flow.value(acl.rt.create_context(restore_context.device_id), "acl.rt.create_context")
    try:
        assert context not in (0, restore_context.context)
        assert acl.rt.get_context() == (context, OK)
    finally:
        flow.check(acl.rt.destroy_context(context), "acl.rt.destroy_context")


def test_set_context_last_call_wins(acl, restore_context):
    first = flow.value(acl.rt.create_context(restore_context.device_id), "acl.rt.create_context")
    second = flow.value(acl.rt.create_context(restore_context.device_id), "acl.rt.create_context")
    try:
        assert acl.rt.set_context(first) == OK
        assert acl.rt.set_context(restore_context.context) == OK
        assert acl.rt.get_context() == (restore_context.context, OK)
        assert acl.rt.set_context(second) == OK
        assert acl.rt.get_context() == (second, OK)
    finally:
        flow.check(acl.rt.destroy_context(first), "acl.rt.destroy_context")
        flow.check(acl.rt.destroy_context(second), "acl.rt.destroy_context")


def test_a_new_thread_has_no_current_context(acl, session):
    _, ret = run_in_thread(acl.rt.get_context)
    assert ret != OK
    assert acl.rt.get_context() == (session.context, OK)


def test_set_context_in_a_thread_is_current_only_there(acl, session):
    other = flow.value(acl.rt.create_context(session.device_id), "acl.rt.create_context")
    flow.check(acl.rt.set_context(session.context), "acl.rt.set_context")
    try:
        assert run_in_thread(lambda: (acl.rt.set_context(other), acl.rt.get_context())) == (OK, (other, OK))
        assert acl.rt.get_context() == (session.context, OK)
    finally:
        flow.check(acl.rt.destroy_context(other), "acl.rt.destroy_context")
        flow.check(acl.rt.set_context(session.context), "acl.rt.set_context")


def test_create_context_in_a_thread_is_current_only_there(acl, session):
    def worker() -> tuple[int, tuple[int, int]]:
        context = flow.value(acl.rt.create_context(session.device_id), "acl.rt.create_context")
        current = acl.rt.get_context()
        flow.check(acl.rt.destroy_context(context), "acl.rt.destroy_context")
        return context, current

    context, current = run_in_thread(worker)
    assert current == (context, OK)
    assert acl.rt.get_context() == (session.context, OK)


def test_threads_setting_the_same_device_share_its_default_context(acl, restore_context):
    device_id = restore_context.device_id
    flow.check(acl.rt.set_device(device_id), "acl.rt.set_device")
    default_context = flow.value(acl.rt.get_context(), "acl.rt.get_context")
    assert run_in_thread(lambda: (acl.rt.set_device(device_id), acl.rt.get_context())) == (OK, (default_context, OK))


def test_a_context_set_in_another_thread_reaches_the_same_memory(acl, res, session):
    data = bytes(range(64))
    ptr = device_copy(res, data)

    def worker() -> bytes:
        flow.check(acl.rt.set_context(session.context), "acl.rt.set_context")
        host = flow.value(acl.rt.malloc_host(64), "acl.rt.malloc_host")
        try:
            flow.check(acl.rt.memcpy(host, 64, ptr, 64, D2H), "acl.rt.memcpy D2H")
            return acl.util.ptr_to_bytes(host, 64)
        finally:
            flow.check(acl.rt.free_host(host), "acl.rt.free_host")

    assert run_in_thread(worker) == data


# ---------------------------------------------------------------- stream and event calls


def test_create_stream_with_config_gives_a_usable_stream(acl, res):
    stream = flow.value(acl.rt.create_stream_with_config(0, 0), "acl.rt.create_stream_with_config")
    try:
        dst, expected = queue_memset_async(res, stream)
        assert acl.rt.synchronize_stream(stream) == OK
        assert read_now(res, dst) == expected
    finally:
        flow.check(acl.rt.destroy_stream(stream), "acl.rt.destroy_stream")


def test_ctx_get_current_default_stream_returns_an_int_and_0(acl):
    stream, ret = acl.rt.ctx_get_current_default_stream()
    assert ret == OK and type(stream) is int


def test_reset_event_after_its_work_is_done_is_0(acl, stream, event):
    assert acl.rt.record_event(event, stream) == OK
    assert acl.rt.synchronize_stream(stream) == OK
    assert acl.rt.reset_event(event, stream) == OK


@pytest.mark.parametrize("work_between", [False, True], ids=["nothing-between", "work-between"])
def test_event_elapsed_time_is_a_non_negative_float_of_milliseconds(acl, res, stream, work_between):
    # Work queued between the two records takes time on any device, so then the time must be above zero.
    start = flow.value(acl.rt.create_event(), "acl.rt.create_event")
    end = flow.value(acl.rt.create_event(), "acl.rt.create_event")
    try:
        assert acl.rt.record_event(start, stream) == OK
        if work_between:
            queue_memcpy_async(res, stream)
        assert acl.rt.record_event(end, stream) == OK
        assert acl.rt.synchronize_event(end) == OK
        ms, ret = acl.rt.event_elapsed_time(start, end)
        assert ret == OK and type(ms) is float and (ms > 0.0 if work_between else ms >= 0.0)
    finally:
        flow.check(acl.rt.destroy_event(start), "acl.rt.destroy_event")
        flow.check(acl.rt.destroy_event(end), "acl.rt.destroy_event")


@pytest.mark.parametrize("timeout, expected", [
    pytest.param(-1, OK, id="minus-1-waits-forever"),
    pytest.param(1000, OK, id="1000ms"),
    pytest.param(0, RT_PARAM_INVALID, id="0", marks=pytest.mark.negative),
    pytest.param(-2, RT_PARAM_INVALID, id="minus-2", marks=pytest.mark.negative),
])
def test_synchronize_event_with_timeout_codes(acl, res, stream, event, timeout, expected):
    dst, done = queue_memcpy_async(res, stream)
    assert acl.rt.record_event(event, stream) == OK
    assert acl.rt.synchronize_event_with_timeout(event, timeout) == expected
    if expected == OK:
        assert read_now(res, dst) == done
    assert acl.rt.synchronize_stream(stream) == OK


@pytest.mark.negative
def test_synchronize_event_with_timeout_beyond_int32_is_the_wrappers_type_error(acl, event):
    with pytest.raises(TypeError, match=r"^acl.rt.synchronize_event_with_timeout args parse failed!$"):
        acl.rt.synchronize_event_with_timeout(event, 2 ** 31)


def test_recorded_events_have_distinct_event_ids(acl, stream):
    events = [flow.value(acl.rt.create_event(), "acl.rt.create_event") for _ in range(2)]
    try:
        for event in events:
            flow.check(acl.rt.record_event(event, stream), "acl.rt.record_event")
        assert acl.rt.synchronize_stream(stream) == OK
        (first, ret1), (second, ret2) = (acl.rt.get_event_id(event) for event in events)
        assert (ret1, ret2) == (OK, OK)
        assert type(first) is int and type(second) is int and first != second
    finally:
        for event in events:
            flow.check(acl.rt.destroy_event(event), "acl.rt.destroy_event")


@pytest.mark.negative
def test_get_event_id_of_a_non_int_keeps_cpythons_message(acl):
    # The wrapper hands its own message to PyArg_ParseTuple as an extra argument, so CPython's message stays.
    with pytest.raises(TypeError, match=r"^argument 1 must be int, not None$"):
        acl.rt.get_event_id(None)


def test_the_events_available_do_not_grow_when_an_event_is_recorded(acl, stream, event):
    before, ret = acl.rt.get_event_avail_num()
    assert ret == OK and type(before) is int and before > 0
    assert acl.rt.record_event(event, stream) == OK
    assert acl.rt.synchronize_stream(stream) == OK
    after, ret = acl.rt.get_event_avail_num()
    assert ret == OK and after <= before


#: What an exception-info getter gives for a null info (CANN pyACL documentation: the information is empty).
NO_EXCEPTION_INFO = 0xFFFFFFFF
EXCEPTION_INFO_GETTERS = ("get_error_code_from_exception_info", "get_task_id_from_exception_info",
                          "get_stream_id_from_exception_info", "get_thread_id_from_exception_info",
                          "get_device_id_from_exception_info")


@pytest.fixture
def exception_callback(acl: Any) -> Iterator[list[int]]:
    """An exception-info callback set for the test (cleared after it); the infos it was called with."""
    infos: list[int] = []
    assert acl.rt.set_exception_info_callback(infos.append) == OK
    yield infos
    flow.check(acl.rt.set_exception_info_callback(None), "acl.rt.set_exception_info_callback")


def test_an_exception_info_callback_is_not_called_for_work_that_succeeds(acl, res, stream, exception_callback):
    execute_add(res, device_copy(res, X1.tobytes()), device_copy(res, X2.tobytes()), flow.malloc(res, N), stream)
    assert acl.rt.synchronize_stream(stream) == OK
    assert exception_callback == []


def test_the_exception_info_callback_is_replaced_and_cleared_with_none_or_no_argument(acl):
    assert acl.rt.set_exception_info_callback(lambda info: None) == OK
    assert acl.rt.set_exception_info_callback(lambda info: None) == OK
    assert acl.rt.set_exception_info_callback(None) == OK
    assert acl.rt.set_exception_info_callback(lambda info: None) == OK
    assert acl.rt.set_exception_info_callback() == OK


@pytest.mark.negative
def test_a_non_callable_exception_info_callback_is_a_type_error(acl):
    with pytest.raises(TypeError, match=r"^acl.rt.set_exception_info_callback args parse failed$"):
        acl.rt.set_exception_info_callback(1)


@pytest.mark.negative
@pytest.mark.parametrize("getter", EXCEPTION_INFO_GETTERS)
def test_exception_info_getters_of_a_null_info_give_all_ones(acl, getter):
    assert getattr(acl.rt, getter)(0) == NO_EXCEPTION_INFO


# ---------------------------------------------------------------- init and finalize, each in a fresh process


def without_a_config(acl: Any, device_id: int, folder: str) -> dict[str, list[int]]:
    """finalize before any init; init; create_context with no set_device, synchronize its default stream 0,
    destroy_context, reset_device; init again; finalize twice."""
    steps = {"finalize-without-init": [acl.finalize()], "init": [acl.init()]}
    context, ret = acl.rt.create_context(device_id)
    steps["create_context-without-set_device"] = [ret, acl.rt.synchronize_stream(0), acl.rt.destroy_context(context),
                                                  acl.rt.reset_device(device_id)]
    steps["init-again"] = [acl.init()]
    steps["finalize-twice"] = [acl.finalize(), acl.finalize()]
    return steps


def with_configs(acl: Any, device_id: int, folder: str) -> dict[str, list[int]]:
    """init(first), init(first) again, init(second) of other content, finalize."""
    first, second = Path(folder, "first.json"), Path(folder, "second.json")
    first.write_text(json.dumps({"max_opqueue_num": 20000}), encoding="utf-8")
    second.write_text(json.dumps({"max_opqueue_num": 100}), encoding="utf-8")
    return {"init": [acl.init(str(first))], "init-again-with-the-same-config": [acl.init(str(first))],
            "init-again-with-another-config": [acl.init(str(second))], "finalize": [acl.finalize()]}


FRESH_PROCESS_RUNS = (without_a_config, with_configs)


@pytest.fixture(scope="module")
def fresh_process_results(pytestconfig: pytest.Config, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Each of FRESH_PROCESS_RUNS run at once in its own fresh process on the run's backend; JSON results by name."""
    return run_fresh(pytestconfig, list(FRESH_PROCESS_RUNS),
                     {run.__name__: tmp_path_factory.mktemp(run.__name__) for run in FRESH_PROCESS_RUNS})


@pytest.mark.parametrize("function, step, expected", [
    pytest.param(without_a_config, "finalize-without-init", [OK], id="finalize-without-init-is-0"),
    pytest.param(without_a_config, "init", [OK], id="init-without-a-config-is-0"),
    pytest.param(without_a_config, "create_context-without-set_device", [OK] * 4,
                 id="create_context-without-set_device-binds-the-default-stream"),
    pytest.param(without_a_config, "init-again", [REPEAT_INITIALIZE], id="second-init-100002"),
    pytest.param(without_a_config, "finalize-twice", [OK, REPEAT_FINALIZE],
                 id="finalize-ignores-the-init-count-and-again-is-100037"),
    pytest.param(with_configs, "init", [OK], id="init-with-a-config-is-0"),
    pytest.param(with_configs, "init-again-with-the-same-config", [REPEAT_INITIALIZE],
                 id="init-again-with-the-same-config-100002"),
    pytest.param(with_configs, "init-again-with-another-config", [INVALID_PARAM],
                 id="init-again-with-another-config-100000"),
])
def test_init_and_finalize_codes_in_a_fresh_process(fresh_process_results, function, step, expected):
    results = fresh_process_results[function.__name__]
    assert not isinstance(results, str), f"the fresh process failed:\n{results}"
    assert results[step] == expected


def test_an_execution_reads_its_inputs_before_later_work_on_its_stream_overwrites_them(acl, res, stream):
    p1, p2 = device_copy(res, X1.tobytes()), device_copy(res, X2.tobytes())
    py = device_copy(res, bytes([POISON]) * N)
    execute_add(res, p1, p2, py, stream)
    later = host_copy(res, bytes(N))
    flow.check(acl.rt.memcpy_async(p1, N, later, N, H2D, stream), "acl.rt.memcpy_async H2D")
    assert acl.rt.synchronize_stream(stream) == OK
    np.testing.assert_array_equal(as_array(read_now(res, py)), X1 + X2)


def test_execute_v2_on_the_default_stream_0_is_done_after_synchronize_stream_0(acl, res):
    p1, p2 = device_copy(res, X1.tobytes()), device_copy(res, X2.tobytes())
    py = device_copy(res, bytes([POISON]) * N)
    execute_add(res, p1, p2, py, 0)
    assert acl.rt.synchronize_stream(0) == OK
    np.testing.assert_array_equal(as_array(read_now(res, py)), X1 + X2)
