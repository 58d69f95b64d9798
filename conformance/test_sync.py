"""Streams, events and synchronisation (pyacl-api.md §2, §3.1, §6.1): queued work, its order, and when it is visible."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest

from aclcts.drive import flow
from aclcts.core.constants import DataType, ErrorCode, EventStatus, Format, MemcpyKind, StreamStatus

pytestmark = pytest.mark.sync

OK = ErrorCode.ACL_SUCCESS
RT_PARAM_INVALID = ErrorCode.ACL_ERROR_RT_PARAM_INVALID
INT32 = int(DataType.ACL_INT32)
ND = int(Format.ACL_FORMAT_ND)
H2H = int(MemcpyKind.ACL_MEMCPY_HOST_TO_HOST)
H2D = int(MemcpyKind.ACL_MEMCPY_HOST_TO_DEVICE)
D2H = int(MemcpyKind.ACL_MEMCPY_DEVICE_TO_HOST)
D2D = int(MemcpyKind.ACL_MEMCPY_DEVICE_TO_DEVICE)
#: Add int32 [8, 16] is in the case library, so its model is in the session's model folder on every backend.
SHAPE = (8, 16)
X1 = np.arange(128, dtype=np.int32).reshape(SHAPE) * 3 - 5
X2 = np.arange(128, dtype=np.int32).reshape(SHAPE) + 1000
N = X1.nbytes
POISON = 0x7B


def on_npu(config: pytest.Config) -> bool:
    """Whether the run is on real hardware, where not-yet-visible results are a race, not a guarantee."""
    return config.getoption("--backend") == "npu"


@pytest.fixture
def second_stream(acl: Any) -> Iterator[int]:
    """A stream of the session context besides the session stream, destroyed at the end."""
    stream = flow.value(acl.rt.create_stream(), "acl.rt.create_stream")
    yield stream
    flow.check(acl.rt.destroy_stream(stream), "acl.rt.destroy_stream")


@pytest.fixture
def event(acl: Any) -> Iterator[int]:
    """An event, destroyed at the end."""
    handle = flow.value(acl.rt.create_event(), "acl.rt.create_event")
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
def test_queued_results_are_visible_only_after_synchronize_stream(acl, res, stream, pytestconfig, produce):
    ptr, expected = produce(res, stream)
    if not on_npu(pytestconfig):
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
def test_h2d_execute_d2h_queued_on_one_stream_need_one_synchronisation(acl, res, stream, pytestconfig,
                                                                       synchronize: Callable):
    h1, h2 = host_copy(res, X1.tobytes()), host_copy(res, X2.tobytes())
    hy = host_copy(res, bytes([POISON]) * N)
    p1, p2, py = (flow.malloc(res, N) for _ in range(3))
    flow.check(acl.rt.memcpy_async(p1, N, h1, N, H2D, stream), "acl.rt.memcpy_async H2D")
    flow.check(acl.rt.memcpy_async(p2, N, h2, N, H2D, stream), "acl.rt.memcpy_async H2D")
    execute_add(res, p1, p2, py, stream)
    flow.check(acl.rt.memcpy_async(hy, N, py, N, D2H, stream), "acl.rt.memcpy_async D2H")
    if not on_npu(pytestconfig):
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


def test_chained_executions_on_two_streams_are_ordered_by_an_event(acl, res, stream, second_stream, event):
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
