"""Pyacl-compatible wrappers around the simulator with one defect each in error handling, freeing or accounting."""

from __future__ import annotations

import os
import signal
import types
from typing import Any

from aclcts.drive.backends import mutable_copy
from aclcts.sim import acl as _sim

NORMAL_ONLY = 2
#: Device memory the leaking destroy_handle keeps per call.
LEAKED_PER_HANDLE = 1024


def faithful() -> types.SimpleNamespace:
    """The simulator behind the same wrapping, with no defect (the control run)."""
    return mutable_copy(_sim)


def free_accepts_null() -> types.SimpleNamespace:
    """acl.rt.free(0) returns 0 instead of 100000."""
    acl = mutable_copy(_sim)
    acl.rt.free = lambda ptr: 0 if ptr == 0 else _sim.rt.free(ptr)
    return acl


def double_free_succeeds() -> types.SimpleNamespace:
    """Freeing a pointer a second time returns 0."""
    acl = mutable_copy(_sim)
    freed: set[int] = set()

    def free(ptr: int) -> int:
        if ptr in freed:
            return 0
        ret = _sim.rt.free(ptr)
        if ret == 0:
            freed.add(ptr)
        return ret

    acl.rt.free = free
    return acl


def destroy_handle_leaks_device_memory() -> types.SimpleNamespace:
    """Every acl.op.destroy_handle keeps 1 KiB of device memory it never frees."""
    acl = mutable_copy(_sim)
    kept: list[int] = []

    def destroy_handle(handle: int) -> None:
        _sim.op.destroy_handle(handle)
        ptr, ret = _sim.rt.malloc(LEAKED_PER_HANDLE, NORMAL_ONLY)
        if ret == 0:
            kept.append(ptr)

    acl.op.destroy_handle = destroy_handle
    return acl


def frozen_get_mem_info() -> types.SimpleNamespace:
    """get_mem_info reports the first answer for each attribute forever."""
    acl = mutable_copy(_sim)
    first: dict[int, tuple[int, int, int]] = {}

    def get_mem_info(attr: int) -> tuple[int, int, int]:
        return first.setdefault(attr, _sim.rt.get_mem_info(attr))

    acl.rt.get_mem_info = get_mem_info
    return acl


def handle_runs_with_one_input_too_few() -> types.SimpleNamespace:
    """execute_with_handle with one input fewer than the handle's model returns 0 (and runs nothing)."""
    acl = mutable_copy(_sim)
    inputs_of: dict[int, int] = {}

    def create_handle(op_type: str, in_descs: Any, out_descs: Any, attr: int) -> tuple[int, int]:
        handle, ret = _sim.op.create_handle(op_type, in_descs, out_descs, attr)
        if ret == 0:
            inputs_of[handle] = len(in_descs)
        return handle, ret

    def execute_with_handle(handle: int, inputs: Any, outputs: Any, stream: int) -> int:
        if isinstance(inputs, list) and inputs_of.get(handle) == len(inputs) + 1:
            return 0
        return _sim.op.execute_with_handle(handle, inputs, outputs, stream)

    acl.op.create_handle, acl.op.execute_with_handle = create_handle, execute_with_handle
    return acl


def memcpy_keeps_host_copies() -> types.SimpleNamespace:
    """Every host→device acl.rt.memcpy keeps a copy of the bytes it read (a host-memory leak)."""
    acl = mutable_copy(_sim)
    kept: list[bytes] = []

    def memcpy(dst: int, dest_max: int, src: int, count: int, kind: int) -> int:
        ret = _sim.rt.memcpy(dst, dest_max, src, count, kind)
        if ret == 0 and kind == 1:
            host, _ = _sim.rt.malloc_host(count)
            _sim.rt.memcpy(host, count, dst, count, 2)
            kept.append(_sim.util.ptr_to_bytes(host, count))
            _sim.rt.free_host(host)
        return ret

    acl.rt.memcpy = memcpy
    return acl


def double_free_crashes() -> types.SimpleNamespace:
    """A second acl.rt.free of the same pointer kills the process with SIGSEGV, as a real driver may."""
    acl = mutable_copy(_sim)
    freed: set[int] = set()

    def free(ptr: int) -> int:
        if ptr in freed:
            os.kill(os.getpid(), signal.SIGSEGV)
        ret = _sim.rt.free(ptr)
        if ret == 0:
            freed.add(ptr)
        return ret

    acl.rt.free = free
    return acl
