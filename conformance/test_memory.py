"""Device and host memory (docs/contract/memory.md): malloc, malloc_host, memcpy[_async], memset[_async],
get_mem_info."""

from __future__ import annotations

import ctypes
import inspect
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from aclcts.drive import flow
from aclcts.core.constants import ErrorCode, MemcpyKind, MemMallocPolicy, RunMode

pytestmark = pytest.mark.memory

OK = ErrorCode.ACL_SUCCESS
INVALID_PARAM = ErrorCode.ACL_ERROR_INVALID_PARAM
RT_PARAM_INVALID = ErrorCode.ACL_ERROR_RT_PARAM_INVALID
FEATURE_NOT_SUPPORT = ErrorCode.ACL_ERROR_RT_FEATURE_NOT_SUPPORT
H2H = int(MemcpyKind.ACL_MEMCPY_HOST_TO_HOST)
H2D = int(MemcpyKind.ACL_MEMCPY_HOST_TO_DEVICE)
D2H = int(MemcpyKind.ACL_MEMCPY_DEVICE_TO_HOST)
D2D = int(MemcpyKind.ACL_MEMCPY_DEVICE_TO_DEVICE)
DEFAULT = int(MemcpyKind.ACL_MEMCPY_DEFAULT)
H2BUF2D = int(MemcpyKind.ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE)
P = MemMallocPolicy
HUGE1G_POLICIES = (P.ACL_MEM_MALLOC_HUGE1G_ONLY, P.ACL_MEM_MALLOC_HUGE1G_ONLY_P2P)
#: SoCs with 1 GiB pages (docs/contract/enums.md#runtime-enums: HUGE1G is for Atlas A2/A3 only).
HUGE1G_SOCS = ("Ascend910B", "Ascend910_93")
MIB = 1 << 20


def align_up(size: int, alignment: int) -> int:
    """size rounded up to a multiple of alignment."""
    return (size + alignment - 1) // alignment * alignment


def soc_name(acl: Any) -> str:
    """acl.get_soc_name(), or "" when the backend gives None."""
    return acl.get_soc_name() or ""


def skip_unless_policy_available(acl: Any, policy: int) -> None:
    """Skip HUGE1G policies on SoCs without 1 GiB pages."""
    if policy in HUGE1G_POLICIES and not soc_name(acl).startswith(HUGE1G_SOCS):
        pytest.skip(f"HUGE1G policies need Atlas A2/A3; this SoC is {soc_name(acl)!r}")


def malloc_reservation(acl: Any, size: int, policy: int) -> int:
    """What acl.rt.malloc(size, policy) takes from get_mem_info's free (docs/contract/memory.md#malloc-and-free)."""
    if policy in HUGE1G_POLICIES or soc_name(acl).startswith("Ascend950"):
        return align_up(size, 32)
    return align_up(size, 32) + 32


def allocate(res: flow.Resources, where: str, size: int) -> int:
    """malloc (device) or malloc_host (host) memory, released with the test's resources."""
    return flow.malloc(res, size) if where == "device" else flow.malloc_host(res, size)


def put(acl: Any, ptr: int, where: str, data: bytes) -> None:
    """Write bytes to device or host memory with a synchronous memcpy."""
    kind = H2D if where == "device" else H2H
    flow.check(acl.rt.memcpy(ptr, len(data), acl.util.bytes_to_ptr(data), len(data), kind), "acl.rt.memcpy")


def read(res: flow.Resources, ptr: int, where: str, size: int) -> bytes:
    """Bytes of device memory (via a D2H copy) or of host memory (ptr_to_bytes)."""
    return flow.copy_to_host(res, ptr, size) if where == "device" else res.acl.util.ptr_to_bytes(ptr, size)


def pattern(size: int, seed: int = 1) -> bytes:
    """size bytes that differ from each other and from any memset value."""
    return bytes((i * 7 + seed) % 251 + 1 for i in range(size))


# ---------------------------------------------------------------- malloc

ALL_POLICIES = [pytest.param(int(p), id=p.name) for p in P]


@pytest.mark.parametrize("policy", ALL_POLICIES)
def test_malloc_returns_a_64_byte_aligned_pointer_for_every_policy(acl, policy):
    skip_unless_policy_available(acl, policy)
    ptr, ret = acl.rt.malloc(100, policy)
    try:
        assert ret == OK
        assert ptr != 0 and ptr % 64 == 0
    finally:
        if ret == OK:
            flow.check(acl.rt.free(ptr), "acl.rt.free")


@pytest.mark.parametrize("policy", [int(P.ACL_MEM_MALLOC_HUGE_FIRST), int(P.ACL_MEM_MALLOC_HUGE_ONLY)],
                         ids=["HUGE_FIRST", "HUGE_ONLY"])
def test_malloc_of_3_mib_on_huge_pages_returns_a_64_byte_aligned_pointer(acl, policy):
    ptr, ret = acl.rt.malloc(3 * MIB, policy)
    try:
        assert ret == OK
        assert ptr != 0 and ptr % 64 == 0
    finally:
        if ret == OK:
            flow.check(acl.rt.free(ptr), "acl.rt.free")


