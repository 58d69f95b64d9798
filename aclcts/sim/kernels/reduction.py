"""Reductions: ReduceSum, ReduceMax, ReduceMean, ReduceMin, ReduceProd, ReduceAll, ReduceAny, ReduceLogSumExp (axes as
the second input) and the D forms (axes as an attr).

Records: aclcts/core/prototypes/reduction.py. Empty axes: no reduction when noop_with_empty_axes is set, a reduction
over every axis when it is not; without the attribute, ReduceAll/ReduceAny reduce nothing and a D form reduces every
axis. ReduceAll/ReduceAny read a non-zero input as true.
Numerics: fp16/bf16/fp32 sums accumulate in fp32 in the vector unit's lane order of numerics.vector_sum and round once;
ReduceMean divides that fp32 sum by the element count in fp32; integer ReduceSum wraps in the input type, integer
ReduceMean accumulates in int64 (a mean of int8 values always fits in int8) and truncates toward zero; ReduceMax and
ReduceMin are exact (NaN propagates); ReduceProd multiplies left to right in fp32 (integers wrap in their type);
ReduceLogSumExp is max + log(sum(exp(x - max))) in fp32.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from aclcts.core.dtypes import acl_data_type
from aclcts.sim.kernels.base import InferredShape, TensorInfo
from aclcts.sim.kernels.call import OpCall, Outputs
from aclcts.sim.kernels.numerics import compute_dtype, is_float, vector_sum
from aclcts.sim.kernels.registry import builtin, not_simulated
from aclcts.sim.kernels.shapes import UNKNOWN, inferred, unknown_rank
from aclcts.sim.seams import Seam

#: The dtypes the records allow that the simulator does not implement.
NOT_SIMULATED = (np.dtype(np.complex64), np.dtype(np.complex128))


def reduction_axes(call: OpCall, axes: list[int], rank: int, noop_without_attr: bool = True) -> list[int] | None:
    """The sorted, non-negative axes to reduce, or None for 'no reduction' (empty axes with noop_with_empty_axes, or
    noop_without_attr for an op whose record has no such attribute)."""
    if not axes:
        has_attr = call.record is not None and call.record.attr("noop_with_empty_axes") is not None
        noop = call.attr_bool("noop_with_empty_axes") if has_attr else noop_without_attr
        return None if noop else list(range(rank))
    return sorted({call.axis("axes value", a, rank) for a in axes})


def _reduced_shape(shape: tuple[int, ...], axes: list[int], keep_dims: bool) -> tuple[int, ...]:
    if keep_dims:
        return tuple(1 if i in axes else d for i, d in enumerate(shape))
    return tuple(d for i, d in enumerate(shape) if i not in axes)


def _flattened(x: np.ndarray, axes: list[int]) -> np.ndarray:
    """x with the reduced axes moved last and merged into one."""
    kept = [i for i in range(x.ndim) if i not in axes]
    moved = np.transpose(x, kept + axes)
    count = int(np.prod([x.shape[a] for a in axes], dtype=np.int64))
    return moved.reshape(tuple(x.shape[i] for i in kept) + (count,))


def _lane_sum(flat: np.ndarray) -> np.ndarray:
    """Sum over the last axis in the vector unit's lane order."""
    return vector_sum(flat, -1)


#: How a floating-point ReduceSum/ReduceMean adds its elements.
float_sum = Seam("float sum", _lane_sum)


def _sum(call: OpCall, x: np.ndarray, axes: list[int]) -> np.ndarray:
    flat = _flattened(x, axes)
    if is_float(x.dtype):
        return float_sum(flat.astype(compute_dtype(x.dtype), copy=False))
    return np.sum(flat, axis=-1, dtype=x.dtype)


def _mean(call: OpCall, x: np.ndarray, axes: list[int]) -> np.ndarray:
    count = int(np.prod([x.shape[a] for a in axes], dtype=np.int64))
    total = _sum(call, x, axes) if is_float(x.dtype) else np.sum(_flattened(x, axes), axis=-1, dtype=np.int64)
    if is_float(x.dtype):
        return total / total.dtype.type(count)
    if count == 0:
        raise call.fail("cannot take the mean of an empty integer reduction")
    quotient = np.floor_divide(total, count)
    return np.where((total % count != 0) & (total < 0), quotient + 1, quotient).astype(x.dtype)


