"""Backend selection: the simulator, the real pyacl (`npu`), or any pyacl-compatible MODULE:ATTR object."""

from __future__ import annotations

import importlib
import types
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from aclcts.core.usercode import UserCodeError, guarded

#: Names a module must have to be taken for pyacl.
PYACL_SURFACE = ("init", "finalize", "create_tensor_desc", "create_data_buffer", "rt", "op", "util")
PYACL_RT_SURFACE = ("set_device", "create_context", "create_stream", "malloc", "memcpy", "synchronize_stream")
#: The optional attribute by which a MODULE:ATTR backend declares deferred execution: True (or a callable answering
#: True) if queued work never runs before something synchronises, so that results seen earlier are a defect.
DEFERRED_EXECUTION = "deferred_execution"


class BackendError(Exception):
    """A backend cannot be loaded; the message says what to do."""


@dataclass(frozen=True)
class Capabilities:
    """What a backend is, as far as the suite's decisions go (docs/options.md, `--backend`); a MODULE:ATTR object
    declares each one with an attribute of the same name (True, or a zero-argument callable answering True)."""

    #: Drives real hardware: op models come from the real ATC (--model-dir), misuse may crash the device (unsafe
    #: probes are skipped unless isolated), device memory is not host memory and its free count moves by itself.
    real_device: bool = False
    #: Misuse (use after free, double free, ...) comes back as an error code in-process: unsafe probes run inline.
    survives_misuse: bool = False
    #: No call waits on a device or another process: tests get no default timeout.
    never_hangs: bool = False
    #: Its devices are the simulator's (aclcts.sim), which --devices may add to.
    simulated_devices: bool = False


#: The built-in backends' capabilities, known without loading them.
NAMED_CAPABILITIES = {
    "sim": Capabilities(survives_misuse=True, never_hangs=True, simulated_devices=True),
    "npu": Capabilities(real_device=True),
}


def _declared(acl: Any, name: str) -> bool:
    """Whether a MODULE:ATTR object declares the capability `name` (its attribute is True or a callable answering True)."""
    declared = getattr(acl, name, False)
    return (declared() if callable(declared) else declared) is True


def declared_capabilities(acl: Any) -> Capabilities:
    """The capabilities a MODULE:ATTR object declares by its attributes; none by default."""
    return Capabilities(**{name: _declared(acl, name) for name in Capabilities.__dataclass_fields__})


@dataclass(frozen=True)
class Backend:
    """A loaded backend: its spec, the pyacl-compatible module and what it declares itself capable of."""

    spec: str
    acl: Any
    capabilities: Capabilities

    @property
    def deferred_execution(self) -> bool:
        """Whether queued work is guaranteed not to run before a synchronisation (results visible earlier are then
        a defect). The simulator declares it unless an injected deviation runs work eagerly; the NPU does not (a
        device may finish before the host looks); a MODULE:ATTR object only through its `deferred_execution`."""
        if self.spec == "sim":
            from aclcts.sim import faults

            return faults.defers_execution()
        if self.spec == "npu":
            return False
        return _declared(self.acl, DEFERRED_EXECUTION)

    def unimplemented(self, op_type: str, input_dtypes: Sequence[int]) -> str | None:
        """Why this backend does not implement op_type for these input dtypes (aclDataType values), in one line, or
        None. Only the simulator answers (its kernels' declared gaps, aclcts.sim.simulation_gap): a real device or a
        MODULE:ATTR object is always run, so that what it lacks fails."""
        if not self.capabilities.simulated_devices:
            return None
        from aclcts.sim import simulation_gap

        return simulation_gap(op_type, input_dtypes)


def _missing_surface(module: Any) -> list[str]:
    missing = [name for name in PYACL_SURFACE if not hasattr(module, name)]
    rt = getattr(module, "rt", None)
    if rt is not None:
        missing += [f"rt.{name}" for name in PYACL_RT_SURFACE if not hasattr(rt, name)]
    return missing


