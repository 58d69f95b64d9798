"""The simulator's memory settings and strictness beyond the contract (the contract: conformance/test_memory.py).

Device memory size and kind, the code of an unaligned memcpy_async, and the size-0 check of malloc_align32 and
malloc_cached, which the documentation leaves to the implementation.
"""

import ctypes
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest

import aclcts.sim
from aclcts.core.constants import ErrorCode, MemAttr, MemcpyKind, MemMallocPolicy

OK = ErrorCode.ACL_SUCCESS
INVALID_PARAM = ErrorCode.ACL_ERROR_INVALID_PARAM
RT_PARAM_INVALID = ErrorCode.ACL_ERROR_RT_PARAM_INVALID
H2H = MemcpyKind.ACL_MEMCPY_HOST_TO_HOST
H2D = MemcpyKind.ACL_MEMCPY_HOST_TO_DEVICE
D2H = MemcpyKind.ACL_MEMCPY_DEVICE_TO_HOST
D2D = MemcpyKind.ACL_MEMCPY_DEVICE_TO_DEVICE
DEFAULT = MemcpyKind.ACL_MEMCPY_DEFAULT
H2BUF2D = MemcpyKind.ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE
HUGE_FIRST = MemMallocPolicy.ACL_MEM_MALLOC_HUGE_FIRST
DEVICE_POINTER_FLOOR = 2**60

HBM_ATTRS = [
    MemAttr.ACL_HBM_MEM, MemAttr.ACL_HBM_MEM_HUGE, MemAttr.ACL_HBM_MEM_NORMAL, MemAttr.ACL_HBM_MEM_P2P_HUGE,
    MemAttr.ACL_HBM_MEM_P2P_NORMAL, MemAttr.ACL_HBM_MEM_HUGE1G, MemAttr.ACL_HBM_MEM_P2P_HUGE1G,
]
DDR_ATTRS = [
    MemAttr.ACL_DDR_MEM, MemAttr.ACL_DDR_MEM_HUGE, MemAttr.ACL_DDR_MEM_NORMAL,
    MemAttr.ACL_DDR_MEM_P2P_HUGE, MemAttr.ACL_DDR_MEM_P2P_NORMAL,
]
GENERIC_ATTRS = [
    MemAttr.ACL_MEM_NORMAL, MemAttr.ACL_MEM_HUGE, MemAttr.ACL_MEM_HUGE1G,
    MemAttr.ACL_MEM_P2P_NORMAL, MemAttr.ACL_MEM_P2P_HUGE, MemAttr.ACL_MEM_P2P_HUGE1G,
]


def device_buffer(acl: Any, data: bytes) -> int:
    """Allocate device memory holding data (synchronous H2D copy)."""
    ptr, ret = acl.rt.malloc(len(data), HUGE_FIRST)
    assert ret == OK
    assert acl.rt.memcpy(ptr, len(data), acl.util.bytes_to_ptr(data), len(data), H2D) == OK
    return ptr


def read_device(acl: Any, ptr: int, size: int) -> bytes:
    """Read size bytes of device memory through page-locked host memory (synchronous D2H copy)."""
    host, ret = acl.rt.malloc_host(size)
    assert ret == OK
    assert acl.rt.memcpy(host, size, ptr, size, D2H) == OK
    data = acl.util.ptr_to_bytes(host, size)
    assert acl.rt.free_host(host) == OK
    return data


def pinned(acl: Any, data: bytes) -> int:
    """Page-locked host memory holding data."""
    host, ret = acl.rt.malloc_host(len(data))
    assert ret == OK
    ctypes.memmove(host, data, len(data))
    return host


def pattern(size: int, seed: int = 1) -> bytes:
    """Deterministic non-constant bytes."""
    return bytes((i * 7 + seed) % 256 for i in range(size))


# ---------------------------------------------------------------- malloc


@pytest.mark.parametrize(
    "call",
    [
        pytest.param(lambda acl: acl.rt.malloc_align32(0, 0), id="malloc_align32_size_0_is_100000"),
        pytest.param(lambda acl: acl.rt.malloc_cached(0, 0), id="malloc_cached_size_0_is_100000"),
    ],
)
def test_allocation_of_size_0_is_100000(session, call):
    assert call(session.acl) == (0, INVALID_PARAM)


def test_malloc_beyond_device_memory_is_207001(acl):
    aclcts.sim.configure(device_memory=1 << 20)
    assert acl.init() == OK
    assert acl.rt.set_device(0) == OK
    assert acl.rt.malloc(2 << 20, HUGE_FIRST) == (0, ErrorCode.ACL_ERROR_RT_MEMORY_ALLOCATION)
    assert acl.rt.reset_device(0) == OK
    assert acl.finalize() == OK


# ---------------------------------------------------------------- memcpy: kinds