def _max(call: OpCall, x: np.ndarray, axes: list[int]) -> np.ndarray:
    if any(x.shape[a] == 0 for a in axes):
        raise call.fail(f"cannot take the maximum over an empty axis (x shape {list(x.shape)}, axes {axes})")
    return np.max(_flattened(x, axes), axis=-1)


@dataclass(frozen=True)
class Reduction:
    """One reduction: its computation and output dtype (None: x's); the record gives its input dtypes and
    noop_with_empty_axes (ReduceAll and ReduceAny, which lack it, reduce nothing over empty axes)."""

    reduce: Callable[[OpCall, np.ndarray, list[int]], np.ndarray]
    out_dtype: np.dtype | None = None

    def output_dtype(self, x_dtype: Any) -> Any:
        """The output dtype for an input dtype (a NumPy dtype in compute, an aclDataType in infer_shape)."""
        if self.out_dtype is None:
            return x_dtype
        return self.out_dtype if isinstance(x_dtype, np.dtype) else acl_data_type(self.out_dtype)


def _reduce_kernel(op_type: str, spec: Reduction) -> None:
    def compute(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list[TensorInfo]) -> list[np.ndarray]:
        call = OpCall(op_type, inputs, attrs)
        call.require_count(2)
        x = call.input(0)
        call.require_simulated(0, x.dtype)
        axes = reduction_axes(call, call.index_values(1, call.input(1)), x.ndim)
        return [_reduced(call, spec, x, axes, outputs)]

    def infer_shape(inputs: list[TensorInfo], values: list[np.ndarray | None], attrs: dict[str, Any]) -> list[InferredShape]:
        call = OpCall(op_type, inputs, attrs)
        call.require_count(2)
        x, axes_info = call.input(0), call.input(1)
        keep_dims = call.attr_bool("keep_dims")
        shape, dtype = tuple(x.shape), spec.output_dtype(x.dtype)
        if unknown_rank(shape):
            return [inferred(dtype, shape)]
        axes_value = values[1] if len(values) > 1 else None
        if axes_value is None and tuple(axes_info.shape) == (0,):
            axes_value = np.zeros((0,), dtype=np.int64)
        if axes_value is not None:
            axes = reduction_axes(call, call.index_values(1, axes_value), len(shape))
            return [inferred(dtype, shape if axes is None else _reduced_shape(shape, axes, keep_dims))]
        return [_unknown_axes(dtype, shape, tuple(axes_info.shape), keep_dims)]

    builtin(op_type, compute, infer_shape)
    not_simulated(op_type, 0, NOT_SIMULATED)


def _reduce_d_kernel(op_type: str, spec: Reduction) -> None:
    def axes_of(call: OpCall, rank: int) -> list[int] | None:
        return reduction_axes(call, call.attr_list_int("axes"), rank, noop_without_attr=False)

    def compute(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list[TensorInfo]) -> list[np.ndarray]:
        call = OpCall(op_type, inputs, attrs)
        call.require_count(1)
        x = call.input(0)
        call.require_dtype(0, x.dtype)
        return [_reduced(call, spec, x, axes_of(call, x.ndim), outputs)]

    def infer_shape(inputs: list[TensorInfo], values: list[np.ndarray | None], attrs: dict[str, Any]) -> list[InferredShape]:
        call = OpCall(op_type, inputs, attrs)
        call.require_count(1)
        x = call.input(0)
        shape, dtype = tuple(x.shape), spec.output_dtype(x.dtype)
        if unknown_rank(shape):
            return [inferred(dtype, shape)]
        axes = axes_of(call, len(shape))
        return [inferred(dtype, shape if axes is None else _reduced_shape(shape, axes, call.attr_bool("keep_dims")))]

    builtin(op_type, compute, infer_shape)


def _reduced(call: OpCall, spec: Reduction, x: np.ndarray, axes: list[int] | None,
             outputs: list[TensorInfo]) -> np.ndarray:
    """The checked output of one reduction (x itself, in the output dtype, when axes is None)."""
    keep_dims = call.attr_bool("keep_dims")
    out = Outputs(call, outputs)
    dtype = spec.output_dtype(x.dtype)
    out.require_dtype(0, dtype, call.same_as(0) if spec.out_dtype is None else f"always {dtype.name}")
    if axes is None:
        return out.emit(0, x if spec.out_dtype is None else x != 0)
    with np.errstate(all="ignore"):
        y = np.asarray(spec.reduce(call, x, axes)).astype(dtype, copy=False)
    return out.emit(0, y.reshape(_reduced_shape(x.shape, axes, keep_dims)))


