"""simapi.md memory model / pyacl-api.md §2–§3, §16: queued work runs only when something synchronises."""

import ctypes
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest

import aclcts.sim
from aclcts.core.constants import ErrorCode, MemcpyKind, StreamStatus

OK = ErrorCode.ACL_SUCCESS
H2D = MemcpyKind.ACL_MEMCPY_HOST_TO_DEVICE
D2H = MemcpyKind.ACL_MEMCPY_DEVICE_TO_HOST
D2D = MemcpyKind.ACL_MEMCPY_DEVICE_TO_DEVICE
OLD = b"\x11" * 128
NEW = b"\x22" * 128


class Device:
    """Small helper over a session: device and host buffers that are freed at teardown."""

    def __init__(self, acl: Any) -> None:
        self.acl = acl
        self.device_ptrs: list[int] = []
        self.host_ptrs: list[int] = []
        self.arrays: list[np.ndarray] = []

    def buffer(self, data: bytes) -> int:
        """Device memory holding data (synchronous H2D copy)."""
        ptr, ret = self.acl.rt.malloc(len(data), 0)
        assert ret == OK
        assert self.acl.rt.memcpy(ptr, len(data), self.acl.util.bytes_to_ptr(data), len(data), H2D) == OK
        self.device_ptrs.append(ptr)
        return ptr

    def read(self, ptr: int, size: int = 128) -> bytes:
        """Device bytes now, through a synchronous D2H memcpy (which does not flush streams)."""
        host, ret = self.acl.rt.malloc_host(size)
        assert ret == OK
        assert self.acl.rt.memcpy(host, size, ptr, size, D2H) == OK
        data = ctypes.string_at(host, size)
        assert self.acl.rt.free_host(host) == OK
        return data

    def pinned(self, data: bytes) -> int:
        """Page-locked host memory (malloc_host) holding data."""
        host, ret = self.acl.rt.malloc_host(len(data))
        assert ret == OK
        ctypes.memmove(host, data, len(data))
        self.host_ptrs.append(host)
        return host

    def pageable(self, data: bytes) -> tuple[int, np.ndarray]:
        """64-byte aligned pageable host memory (a NumPy array, not malloc_host) holding data."""
        raw = np.zeros(len(data) + 64, dtype=np.uint8)
        offset = (-raw.ctypes.data) % 64
        view = raw[offset:offset + len(data)]
        view[:] = np.frombuffer(data, dtype=np.uint8)
        self.arrays.append(raw)
        return view.ctypes.data, view

    def close(self) -> None:
        """Free everything allocated through this helper."""
        for ptr in self.device_ptrs:
            self.acl.rt.free(ptr)
        for ptr in self.host_ptrs:
            self.acl.rt.free_host(ptr)


@pytest.fixture
def dev(session: Any) -> Iterator[Device]:
    """A Device helper bound to the session."""
    helper = Device(session.acl)
    yield helper
    helper.close()


@pytest.fixture
def second_stream(session: Any) -> Iterator[int]:
    """A second stream in the session context."""
    stream, ret = session.acl.rt.create_stream()
    assert ret == OK
    yield stream
    session.acl.rt.destroy_stream(stream)


def queue_d2d(session: Any, dev: Device, stream: int) -> int:
    """Queue a D2D copy of NEW over a buffer holding OLD on stream; return the destination."""
    dst = dev.buffer(OLD)
    src = dev.buffer(NEW)
    assert session.acl.rt.memcpy_async(dst, 128, src, 128, D2D, stream) == OK
    return dst


# ---------------------------------------------------------------- deferred execution


def test_memcpy_async_d2d_not_visible_before_synchronize(session, dev):
    dst = queue_d2d(session, dev, session.stream)
    assert dev.read(dst) == OLD
    assert session.acl.rt.synchronize_stream(session.stream) == OK
    assert dev.read(dst) == NEW


def test_memset_async_not_visible_before_synchronize(session, dev):
    ptr = dev.buffer(OLD)
    assert session.acl.rt.memset_async(ptr, 128, 0x22, 128, session.stream) == OK
    assert dev.read(ptr) == OLD
    assert session.acl.rt.synchronize_stream(session.stream) == OK
    assert dev.read(ptr) == NEW


def test_plain_memcpy_does_not_flush_streams(session, dev):
    dst = queue_d2d(session, dev, session.stream)
    other = dev.buffer(bytes(128))
    assert session.acl.rt.memcpy(other, 128, dst, 128, D2D) == OK
    assert dev.read(other) == OLD
    assert session.acl.rt.synchronize_stream(session.stream) == OK
    assert dev.read(other) == OLD
    assert dev.read(dst) == NEW


