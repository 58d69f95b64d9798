"""API call sequences as a hypothesis state machine: malloc/free, descs and buffers, handles over the suite model
Add int32 [8, 16] (in every run's model folder whatever --cases selects), memcpy_async and synchronize, checked
against the documented contract (docs/contract/memory.md, tensor-desc-and-buffers.md, op-load-execute.md)."""

import numpy as np
import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    Bundle,
    RuleBasedStateMachine,
    consumes,
    invariant,
    rule,
    run_state_machine_as_test,
)

from aclcts.drive import flow

from aclcts.cases import strategies  # noqa: F401  (strategies: the suite's hypothesis profiles)
from aclcts.core.constants import DataType, ErrorCode, Format, MemAttr, MemcpyKind
from aclcts.reference import reference

pytestmark = [pytest.mark.memory, pytest.mark.handle, pytest.mark.leak]

INT32, ND = int(DataType.ACL_INT32), int(Format.ACL_FORMAT_ND)
SHAPE = (8, 16)
NBYTES = 8 * 16 * 4
H2H = int(MemcpyKind.ACL_MEMCPY_HOST_TO_HOST)
H2D, D2H = int(MemcpyKind.ACL_MEMCPY_HOST_TO_DEVICE), int(MemcpyKind.ACL_MEMCPY_DEVICE_TO_HOST)
HBM = int(MemAttr.ACL_HBM_MEM)
INVALID_PARAM = int(ErrorCode.ACL_ERROR_INVALID_PARAM)


def reserved(size: int) -> int:
    """Device bytes one acl.rt.malloc(size) takes: ALIGN_UP(size, 32) + 32 (docs/contract/memory.md#malloc-and-free)."""
    return (size + 31) // 32 * 32 + 32


def host_copy(acl, data: bytes) -> int:
    """malloc_host memory holding data (memcpy_async needs page-locked, 64-byte aligned host memory)."""
    host = flow.value(acl.rt.malloc_host(len(data)), "acl.rt.malloc_host")
    flow.check(acl.rt.memcpy(host, len(data), acl.util.bytes_to_ptr(data), len(data), H2H), "acl.rt.memcpy H2H")
    return host


def read_back(acl, ptr: int, size: int) -> bytes:
    """Synchronous device→host copy through malloc_host memory."""
    host = flow.value(acl.rt.malloc_host(size), "acl.rt.malloc_host")
    try:
        flow.check(acl.rt.memcpy(host, size, ptr, size, D2H), "acl.rt.memcpy D2H")
        return acl.util.ptr_to_bytes(host, size)
    finally:
        flow.check(acl.rt.free_host(host), "acl.rt.free_host")