@pytest.mark.parametrize("policy", [0x10, 99], ids=["0x10", "99"])
def test_malloc_with_an_unknown_policy_falls_back_to_the_default(acl, policy):
    ptr, ret = acl.rt.malloc(256, policy)
    try:
        assert ret == OK and ptr != 0
    finally:
        if ret == OK:
            flow.check(acl.rt.free(ptr), "acl.rt.free")


@pytest.mark.negative
@pytest.mark.parametrize("policy", ALL_POLICIES)
def test_malloc_of_size_0_is_100000(acl, policy):
    assert acl.rt.malloc(0, policy) == (0, INVALID_PARAM)


RESERVATION_SIZES = [1, 31, 32, 33, 64, 100, 1000]
#: Policies whose reservation is checked: by name without the ACL_MEM_MALLOC_ prefix, and an unknown value.
RESERVATION_POLICIES = [pytest.param(int(p), id=p.name.removeprefix("ACL_MEM_MALLOC_")) for p in P] + [
    pytest.param(99, id="unknown-99")]


@pytest.mark.parametrize("size", RESERVATION_SIZES)
@pytest.mark.parametrize("policy", RESERVATION_POLICIES)
def test_malloc_reserves_align_up_32_plus_32_bytes_except_huge1g(acl, policy, size):
    skip_unless_policy_available(acl, policy)
    before = flow.device_free_bytes(acl)
    ptr, ret = acl.rt.malloc(size, policy)
    flow.check(ret, f"acl.rt.malloc({size}, {policy})")
    try:
        assert before - flow.device_free_bytes(acl) == malloc_reservation(acl, size, policy)
    finally:
        flow.check(acl.rt.free(ptr), "acl.rt.free")
    assert flow.device_free_bytes(acl) == before


def test_malloc_allocations_do_not_overlap(acl, res):
    pointers = sorted(flow.malloc(res, 100) for _ in range(4))
    assert all(later >= earlier + 100 for earlier, later in zip(pointers, pointers[1:]))


@pytest.mark.negative
def test_malloc_of_a_negative_size_wraps_to_a_huge_size_and_fails(acl):
    ptr, ret = acl.rt.malloc(-1, int(P.ACL_MEM_MALLOC_HUGE_FIRST))
    assert ptr == 0 and ret != OK


@pytest.mark.parametrize("size", RESERVATION_SIZES)
def test_malloc_align32_reserves_align_up_32_bytes(acl, size):
    before = flow.device_free_bytes(acl)
    ptr, ret = acl.rt.malloc_align32(size, int(P.ACL_MEM_MALLOC_NORMAL_ONLY))
    flow.check(ret, "acl.rt.malloc_align32")
    try:
        assert ptr % 64 == 0
        assert before - flow.device_free_bytes(acl) == align_up(size, 32)
    finally:
        flow.check(acl.rt.free(ptr), "acl.rt.free")


@pytest.mark.parametrize("size", [1, 32, 33])
def test_malloc_cached_reserves_like_malloc(acl, size):
    policy = int(P.ACL_MEM_MALLOC_NORMAL_ONLY)
    before = flow.device_free_bytes(acl)
    ptr, ret = acl.rt.malloc_cached(size, policy)
    flow.check(ret, "acl.rt.malloc_cached")
    try:
        assert before - flow.device_free_bytes(acl) == malloc_reservation(acl, size, policy)
    finally:
        flow.check(acl.rt.free(ptr), "acl.rt.free")


# ---------------------------------------------------------------- malloc_host


@pytest.mark.parametrize("size", [1, 4096])
def test_malloc_host_returns_64_byte_aligned_usable_memory(acl, res, size):
    host = flow.malloc_host(res, size)
    assert host != 0 and host % 64 == 0
    put(acl, host, "host", pattern(size))
    assert acl.util.ptr_to_bytes(host, size) == pattern(size)


@pytest.mark.negative
def test_malloc_host_of_size_0_is_100000(acl):
    assert acl.rt.malloc_host(0) == (0, INVALID_PARAM)


def test_malloc_host_takes_no_device_memory_in_host_run_mode(acl, res):
    run_mode = flow.value(acl.rt.get_run_mode(), "acl.rt.get_run_mode")
    if run_mode != RunMode.ACL_HOST:
        pytest.skip("on the device (ACL_DEVICE run mode) host memory is device memory")
    before = flow.device_free_bytes(acl)
    flow.malloc_host(res, 4096)
    assert flow.device_free_bytes(acl) == before


# ---------------------------------------------------------------- acl.media.dvpp_malloc / dvpp_free


def media(acl: Any) -> Any:
    """The backend's acl.media, skipping the test where it has none."""
    if not hasattr(getattr(acl, "media", None), "dvpp_malloc"):
        pytest.skip("the backend has no acl.media.dvpp_malloc")
    return acl.media


@pytest.mark.parametrize("size", [1, 100, 4096, 3 * MIB])
def test_dvpp_malloc_returns_a_128_byte_aligned_pointer_that_dvpp_free_releases(acl, size):
    ptr, ret = media(acl).dvpp_malloc(size)
    try:
        assert ret == OK
        assert ptr != 0 and ptr % 128 == 0
    finally:
        if ret == OK:
            assert acl.media.dvpp_free(ptr) == OK


