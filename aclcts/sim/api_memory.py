"""acl.rt memory: malloc/free, malloc_host/free_host, memcpy[_async], memset[_async], memcpy2d, get_mem_info
(docs/contract/memory.md)."""

from __future__ import annotations

import ctypes

from aclcts.core.constants import MEMCPY_ACCEPTED_KINDS, ErrorCode, MemAttr, MemcpyKind
from aclcts.sim import core
from aclcts.sim.api_device import context_or_error
from aclcts.sim.api_stream import resolve_stream
from aclcts.sim.errors import SimMisuseError, warn
from aclcts.sim.core import INVALID_PARAM, OK, RT_PARAM_INVALID, export, fail, not_initialized, reject
from aclcts.sim.memory import Region, align_up, copy_bytes, fill_bytes, read_bytes
from aclcts.sim.seams import Seam
from aclcts.sim.streams import COPY_BYTES_PER_MS, LAUNCH_MS, Task

MEMORY_ALLOCATION = int(ErrorCode.ACL_ERROR_RT_MEMORY_ALLOCATION)
FEATURE_NOT_SUPPORT = int(ErrorCode.ACL_ERROR_RT_FEATURE_NOT_SUPPORT)
HUGE1G_POLICIES = (6, 7)
_HBM_ATTRS = frozenset({1, 4, 5, 8, 9, 12, 13, 15, 16})
_DDR_ATTRS = frozenset({0, 2, 3, 6, 7})
_HUGE1G_ATTRS = frozenset({10, 11, 14, 17})
_HUGE1G_SOCS = ("Ascend910B", "Ascend910_93", "Ascend910C")


def reserved_size(size: int, policy: int, soc_name: str, align32_only: bool = False) -> int:
    """Bytes the runtime really reserves for a request: ALIGN_UP(size, 32) + 32, or without the +32."""
    aligned = align_up(size, 32)
    if align32_only or (policy & 0xFF) in HUGE1G_POLICIES or soc_name.startswith("Ascend950"):
        return aligned
    return aligned + 32


def _malloc(api: str, size: int, policy: int, align32_only: bool) -> tuple[int, int]:
    code = not_initialized(api)
    if code:
        return 0, code
    st = core.STATE
    context = context_or_error(api)
    if isinstance(context, int):
        return 0, context
    if size == 0:
        code = reject("acl.rt.malloc size 0", INVALID_PARAM, f"{api}: size is 0")
        if code:
            return 0, code
    device = context.device.id
    reserved = reserved_size(size, policy, st.settings.soc_name, align32_only)
    if st.memory.used.get(device, 0) + reserved > st.settings.device_memory:
        return 0, fail(MEMORY_ALLOCATION, f"{api}: out of device memory ({size} bytes requested on device {device})")
    region = st.memory.allocate_device(device, size, reserved, api)
    st.register("device_mem", region, api, region.start)
    return region.start, OK


@export("rt", "malloc", "ki")
def malloc(size: int, policy: int) -> tuple[int, int]:
    """aclrtMalloc: 64-byte-aligned device memory, reserving ALIGN_UP(size, 32) + 32 bytes."""
    return _malloc("acl.rt.malloc", size, policy, False)


@export("rt", "malloc_cached", "ki")
def malloc_cached(size: int, policy: int) -> tuple[int, int]:
    """aclrtMallocCached: as malloc."""
    return _malloc("acl.rt.malloc_cached", size, policy, False)


@export("rt", "malloc_align32", "ki")
def malloc_align32(size: int, policy: int) -> tuple[int, int]:
    """aclrtMallocAlign32: reserves ALIGN_UP(size, 32) bytes."""
    return _malloc("acl.rt.malloc_align32", size, policy, True)


def _queued_users(region_queued: int, api: str, ptr: int) -> None:
    if region_queued:
        raise SimMisuseError(
            f"{api}: {ptr:#x} is still used by {region_queued} queued task(s) that have not run; "
            "free does not synchronise — call acl.rt.synchronize_stream first"
        )


