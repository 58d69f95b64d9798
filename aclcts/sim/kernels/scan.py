"""Scans: Cumsum and Cumprod (axis as the second input) and CumsumD / CumprodD (axis as an attribute), and
CumulativeLogsumexpD (running log-add-exp, axis an attribute, exclusive starting from -inf).

Records: aclcts/core/prototypes/scan.py. The axis input holds one value. exclusive starts each running value from
the identity (0 or 1); reverse runs from the end of the axis.
Numerics: fp16/bf16 run in fp32 and every running value is rounded once to the storage type; fp32/double run in
their own type; integers wrap in their type. Values are combined one step at a time along the axis.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from aclcts.sim.kernels.base import InferredShape, TensorInfo
from aclcts.sim.kernels.call import OpCall, Outputs
from aclcts.sim.kernels.numerics import compute_dtype
from aclcts.sim.kernels.registry import builtin
from aclcts.sim.kernels.shapes import inferred

#: Each scan's running operation (its record gives the dtypes of both forms).
_SCANS = {"Cumsum": np.add, "Cumprod": np.multiply}


def scanned(x: np.ndarray, axis: int, combine: np.ufunc, exclusive: bool, reverse: bool) -> np.ndarray:
    """The running combination of x along axis in its compute type, rounded once to x's type."""
    wide = x.astype(compute_dtype(x.dtype), copy=False)
    if reverse:
        wide = np.flip(wide, axis)
    result = combine.accumulate(wide, axis=axis, dtype=wide.dtype)
    if exclusive:
        shifted = np.empty_like(result)
        head = [slice(None)] * x.ndim
        head[axis] = slice(0, 1)
        rest = [slice(None)] * x.ndim
        rest[axis] = slice(1, None)
        before = [slice(None)] * x.ndim
        before[axis] = slice(0, -1)
        shifted[tuple(head)] = combine.identity
        shifted[tuple(rest)] = result[tuple(before)]
        result = shifted
    if reverse:
        result = np.flip(result, axis)
    return result.astype(x.dtype, copy=False)


def _scan_kernel(op_type: str, combine: np.ufunc, axis_attr: bool) -> None:
    def axis_of(call: OpCall, rank: int) -> int:
        if axis_attr:
            given = call.attr_int("axis")
        else:
            values = call.index_values(1, call.input(1))
            if len(values) != 1:
                raise call.fail(f"input '{call.name(1)}' must hold one value, got {values}")
            given = values[0]
        return call.axis("axis", given, max(rank, 1))

    def compute(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list[TensorInfo]) -> list[np.ndarray]:
        call = OpCall(op_type, inputs, attrs)
        call.require_count(1 if axis_attr else 2)
        x = call.input(0)
        call.require_dtype(0, x.dtype)
        axis = axis_of(call, x.ndim)
        out = Outputs(call, outputs)
        out.require_dtype(0, x.dtype, call.same_as(0))
        if x.ndim == 0:
            return [out.emit(0, x.copy() if not call.attr_bool("exclusive") else
                             np.full((), combine.identity, x.dtype))]
        with np.errstate(all="ignore"):
            y = scanned(x, axis, combine, call.attr_bool("exclusive"), call.attr_bool("reverse"))
        return [out.emit(0, y)]

    def infer_shape(inputs: list[TensorInfo], values: list[np.ndarray | None], attrs: dict[str, Any]) -> list[InferredShape]:
        call = OpCall(op_type, inputs, attrs)
        call.require_count(1 if axis_attr else 2)
        x = call.input(0)
        return [inferred(x.dtype, x.shape)]

    builtin(op_type, compute, infer_shape)


for _name, _combine in _SCANS.items():
    _scan_kernel(_name, _combine, axis_attr=False)
    _scan_kernel(_name + "D", _combine, axis_attr=True)
_scan_kernel("CumulativeLogsumexpD", np.logaddexp, axis_attr=True)
