"""pyacl-api.md §3: malloc policies and reservations, host memory, memcpy[_async], memset, mem info, memcpy2d."""

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


def align_up(size: int, alignment: int) -> int:
    """Round size up to a multiple of alignment."""
    return (size + alignment - 1) // alignment * alignment


def device_free(acl: Any) -> int:
    """Free bytes of device memory as get_mem_info reports them for the configured memory kind."""
    attr = MemAttr.ACL_HBM_MEM if aclcts.sim.settings().memory_kind == "hbm" else MemAttr.ACL_DDR_MEM
    free, _, ret = acl.rt.get_mem_info(attr)
    assert ret == OK
    return free


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
    "policy",
    [pytest.param(p, id=f"malloc_size_0_is_100000_{p.name}") for p in list(MemMallocPolicy)[:8]],
)
def test_malloc_size_0_is_100000(session, policy):
    assert session.acl.rt.malloc(0, policy) == (0, INVALID_PARAM)


@pytest.mark.parametrize(
    "policy",
    [pytest.param(int(p), id=p.name) for p in MemMallocPolicy]
    + [pytest.param(99, id="unknown_policy_99_falls_back"), pytest.param(0x101, id="or_of_flags_falls_back")],
)
@pytest.mark.parametrize("size", [1, 33, 4096, 3 * 1024 * 1024])
def test_malloc_returns_64_byte_aligned_device_pointer(session, policy, size):
    ptr, ret = session.acl.rt.malloc(size, policy)
    assert ret == OK
    assert ptr % 64 == 0
    assert ptr >= DEVICE_POINTER_FLOOR
    assert session.acl.rt.free(ptr) == OK


@pytest.mark.parametrize(
    "size, policy, reserved",
    [
        pytest.param(1, HUGE_FIRST, 64, id="malloc_1_reserves_64"),
        pytest.param(31, HUGE_FIRST, 64, id="malloc_31_reserves_64"),
        pytest.param(32, HUGE_FIRST, 64, id="malloc_32_reserves_64"),
        pytest.param(33, HUGE_FIRST, 96, id="malloc_33_reserves_96"),
        pytest.param(64, HUGE_FIRST, 96, id="malloc_64_reserves_96"),
        pytest.param(100, HUGE_FIRST, 160, id="malloc_100_reserves_160"),
        pytest.param(33, MemMallocPolicy.ACL_MEM_MALLOC_HUGE_ONLY, 96, id="huge_only_33_reserves_96"),
        pytest.param(33, MemMallocPolicy.ACL_MEM_MALLOC_NORMAL_ONLY, 96, id="normal_only_33_reserves_96"),
        pytest.param(33, MemMallocPolicy.ACL_MEM_MALLOC_HUGE_FIRST_P2P, 96, id="huge_first_p2p_33_reserves_96"),
        pytest.param(33, MemMallocPolicy.ACL_MEM_MALLOC_HUGE_ONLY_P2P, 96, id="huge_only_p2p_33_reserves_96"),
        pytest.param(33, MemMallocPolicy.ACL_MEM_MALLOC_NORMAL_ONLY_P2P, 96, id="normal_only_p2p_33_reserves_96"),
        pytest.param(33, MemMallocPolicy.ACL_MEM_MALLOC_HUGE1G_ONLY, 64, id="huge1g_only_33_reserves_64_no_plus_32"),
        pytest.param(32, MemMallocPolicy.ACL_MEM_MALLOC_HUGE1G_ONLY, 32, id="huge1g_only_32_reserves_32"),
        pytest.param(100, MemMallocPolicy.ACL_MEM_MALLOC_HUGE1G_ONLY_P2P, 128, id="huge1g_only_p2p_100_reserves_128"),
        pytest.param(33, 99, 96, id="unknown_policy_33_reserves_96"),
        pytest.param(33, MemMallocPolicy.ACL_MEM_TYPE_HIGH_BAND_WIDTH, 96, id="high_band_width_33_reserves_96"),
    ],
)
def test_malloc_reservation_seen_in_get_mem_info_free(session, size, policy, reserved):
    acl = session.acl
    before = device_free(acl)
    ptr, ret = acl.rt.malloc(size, policy)
    assert ret == OK
    assert before - device_free(acl) == reserved
    assert acl.rt.free(ptr) == OK
    assert device_free(acl) == before