def test_plain_memset_does_not_flush_streams(session, dev):
    dst = queue_d2d(session, dev, session.stream)
    scratch = dev.buffer(bytes(128))
    assert session.acl.rt.memset(scratch, 128, 0x33, 128) == OK
    assert dev.read(dst) == OLD
    assert session.acl.rt.synchronize_stream(session.stream) == OK
    assert dev.read(dst) == NEW


def test_queued_work_runs_in_order_on_one_stream(session, dev):
    ptr = dev.buffer(bytes(128))
    copy = dev.buffer(bytes(128))
    stream = session.stream
    assert session.acl.rt.memset_async(ptr, 128, 0x01, 128, stream) == OK
    assert session.acl.rt.memcpy_async(copy, 128, ptr, 128, D2D, stream) == OK
    assert session.acl.rt.memset_async(ptr, 128, 0x02, 64, stream) == OK
    assert session.acl.rt.synchronize_stream(stream) == OK
    assert dev.read(copy) == b"\x01" * 128
    assert dev.read(ptr) == b"\x02" * 64 + b"\x01" * 64


def flush_stream(session: Any, stream: int) -> int:
    """synchronize_stream."""
    return session.acl.rt.synchronize_stream(stream)


def flush_stream_with_timeout(session: Any, stream: int) -> int:
    """synchronize_stream_with_timeout, waiting forever."""
    return session.acl.rt.synchronize_stream_with_timeout(stream, -1)


def flush_stream_with_positive_timeout(session: Any, stream: int) -> int:
    """synchronize_stream_with_timeout with a 1 s timeout."""
    return session.acl.rt.synchronize_stream_with_timeout(stream, 1000)


def flush_device(session: Any, stream: int) -> int:
    """synchronize_device."""
    return session.acl.rt.synchronize_device()


def flush_event(session: Any, stream: int) -> int:
    """record_event on the stream, then synchronize_event."""
    event, ret = session.acl.rt.create_event()
    assert ret == OK
    assert session.acl.rt.record_event(event, stream) == OK
    ret = session.acl.rt.synchronize_event(event)
    assert session.acl.rt.destroy_event(event) == OK
    return ret


FLUSHES: list = [
    pytest.param(flush_stream, id="synchronize_stream"),
    pytest.param(flush_stream_with_timeout, id="synchronize_stream_with_timeout_minus_1"),
    pytest.param(flush_stream_with_positive_timeout, id="synchronize_stream_with_timeout_1000"),
    pytest.param(flush_device, id="synchronize_device"),
    pytest.param(flush_event, id="synchronize_event"),
]


@pytest.mark.parametrize("flush", FLUSHES)
def test_synchronisation_runs_queued_work(session, dev, flush: Callable):
    dst = queue_d2d(session, dev, session.stream)
    assert dev.read(dst) == OLD
    assert flush(session, session.stream) == OK
    assert dev.read(dst) == NEW


@pytest.mark.parametrize("flush", FLUSHES)
def test_synchronisation_runs_work_queued_on_default_stream(session, dev, flush: Callable):
    dst = queue_d2d(session, dev, 0)
    assert dev.read(dst) == OLD
    assert flush(session, 0) == OK
    assert dev.read(dst) == NEW


# ---------------------------------------------------------------- several streams


def test_synchronize_stream_flushes_only_that_stream(session, dev, second_stream):
    first = queue_d2d(session, dev, session.stream)
    second = queue_d2d(session, dev, second_stream)
    assert session.acl.rt.synchronize_stream(session.stream) == OK
    assert dev.read(first) == NEW
    assert dev.read(second) == OLD
    assert session.acl.rt.synchronize_stream(second_stream) == OK
    assert dev.read(second) == NEW


def test_synchronize_default_stream_leaves_created_stream_queued(session, dev):
    queued = queue_d2d(session, dev, session.stream)
    assert session.acl.rt.synchronize_stream(0) == OK
    assert dev.read(queued) == OLD
    assert session.acl.rt.synchronize_stream(session.stream) == OK
    assert dev.read(queued) == NEW


def test_synchronize_device_flushes_all_streams(session, dev, second_stream):
    dsts = [queue_d2d(session, dev, s) for s in (session.stream, second_stream, 0)]
    assert [dev.read(d) for d in dsts] == [OLD] * 3
    assert session.acl.rt.synchronize_device() == OK
    assert [dev.read(d) for d in dsts] == [NEW] * 3


