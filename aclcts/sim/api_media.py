"""acl.media: dvpp_malloc and dvpp_free, device memory for media processing that any device work may use. Every other
acl.media function is DVPP image or video processing, which the simulator does not model: naming one raises
NotSimulatedError (docs/sim-contract-additions.md)."""

from __future__ import annotations

from aclcts.core.constants import ErrorCode
from aclcts.sim import core
from aclcts.sim.api_device import context_or_error
from aclcts.sim.api_memory import release, reserved_size
from aclcts.sim.core import OK, export, fail, not_initialized, reject
from aclcts.sim.errors import NotSimulatedError

MEMORY_ALLOCATION = int(ErrorCode.ACL_ERROR_RT_MEMORY_ALLOCATION)
#: The start address of DVPP memory is aligned to this many bytes (CANN pyACL documentation, acl.media.dvpp_malloc).
DVPP_ALIGNMENT = 128
#: The acl.media functions the simulator provides.
SIMULATED = ("dvpp_malloc", "dvpp_free")


@export("media", "dvpp_malloc", "k")
def dvpp_malloc(size: int) -> tuple[int, int]:
    """acldvppMalloc: 128-byte-aligned device memory reserving ALIGN_UP(size, 32) + 32 bytes, out of the device's DVPP
    memory (setting dvpp_memory)."""
    api = "acl.media.dvpp_malloc"
    code = not_initialized(api)
    if code:
        return 0, code
    context = context_or_error(api)
    if isinstance(context, int):
        return 0, context
    st = core.STATE
    if size == 0:
        code = reject(f"{api} size 0", st.settings.dvpp_zero_size_code, f"{api}: size is 0")
        if code:
            return 0, code
    device = context.device.id
    reserved = reserved_size(size, 0, st.settings.soc_name)
    in_use = sum(region.reserved for kind, region in st.objects.values()
                 if kind == "dvpp_mem" and region.device == device)
    if in_use + reserved > st.settings.dvpp_memory:
        return 0, fail(MEMORY_ALLOCATION, f"{api}: out of DVPP memory ({size} bytes requested on device {device}, "
                                          f"{in_use} of {st.settings.dvpp_memory} in use; setting dvpp_memory)")
    if st.memory.used.get(device, 0) + reserved > st.settings.device_memory:
        return 0, fail(MEMORY_ALLOCATION, f"{api}: out of device memory ({size} bytes requested on device {device})")
    region = st.memory.allocate_device(device, size, reserved, api)
    if region.start % DVPP_ALIGNMENT:
        raise AssertionError(f"{api}: device address {region.start:#x} is not {DVPP_ALIGNMENT}-byte aligned")
    st.register("dvpp_mem", region, api, region.start)
    return region.start, OK


@export("media", "dvpp_free", "k")
def dvpp_free(ptr: int) -> int:
    """acldvppFree: immediate, no implicit synchronisation; only for memory from dvpp_malloc."""
    return release("acl.media.dvpp_free", ptr, "dvpp_mem", "DVPP allocation from acl.media.dvpp_malloc")


def not_simulated(name: str) -> NotSimulatedError:
    """The error for an acl.media function the simulator does not provide."""
    if name.startswith("_"):
        return NotSimulatedError(f"module 'acl.media' has no attribute {name!r}")
    return NotSimulatedError(f"acl.media.{name} is not simulated: aclcts simulates only "
                             f"{' and '.join('acl.media.' + n for n in SIMULATED)} (DVPP image and video processing "
                             "is out of its scope)")