def _unknown_axes(dtype: int, shape: tuple[int, ...], axes_shape: tuple[int, ...], keep_dims: bool) -> InferredShape:
    """The output when the axes values are not known: each dim may be reduced (to 1, or removed)."""
    ranges = [(min(d, 1), d) if d >= 0 else (0, -1) for d in shape]
    if keep_dims:
        return inferred(dtype, [d if d in (0, 1) else UNKNOWN for d in shape], ranges)
    count = axes_shape[0] if len(axes_shape) == 1 and axes_shape[0] > 0 else (1 if axes_shape == () else None)
    if count is None:
        return inferred(dtype, (-2,))
    known = [d for d in shape if d >= 0]
    upper = max(known) if len(known) == len(shape) and known else -1
    lower = min(known) if known else 0
    rank = max(len(shape) - count, 0)
    return inferred(dtype, [UNKNOWN] * rank, [(lower, upper)] * rank)


def _min(call: OpCall, x: np.ndarray, axes: list[int]) -> np.ndarray:
    if any(x.shape[a] == 0 for a in axes):
        raise call.fail(f"cannot take the minimum over an empty axis (x shape {list(x.shape)}, axes {axes})")
    return np.min(_flattened(x, axes), axis=-1)


def _prod(call: OpCall, x: np.ndarray, axes: list[int]) -> np.ndarray:
    """Products in fp32 for fp16/bf16, in the input type otherwise (integers wrap), left to right."""
    flat = _flattened(x, axes)
    wide = compute_dtype(x.dtype)
    total = np.ones(flat.shape[:-1], dtype=wide)
    for k in range(flat.shape[-1]):
        np.multiply(total, flat[..., k], out=total, casting="unsafe")
    return total


def _all(call: OpCall, x: np.ndarray, axes: list[int]) -> np.ndarray:
    return np.all(_flattened(x, axes) != 0, axis=-1)


def _any(call: OpCall, x: np.ndarray, axes: list[int]) -> np.ndarray:
    return np.any(_flattened(x, axes) != 0, axis=-1)


def _log_sum_exp(call: OpCall, x: np.ndarray, axes: list[int]) -> np.ndarray:
    """max + log(sum(exp(x - max))) in fp32 (fp16/bf16 widened), the sum in the vector unit's order."""
    flat = _flattened(x, axes).astype(compute_dtype(x.dtype), copy=False)
    if flat.shape[-1] == 0:
        return np.full(flat.shape[:-1], -np.inf, dtype=flat.dtype)
    top = np.max(flat, axis=-1)
    shift = np.where(np.isfinite(top), top, 0).astype(flat.dtype)
    total = float_sum(np.exp(flat - shift[..., None]))
    return np.where(np.isfinite(top), np.log(total) + shift, top)


_BOOL_OUT = np.dtype(np.bool_)
_REDUCTIONS = {
    "ReduceSum": Reduction(_sum),
    "ReduceMax": Reduction(_max),
    "ReduceMean": Reduction(_mean),
    "ReduceMin": Reduction(_min),
    "ReduceProd": Reduction(_prod),
    "ReduceAll": Reduction(_all, out_dtype=_BOOL_OUT),
    "ReduceAny": Reduction(_any, out_dtype=_BOOL_OUT),
    "ReduceLogSumExp": Reduction(_log_sum_exp),
}
#: The D forms (axes an attribute).
_D_FORMS = {
    "ReduceSumD": _REDUCTIONS["ReduceSum"],
    "ReduceMaxD": _REDUCTIONS["ReduceMax"],
    "ReduceMeanD": _REDUCTIONS["ReduceMean"],
    "ReduceMinD": _REDUCTIONS["ReduceMin"],
    "ReduceProdD": _REDUCTIONS["ReduceProd"],
    "ReduceAllD": _REDUCTIONS["ReduceAll"],
    "ReduceAnyD": _REDUCTIONS["ReduceAny"],
}
for _name, _spec in _REDUCTIONS.items():
    _reduce_kernel(_name, _spec)
for _name, _spec in _D_FORMS.items():
    _reduce_d_kernel(_name, _spec)