def test_dvpp_memory_is_device_memory_that_copies_go_through(acl, res):
    payload = bytes(range(256))
    ptr = flow.value(media(acl).dvpp_malloc(len(payload)), "acl.media.dvpp_malloc")
    try:
        device = flow.malloc(res, len(payload))
        host = flow.malloc_host(res, len(payload))
        assert acl.rt.memcpy(ptr, len(payload), acl.util.bytes_to_ptr(payload), len(payload), H2D) == OK
        assert acl.rt.memcpy(device, len(payload), ptr, len(payload), D2D) == OK
        assert acl.rt.memcpy(host, len(payload), device, len(payload), D2H) == OK
        assert acl.util.ptr_to_bytes(host, len(payload)) == payload
    finally:
        assert acl.media.dvpp_free(ptr) == OK


@pytest.mark.negative
@pytest.mark.parametrize("call, name", [
    pytest.param(lambda media: media.dvpp_malloc("64"), "dvpp_malloc", id="dvpp_malloc-str"),
    pytest.param(lambda media: media.dvpp_malloc(), "dvpp_malloc", id="dvpp_malloc-no-argument"),
    pytest.param(lambda media: media.dvpp_free(None), "dvpp_free", id="dvpp_free-None"),
])
def test_dvpp_parse_failures_raise_the_wrappers_type_error(acl, call, name):
    with pytest.raises(TypeError) as raised:
        call(media(acl))
    assert type(raised.value) is TypeError and str(raised.value) == f"acl.media.{name} args parse failed!"


# ---------------------------------------------------------------- memcpy

SIZE = 256
COPIES = [
    pytest.param("host", "host", H2H, id="HOST_TO_HOST"),
    pytest.param("host", "device", H2D, id="HOST_TO_DEVICE"),
    pytest.param("device", "host", D2H, id="DEVICE_TO_HOST"),
    pytest.param("device", "device", D2D, id="DEVICE_TO_DEVICE"),
    pytest.param("host", "device", DEFAULT, id="DEFAULT-host-to-device"),
    pytest.param("device", "host", DEFAULT, id="DEFAULT-device-to-host"),
    pytest.param("device", "device", DEFAULT, id="DEFAULT-device-to-device"),
    pytest.param("host", "host", DEFAULT, id="DEFAULT-host-to-host"),
    pytest.param("host", "device", H2BUF2D, id="HOST_TO_BUF_TO_DEVICE"),
]


@pytest.mark.parametrize("src_where, dst_where, kind", COPIES)
def test_memcpy_copies_count_bytes_for_every_accepted_kind(acl, res, src_where, dst_where, kind):
    src, dst = allocate(res, src_where, SIZE), allocate(res, dst_where, SIZE)
    put(acl, src, src_where, pattern(SIZE))
    assert acl.rt.memcpy(dst, SIZE, src, SIZE, kind) == OK
    assert read(res, dst, dst_where, SIZE) == pattern(SIZE)


def test_memcpy_of_fewer_bytes_than_dest_max_leaves_the_rest(acl, res):
    src, dst = flow.malloc(res, SIZE), flow.malloc(res, SIZE)
    put(acl, src, "device", pattern(SIZE, 1))
    put(acl, dst, "device", pattern(SIZE, 2))
    assert acl.rt.memcpy(dst, SIZE, src, 64, D2D) == OK
    assert read(res, dst, "device", SIZE) == pattern(SIZE, 1)[:64] + pattern(SIZE, 2)[64:]


def test_memcpy_between_interior_pointers_copies_there(acl, res):
    src, dst = flow.malloc(res, SIZE), flow.malloc(res, SIZE)
    put(acl, src, "device", pattern(SIZE, 1))
    put(acl, dst, "device", pattern(SIZE, 2))
    assert acl.rt.memcpy(dst + 64, 128, src + 32, 64, D2D) == OK
    assert read(res, dst, "device", SIZE) == pattern(SIZE, 2)[:64] + pattern(SIZE, 1)[32:96] + pattern(SIZE, 2)[128:]


def test_memcpy_needs_no_alignment(acl, res):
    src, dst = flow.malloc(res, SIZE), flow.malloc(res, SIZE)
    put(acl, src, "device", pattern(SIZE, 1))
    put(acl, dst, "device", pattern(SIZE, 2))
    assert acl.rt.memcpy(dst + 1, 64, src + 3, 32, D2D) == OK
    assert read(res, dst, "device", SIZE) == pattern(SIZE, 2)[:1] + pattern(SIZE, 1)[3:35] + pattern(SIZE, 2)[33:]


#: kind is a reserved parameter: the runtime takes the direction from the addresses (docs/contract/memory.md#memcpy).
@pytest.mark.parametrize("src_where, dst_where, kind", [
    pytest.param("device", "host", H2D, id="device-to-host-with-HOST_TO_DEVICE"),
    pytest.param("host", "device", D2H, id="host-to-device-with-DEVICE_TO_HOST"),
])
def test_memcpy_direction_follows_the_addresses_not_the_kind(acl, res, src_where, dst_where, kind):
    src, dst = allocate(res, src_where, SIZE), allocate(res, dst_where, SIZE)
    put(acl, src, src_where, pattern(SIZE))
    assert acl.rt.memcpy(dst, SIZE, src, SIZE, kind) == OK
    assert read(res, dst, dst_where, SIZE) == pattern(SIZE)