def release(api: str, ptr: int, kind: str, what: str) -> int:
    """Free the memory of a kind (device_mem, dvpp_mem, host_mem) at ptr for api, with the checks of acl.rt.free."""
    code = not_initialized(api)
    if code:
        return code
    if ptr == 0:
        return reject(f"{api} null pointer", INVALID_PARAM, f"{api}: pointer is null")
    st = core.STATE
    region = st.find(kind, ptr)
    if region is None:
        check = f"{api} double free" if st.tracker.released_as(ptr) else f"{api} unknown pointer"
        return reject(check, st.settings.invalid_free_code, f"{api}: {st.describe_handle(ptr, what)}")
    _queued_users(region.queued, api, ptr)
    if kind == "host_mem":
        st.memory.free_host(region, api)
    else:
        st.memory.free_device(region, api)
    st.release(ptr, api)
    return OK


@export("rt", "free", "k")
def free(ptr: int) -> int:
    """aclrtFree: immediate, no implicit synchronisation."""
    return release("acl.rt.free", ptr, "device_mem", "device allocation from acl.rt.malloc")


@export("rt", "malloc_host", "k")
def malloc_host(size: int) -> tuple[int, int]:
    """aclrtMallocHost: page-locked, 64-byte-aligned host memory."""
    api = "acl.rt.malloc_host"
    code = not_initialized(api)
    if code:
        return 0, code
    if size == 0:
        return 0, fail(INVALID_PARAM, f"{api}: size is 0")
    st = core.STATE
    region = st.memory.allocate_host(size, api)
    st.register("host_mem", region, api, region.start)
    return region.start, OK


@export("rt", "free_host", "k")
def free_host(ptr: int) -> int:
    """aclrtFreeHost."""
    return release("acl.rt.free_host", ptr, "host_mem", "host allocation from acl.rt.malloc_host")


def _copy(api: str, kind: int, dst: int, src: int, count: int) -> None:
    """Copy count bytes between real addresses for api (a memcpy of the given kind)."""
    copy_bytes(dst, src, count)


#: The copy routine of acl.rt.memcpy and acl.rt.memcpy_async.
copy = Seam("copy", _copy)

#: Where each memcpy kind says its (source, destination) live; DEFAULT (4) lets the addresses decide.
_KIND_PLACES = {0: ("host", "host"), 1: ("host", "device"), 2: ("device", "host"), 3: ("device", "device"),
                5: ("host", "device")}


def _place(region: Region | None) -> str:
    return "device" if region is not None and region.device is not None else "host"


def check_placement(api: str, kind: int, dst: int, src: int, count: int, dst_region: Region | None,
                    src_region: Region | None) -> None:
    """SimMisuseError for overlapping ranges; a kind contradicting the pointers warns or fails (memcpy_kind_mismatch)."""
    if dst != src and dst < src + count and src < dst + count:
        raise SimMisuseError(f"{api}: src [{src:#x}, +{count}) and dst [{dst:#x}, +{count}) overlap; a copy between "
                             "overlapping ranges is undefined (copy through a separate buffer)")
    settings = core.STATE.settings
    expected = _KIND_PLACES.get(kind)
    found = (_place(src_region), _place(dst_region))
    if expected is None or expected == found or settings.run_mode == "device":
        return
    name = MemcpyKind(kind).name
    message = (f"{api}: kind {name} ({kind}) but src {src:#x} is {found[0]} memory and dst {dst:#x} is {found[1]} "
               f"memory; expected {expected[0]} to {expected[1]} (or ACL_MEMCPY_DEFAULT)")
    if settings.memcpy_kind_mismatch == "error":
        raise SimMisuseError(message)
    warn(message + "; copied by the addresses, as the runtime decides the direction from them")


def _copy_checks(api: str, dst: int, dest_max: int, src: int, count: int, kind: int) -> int:
    code = not_initialized(api)
    if code:
        return code
    if dst == 0 or src == 0:
        return reject("acl.rt.memcpy null pointer", INVALID_PARAM, f"{api}: {'dst' if dst == 0 else 'src'} is null")
    if kind not in MEMCPY_ACCEPTED_KINDS:
        return fail(INVALID_PARAM, f"{api}: kind {kind} is not one of 0..5")
    if dest_max == 0 or count == 0:
        return fail(RT_PARAM_INVALID, f"{api}: {'dest_max' if dest_max == 0 else 'count'} is 0")
    if count > dest_max:
        return fail(RT_PARAM_INVALID, f"{api}: count {count} > dest_max {dest_max}")
    context = context_or_error(api)
    return context if isinstance(context, int) else OK


