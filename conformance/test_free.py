"""Copy-back and release (docs/contract/memory.md, tensor-desc-and-buffers.md, utilities.md): what freeing does and
does not touch."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from aclcts.drive import flow
from aclcts.drive.backends import Backend
from aclcts.core.constants import DataType, ErrorCode, Format

pytestmark = pytest.mark.free

OK = ErrorCode.ACL_SUCCESS
INVALID_PARAM = ErrorCode.ACL_ERROR_INVALID_PARAM
INT32 = int(DataType.ACL_INT32)
ND = int(Format.ACL_FORMAT_ND)
#: Add int32 [8, 16] is a suite model (aclcts/pytest_plugin/library.py SUITE_MODEL_CASES): the session's model folder
#: holds it on every backend whatever --cases selects.
SHAPE = (8, 16)
X1 = np.arange(128, dtype=np.int32).reshape(SHAPE) * 3 - 5
X2 = np.arange(128, dtype=np.int32).reshape(SHAPE) + 1000
N = X1.nbytes


@pytest.fixture
def unsafe_probe(aclcts_backend: Backend) -> None:
    """Skip on the NPU: the probe would misuse real hardware (docs/contract/error-codes.md#open-questions leaves the
    codes UNCONFIRMED)."""
    if aclcts_backend.capabilities.real_device:
        pytest.skip("probe that may crash real hardware; runs on the simulator and other backends only")


class AddRun:
    """One execute_v2 of Add int32 [8, 16], synchronised; the test then releases things and copies back.

    `held` has the descs, buffers, attr and input memory; `output` the output memory and the copy-back.
    """

    def __init__(self, acl: Any, stream: int) -> None:
        self.acl = acl
        self.held = flow.Resources(acl)
        self.output = flow.Resources(acl)
        self.descs = [flow.create_desc(self.held, INT32, SHAPE, ND) for _ in range(3)]
        self.attr = acl.op.create_attr()
        self.held.attrs.append(self.attr)
        self.in_ptrs = [flow.malloc(self.held, N) for _ in range(2)]
        for ptr, array in zip(self.in_ptrs, (X1, X2)):
            flow.copy_to_device(acl, ptr, array)
        self.out_ptr = flow.malloc(self.output, N)
        self.bufs = [flow.create_buffer(self.held, p, N) for p in (*self.in_ptrs, self.out_ptr)]
        flow.check(acl.op.execute_v2("Add", self.descs[:2], self.bufs[:2], self.descs[2:], self.bufs[2:],
                                     self.attr, stream), "acl.op.execute_v2")
        flow.check(acl.rt.synchronize_stream(stream), "acl.rt.synchronize_stream")

    def copy_back(self) -> np.ndarray:
        """The output, copied to malloc_host memory and read with ptr_to_bytes."""
        return flow.array_from(flow.copy_to_host(self.output, self.out_ptr, N), INT32, SHAPE)

    def release(self) -> None:
        """Release whatever the test left."""
        self.held.release()
        self.output.release()


@pytest.fixture
def add_run(acl: Any, stream: int):
    """A finished Add execution whose objects are released at the end of the test."""
    run = AddRun(acl, stream)
    yield run
    run.release()


def free_input_memory(run: AddRun) -> None:
    """rt.free the two input allocations (their data buffers stay)."""
    for ptr in run.in_ptrs:
        flow.check(run.acl.rt.free(ptr), "acl.rt.free")
        run.held.device.remove(ptr)


def destroy_input_buffers_and_free(run: AddRun) -> None:
    """destroy_data_buffer on the input buffers, then rt.free their memory."""
    for buf in run.bufs[:2]:
        flow.check(run.acl.destroy_data_buffer(buf), "acl.destroy_data_buffer")
        run.held.buffers.remove(buf)
    free_input_memory(run)


def release_everything_but_the_output_memory(run: AddRun) -> None:
    """Every desc, buffer and attr, and the input memory."""
    run.held.release()


def free_inputs_then_reuse_their_memory(run: AddRun) -> None:
    """Free the inputs, then allocate and overwrite memory of their size (which may reuse theirs)."""
    free_input_memory(run)
    for _ in range(2):
        ptr = flow.malloc(run.output, N)
        flow.check(run.acl.rt.memset(ptr, N, 0xEE, N), "acl.rt.memset")


RELEASES = [pytest.param(free_input_memory, id="input-memory"),
            pytest.param(destroy_input_buffers_and_free, id="input-buffers-and-memory"),
            pytest.param(release_everything_but_the_output_memory, id="descs-buffers-attr-and-input-memory"),
            pytest.param(free_inputs_then_reuse_their_memory, id="input-memory-reused")]


@pytest.mark.parametrize("release", RELEASES)
def test_outputs_copied_back_after_releasing_the_inputs_are_intact(add_run, release: Callable):
    release(add_run)
    np.testing.assert_array_equal(add_run.copy_back(), X1 + X2)


def test_destroy_data_buffer_does_not_free_the_data(acl):
    with flow.resources(acl) as res:
        ptr = flow.malloc(res, N)
        flow.copy_to_device(acl, ptr, X1)
        before = flow.device_free_bytes(acl)
        buf = acl.create_data_buffer(ptr, N)
        assert acl.destroy_data_buffer(buf) == OK
        assert flow.device_free_bytes(acl) == before
        np.testing.assert_array_equal(flow.array_from(flow.copy_to_host(res, ptr, N), INT32, SHAPE), X1)


def test_bytes_read_with_ptr_to_bytes_survive_free_host(acl):
    payload = X1.tobytes()
    host = flow.value(acl.rt.malloc_host(N), "acl.rt.malloc_host")
    try:
        flow.check(acl.rt.memcpy(host, N, acl.util.bytes_to_ptr(payload), N, 0), "acl.rt.memcpy H2H")
        data = acl.util.ptr_to_bytes(host, N)
    finally:
        assert acl.rt.free_host(host) == OK
    assert data == payload


@pytest.mark.negative
@pytest.mark.parametrize("call", [pytest.param(lambda acl: acl.rt.free(0), id="free"),
                                  pytest.param(lambda acl: acl.rt.free_host(0), id="free_host")])
def test_freeing_null_is_100000(acl, call):
    assert call(acl) == INVALID_PARAM


def full_cycle(acl: Any, stream: int, mode: str) -> None:
    """descs, malloc, memcpy, attr, execute (execute_v2 or a handle), synchronize, copy back, release all."""
    with flow.resources(acl) as res:
        descs = [flow.create_desc(res, INT32, SHAPE, ND) for _ in range(3)]
        ptrs = [flow.malloc(res, N) for _ in range(3)]
        flow.copy_to_device(acl, ptrs[0], X1)
        flow.copy_to_device(acl, ptrs[1], X2)
        bufs = [flow.create_buffer(res, p, N) for p in ptrs]
        attr = acl.op.create_attr()
        res.attrs.append(attr)
        if mode == "handle":
            handle = flow.value(acl.op.create_handle("Add", descs[:2], descs[2:], attr), "acl.op.create_handle")
            res.handles.append(handle)
            flow.check(acl.op.execute_with_handle(handle, bufs[:2], bufs[2:], stream), "acl.op.execute_with_handle")
        else:
            flow.check(acl.op.execute_v2("Add", descs[:2], bufs[:2], descs[2:], bufs[2:], attr, stream),
                       "acl.op.execute_v2")
        flow.check(acl.rt.synchronize_stream(stream), "acl.rt.synchronize_stream")
        got = flow.array_from(flow.copy_to_host(res, ptrs[2], N), INT32, SHAPE)
    np.testing.assert_array_equal(got, X1 + X2)


@pytest.mark.parametrize("cycles", [1, 3])
@pytest.mark.parametrize("mode", ["execute_v2", "handle"])
def test_get_mem_info_returns_to_its_start_after_full_cycles(acl, stream, mode, cycles):
    start = flow.device_free_bytes(acl)
    for _ in range(cycles):
        full_cycle(acl, stream, mode)
        assert flow.device_free_bytes(acl) == start


# ---------------------------------------------------------------- invalid frees (simulator and other backends)


@pytest.mark.unsafe
@pytest.mark.negative
@pytest.mark.usefixtures("unsafe_probe")
def test_double_free_is_an_error(acl):
    ptr = flow.value(acl.rt.malloc(N, 2), "acl.rt.malloc")
    assert acl.rt.free(ptr) == OK
    assert acl.rt.free(ptr) != OK


@pytest.mark.unsafe
@pytest.mark.negative
@pytest.mark.usefixtures("unsafe_probe")
def test_free_of_a_pointer_inside_an_allocation_is_an_error(acl):
    ptr = flow.value(acl.rt.malloc(N, 2), "acl.rt.malloc")
    try:
        assert acl.rt.free(ptr + 64) != OK
    finally:
        assert acl.rt.free(ptr) == OK


@pytest.mark.unsafe
@pytest.mark.negative
@pytest.mark.usefixtures("unsafe_probe")
def test_rt_free_of_malloc_host_memory_is_an_error(acl):
    host = flow.value(acl.rt.malloc_host(N), "acl.rt.malloc_host")
    try:
        assert acl.rt.free(host) != OK
    finally:
        assert acl.rt.free_host(host) == OK