@pytest.mark.parametrize("call, expected", [
    pytest.param(lambda acl, dst, src: acl.rt.memcpy(dst, SIZE, src, -1, D2D), RT_PARAM_INVALID,
                 id="negative-count-wraps-above-dest_max"),
    pytest.param(lambda acl, dst, src: acl.rt.memcpy(dst, -1, src, SIZE, D2D), OK, id="negative-dest_max-wraps"),
    pytest.param(lambda acl, dst, src: acl.rt.memcpy(dst, SIZE, src, SIZE, np.int32(D2D)), OK,
                 id="numpy-int-kind"),
])
def test_memcpy_size_arguments_wrap_and_kind_takes_any_index(acl, res, call, expected):
    dst, src = flow.malloc(res, SIZE), flow.malloc(res, SIZE)
    put(acl, src, "device", pattern(SIZE))
    assert call(acl, dst, src) == expected


def test_memcpy_with_dst_equal_to_src_is_a_successful_no_op(acl, res):
    ptr = flow.malloc(res, SIZE)
    put(acl, ptr, "device", pattern(SIZE))
    assert acl.rt.memcpy(ptr, SIZE, ptr, SIZE, D2D) == OK
    assert read(res, ptr, "device", SIZE) == pattern(SIZE)


#: (dst, dest_max, src, count, kind) → code, in the documented check order: null pointers, then the
#: kind (0–5 accepted), then the runtime's size checks (docs/contract/memory.md#memcpy).
CHECK_ORDER = [
    pytest.param(("null", SIZE, "src", SIZE, D2D), INVALID_PARAM, id="dst-null"),
    pytest.param(("dst", SIZE, "null", SIZE, D2D), INVALID_PARAM, id="src-null"),
    pytest.param(("null", SIZE, "null", SIZE, D2D), INVALID_PARAM, id="both-null"),
    pytest.param(("null", 0, "src", 0, D2D), INVALID_PARAM, id="dst-null-before-sizes"),
    pytest.param(("null", SIZE, "src", SIZE, 99), INVALID_PARAM, id="dst-null-with-bad-kind"),
    pytest.param(("dst", SIZE, "src", SIZE, 6), INVALID_PARAM, id="kind-6-INNER_D2D"),
    pytest.param(("dst", SIZE, "src", SIZE, 7), INVALID_PARAM, id="kind-7-INTER_D2D"),
    pytest.param(("dst", SIZE, "src", SIZE, 99), INVALID_PARAM, id="kind-99"),
    pytest.param(("dst", SIZE, "src", SIZE, -1), INVALID_PARAM, id="kind-minus-1"),
    pytest.param(("dst", SIZE, "src", 0, 6), INVALID_PARAM, id="kind-before-count-0"),
    pytest.param(("dst", 64, "src", SIZE, 99), INVALID_PARAM, id="kind-before-count-above-dest_max"),
    pytest.param(("dst", 0, "src", SIZE, D2D), RT_PARAM_INVALID, id="dest_max-0"),
    pytest.param(("dst", SIZE, "src", 0, D2D), RT_PARAM_INVALID, id="count-0"),
    pytest.param(("dst", 0, "src", 0, D2D), RT_PARAM_INVALID, id="dest_max-and-count-0"),
    pytest.param(("dst", 64, "src", 128, D2D), RT_PARAM_INVALID, id="count-above-dest_max"),
    pytest.param(("dst", 0, "null", 0, D2D), INVALID_PARAM, id="src-null-before-sizes"),
    pytest.param(("dst", 64, "dst", 128, D2D), RT_PARAM_INVALID, id="dst-equal-to-src-with-count-above-dest_max"),
    pytest.param(("dst", SIZE, "dst", 0, D2D), RT_PARAM_INVALID, id="dst-equal-to-src-with-count-0"),
]


#: The rows of CHECK_ORDER also run through memcpy_async ("same null/kind checks as memcpy").
ASYNC_CHECKS = ("dst-null", "src-null", "both-null", "dst-null-with-bad-kind", "kind-6-INNER_D2D", "kind-7-INTER_D2D",
                "kind-99", "kind-before-count-0",
                "count-0", "count-above-dest_max")


def copy_arguments(res: flow.Resources, args: tuple) -> tuple[int, int, int, int, int]:
    """Resolve "dst"/"src"/"null" in a CHECK_ORDER row to device pointers holding known bytes."""
    dst_name, dest_max, src_name, count, kind = args
    pointers = {"null": 0}
    for name, seed in (("dst", 2), ("src", 1)):
        pointers[name] = flow.malloc(res, SIZE)
        put(res.acl, pointers[name], "device", pattern(SIZE, seed))
    return pointers[dst_name], dest_max, pointers[src_name], count, kind


@pytest.mark.negative
@pytest.mark.parametrize("args, expected", CHECK_ORDER)
def test_memcpy_checks_in_documented_order(acl, res, args, expected):
    assert acl.rt.memcpy(*copy_arguments(res, args)) == expected


@pytest.mark.negative
@pytest.mark.parametrize("args, expected", [p for p in CHECK_ORDER if p.id in ASYNC_CHECKS])
def test_memcpy_async_checks_in_documented_order(acl, res, stream, args, expected):
    assert acl.rt.memcpy_async(*copy_arguments(res, args), stream) == expected
    assert acl.rt.synchronize_stream(stream) == OK