@export("rt", "memcpy", "kkkki")
def memcpy(dst: int, dest_max: int, src: int, count: int, kind: int) -> int:
    """aclrtMemcpy: a synchronous copy that does not synchronise any stream."""
    api = "acl.rt.memcpy"
    code = _copy_checks(api, dst, dest_max, src, count, kind)
    if code or dst == src:
        return code
    memory = core.STATE.memory
    src_real, src_region = memory.resolve(api, src, count, "src", False)
    dst_real, dst_region = memory.resolve(api, dst, count, "dst", False, write=True)
    check_placement(api, kind, dst, src, count, dst_region, src_region)
    copy(api, kind, dst_real, src_real, count)
    return OK


@export("rt", "memcpy_async", "kkkkik")
def memcpy_async(dst: int, dest_max: int, src: int, count: int, kind: int, stream_handle: int) -> int:
    """aclrtMemcpyAsync: queued on the stream; pageable host memory is staged (source) or waited for (destination)."""
    api = "acl.rt.memcpy_async"
    code = _copy_checks(api, dst, dest_max, src, count, kind)
    if code:
        return code
    st = core.STATE
    if kind == MemcpyKind.ACL_MEMCPY_HOST_TO_HOST and st.settings.run_mode == "host":
        return fail(FEATURE_NOT_SUPPORT, f"{api}: ACL_MEMCPY_HOST_TO_HOST is not supported asynchronously in host run mode")
    if dst % 64 or src % 64:
        return fail(st.settings.unaligned_async_code, f"{api}: {'dst' if dst % 64 else 'src'} is not 64-byte aligned")
    stream = resolve_stream(api, stream_handle)
    if isinstance(stream, int):
        return stream
    src_real, src_region = st.memory.resolve(api, src, count, "src", False)
    dst_real, dst_region = st.memory.resolve(api, dst, count, "dst", False, write=True)
    check_placement(api, kind, dst, src, count, dst_region, src_region)
    regions = tuple(r for r in (src_region, dst_region) if r is not None)
    cost = LAUNCH_MS + count / COPY_BYTES_PER_MS
    if dst_region is None:
        stream.drain()
        copy(api, kind, dst_real, src_real, count)
        return OK
    if src_region is None:
        staged = read_bytes(src_real, count)

        def run() -> int:
            copy(api, kind, dst_region.real + (dst - dst_region.start), _address(staged), count)
            return OK

    else:

        def run() -> int:
            copy(api, kind, dst_region.real + (dst - dst_region.start), src_region.real + (src - src_region.start), count)
            return OK

    stream.enqueue(Task(run, api, regions, cost, copy_kind=kind))
    return OK


def _address(data: bytes) -> int:
    return ctypes.cast(ctypes.c_char_p(data), ctypes.c_void_p).value


def _memset_checks(api: str, ptr: int, max_count: int, count: int) -> int:
    code = not_initialized(api)
    if code:
        return code
    if ptr == 0:
        return fail(INVALID_PARAM, f"{api}: pointer is null")
    if count > max_count:
        return fail(RT_PARAM_INVALID, f"{api}: count {count} > max_count {max_count}")
    return OK


@export("rt", "memset", "kkik")
def memset(ptr: int, max_count: int, value: int, count: int) -> int:
    """aclrtMemset: set count bytes to the byte value, now, without synchronising streams."""
    api = "acl.rt.memset"
    code = _memset_checks(api, ptr, max_count, count)
    if code or count == 0:
        return code
    real, _ = core.STATE.memory.resolve(api, ptr, count, "dev_ptr", False, write=True)
    fill_bytes(real, value & 0xFF, count)
    return OK


