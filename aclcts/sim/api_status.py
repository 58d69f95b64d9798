"""acl.app_log, device status and utilisation, and the calling thread's last error code (CANN runtime API:
exception handling and device management; docs/sim-contract-additions.md)."""

from __future__ import annotations

from collections import deque

from aclcts.core.constants import DeviceStatus, LastErrLevel
from aclcts.sim import core
from aclcts.sim.api_device import INVALID_DEVICEID
from aclcts.sim.core import OK, RT_PARAM_INVALID, export, fail, not_initialized

#: How many acl.app_log records the simulator keeps (oldest dropped first).
APP_LOG_KEPT = 1000
#: acl.app_log records as (level, message), newest last: the simulator's stand-in for the application log files.
APP_LOG: deque[tuple[int, str]] = deque(maxlen=APP_LOG_KEPT)
#: The utilisation figures a simulated device reports: it has no load of its own to measure.
IDLE_UTILIZATION = {"cube_utilization": 0, "vector_utilization": 0, "aicpu_utilization": 0,
                    "memory_utilization": 0, "utilization_extend": 0}


@export("", "app_log", "is")
def app_log(level: int, message: str) -> None:
    """ACL_APP_LOG: record message at level in the application log (any level is accepted, as by the macro)."""
    APP_LOG.append((level, message))


def _device_error(api: str, device_id: int) -> int:
    code = not_initialized(api)
    if code:
        return code
    count = core.STATE.settings.device_count
    if 0 <= device_id < count:
        return OK
    return fail(INVALID_DEVICEID, f"{api}: device id {device_id} is not in [0, {count - 1}]")


@export("rt", "get_device_utilization_rate", "i")
def get_device_utilization_rate(device_id: int) -> tuple[dict[str, int], int]:
    """aclrtGetDeviceUtilizationRate: the device's cube, vector, AI CPU and memory utilisation in percent."""
    return dict(IDLE_UTILIZATION), _device_error("acl.rt.get_device_utilization_rate", device_id)


@export("rt", "query_device_status", "i")
def query_device_status(device_id: int) -> tuple[int, int]:
    """aclrtQueryDeviceStatus: NORMAL for a simulated device; on failure the wrapper's initial END (0xFFFF)."""
    code = _device_error("acl.rt.query_device_status", device_id)
    status = DeviceStatus.ACL_RT_DEVICE_STATUS_END if code else DeviceStatus.ACL_RT_DEVICE_STATUS_NORMAL
    return int(status), code


def _last_error(api: str, level: int, clear: bool) -> int:
    if level != LastErrLevel.ACL_RT_THREAD_LEVEL:
        return fail(RT_PARAM_INVALID, f"{api}: level {level} is not ACL_RT_THREAD_LEVEL (0)")
    return core.STATE.last_error_code(clear)


@export("rt", "peek_at_last_error", "i")
def peek_at_last_error(level: int) -> int:
    """aclrtPeekAtLastError: the calling thread's last error code, left in place."""
    return _last_error("acl.rt.peek_at_last_error", level, clear=False)


@export("rt", "get_last_error", "i")
def get_last_error(level: int) -> int:
    """aclrtGetLastError: the calling thread's last error code, then cleared (0 until the next failure)."""
    return _last_error("acl.rt.get_last_error", level, clear=True)