@pytest.mark.negative
def test_rejected_memcpy_leaves_the_destination_untouched(acl, res):
    dst, dest_max, src, count, kind = copy_arguments(res, ("dst", 64, "src", 128, D2D))
    assert acl.rt.memcpy(dst, dest_max, src, count, kind) == RT_PARAM_INVALID
    assert acl.rt.memcpy(dst, SIZE, src, SIZE, 7) == INVALID_PARAM
    assert read(res, dst, "device", SIZE) == pattern(SIZE, 2)


#: The rows of COPIES that memcpy_async takes from page-locked memory (host to host is refused in host run mode).
ASYNC_COPIES = [p for p in COPIES if p.id in ("HOST_TO_DEVICE", "DEVICE_TO_HOST", "DEVICE_TO_DEVICE",
                                              "DEFAULT-host-to-device", "DEFAULT-device-to-host")]


@pytest.mark.parametrize("src_where, dst_where, kind", ASYNC_COPIES)
def test_memcpy_async_with_page_locked_host_memory_copies_after_synchronize(acl, res, stream, src_where,
                                                                            dst_where, kind):
    src, dst = allocate(res, src_where, SIZE), allocate(res, dst_where, SIZE)
    put(acl, src, src_where, pattern(SIZE))
    assert acl.rt.memcpy_async(dst, SIZE, src, SIZE, kind, stream) == OK
    assert acl.rt.synchronize_stream(stream) == OK
    assert read(res, dst, dst_where, SIZE) == pattern(SIZE)


@pytest.mark.negative
def test_memcpy_async_host_to_host_in_host_run_mode_is_207000(acl, res, stream):
    run_mode = flow.value(acl.rt.get_run_mode(), "acl.rt.get_run_mode")
    if run_mode != RunMode.ACL_HOST:
        pytest.skip(f"the rule is for ACL_HOST run mode; this backend runs in mode {run_mode}")
    src, dst = flow.malloc_host(res, SIZE), flow.malloc_host(res, SIZE)
    put(acl, src, "host", pattern(SIZE, 1))
    put(acl, dst, "host", pattern(SIZE, 2))
    assert acl.rt.memcpy_async(dst, SIZE, src, SIZE, H2H, stream) == FEATURE_NOT_SUPPORT
    assert acl.rt.synchronize_stream(stream) == OK
    assert read(res, dst, "host", SIZE) == pattern(SIZE, 2)


# ---------------------------------------------------------------- memset


@pytest.mark.parametrize("value", [0x00, 0xFF])
@pytest.mark.parametrize("where", ["device", "host"])
def test_memset_sets_count_bytes_to_the_value(acl, res, where, value):
    ptr = allocate(res, where, SIZE)
    put(acl, ptr, where, pattern(SIZE))
    assert acl.rt.memset(ptr, SIZE, value, SIZE) == OK
    assert read(res, ptr, where, SIZE) == bytes([value]) * SIZE


@pytest.mark.parametrize("where", ["device", "host"])
def test_memset_of_fewer_bytes_than_max_count_leaves_the_rest(acl, res, where):
    ptr = allocate(res, where, SIZE)
    put(acl, ptr, where, pattern(SIZE))
    assert acl.rt.memset(ptr, SIZE, 0x11, 100) == OK
    assert read(res, ptr, where, SIZE) == b"\x11" * 100 + pattern(SIZE)[100:]


def test_memset_at_an_interior_pointer_sets_only_there(acl, res):
    ptr = flow.malloc(res, SIZE)
    put(acl, ptr, "device", pattern(SIZE))
    assert acl.rt.memset(ptr + 64, 64, 0xEE, 32) == OK
    assert read(res, ptr, "device", SIZE) == pattern(SIZE)[:64] + b"\xee" * 32 + pattern(SIZE)[96:]


@pytest.mark.negative
def test_memset_of_null_is_100000(acl):
    assert acl.rt.memset(0, SIZE, 0, SIZE) == INVALID_PARAM


@pytest.mark.parametrize("where", ["device", "host"])
def test_memset_async_sets_the_bytes_after_synchronize(acl, res, stream, where):
    ptr = allocate(res, where, SIZE)
    put(acl, ptr, where, pattern(SIZE))
    assert acl.rt.memset_async(ptr, SIZE, 0x3C, SIZE, stream) == OK
    assert acl.rt.synchronize_stream(stream) == OK
    assert read(res, ptr, where, SIZE) == b"\x3c" * SIZE


# ---------------------------------------------------------------- get_mem_info


def test_get_mem_info_returns_free_total_ret(acl):
    free, total, ret = acl.rt.get_mem_info(flow.memory_attr(acl))
    assert ret == OK
    assert 0 < free <= total


@pytest.mark.parametrize("sizes", [[100, 200, 300], [1000, 1, 4096, 33, 2 * MIB]], ids=["three", "mixed"])
def test_get_mem_info_accounts_for_every_malloc_and_free(acl, sizes):
    attr = flow.memory_attr(acl)
    start, total, ret = acl.rt.get_mem_info(attr)
    flow.check(ret, "acl.rt.get_mem_info")
    policy = int(P.ACL_MEM_MALLOC_NORMAL_ONLY)
    pointers, expected = [], start
    try:
        for size in sizes:
            pointers.append(flow.value(acl.rt.malloc(size, policy), f"acl.rt.malloc({size})"))
            expected -= malloc_reservation(acl, size, policy)
            assert acl.rt.get_mem_info(attr) == (expected, total, OK)
        while pointers:
            flow.check(acl.rt.free(pointers.pop()), "acl.rt.free")
            expected += malloc_reservation(acl, sizes[len(pointers)], policy)
            assert acl.rt.get_mem_info(attr) == (expected, total, OK)
    finally:
        for ptr in pointers:
            acl.rt.free(ptr)
    assert expected == start