@pytest.mark.parametrize(
    "size, reserved",
    [
        pytest.param(1, 32, id="malloc_align32_1_reserves_32"),
        pytest.param(32, 32, id="malloc_align32_32_reserves_32"),
        pytest.param(33, 64, id="malloc_align32_33_reserves_64"),
        pytest.param(100, 128, id="malloc_align32_100_reserves_128"),
    ],
)
def test_malloc_align32_reserves_align_up_32(session, size, reserved):
    acl = session.acl
    before = device_free(acl)
    ptr, ret = acl.rt.malloc_align32(size, HUGE_FIRST)
    assert ret == OK
    assert ptr >= DEVICE_POINTER_FLOOR
    assert before - device_free(acl) == reserved
    assert acl.rt.free(ptr) == OK
    assert device_free(acl) == before


@pytest.mark.parametrize(
    "size, reserved",
    [
        pytest.param(1, 64, id="malloc_cached_1_reserves_64"),
        pytest.param(33, 96, id="malloc_cached_33_reserves_96"),
    ],
)
def test_malloc_cached_reserves_like_malloc(session, size, reserved):
    acl = session.acl
    before = device_free(acl)
    ptr, ret = acl.rt.malloc_cached(size, HUGE_FIRST)
    assert ret == OK
    assert ptr % 64 == 0
    assert before - device_free(acl) == reserved
    assert acl.rt.free(ptr) == OK
    assert device_free(acl) == before