class ApiMachine(RuleBasedStateMachine):
    """Random sequences of documented calls; `acl`, `stream` and `exact_memory` are set by the test."""

    acl = None
    stream = 0
    exact_memory = False

    mallocs = Bundle("mallocs")
    descs = Bundle("descs")
    buffers = Bundle("buffers")
    handles = Bundle("handles")

    def __init__(self) -> None:
        super().__init__()
        acl = self.acl
        self.baseline = self.free_memory()
        self.sizes: dict[int, int] = {}
        self.live_descs: set[int] = set()
        self.live_buffers: set[int] = set()
        self.live_handles: dict[int, tuple[list[int], int]] = {}
        self.pending: list[tuple[int, bytes, list[int]]] = []
        self.attr = acl.op.create_attr()

    def free_memory(self) -> int:
        """Free device memory by get_mem_info(ACL_HBM_MEM)."""
        free, _, ret = self.acl.rt.get_mem_info(HBM)
        flow.check(ret, "acl.rt.get_mem_info")
        return free

    def _malloc(self, size: int) -> int:
        ptr = flow.value(self.acl.rt.malloc(size, flow.NORMAL_ONLY), f"acl.rt.malloc({size})")
        self.sizes[ptr] = size
        return ptr

    def _free(self, ptr: int) -> None:
        flow.check(self.acl.rt.free(ptr), "acl.rt.free")
        del self.sizes[ptr]

    @rule(target=mallocs, size=st.integers(1, 3000))
    def malloc(self, size):
        return self._malloc(size)

    @rule(ptr=consumes(mallocs))
    def free(self, ptr):
        self.synchronize()
        self._free(ptr)

    @rule(target=descs, dims=st.lists(st.integers(0, 9), max_size=4))
    def create_desc(self, dims):
        desc = self.acl.create_tensor_desc(INT32, dims, ND)
        assert desc != 0, f"create_tensor_desc(int32, {dims}, ND) returned 0"
        assert self.acl.get_tensor_desc_num_dims(desc) == len(dims)
        self.live_descs.add(desc)
        return desc

    @rule(desc=consumes(descs))
    def destroy_desc(self, desc):
        self.acl.destroy_tensor_desc(desc)
        self.live_descs.discard(desc)

    @rule(target=buffers, ptr=mallocs)
    def create_buffer(self, ptr):
        buf = self.acl.create_data_buffer(ptr, self.sizes[ptr])
        assert buf != 0
        assert (self.acl.get_data_buffer_addr(buf), self.acl.get_data_buffer_size_v2(buf)) == (ptr, self.sizes[ptr])
        self.live_buffers.add(buf)
        return buf

    @rule(buf=consumes(buffers))
    def destroy_buffer(self, buf):
        assert self.acl.destroy_data_buffer(buf) == 0
        self.live_buffers.discard(buf)

    @rule(target=handles)
    def create_handle(self):
        acl = self.acl
        descs = [acl.create_tensor_desc(INT32, list(SHAPE), ND) for _ in range(3)]
        handle, ret = acl.op.create_handle("Add", descs[:2], descs[2:], self.attr)
        assert ret == 0 and handle != 0, f"create_handle(Add int32 {list(SHAPE)}) returned ({handle}, {ret})"
        self.live_handles[handle] = (descs, handle)
        return handle

    @rule(handle=consumes(handles))
    def destroy_handle(self, handle):
        self.synchronize()
        self.acl.op.destroy_handle(handle)
        descs, _ = self.live_handles.pop(handle)
        for desc in descs:
            self.acl.destroy_tensor_desc(desc)

    @rule(handle=handles, seed=st.integers(0, 2 ** 16))
    def execute_with_handle(self, handle, seed):
        acl = self.acl
        rng = np.random.default_rng(seed)
        x1, x2 = (rng.integers(-1000, 1000, SHAPE).astype(np.int32) for _ in range(2))
        pointers = [self._malloc(NBYTES) for _ in range(3)]
        hosts = [host_copy(acl, x.tobytes()) for x in (x1, x2)]
        for ptr, host in zip(pointers, hosts):
            assert acl.rt.memcpy_async(ptr, NBYTES, host, NBYTES, H2D, self.stream) == 0
        bufs = [acl.create_data_buffer(p, NBYTES) for p in pointers]
        ret = acl.op.execute_with_handle(handle, bufs[:2], bufs[2:], self.stream)
        for buf in bufs:
            assert acl.destroy_data_buffer(buf) == 0
        assert ret == 0, f"execute_with_handle returned {ret}"
        expected = reference("Add").compute([x1, x2], {}, [np.dtype(np.int32)])[0]
        self.pending.append((pointers[2], expected.tobytes(), pointers[:2] + hosts))

    @rule(ptr=mallocs, byte=st.integers(0, 255))
    def memcpy_async(self, ptr, byte):
        size = self.sizes[ptr]
        data = bytes([byte]) * size
        host = host_copy(self.acl, data)
        assert self.acl.rt.memcpy_async(ptr, size, host, size, H2D, self.stream) == 0
        self.pending.append((ptr, data, [host]))

    @rule()
    def synchronize(self):
        acl = self.acl
        assert acl.rt.synchronize_stream(self.stream) == 0
        pending, self.pending = self.pending, []
        latest = {ptr: expected for ptr, expected, _ in pending}
        for ptr, expected in latest.items():
            assert read_back(acl, ptr, len(expected)) == expected, "device memory differs after synchronize"
        for _, _, scratch in pending:
            for item in scratch:
                if item in self.sizes:
                    self._free(item)
                else:
                    assert acl.rt.free_host(item) == 0

    @rule()
    def null_objects_are_rejected(self):
        acl = self.acl
        assert acl.rt.free(0) == INVALID_PARAM
        assert acl.destroy_data_buffer(0) == INVALID_PARAM
        assert acl.op.execute_with_handle(0, [], [], self.stream) == INVALID_PARAM

    @invariant()
    def device_memory_is_the_live_allocations(self):
        if self.exact_memory and not self.live_handles and not self.pending:
            used = sum(reserved(s) for s in self.sizes.values())
            assert self.free_memory() == self.baseline - used, \
                f"get_mem_info free is {self.baseline - self.free_memory()} bytes below the start, the live " \
                f"mallocs {sorted(self.sizes.values())} take {used}"

    def teardown(self):
        acl = self.acl
        self.synchronize()
        for handle in list(self.live_handles):
            self.destroy_handle(handle)
        for buf in self.live_buffers:
            assert acl.destroy_data_buffer(buf) == 0
        for desc in self.live_descs:
            acl.destroy_tensor_desc(desc)
        for ptr in list(self.sizes):
            self._free(ptr)
        acl.op.destroy_attr(self.attr)
        if self.exact_memory:
            assert self.free_memory() == self.baseline, "device memory not returned after everything was released"


def test_api_call_sequences_keep_the_documented_contract(acl, stream, aclcts_backend):
    machine = type("ApiMachine", (ApiMachine,), {"acl": acl, "stream": stream,
                                                 "exact_memory": not aclcts_backend.capabilities.real_device})
    run_state_machine_as_test(machine, settings=settings(settings.default))