def _load_npu() -> Any:
    try:
        module = importlib.import_module("acl")
    except ImportError as exc:
        raise BackendError(
            f"--backend=npu: cannot import pyacl ({exc}); source CANN's set_env.sh first, e.g. "
            "`source /usr/local/Ascend/ascend-toolkit/set_env.sh`"
        ) from None
    missing = _missing_surface(module)
    if missing:
        where = getattr(module, "__file__", "?")
        raise BackendError(
            f"--backend=npu: the module `acl` imported from {where} is not CANN's pyacl (it lacks "
            f"{', '.join(missing[:5])}); PyPI has an unrelated package named `acl` — uninstall it "
            "(`pip uninstall acl`) and source CANN's set_env.sh"
        )
    return module


def _load_object(spec: str) -> Any:
    module_name, _, attr = spec.partition(":")
    if not module_name or not attr:
        raise BackendError(f"--backend={spec}: expected sim, npu or MODULE:ATTR")
    try:
        with guarded(f"--backend={spec}: importing module {module_name!r}", passing=(ImportError,)):
            module = importlib.import_module(module_name)
    except ImportError as exc:
        raise BackendError(f"--backend={spec}: cannot import module {module_name!r}: {exc}") from None
    except UserCodeError as exc:  # the user's module: raising, exiting or hanging at import ends the run in one line
        raise BackendError(str(exc)) from None
    try:
        found = getattr(module, attr)
    except AttributeError:
        raise BackendError(f"--backend={spec}: module {module_name!r} has no attribute {attr!r}") from None
    if callable(found) and not isinstance(found, types.ModuleType) and not hasattr(found, "rt"):
        try:
            with guarded(f"--backend={spec}: the factory {attr}()"):
                found = found()
        except UserCodeError as exc:  # the user's factory: what it does wrong is the run's one usage line
            raise BackendError(str(exc)) from None
    missing = _missing_surface(found)
    if missing:
        raise BackendError(f"--backend={spec}: the object is not pyacl-compatible (it lacks {', '.join(missing[:5])})")
    return found


def mutable_copy(acl: Any) -> types.SimpleNamespace:
    """A copy of a pyacl module whose functions can be replaced one by one (to wrap a backend, e.g. inject a fault)."""

    def copy(module: Any, name: str) -> types.SimpleNamespace:
        return types.SimpleNamespace(**{k: getattr(module, k) for k in dir(module) if not k.startswith("__")},
                                     __name__=name)

    result = copy(acl, "acl")
    for sub in ("rt", "op", "util", "blas"):
        if hasattr(acl, sub):
            setattr(result, sub, copy(getattr(acl, sub), f"acl.{sub}"))
    return result


def load_backend(spec: str) -> Backend:
    """Load the backend named by a --backend value."""
    if spec == "sim":
        try:
            from aclcts.sim import acl
        except ValueError as exc:  # an ACLCTS_SIM_* variable (e.g. an unknown ACLCTS_SIM_FAULTS name)
            raise BackendError(f"--backend=sim: {exc}") from None
        return Backend(spec, acl, NAMED_CAPABILITIES[spec])
    if spec == "npu":
        return Backend(spec, _load_npu(), NAMED_CAPABILITIES[spec])
    found = _load_object(spec)
    try:
        with guarded(f"--backend={spec}: reading its declared capabilities"):
            capabilities = declared_capabilities(found)
    except UserCodeError as exc:  # a declaring callable that raises is the run's one usage line
        raise BackendError(str(exc)) from None
    return Backend(spec, found, capabilities)


def device_problem(acl: Any, device_id: int) -> str | None:
    """Why device_id is not a device of this pyacl module (acl.rt.get_device_count), or None (also when the module
    cannot tell: no get_device_count, or it fails even after acl.init; the session's set_device then says why)."""
    count_devices = getattr(acl.rt, "get_device_count", None)
    if count_devices is None:
        return None
    try:
        count, ret = count_devices()
        if ret != 0:
            # The count may need acl.init; the session's own acl.init then returns 100002, which it accepts.
            if acl.init() not in (0, 100002):
                return None
            count, ret = count_devices()
    except Exception:  # a MODULE:ATTR backend's own answer: one it cannot give leaves the check to set_device
        return None
    if ret != 0 or not isinstance(count, int):
        return None
    if 0 <= device_id < count:
        return None
    if not count:
        return f"--device-id={device_id}: the backend reports no device (acl.rt.get_device_count is 0)"
    return (f"--device-id={device_id}: the backend has {count} device(s) (acl.rt.get_device_count); "
            f"expected 0..{count - 1}")
