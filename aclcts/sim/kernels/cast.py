"""Cast: convert x to the data type given by attr dst_type.

Record: aclcts/core/prototypes/cast.py. acl.op.cast passes `truncate` only when a loaded Cast model has it
(docs/contract/single-op-json.md#matching-and-the-wrapper-ops), so the attribute is accepted and, being reserved, has
no effect.

Conversion rules (decision recorded here):
- float -> float: round to nearest, ties to even; overflow gives +-inf, NaN stays NaN (IEEE conversion).
- float -> integer: truncation toward zero, saturating at the integer type's bounds (+-inf included), NaN -> 0.
  Sources: hicann/ops-math math/cast/README.md "floating point to integer: NaN in the input is converted to 0";
  cast_proto.h "float16 to int16: inf is converted to the maximum value of int16, -inf to the minimum";
  truncation is TensorFlow Cast semantics, with which the prototype is compatible.
- integer -> integer: two's complement wrap (the low bits are kept), like the device's integer units.
- integer/bool -> float: round to nearest, ties to even.
- anything -> bool: nonzero (NaN included) -> 1, zero -> 0; bool -> number: 0 or 1.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from aclcts.core.dtypes import has_numpy_dtype, numpy_dtype
from aclcts.sim.kernels.base import InferredShape, TensorInfo
from aclcts.sim.kernels.call import OpCall, Outputs, dtype_name
from aclcts.sim.kernels.numerics import BOOL, FLOATS, INTS, saturating_int
from aclcts.sim.kernels.registry import builtin
from aclcts.sim.kernels.shapes import inferred

_FLOAT8 = tuple(numpy_dtype(t) for t in (35, 36))
_CASTABLE = FLOATS + INTS + (BOOL,) + _FLOAT8


def convert(values: np.ndarray, target: np.dtype) -> np.ndarray:
    """values converted to target by the device Cast rules above."""
    source = values.dtype
    target = np.dtype(target)
    with np.errstate(all="ignore"):
        if target == BOOL:
            return values != 0
        if source == BOOL:
            return values.astype(target)
        if target in INTS and (source in FLOATS or source in _FLOAT8):
            return saturating_int(values.astype(np.float64), target)
        return values.astype(target)


def _dst_type(call: OpCall) -> int:
    dst = call.attr_int("dst_type")
    if not has_numpy_dtype(dst) or numpy_dtype(dst) not in _CASTABLE:
        raise call.fail(f"attr 'dst_type' is {dtype_name(dst)}, which the simulator's Cast does not support")
    call.attr_bool("truncate")
    return dst


def _compute(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list[TensorInfo]) -> list[np.ndarray]:
    call = OpCall("Cast", inputs, attrs)
    call.require_count(1)
    x = call.input(0)
    call.require_dtype(0, x.dtype, _CASTABLE)
    dst = _dst_type(call)
    out = Outputs(call, outputs)
    if outputs[0].dtype != dst:
        raise call.fail(f"attr 'dst_type' is {dtype_name(dst)}, but output '{out.names[0]}' has dtype "
                        f"{dtype_name(outputs[0].dtype)}")
    return [out.emit(0, convert(np.asarray(x), numpy_dtype(dst)))]


def _infer(inputs: list[TensorInfo], values: list[np.ndarray | None], attrs: dict[str, Any]) -> list[InferredShape]:
    call = OpCall("Cast", inputs, attrs)
    call.require_count(1)
    x = call.input(0)
    return [inferred(_dst_type(call), x.shape)]


builtin("Cast", _compute, _infer)