@pytest.mark.parametrize(
    "call",
    [
        pytest.param(lambda acl: acl.rt.malloc_align32(0, 0), id="malloc_align32_size_0_is_100000"),
        pytest.param(lambda acl: acl.rt.malloc_cached(0, 0), id="malloc_cached_size_0_is_100000"),
        pytest.param(lambda acl: acl.rt.malloc_host(0), id="malloc_host_size_0_is_100000"),
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


def test_malloc_pointers_do_not_overlap(session):
    acl = session.acl
    ptrs = [acl.rt.malloc(100, HUGE_FIRST)[0] for _ in range(4)]
    spans = sorted((p, p + align_up(100, 32) + 32) for p in ptrs)
    assert all(end <= nxt for (_, end), (nxt, _) in zip(spans, spans[1:]))
    for ptr in ptrs:
        assert acl.rt.free(ptr) == OK


@pytest.mark.parametrize(
    "call",
    [
        pytest.param(lambda acl: acl.rt.free(0), id="free_0_is_100000"),
        pytest.param(lambda acl: acl.rt.free_host(0), id="free_host_0_is_100000"),
    ],
)
def test_free_of_null_is_100000(session, call):
    assert call(session.acl) == INVALID_PARAM


# ---------------------------------------------------------------- host memory


@pytest.mark.parametrize("size", [1, 64, 1000])
def test_malloc_host_returns_real_64_byte_aligned_memory(session, size):
    acl = session.acl
    host, ret = acl.rt.malloc_host(size)
    assert ret == OK
    assert host % 64 == 0
    assert 0 < host < DEVICE_POINTER_FLOOR
    data = pattern(size)
    ctypes.memmove(host, data, size)
    assert acl.util.ptr_to_bytes(host, size) == data
    assert ctypes.string_at(host, size) == data
    assert acl.rt.free_host(host) == OK


def test_malloc_host_does_not_use_device_memory(session):
    acl = session.acl
    before = device_free(acl)
    host, _ = acl.rt.malloc_host(4096)
    assert device_free(acl) == before
    assert acl.rt.free_host(host) == OK


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


COPY_DIRECTIONS = [
    pytest.param("pageable", "device", H2D, id="h2d_from_pageable"),
    pytest.param("pinned", "device", H2D, id="h2d_from_pinned"),
    pytest.param("device", "pinned", D2H, id="d2h_to_pinned"),
    pytest.param("device", "pageable", D2H, id="d2h_to_pageable"),
    pytest.param("device", "device", D2D, id="d2d"),
    pytest.param("pageable", "pinned", H2H, id="h2h"),
    pytest.param("pageable", "device", DEFAULT, id="default_kind_h2d"),
    pytest.param("device", "pinned", DEFAULT, id="default_kind_d2h"),
    pytest.param("device", "device", DEFAULT, id="default_kind_d2d"),
    pytest.param("pageable", "device", H2BUF2D, id="host_to_buf_to_device"),
    pytest.param("device", "pinned", H2D, id="kind_is_reserved_d2h_with_h2d_kind"),
    pytest.param("pinned", "device", D2H, id="kind_is_reserved_h2d_with_d2h_kind"),
]


@pytest.mark.parametrize("src_where, dst_where, kind", COPY_DIRECTIONS)
def test_memcpy_copies_count_bytes(session, endpoints, src_where, dst_where, kind):
    data = pattern(256)
    src, _ = endpoints(src_where, data)
    dst, read = endpoints(dst_where, bytes(256))
    assert session.acl.rt.memcpy(dst, 256, src, 200, kind) == OK
    assert read(256) == data[:200] + bytes(56)


def test_memcpy_with_interior_pointers(session, endpoints):
    data = pattern(256)
    src, _ = endpoints("device", data)
    dst, read = endpoints("device", bytes(256))
    assert session.acl.rt.memcpy(dst + 64, 128, src + 32, 64, D2D) == OK
    assert read(256) == bytes(64) + data[32:96] + bytes(128)


# ---------------------------------------------------------------- memcpy: check order


def copy_check_cases() -> list:
    """(dst, dest_max, src, count, kind) builders and the expected code, in the documented check order."""
    return [
        pytest.param(lambda d, s: (0, 64, s, 64, D2D), INVALID_PARAM, id="dst_0_is_100000"),
        pytest.param(lambda d, s: (d, 64, 0, 64, D2D), INVALID_PARAM, id="src_0_is_100000"),
        pytest.param(lambda d, s: (0, 64, 0, 64, D2D), INVALID_PARAM, id="dst_0_and_src_0_is_100000"),
        pytest.param(lambda d, s: (0, 64, s, 0, D2D), INVALID_PARAM, id="dst_0_and_count_0_is_100000"),
        pytest.param(lambda d, s: (d, 0, 0, 0, D2D), INVALID_PARAM, id="src_0_and_dest_max_0_is_100000"),
        pytest.param(lambda d, s: (0, 64, s, 64, 7), INVALID_PARAM, id="dst_0_and_kind_7_is_100000"),
        pytest.param(lambda d, s: (d, 64, s, 64, 6), INVALID_PARAM, id="kind_6_inner_d2d_is_100000"),
        pytest.param(lambda d, s: (d, 64, s, 64, 7), INVALID_PARAM, id="kind_7_inter_d2d_is_100000"),
        pytest.param(lambda d, s: (d, 64, s, 64, 99), INVALID_PARAM, id="kind_99_is_100000"),
        pytest.param(lambda d, s: (d, 64, s, 64, -1), INVALID_PARAM, id="kind_minus_1_is_100000"),
        pytest.param(lambda d, s: (d, 64, s, 0, 7), INVALID_PARAM, id="kind_7_and_count_0_is_100000"),
        pytest.param(lambda d, s: (d, 16, s, 64, 6), INVALID_PARAM, id="kind_6_and_count_gt_dest_max_is_100000"),
        pytest.param(lambda d, s: (d, 64, s, 0, D2D), RT_PARAM_INVALID, id="count_0_is_107000"),
        pytest.param(lambda d, s: (d, 0, s, 0, D2D), RT_PARAM_INVALID, id="dest_max_0_and_count_0_is_107000"),
        pytest.param(lambda d, s: (d, 0, s, 64, D2D), RT_PARAM_INVALID, id="dest_max_0_is_107000"),
        pytest.param(lambda d, s: (d, 32, s, 64, D2D), RT_PARAM_INVALID, id="count_gt_dest_max_is_107000"),
        pytest.param(lambda d, s: (d, 32, d, 64, D2D), RT_PARAM_INVALID, id="dst_eq_src_count_gt_dest_max_is_107000"),
        pytest.param(lambda d, s: (d, 64, d, 0, D2D), RT_PARAM_INVALID, id="dst_eq_src_count_0_is_107000"),
        pytest.param(lambda d, s: (d, 64, d, 64, D2D), OK, id="dst_eq_src_is_0"),
        pytest.param(lambda d, s: (d, 128, s, 64, D2D), OK, id="count_lt_dest_max_is_0"),
    ]


@pytest.mark.parametrize("args, expected", copy_check_cases())
def test_memcpy_check_order(session, endpoints, args, expected):
    dst, _ = endpoints("device", bytes(128))
    src, _ = endpoints("device", pattern(128))
    assert session.acl.rt.memcpy(*args(dst, src)) == expected


@pytest.mark.parametrize("args, expected", copy_check_cases())
def test_memcpy_async_check_order(session, endpoints, args, expected):
    dst, _ = endpoints("device", bytes(128))
    src, _ = endpoints("device", pattern(128))
    assert session.acl.rt.memcpy_async(*args(dst, src), session.stream) == expected
    assert session.acl.rt.synchronize_stream(session.stream) == OK


def test_memcpy_dst_eq_src_is_noop(session, endpoints):
    data = pattern(128)
    ptr, read = endpoints("device", data)
    assert session.acl.rt.memcpy(ptr, 128, ptr, 128, D2D) == OK
    assert read(128) == data


def test_memcpy_rejected_leaves_destination_untouched(session, endpoints):
    dst, read = endpoints("device", bytes(128))
    src, _ = endpoints("device", pattern(128))
    assert session.acl.rt.memcpy(dst, 32, src, 64, D2D) == RT_PARAM_INVALID
    assert session.acl.rt.memcpy(dst, 64, src, 64, 7) == INVALID_PARAM
    assert read(128) == bytes(128)


# ---------------------------------------------------------------- memcpy_async


@pytest.mark.parametrize("src_where, dst_where, kind", [p for p in COPY_DIRECTIONS if p.id != "h2h"])
def test_memcpy_async_copies_after_synchronize(session, endpoints, src_where, dst_where, kind):
    data = pattern(256)
    src, _ = endpoints(src_where, data)
    dst, read = endpoints(dst_where, bytes(256))
    assert session.acl.rt.memcpy_async(dst, 256, src, 192, kind, session.stream) == OK
    assert session.acl.rt.synchronize_stream(session.stream) == OK
    assert read(256) == data[:192] + bytes(64)


@pytest.mark.parametrize(
    "src_where, dst_where",
    [
        pytest.param("pinned", "pinned", id="h2h_pinned_in_host_mode_is_207000"),
        pytest.param("pageable", "pinned", id="h2h_pageable_in_host_mode_is_207000"),
    ],
)
def test_memcpy_async_host_to_host_in_host_mode_is_207000(session, endpoints, src_where, dst_where):
    src, _ = endpoints(src_where, pattern(128))
    dst, read = endpoints(dst_where, bytes(128))
    ret = session.acl.rt.memcpy_async(dst, 128, src, 128, H2H, session.stream)
    assert ret == ErrorCode.ACL_ERROR_RT_FEATURE_NOT_SUPPORT
    assert session.acl.rt.synchronize_stream(session.stream) == OK
    assert read(128) == bytes(128)


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


def test_plain_memcpy_accepts_unaligned_addresses(session, endpoints):
    data = pattern(128)
    src, _ = endpoints("device", data)
    dst, read = endpoints("device", bytes(128))
    assert session.acl.rt.memcpy(dst + 1, 64, src + 3, 32, D2D) == OK
    assert read(128) == b"\x00" + data[3:35] + bytes(95)


# ---------------------------------------------------------------- memset


@pytest.mark.parametrize(
    "where, max_count, value, count",
    [
        pytest.param("device", 128, 0x3C, 128, id="memset_device_whole"),
        pytest.param("device", 128, 0xFF, 17, id="memset_device_prefix"),
        pytest.param("device", 128, 0, 64, id="memset_device_zero"),
        pytest.param("pinned", 128, 0x11, 100, id="memset_acl_host_memory"),
    ],
)
def test_memset_sets_count_bytes_to_value(session, endpoints, where, max_count, value, count):
    data = pattern(128)
    ptr, read = endpoints(where, data)
    assert session.acl.rt.memset(ptr, max_count, value, count) == OK
    assert read(128) == bytes([value]) * count + data[count:]


def test_memset_null_is_100000(session):
    assert session.acl.rt.memset(0, 64, 1, 64) == INVALID_PARAM


def test_memset_at_interior_pointer(session, endpoints):
    data = pattern(128)
    ptr, read = endpoints("device", data)
    assert session.acl.rt.memset(ptr + 64, 64, 0xEE, 32) == OK
    assert read(128) == data[:64] + b"\xee" * 32 + data[96:]


def test_memset_async_sets_bytes_after_synchronize(session, endpoints):
    data = pattern(128)
    ptr, read = endpoints("device", data)
    assert session.acl.rt.memset_async(ptr, 128, 0x42, 96, session.stream) == OK
    assert session.acl.rt.synchronize_stream(session.stream) == OK
    assert read(128) == b"\x42" * 96 + data[96:]


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


def test_get_mem_info_is_per_device(session):
    acl = session.acl
    before = device_free(acl)
    ptr, _ = acl.rt.malloc(1000, HUGE_FIRST)
    assert acl.rt.set_device(1) == OK
    assert device_free(acl) == before
    assert acl.rt.set_context(session.context) == OK
    assert acl.rt.free(ptr) == OK
    assert acl.rt.reset_device(1) == OK


# ---------------------------------------------------------------- memcpy2d


@pytest.mark.parametrize(
    "dpitch, spitch, width, kind, expected",
    [
        pytest.param(32, 16, 17, H2D, INVALID_PARAM, id="width_gt_spitch_is_100000"),
        pytest.param(16, 32, 17, H2D, INVALID_PARAM, id="width_gt_dpitch_is_100000"),
        pytest.param(32, 32, 16, H2H, INVALID_PARAM, id="kind_0_h2h_is_100000"),
        pytest.param(32, 32, 16, H2BUF2D, INVALID_PARAM, id="kind_5_is_100000"),
        pytest.param(32, 32, 16, 6, INVALID_PARAM, id="kind_6_is_100000"),
        pytest.param(32, 32, 16, 7, INVALID_PARAM, id="kind_7_is_100000"),
        pytest.param(32, 16, 16, H2D, OK, id="width_eq_spitch_is_0"),
        pytest.param(32, 16, 8, DEFAULT, OK, id="kind_4_default_is_0"),
    ],
)
def test_memcpy2d_checks(session, endpoints, dpitch, spitch, width, kind, expected):
    src, _ = endpoints("pageable", pattern(256))
    dst, _ = endpoints("device", bytes(256))
    assert session.acl.rt.memcpy2d(dst, dpitch, src, spitch, width, 4, kind) == expected


@pytest.mark.parametrize(
    "dpitch, spitch, width, kind, expected",
    [
        pytest.param(32, 16, 17, H2D, INVALID_PARAM, id="width_gt_spitch_is_100000"),
        pytest.param(16, 32, 17, H2D, INVALID_PARAM, id="width_gt_dpitch_is_100000"),
        pytest.param(32, 32, 16, H2H, INVALID_PARAM, id="kind_0_h2h_is_100000"),
        pytest.param(32, 32, 16, 7, INVALID_PARAM, id="kind_7_is_100000"),
        pytest.param(32, 16, 16, H2D, OK, id="width_eq_spitch_is_0"),
    ],
)
def test_memcpy2d_async_checks(session, endpoints, dpitch, spitch, width, kind, expected):
    src, _ = endpoints("pinned", pattern(256))
    dst, _ = endpoints("device", bytes(256))
    ret = session.acl.rt.memcpy2d_async(dst, dpitch, src, spitch, width, 4, kind, session.stream)
    assert ret == expected
    assert session.acl.rt.synchronize_stream(session.stream) == OK


def expected_2d(src: bytes, dst: bytes, dpitch: int, spitch: int, width: int, height: int) -> bytes:
    """dst after copying height rows of width bytes from src (row stride spitch) to dst (row stride dpitch)."""
    out = bytearray(dst)
    for row in range(height):
        out[row * dpitch:row * dpitch + width] = src[row * spitch:row * spitch + width]
    return bytes(out)


def test_memcpy2d_copies_rows_with_pitches(session, endpoints):
    src_data = pattern(256)
    src, _ = endpoints("pageable", src_data)
    dst, read = endpoints("device", bytes(256))
    assert session.acl.rt.memcpy2d(dst, 32, src, 24, 10, 5, H2D) == OK
    assert read(256) == expected_2d(src_data, bytes(256), 32, 24, 10, 5)


def test_memcpy2d_device_to_host(session, endpoints):
    src_data = pattern(256, seed=3)
    src, _ = endpoints("device", src_data)
    dst, read = endpoints("pinned", bytes(256))
    assert session.acl.rt.memcpy2d(dst, 16, src, 40, 12, 6, D2H) == OK
    assert read(256) == expected_2d(src_data, bytes(256), 16, 40, 12, 6)


def test_memcpy2d_async_copies_rows_after_synchronize(session, endpoints):
    src_data = pattern(256)
    src, _ = endpoints("pinned", src_data)
    dst, read = endpoints("device", bytes(256))
    assert session.acl.rt.memcpy2d_async(dst, 64, src, 32, 20, 3, H2D, session.stream) == OK
    assert session.acl.rt.synchronize_stream(session.stream) == OK
    assert read(256) == expected_2d(src_data, bytes(256), 64, 32, 20, 3)


# ---------------------------------------------------------------- binding level (§1) for these functions


@pytest.mark.parametrize(
    "call, message",
    [
        pytest.param(lambda acl: acl.rt.malloc(64), "acl.rt.malloc", id="malloc_one_arg"),
        pytest.param(lambda acl: acl.rt.malloc(None, 0), "acl.rt.malloc", id="malloc_none_size"),
        pytest.param(lambda acl: acl.rt.malloc(64.0, 0), "acl.rt.malloc", id="malloc_float_size"),
        pytest.param(lambda acl: acl.rt.malloc(np.int64(64), 0), "acl.rt.malloc",
                     id="malloc_numpy_size_rejected_for_k"),
        pytest.param(lambda acl: acl.rt.free(None), "acl.rt.free", id="free_none"),
        pytest.param(lambda acl: acl.rt.memcpy(0, 8, 0, 8), "acl.rt.memcpy", id="memcpy_four_args"),
        pytest.param(lambda acl: acl.rt.memcpy(0, 8, 0, 8, None), "acl.rt.memcpy", id="memcpy_none_kind"),
        pytest.param(lambda acl: acl.rt.memcpy_async(0, 8, 0, 8, 1), "acl.rt.memcpy_async",
                     id="memcpy_async_no_stream"),
        pytest.param(lambda acl: acl.rt.memset(0, 8, 2**40, 8), "acl.rt.memset", id="memset_value_out_of_int32"),
        pytest.param(lambda acl: acl.rt.get_mem_info(), "acl.rt.get_mem_info", id="get_mem_info_no_args"),
    ],
)
def test_binding_parse_failure_is_type_error(session, call, message):
    with pytest.raises(TypeError) as info:
        call(session.acl)
    assert str(info.value) == f"{message} args parse failed"


@pytest.mark.parametrize(
    "call, expected",
    [
        pytest.param(lambda acl, d, s: acl.rt.memcpy(d, 64, s, -1, D2D), RT_PARAM_INVALID,
                     id="memcpy_negative_count_wraps_to_huge_gt_dest_max_is_107000"),
        pytest.param(lambda acl, d, s: acl.rt.memcpy(d, -1, s, 64, D2D), OK,
                     id="memcpy_negative_dest_max_wraps_to_huge_is_0"),
        pytest.param(lambda acl, d, s: acl.rt.memcpy(d, 64, s, 64, np.int32(D2D)), OK,
                     id="memcpy_numpy_kind_accepted_for_i"),
    ],
)
def test_memcpy_argument_conversion(session, endpoints, call, expected):
    dst, _ = endpoints("device", bytes(128))
    src, _ = endpoints("device", pattern(128))
    assert call(session.acl, dst, src) == expected


def test_malloc_negative_size_wraps_and_fails_allocation(session):
    assert session.acl.rt.malloc(-1, HUGE_FIRST) == (0, ErrorCode.ACL_ERROR_RT_MEMORY_ALLOCATION)