def test_get_mem_info_is_per_device(acl, session, res):
    if flow.value(acl.rt.get_device_count(), "acl.rt.get_device_count") < 2:
        pytest.skip("needs a second device")
    other = 1 if session.device_id == 0 else 0
    flow.check(acl.rt.set_device(other), f"acl.rt.set_device({other})")
    try:
        other_before = flow.device_free_bytes(acl)
        flow.check(acl.rt.set_context(session.context), "acl.rt.set_context")
        own_before = flow.device_free_bytes(acl)
        flow.malloc(res, 1000)
        assert flow.device_free_bytes(acl) < own_before
        flow.check(acl.rt.set_device(other), f"acl.rt.set_device({other})")
        assert flow.device_free_bytes(acl) == other_before
    finally:
        flow.check(acl.rt.set_context(session.context), "acl.rt.set_context")
        flow.check(acl.rt.reset_device(other), f"acl.rt.reset_device({other})")


# ---------------------------------------------------------------- memcpy2d

#: (dpitch, spitch, width, kind) → code: width above either pitch, and kinds other than 1–4
#: (docs/contract/memory.md#memcpy2d).
MEMCPY2D_CHECKS = [
    pytest.param(32, 16, 17, H2D, INVALID_PARAM, id="width-above-spitch"),
    pytest.param(16, 32, 17, H2D, INVALID_PARAM, id="width-above-dpitch"),
    pytest.param(32, 32, 16, H2H, INVALID_PARAM, id="kind-0-HOST_TO_HOST"),
    pytest.param(32, 32, 16, H2BUF2D, INVALID_PARAM, id="kind-5"),
    pytest.param(32, 32, 16, 6, INVALID_PARAM, id="kind-6"),
    pytest.param(32, 32, 16, 7, INVALID_PARAM, id="kind-7"),
    pytest.param(32, 16, 16, H2D, OK, id="width-equal-to-spitch"),
    pytest.param(32, 16, 8, DEFAULT, OK, id="kind-4-DEFAULT"),
]


def rows_copied(src: bytes, dst: bytes, dpitch: int, spitch: int, width: int, height: int) -> bytes:
    """dst after height rows of width bytes are copied from src (row stride spitch) to dst (row stride dpitch)."""
    out = bytearray(dst)
    for row in range(height):
        out[row * dpitch:row * dpitch + width] = src[row * spitch:row * spitch + width]
    return bytes(out)


@pytest.mark.parametrize("dpitch, spitch, width, kind, expected", MEMCPY2D_CHECKS)
def test_memcpy2d_checks_width_against_the_pitches_and_the_kind(acl, res, dpitch, spitch, width, kind, expected):
    src, dst = flow.malloc_host(res, SIZE), flow.malloc(res, SIZE)
    put(acl, src, "host", pattern(SIZE))
    assert acl.rt.memcpy2d(dst, dpitch, src, spitch, width, 4, kind) == expected


@pytest.mark.parametrize("dpitch, spitch, width, kind, expected",
                         [p for p in MEMCPY2D_CHECKS if p.id not in ("kind-5", "kind-6", "kind-4-DEFAULT")])
def test_memcpy2d_async_checks_like_memcpy2d(acl, res, stream, dpitch, spitch, width, kind, expected):
    src, dst = flow.malloc_host(res, SIZE), flow.malloc(res, SIZE)
    put(acl, src, "host", pattern(SIZE))
    assert acl.rt.memcpy2d_async(dst, dpitch, src, spitch, width, 4, kind, stream) == expected
    assert acl.rt.synchronize_stream(stream) == OK


@pytest.mark.parametrize("src_where, dst_where, kind, pitches", [
    pytest.param("host", "device", H2D, (32, 24, 10, 5), id="HOST_TO_DEVICE"),
    pytest.param("device", "host", D2H, (16, 40, 12, 6), id="DEVICE_TO_HOST"),
])
def test_memcpy2d_copies_rows_between_the_pitches(acl, res, src_where, dst_where, kind, pitches):
    dpitch, spitch, width, height = pitches
    src, dst = allocate(res, src_where, SIZE), allocate(res, dst_where, SIZE)
    put(acl, src, src_where, pattern(SIZE, 1))
    put(acl, dst, dst_where, pattern(SIZE, 2))
    assert acl.rt.memcpy2d(dst, dpitch, src, spitch, width, height, kind) == OK
    assert read(res, dst, dst_where, SIZE) == rows_copied(pattern(SIZE, 1), pattern(SIZE, 2), *pitches)


def test_memcpy2d_async_copies_the_rows_after_synchronize(acl, res, stream):
    src, dst = flow.malloc_host(res, SIZE), flow.malloc(res, SIZE)
    put(acl, src, "host", pattern(SIZE, 1))
    put(acl, dst, "device", pattern(SIZE, 2))
    assert acl.rt.memcpy2d_async(dst, 64, src, 32, 20, 3, H2D, stream) == OK
    assert acl.rt.synchronize_stream(stream) == OK
    assert read(res, dst, "device", SIZE) == rows_copied(pattern(SIZE, 1), pattern(SIZE, 2), 64, 32, 20, 3)