def test_destroy_stream_with_queued_work_drains_with_sim_warning(session, dev):
    stream, _ = session.acl.rt.create_stream()
    dst = queue_d2d(session, dev, stream)
    with pytest.warns(aclcts.sim.SimWarning):
        assert session.acl.rt.destroy_stream(stream) == OK
    assert dev.read(dst) == NEW


def test_destroy_idle_stream_does_not_warn(session):
    stream, _ = session.acl.rt.create_stream()
    with warnings.catch_warnings():
        warnings.simplefilter("error", aclcts.sim.SimWarning)
        assert session.acl.rt.destroy_stream(stream) == OK


def test_reset_device_runs_default_stream_work(acl):
    assert acl.init() == OK
    assert acl.rt.set_device(0) == OK
    host, _ = acl.rt.malloc_host(128)
    ctypes.memmove(host, OLD, 128)
    src, _ = acl.rt.malloc(128, 0)
    assert acl.rt.memset(src, 128, 0x22, 128) == OK
    assert acl.rt.memcpy_async(host, 128, src, 128, D2H, 0) == OK
    assert ctypes.string_at(host, 128) == OLD
    with pytest.warns(aclcts.sim.SimWarning):
        assert acl.rt.reset_device(0) == OK
    assert ctypes.string_at(host, 128) == NEW


# ---------------------------------------------------------------- polling


def test_stream_query_not_ready_then_complete_and_work_done(session, dev):
    dst = queue_d2d(session, dev, session.stream)
    statuses = []
    for _ in range(100):
        status, ret = session.acl.rt.stream_query(session.stream)
        assert ret == OK
        statuses.append(status)
        if status == StreamStatus.ACL_STREAM_STATUS_COMPLETE:
            break
    assert statuses[0] == StreamStatus.ACL_STREAM_STATUS_NOT_READY
    assert statuses[-1] == StreamStatus.ACL_STREAM_STATUS_COMPLETE
    assert dev.read(dst) == NEW


# ---------------------------------------------------------------- pinned vs pageable host memory


def test_async_h2d_from_pinned_reads_source_at_execution(session, dev):
    host = dev.pinned(OLD)
    dst = dev.buffer(bytes(128))
    assert session.acl.rt.memcpy_async(dst, 128, host, 128, H2D, session.stream) == OK
    ctypes.memmove(host, NEW, 128)
    assert session.acl.rt.synchronize_stream(session.stream) == OK
    assert dev.read(dst) == NEW


def test_async_h2d_from_pageable_snapshots_source_at_call(session, dev):
    ptr, view = dev.pageable(OLD)
    dst = dev.buffer(bytes(128))
    assert session.acl.rt.memcpy_async(dst, 128, ptr, 128, H2D, session.stream) == OK
    view[:] = 0x22
    assert dev.read(dst) == bytes(128)
    assert session.acl.rt.synchronize_stream(session.stream) == OK
    assert dev.read(dst) == OLD


def test_async_d2h_to_pinned_lands_only_at_synchronize(session, dev):
    src = dev.buffer(NEW)
    host = dev.pinned(OLD)
    assert session.acl.rt.memcpy_async(host, 128, src, 128, D2H, session.stream) == OK
    assert ctypes.string_at(host, 128) == OLD
    assert session.acl.rt.synchronize_stream(session.stream) == OK
    assert ctypes.string_at(host, 128) == NEW


def test_async_d2h_to_pageable_drains_stream_and_blocks(session, dev):
    src = dev.buffer(OLD)
    ptr, view = dev.pageable(bytes(128))
    assert session.acl.rt.memset_async(src, 128, 0x22, 128, session.stream) == OK
    assert session.acl.rt.memcpy_async(ptr, 128, src, 128, D2H, session.stream) == OK
    assert view.tobytes() == NEW
    assert session.acl.rt.stream_query(session.stream) == (StreamStatus.ACL_STREAM_STATUS_COMPLETE, OK)


def test_async_d2h_to_pageable_leaves_other_streams_queued(session, dev, second_stream):
    queued = queue_d2d(session, dev, second_stream)
    src = dev.buffer(NEW)
    ptr, view = dev.pageable(bytes(128))
    assert session.acl.rt.memcpy_async(ptr, 128, src, 128, D2H, session.stream) == OK
    assert view.tobytes() == NEW
    assert dev.read(queued) == OLD
    assert session.acl.rt.synchronize_stream(second_stream) == OK
    assert dev.read(queued) == NEW
