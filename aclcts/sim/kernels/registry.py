"""The table of kernels by op type: built-ins, overridden by kernels registered at run time."""

from __future__ import annotations

import sys
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from aclcts.core.dtypes import JSON_TYPE_NAMES, acl_data_type, has_numpy_dtype, numpy_dtype
from aclcts.core.prototypes import registered
from aclcts.sim.kernels.base import ComputeFn, InferFn, Kernel
from aclcts.sim.seams import Seam

_BUILTIN: dict[str, Kernel] = {}
_CUSTOM: dict[str, Kernel] = {}
#: The family module that registered each built-in kernel (its last dotted name).
_ORIGIN: dict[str, str] = {}
#: (op type, input index) -> the dtypes that input's record allows but the built-in kernel does not implement.
_UNSIMULATED: dict[tuple[str, int], tuple[np.dtype, ...]] = {}


def _checked(op_type: object, compute: object, infer_shape: object) -> Kernel:
    if not isinstance(op_type, str) or not op_type:
        raise ValueError(f"register_kernel: op_type must be a non-empty str, got {op_type!r}")
    if not callable(compute):
        raise TypeError(f"register_kernel({op_type!r}): compute must be callable, got {type(compute).__name__}")
    if infer_shape is not None and not callable(infer_shape):
        raise TypeError(
            f"register_kernel({op_type!r}): infer_shape must be callable or None, got {type(infer_shape).__name__}"
        )
    return Kernel(op_type, compute, infer_shape)  # type: ignore[arg-type]


def builtin(op_type: str, compute: ComputeFn, infer_shape: InferFn) -> None:
    """Add one of this library's own kernels (called by the op modules at import)."""
    if op_type in _BUILTIN:
        raise ValueError(f"built-in kernel {op_type!r} is defined twice")
    _BUILTIN[op_type] = _checked(op_type, compute, infer_shape)
    _ORIGIN[op_type] = sys._getframe(1).f_globals["__name__"].rsplit(".", 1)[-1]


def not_simulated(op_type: str, index: int, dtypes: Iterable[Any]) -> None:
    """Declare the dtypes of input index that op_type's built-in kernel does not implement (called at import)."""
    _UNSIMULATED[(op_type, index)] = tuple(np.dtype(d) for d in dtypes)


def unsimulated_dtypes(op_type: str, index: int) -> tuple[np.dtype, ...]:
    """The dtypes of input index that the kernel running op_type does not implement (none for a registered one)."""
    if op_type in _CUSTOM:
        return ()
    return _UNSIMULATED.get((op_type, index), ())


def simulation_gap(op_type: str, input_dtypes: Sequence[Any]) -> str | None:
    """Why the simulator cannot run op_type on inputs of these dtypes (NumPy dtypes or aclDataType values), in one
    line, or None if it can."""
    for index, dtype in enumerate(input_dtypes):
        if isinstance(dtype, (int, np.integer)):
            if not has_numpy_dtype(int(dtype)):
                continue
            dtype = numpy_dtype(int(dtype))
        if np.dtype(dtype) in unsimulated_dtypes(op_type, index):
            name = JSON_TYPE_NAMES.get(acl_data_type(np.dtype(dtype)), str(np.dtype(dtype)))
            return f"the simulator does not implement {op_type} for {name}"
    return None


def builtin_origin(op_type: str) -> str:
    """The name of the kernels module that registered op_type's built-in kernel ("" if there is none)."""
    return _ORIGIN.get(op_type, "")


def register_kernel(op_type: str, compute: ComputeFn, infer_shape: InferFn | None = None) -> None:
    """Register (or replace) the kernel for op_type; it takes precedence over a built-in of the same name."""
    _CUSTOM[op_type] = _checked(op_type, compute, infer_shape)
    registered.declare(op_type)


def unregister_kernel(op_type: str) -> None:
    """Remove a kernel added with register_kernel, bringing back the built-in (if any); KeyError if none was added."""
    try:
        del _CUSTOM[op_type]
        registered.forget(op_type)
    except KeyError:
        raise KeyError(f"no kernel was registered for {op_type!r} with register_kernel") from None


def _builtin_kernel(op_type: str) -> Kernel | None:
    """This library's own kernel for op_type, or None."""
    return _BUILTIN.get(op_type)


#: The built-in kernel registry: one entry per op type.
builtin_kernel = Seam("built-in kernels", _builtin_kernel)


def get_kernel(op_type: str) -> Kernel | None:
    """The kernel that runs op_type (registered first, then built-in), or None if there is none."""
    return _CUSTOM.get(op_type) or builtin_kernel(op_type)


def is_registered(op_type: str) -> bool:
    """Whether op_type runs a kernel added with register_kernel (rather than a built-in)."""
    return op_type in _CUSTOM


def registered_op_types() -> list[str]:
    """Every op type that has a kernel, sorted."""
    return sorted(set(_BUILTIN) | set(_CUSTOM))
