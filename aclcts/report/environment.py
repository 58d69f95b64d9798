"""What a run's environment record says: backend, SoC, acl API and CANN versions, devices."""

from __future__ import annotations

from typing import Any

#: aclCANNPackageName ACL_PKG_NAME_CANN (the value is UNCONFIRMED against the 9.0.0 headers).
ACL_PKG_NAME_CANN = 0


def _acl_version(acl: Any) -> str | None:
    try:
        major, minor, patch, ret = acl.get_version()
    except Exception:  # noqa: BLE001 - a backend's broken getter must not break the run report
        return None
    return f"{major}.{minor}.{patch}" if ret == 0 else None


def _cann_version(acl: Any) -> str | None:
    query = getattr(acl, "get_cann_version", None)
    if query is None:
        return None
    try:
        info, ret = query(ACL_PKG_NAME_CANN)
    except Exception:  # noqa: BLE001 - newer API, absent or different on some releases
        return None
    if ret != 0 or not isinstance(info, dict):
        return None
    return str(info.get("version")) if info.get("version") is not None else None


def _soc_name(acl: Any) -> str | None:
    try:
        name = acl.get_soc_name()
    except Exception:  # noqa: BLE001
        return None
    return name if isinstance(name, str) else None


def _device_count(acl: Any) -> int | None:
    try:
        count, ret = acl.rt.get_device_count()
    except Exception:  # noqa: BLE001
        return None
    return int(count) if ret == 0 else None


def describe(spec: str, acl: Any, device_id: int) -> dict[str, Any]:
    """The environment record of a process whose session runs on device_id through the acl module of backend spec."""
    return {
        "record": "environment",
        "backend": spec,
        "soc_name": _soc_name(acl),
        "acl_version": _acl_version(acl),
        "cann_version": _cann_version(acl),
        "device_id": device_id,
        "device_count": _device_count(acl),
    }
