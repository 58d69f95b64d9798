"""The current simulated process state, the export table of binding functions, and shared API helpers."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from aclcts.core.constants import ErrorCode
from aclcts.sim import faults
from aclcts.sim.binding import binding
from aclcts.sim.seams import Seam
from aclcts.sim.settings import Settings, from_environment
from aclcts.sim.state import SimState

STATE = SimState(from_environment())
faults.install(STATE.settings.faults)

#: Binding functions by sub-module ("" is the top-level acl module) and name.
EXPORTS: dict[str, dict[str, Callable[..., Any]]] = {"": {}, "rt": {}, "op": {}, "util": {}, "blas": {}, "media": {}}

OK = 0
INVALID_PARAM = int(ErrorCode.ACL_ERROR_INVALID_PARAM)
UNINITIALIZE = int(ErrorCode.ACL_ERROR_UNINITIALIZE)
RT_PARAM_INVALID = int(ErrorCode.ACL_ERROR_RT_PARAM_INVALID)


def export(module: str, name: str, codes: str, locked: bool = True,
           deprecation: str = "") -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register impl as the binding acl[.module].name with the given PyArg_ParseTuple codes (and the deprecation
    warning the binding gives on every call, if any)."""
    full = f"acl.{module}.{name}" if module else f"acl.{name}"

    def decorate(impl: Callable[..., Any]) -> Callable[..., Any]:
        EXPORTS[module][name] = binding(full, codes, Seam(full, impl), locked, deprecation)
        return impl

    return decorate


def state() -> SimState:
    """The simulated process."""
    return STATE


def replace_state(settings: Settings) -> SimState:
    """Start a fresh simulated process with the given settings (and the faults they name)."""
    return use_state(SimState(settings))


def use_state(state: SimState) -> SimState:
    """Make state the simulated process and install the faults its settings name (removing any others)."""
    global STATE
    STATE = state
    faults.install(state.settings.faults)
    return STATE


def fail(code: int, message: str) -> int:
    """Record message as the thread's recent error, code as its last error code, and return code."""
    STATE.set_error(f"[{code}] {message}", code)
    return code


def _reject(check: str, code: int, message: str) -> int:
    """Record message as the thread's recent error and return code, the named check's documented outcome."""
    return fail(code, message)


#: The error-code table: a named check that failed, its documented code and message -> the code the call returns
#: (0 lets the call go on).
reject = Seam("error codes", _reject)


def not_initialized(api: str) -> int:
    """Return 100001 if the simulated process needs acl.init and has not had it, else 0."""
    if STATE.settings.require_init and not STATE.initialized:
        return fail(UNINITIALIZE, f"{api}: acl.init has not been called (or acl.finalize has)")
    return 0