# ---------------------------------------------------------------- binding (binding-conventions.md#two-error-channels)


@pytest.mark.negative
@pytest.mark.parametrize("call, name", [
    pytest.param(lambda acl: acl.rt.malloc(64), "acl.rt.malloc", id="malloc-one-argument"),
    pytest.param(lambda acl: acl.rt.malloc(None, 0), "acl.rt.malloc", id="malloc-None-size"),
    pytest.param(lambda acl: acl.rt.malloc(64.0, 0), "acl.rt.malloc", id="malloc-float-size"),
    pytest.param(lambda acl: acl.rt.malloc(np.int64(64), 0), "acl.rt.malloc", id="malloc-numpy-size"),
    pytest.param(lambda acl: acl.rt.memcpy(0, 8, 0, 8), "acl.rt.memcpy", id="memcpy-four-arguments"),
    pytest.param(lambda acl: acl.rt.memcpy(0, 8, 0, 8, None), "acl.rt.memcpy", id="memcpy-None-kind"),
    pytest.param(lambda acl: acl.rt.memcpy_async(0, 8, 0, 8, 1), "acl.rt.memcpy_async",
                 id="memcpy_async-without-stream"),
    pytest.param(lambda acl: acl.rt.memset(0, 8, 2 ** 40, 8), "acl.rt.memset", id="memset-value-beyond-int32"),
    pytest.param(lambda acl: acl.rt.get_mem_info(), "acl.rt.get_mem_info", id="get_mem_info-without-attr"),
])
def test_memory_calls_that_fail_to_parse_raise_the_wrappers_type_error(acl, call, name):
    with pytest.raises(TypeError) as raised:
        call(acl)
    assert str(raised.value) == f"{name} args parse failed"


# ------------------------------------------------------------ acl.util: host pointers (utilities.md#bytes-and-pointers)


def fresh_bytes(text: str) -> bytes:
    """A bytes object of its own (not an interned constant), safe to write through a pointer."""
    return bytes(bytearray(text.encode()))


def address_of(data: bytes) -> int:
    """The address of a bytes object's buffer."""
    return ctypes.cast(ctypes.c_char_p(data), ctypes.c_void_p).value