@export("rt", "memset_async", "kkikk")
def memset_async(ptr: int, max_count: int, value: int, count: int, stream_handle: int) -> int:
    """aclrtMemsetAsync: queued on the stream."""
    api = "acl.rt.memset_async"
    code = _memset_checks(api, ptr, max_count, count)
    if code:
        return code
    stream = resolve_stream(api, stream_handle)
    if isinstance(stream, int) or count == 0:
        return stream if isinstance(stream, int) else OK
    memory = core.STATE.memory
    _, region = memory.resolve(api, ptr, count, "dev_ptr", False, write=True)
    if region is None:
        real = ptr

        def run() -> int:
            memory.check_host(api, real, count, "dev_ptr", True)  # the program may have released it since
            fill_bytes(real, value & 0xFF, count)
            return OK

        stream.enqueue(Task(run, api, (), LAUNCH_MS))
        return OK

    def run_region() -> int:
        fill_bytes(region.real + (ptr - region.start), value & 0xFF, count)
        return OK

    stream.enqueue(Task(run_region, api, (region,), LAUNCH_MS + count / COPY_BYTES_PER_MS))
    return OK


def _memcpy2d(api: str, dst: int, dpitch: int, src: int, spitch: int, width: int, height: int, kind: int) -> int:
    code = not_initialized(api)
    if code:
        return code
    if dst == 0 or src == 0:
        return fail(INVALID_PARAM, f"{api}: {'dst' if dst == 0 else 'src'} is null")
    if width > spitch or width > dpitch:
        return fail(INVALID_PARAM, f"{api}: width {width} exceeds spitch {spitch} or dpitch {dpitch}")
    if kind not in (1, 2, 3, 4):
        return fail(INVALID_PARAM, f"{api}: kind {kind} is not one of 1..4")
    if width == 0 or height == 0:
        return fail(RT_PARAM_INVALID, f"{api}: {'width' if width == 0 else 'height'} is 0")
    return OK


def _rows(api: str, dst: int, dpitch: int, src: int, spitch: int, width: int, height: int):
    memory = core.STATE.memory
    src_real, src_region = memory.resolve(api, src, spitch * (height - 1) + width, "src", False)
    dst_real, dst_region = memory.resolve(api, dst, dpitch * (height - 1) + width, "dst", False, write=True)

    def run() -> int:
        for row in range(height):
            copy_bytes(dst_real + row * dpitch, src_real + row * spitch, width)
        return OK

    return run, tuple(r for r in (src_region, dst_region) if r is not None)


@export("rt", "memcpy2d", "kkkkkki")
def memcpy2d(dst: int, dpitch: int, src: int, spitch: int, width: int, height: int, kind: int) -> int:
    """aclrtMemcpy2d: copy height rows of width bytes between pitched buffers, now."""
    api = "acl.rt.memcpy2d"
    code = _memcpy2d(api, dst, dpitch, src, spitch, width, height, kind)
    if code:
        return code
    run, _ = _rows(api, dst, dpitch, src, spitch, width, height)
    return run()


@export("rt", "memcpy2d_async", "kkkkkkik")
def memcpy2d_async(dst: int, dpitch: int, src: int, spitch: int, width: int, height: int, kind: int, stream_handle: int) -> int:
    """aclrtMemcpy2dAsync: as memcpy2d, queued on the stream."""
    api = "acl.rt.memcpy2d_async"
    code = _memcpy2d(api, dst, dpitch, src, spitch, width, height, kind)
    if code:
        return code
    stream = resolve_stream(api, stream_handle)
    if isinstance(stream, int):
        return stream
    run, regions = _rows(api, dst, dpitch, src, spitch, width, height)
    stream.enqueue(Task(run, api, regions, LAUNCH_MS + width * height / COPY_BYTES_PER_MS))
    return OK


@export("rt", "get_mem_info", "i")
def get_mem_info(attr: int) -> tuple[int, int, int]:
    """aclrtGetMemInfo: (free, total) of the current device; attributes the hardware lacks give (0, 0)."""
    api = "acl.rt.get_mem_info"
    code = not_initialized(api)
    if code:
        return 0, 0, code
    st = core.STATE
    context = context_or_error(api)
    if isinstance(context, int):
        return 0, 0, context
    if attr not in MemAttr._value2member_map_:
        return 0, 0, fail(RT_PARAM_INVALID, f"{api}: unknown memory attribute {attr}")
    total = st.settings.device_memory
    supported = attr in _HBM_ATTRS or (attr in _DDR_ATTRS and st.settings.memory_kind == "ddr")
    if attr in _HUGE1G_ATTRS:
        supported = st.settings.soc_name.startswith(_HUGE1G_SOCS)
    if not supported:
        return 0, 0, OK
    return total - st.memory.used.get(context.device.id, 0), total, OK
