"""The simulator's deferred execution: queued work runs only when something synchronises
(docs/contract/sync-events-callbacks.md#queued-work).

A real device may finish early, so these are the simulator's strictness; what the documentation guarantees
about streams and synchronisation is in conformance/test_sync.py.
"""

import ctypes
import warnings
from collections.abc import Iterator
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


def test_async_d2h_to_pinned_lands_only_at_synchronize(session, dev):
    src = dev.buffer(NEW)
    host = dev.pinned(OLD)
    assert session.acl.rt.memcpy_async(host, 128, src, 128, D2H, session.stream) == OK
    assert ctypes.string_at(host, 128) == OLD
    assert session.acl.rt.synchronize_stream(session.stream) == OK
    assert ctypes.string_at(host, 128) == NEW


def test_async_d2h_to_pageable_leaves_other_streams_queued(session, dev, second_stream):
    queued = queue_d2d(session, dev, second_stream)
    src = dev.buffer(NEW)
    ptr, view = dev.pageable(bytes(128))
    assert session.acl.rt.memcpy_async(ptr, 128, src, 128, D2H, session.stream) == OK
    assert view.tobytes() == NEW
    assert dev.read(queued) == OLD
    assert session.acl.rt.synchronize_stream(second_stream) == OK
    assert dev.read(queued) == NEW
