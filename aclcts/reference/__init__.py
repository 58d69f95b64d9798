"""Independent NumPy float64 reference implementations of the suite's operators, looked up by IR op type.

Each RefOp takes the inputs exactly as given to the device (their real dtypes), computes in a wide type
(float64, int64/uint64, bool or complex128) and rounds once to each output dtype with `round_to`.
This package never imports the simulator: the two must not share numerics.
"""

from __future__ import annotations

import importlib
import importlib.util

from aclcts.core.prototypes import families
from aclcts.core.usercode import UserCodeError, guarded
from aclcts.reference.base import REQUIRED, RefOp
from aclcts.reference.numeric import round_to


def _registry() -> dict[str, RefOp]:
    """Every family module's RefOps (OPS) by op type: the modules named after the record families, found by name."""
    found: dict[str, RefOp] = {}
    for family in families():
        if importlib.util.find_spec(f"{__name__}.{family}") is None:
            continue
        for ref in importlib.import_module(f"{__name__}.{family}").OPS:
            if ref.op_type in found:
                raise ValueError(f"reference {ref.op_type!r} is defined twice (second in {family})")
            found[ref.op_type] = ref
    return found


_REGISTRY = _registry()

OP_TYPES: tuple[str, ...] = tuple(sorted(_REGISTRY))


def reference(op_type: str) -> RefOp:
    """Return the reference of an IR op type, or a custom op's RefOp named `module:ATTR`; KeyError if there is none."""
    if ":" in op_type:
        return _imported(op_type)
    try:
        return _REGISTRY[op_type]
    except KeyError:
        raise KeyError(f"no reference for op type {op_type!r}; known: {', '.join(OP_TYPES)}") from None


def _imported(spec: str) -> RefOp:
    """The RefOp a custom op's case file names as `module:ATTR` (module importable, e.g. next to the case file)."""
    module_name, _, attr = spec.partition(":")
    try:
        with guarded("importing it"):
            module = importlib.import_module(module_name)
        found = getattr(module, attr)
    except (UserCodeError, AttributeError) as exc:  # the user's module: raising, exiting or hanging at import
        raise KeyError(f"reference {spec!r}: cannot load it: "
                       f"{exc if isinstance(exc, UserCodeError) else f'{type(exc).__name__}: {exc}'}") from None
    if not isinstance(found, RefOp):
        raise KeyError(f"reference {spec!r}: expected a RefOp (aclcts.reference.base.define), "
                       f"got {type(found).__name__}") from None
    return found


__all__ = ["OP_TYPES", "REQUIRED", "RefOp", "reference", "round_to"]