@pytest.fixture
def endpoints(session: Any) -> Iterator[Callable[[str, bytes], tuple[int, Any]]]:
    """Factory for (pointer, reader) pairs on device, pinned and pageable host memory; frees at teardown."""
    acl = session.acl
    device_ptrs, host_ptrs, keep = [], [], []

    def make(where: str, data: bytes) -> tuple[int, Any]:
        if where == "device":
            ptr = device_buffer(acl, data)
            device_ptrs.append(ptr)
            return ptr, lambda n: read_device(acl, ptr, n)
        if where == "pinned":
            ptr = pinned(acl, data)
            host_ptrs.append(ptr)
            return ptr, lambda n: ctypes.string_at(ptr, n)
        raw = np.frombuffer(data + bytes(64), dtype=np.uint8).copy()
        offset = (-raw.ctypes.data) % 64
        view = raw[offset:offset + len(data)]
        view[:] = np.frombuffer(data, dtype=np.uint8)
        keep.append(raw)
        return view.ctypes.data, lambda n: view[:n].tobytes()

    yield make
    for ptr in device_ptrs:
        acl.rt.free(ptr)
    for ptr in host_ptrs:
        acl.rt.free_host(ptr)


# ---------------------------------------------------------------- memcpy_async


@pytest.mark.parametrize(
    "args, documented",
    [
        pytest.param(lambda d, s: (d + 1, 64, s, 32, D2D), None, id="unaligned_dst_is_unaligned_code"),
        pytest.param(lambda d, s: (d, 64, s + 32, 32, D2D), None, id="src_aligned_32_only_is_unaligned_code"),
        pytest.param(lambda d, s: (d + 8, 64, s + 8, 32, D2D), None, id="both_unaligned_is_unaligned_code"),
        pytest.param(lambda d, s: (d + 1, 64, s, 0, D2D), RT_PARAM_INVALID, id="unaligned_and_count_0_is_107000"),
        pytest.param(lambda d, s: (d + 1, 16, s, 32, D2D), RT_PARAM_INVALID,
                     id="unaligned_and_count_gt_dest_max_is_107000"),
        pytest.param(lambda d, s: (d + 1, 64, s, 32, 7), INVALID_PARAM, id="unaligned_and_kind_7_is_100000"),
        pytest.param(lambda d, s: (d + 64, 64, s + 64, 32, D2D), OK, id="interior_64_aligned_is_0"),
    ],
)
def test_memcpy_async_alignment_checked_after_documented_checks(session, endpoints, args, documented):
    dst, _ = endpoints("device", bytes(256))
    src, _ = endpoints("device", pattern(256))
    expected = aclcts.sim.settings().unaligned_async_code if documented is None else documented
    assert session.acl.rt.memcpy_async(*args(dst, src), session.stream) == expected
    assert session.acl.rt.synchronize_stream(session.stream) == OK


@pytest.mark.parametrize(
    "src_where, offset",
    [
        pytest.param("pinned", 1, id="pinned_source_plus_1_is_unaligned_code"),
        pytest.param("pageable", 16, id="pageable_source_plus_16_is_unaligned_code"),
    ],
)
def test_memcpy_async_unaligned_host_source_is_unaligned_code(session, endpoints, src_where, offset):
    src, _ = endpoints(src_where, pattern(256))
    dst, read = endpoints("device", bytes(256))
    ret = session.acl.rt.memcpy_async(dst, 256, src + offset, 64, H2D, session.stream)
    assert ret == aclcts.sim.settings().unaligned_async_code
    assert session.acl.rt.synchronize_stream(session.stream) == OK
    assert read(256) == bytes(256)


# ---------------------------------------------------------------- get_mem_info


@pytest.mark.parametrize("attr", [pytest.param(a, id=a.name) for a in HBM_ATTRS + GENERIC_ATTRS])
def test_get_mem_info_on_hbm_device_reports_device_memory(acl, attr):
    aclcts.sim.configure(memory_kind="hbm", device_memory=3 << 30)
    assert acl.init() == OK
    assert acl.rt.set_device(0) == OK
    free, total, ret = acl.rt.get_mem_info(attr)
    assert (total, ret) == (3 << 30, OK)
    assert 0 < free <= total


@pytest.mark.parametrize("attr", [pytest.param(a, id=a.name) for a in DDR_ATTRS])
def test_get_mem_info_unsupported_ddr_attr_on_hbm_device_is_zero(acl, attr):
    aclcts.sim.configure(memory_kind="hbm")
    assert acl.init() == OK
    assert acl.rt.set_device(0) == OK
    assert acl.rt.get_mem_info(attr) == (0, 0, OK)


@pytest.mark.parametrize("attr", [pytest.param(a, id=a.name) for a in DDR_ATTRS + HBM_ATTRS + GENERIC_ATTRS])
def test_get_mem_info_on_ddr_device_reports_device_memory(acl, attr):
    aclcts.sim.configure(memory_kind="ddr", device_memory=2 << 30)
    assert acl.init() == OK
    assert acl.rt.set_device(0) == OK
    free, total, ret = acl.rt.get_mem_info(attr)
    assert (total, ret) == (2 << 30, OK)
    assert 0 < free <= total


def test_get_mem_info_default_total_is_16_gib(session):
    assert aclcts.sim.settings().device_memory == 16 << 30
    _, total, ret = session.acl.rt.get_mem_info(MemAttr.ACL_HBM_MEM)
    assert (total, ret) == (16 << 30, OK)