def warnings_of(call: Callable[[], Any]) -> tuple[Any, list[type]]:
    """call's result and the categories of the warnings it raised."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = call()
    return result, [w.category for w in caught]


def test_bytes_to_ptr_gives_the_address_of_the_bytes_buffer_without_copying(acl):
    data = fresh_bytes("written through the pointer")
    pointer = acl.util.bytes_to_ptr(data)
    assert type(pointer) is int and pointer == address_of(data) == acl.util.bytes_to_ptr(data)
    ctypes.memmove(pointer, b"W", 1)
    assert data == b"Written through the pointer"


@pytest.mark.negative
@pytest.mark.parametrize("value", [bytearray(b"abc"), memoryview(b"abc"), "abc", np.frombuffer(b"abc", np.uint8),
                                   None, 5], ids=["bytearray", "memoryview", "str", "ndarray", "None", "int"])
def test_bytes_to_ptr_takes_bytes_only(acl, value):
    with pytest.raises(ValueError) as raised:
        acl.util.bytes_to_ptr(value)
    assert type(raised.value) is ValueError and str(raised.value) == "needs an byte as argument"


@pytest.mark.parametrize("size", [5, 11])
def test_ptr_to_bytes_copies_size_bytes_of_host_memory(acl, size):
    data = fresh_bytes("hello world")
    out = acl.util.ptr_to_bytes(acl.util.bytes_to_ptr(data), size)
    ctypes.memmove(acl.util.bytes_to_ptr(data), b"XXXXXX", 6)
    assert type(out) is bytes and out == b"hello world"[:size]
    assert address_of(out) != address_of(data)


def test_ptr_to_bytes_reads_numpy_memory(acl):
    array = np.arange(4, dtype=np.int32)
    assert acl.util.ptr_to_bytes(array.ctypes.data, array.nbytes) == array.tobytes()


def test_numpy_to_ptr_gives_the_data_address_without_copying_and_warns(acl):
    array = np.zeros(4, dtype=np.uint8)
    pointer, categories = warnings_of(lambda: acl.util.numpy_to_ptr(array))
    assert pointer == array.ctypes.data and categories == [Warning]
    ctypes.memmove(pointer, b"\x01\x02", 2)
    assert array.tolist() == [1, 2, 0, 0]


def test_numpy_to_ptr_of_a_strided_view_warns_twice_and_points_at_it(acl):
    view = np.arange(16, dtype=np.float32).reshape(4, 4)[:, ::2]
    pointer, categories = warnings_of(lambda: acl.util.numpy_to_ptr(view))
    assert pointer == view.ctypes.data
    assert len(categories) == 2 and categories[0] is Warning


#: The deprecated NumPy conversions and the warning the binding gives on every call, word for word (hicann/runtime
#: python/pyACL/util/numpy_convert.cpp).
DEPRECATION_WARNINGS = {
    "numpy_to_ptr": "acl.util.numpy_to_ptr will be deprecated. Please use acl.util.bytes_to_ptr instead.",
    "numpy_contiguous_to_ptr": "acl.util.numpy_contiguous_to_ptr will be deprecated. "
                               "Please use acl.util.bytes_to_ptr instead.",
    "ptr_to_numpy": "acl.util.ptr_to_numpy will be deprecated. Please use acl.util.ptr_to_bytes instead.",
}


@pytest.mark.parametrize("name", list(DEPRECATION_WARNINGS))
def test_a_deprecated_numpy_conversion_warns_the_binding_text_at_the_callers_line(acl, name):
    source = np.zeros(6, dtype=np.float32)
    args = (source.ctypes.data, (6,), 11) if name == "ptr_to_numpy" else (source,)
    function = getattr(acl.util, name)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        line = inspect.currentframe().f_lineno + 1
        function(*args)
    assert [(w.category, str(w.message), w.filename, w.lineno) for w in caught] == [
        (Warning, DEPRECATION_WARNINGS[name], __file__, line)]


def test_numpy_to_ptr_of_a_strided_view_warns_that_it_is_discontiguous_at_the_callers_line(acl):
    view = np.arange(8, dtype=np.float32)[::2]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        line = inspect.currentframe().f_lineno + 1
        acl.util.numpy_to_ptr(view)
    assert [(str(w.message), w.filename, w.lineno) for w in caught] == [
        (DEPRECATION_WARNINGS["numpy_to_ptr"], __file__, line),
        ("The input ndarray is discontiguous. Please use acl.util.bytes_to_ptr instead.", __file__, line)]


@pytest.mark.negative
def test_ptr_to_numpy_warns_before_it_parses_its_arguments(acl):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(TypeError):
            acl.util.ptr_to_numpy("not a pointer", (6,), 11)
    assert [str(w.message) for w in caught] == [DEPRECATION_WARNINGS["ptr_to_numpy"]]


def test_numpy_to_ptr_warning_is_raised_when_warnings_are_errors(acl):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(Warning):
            acl.util.numpy_to_ptr(np.zeros(2))


@pytest.mark.negative
@pytest.mark.parametrize("value", [[1, 2], b"ab", 3], ids=["list", "bytes", "int"])
def test_numpy_to_ptr_takes_an_ndarray_only(acl, value):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ValueError, match="^needs an ndarray as argument$"):
            acl.util.numpy_to_ptr(value)


def test_numpy_contiguous_to_ptr_keeps_a_contiguous_array(acl):
    array = np.arange(6, dtype=np.int32).reshape(2, 3)
    (pointer, out), categories = warnings_of(lambda: acl.util.numpy_contiguous_to_ptr(array))
    assert categories == [Warning]
    assert pointer == out.ctypes.data == array.ctypes.data and np.shares_memory(out, array)


def test_numpy_contiguous_to_ptr_copies_a_strided_view(acl):
    view = np.arange(12, dtype=np.float64).reshape(3, 4)[:, 1::2]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pointer, out = acl.util.numpy_contiguous_to_ptr(view)
    assert out.flags.c_contiguous and pointer == out.ctypes.data and not np.shares_memory(out, view)
    assert acl.util.ptr_to_bytes(pointer, out.nbytes) == np.ascontiguousarray(view).tobytes()


NPY_TYPES = [(0, np.bool_), (1, np.int8), (2, np.uint8), (3, np.int16), (4, np.uint16), (5, np.int32), (6, np.uint32),
             (7, np.dtype("l")), (8, np.dtype("L")), (9, np.longlong), (10, np.ulonglong), (11, np.float32),
             (12, np.float64), (23, np.float16)]


@pytest.mark.parametrize("npy_type, dtype", NPY_TYPES, ids=[f"npy-{n}-{np.dtype(d).name}" for n, d in NPY_TYPES])
def test_ptr_to_numpy_builds_a_view_of_the_numpy_type_number(acl, npy_type, dtype):
    source = (np.arange(6) % 2 if npy_type == 0 else np.arange(6)).astype(dtype)
    view, categories = warnings_of(lambda: acl.util.ptr_to_numpy(source.ctypes.data, (2, 3), npy_type))
    assert categories == [Warning]
    assert (view.dtype, view.dtype.num, view.shape) == (np.dtype(dtype), npy_type, (2, 3))
    assert np.array_equal(view, source.reshape(2, 3))


def test_ptr_to_numpy_is_a_writeable_view_that_owns_nothing(acl, res):
    host = flow.malloc_host(res, 24)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        view = acl.util.ptr_to_numpy(host, (3, 2), 11)
    assert view.flags.writeable and not view.flags.owndata
    view[:] = np.arange(6, dtype=np.float32).reshape(3, 2)
    assert acl.util.ptr_to_bytes(host, 24) == np.arange(6, dtype=np.float32).tobytes()


@pytest.mark.negative
@pytest.mark.parametrize("shape", [[2, 3], [6]], ids=["list-rank-2", "list-rank-1"])
def test_ptr_to_numpy_with_a_list_shape_is_a_value_error(acl, shape):
    source = np.zeros(6, dtype=np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ValueError, match="^shape is empty$"):
            acl.util.ptr_to_numpy(source.ctypes.data, shape, 11)
