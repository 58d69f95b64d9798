"""Gather, scatter and index-building kernels: GatherV2, GatherNd, GatherElements, ScatterNd, ScatterNdUpdate,
ScatterUpdate, ScatterAdd, ScatterElements, OneHot, Range, LinSpace, Sort, TopKV2, UnsortedSegmentSum, MaskedFill,
MaskedSelect, SearchSorted, Bincount.

Prototypes: aclcts.core.prototypes.gather_scatter (graphengine 910 selection_ops.h, matrix_calculation_ops.h,
random_ops.h, nn_detect_ops.h, math_ops.h). The Scatter ops with a `var` input return the updated var (the op
updates it in place; the runtime's output var is the same tensor).
Numerics: gathers, updates, Sort and masks move values bit for bit. Additions (ScatterNd, ScatterAdd,
ScatterElements add/mul, UnsortedSegmentSum, Bincount) run in the compute type (fp16/bf16 in fp32), one index after
another in index order, rounded once to the output type; integers wrap. Range and LinSpace compute
start + i * delta in the compute type, rounded once. An index outside its dimension is a kernel error (the
prototypes' "must be in range"); OneHot gives its off value, Bincount ignores it, UnsortedSegmentSum drops
negative ids, ScatterElements counts an index in [-s, 0) from the end of its axis (ONNX's bounds [-s, s-1]). Sort is stable (NaN above +inf), which is one valid order of an unstable sort too.
"""

from __future__ import annotations

import math
from typing import Any

import ml_dtypes
import numpy as np

from aclcts.core.dtypes import acl_data_type, numpy_dtype
from aclcts.sim.kernels.base import InferredShape, TensorInfo
from aclcts.sim.kernels.call import OpCall, Outputs
from aclcts.sim.kernels.numerics import compute_dtype
from aclcts.sim.kernels.registry import builtin, not_simulated
from aclcts.sim.kernels.shapes import UNKNOWN, broadcast, inferred, like_input, unknown_rank

Arrays = list[np.ndarray | None]
Attrs = dict[str, Any]
INT32 = acl_data_type(np.int32)
INT64 = acl_data_type(np.int64)
_BF16 = ml_dtypes.bfloat16
#: Record dtypes the simulator does not implement for this family: complex values are not simulated.
NOT_SIMULATED = ("complex64", "complex128")
#: ScatterNd adds its updates: bool sums are not simulated either.
NOT_SIMULATED_SUMS = NOT_SIMULATED + ("bool",)


def _indices(call: OpCall, index: int, array: np.ndarray, size: int | tuple[int, ...],
             negative: bool = False) -> np.ndarray:
    """Index values of input index as int64, checked against size (per last-dim column for a tuple); negative ones
    wrap if allowed."""
    call.require_dtype(index, array.dtype)
    values = array.astype(np.int64)
    sizes = np.asarray(size, dtype=np.int64)
    if negative:
        values = np.where(values < 0, values + sizes, values)
    bad = (values < 0) | (values >= sizes)
    if bad.any():
        low = f"-{size}" if negative and isinstance(size, int) else "0"
        raise call.fail(f"input {call.quoted(index)} holds {int(array.reshape(-1)[np.argmax(bad.reshape(-1))])}, outside "
                        f"[{low}, {size}) of the indexed dimension")
    return values


# Gathers ------------------------------------------------------------------------------------------------------
def _gather_v2_axes(call: OpCall, rank: int, irank: int, axis_value: Any) -> tuple[int, int]:
    axis = call.axis(f"input {call.quoted(2)} value", call.one_value(2, axis_value), rank)
    given = call.attr_int("batch_dims")
    batch = given + irank if given < 0 else given
    if not 0 <= batch <= min(axis, irank):
        raise call.fail(f"attr 'batch_dims' {given} must be in [0, min(axis {axis}, "
                        f"rank of indices {irank})]")
    return axis, batch


def _gather_v2_compute(inputs: Arrays, attrs: Attrs, outputs: list[TensorInfo]) -> list[np.ndarray]:
    call = OpCall("GatherV2", inputs, attrs)
    call.require_inputs()
    x, indices = call.input(0), call.input(1)
    call.require_simulated(0, x.dtype)
    axis, batch = _gather_v2_axes(call, x.ndim, indices.ndim, call.input(2))
    if x.shape[:batch] != indices.shape[:batch]:
        raise call.fail(f"the first {batch} dims of {call.quoted(0)} {list(x.shape)} and {call.quoted(1)} "
                        f"{list(indices.shape)} differ")
    idx = _indices(call, 1, indices, x.shape[axis], call.attr_bool("negative_index_support"))
    out = Outputs(call, outputs)
    out.require_input_dtype(0, 0, x.dtype)
    if batch == 0:
        shape = x.shape[:axis] + idx.shape + x.shape[axis + 1:]
        return [out.emit(0, np.take(x, idx, axis=axis, out=out.buffer(0, shape)))]
    lead = int(np.prod(x.shape[:batch], dtype=np.int64))
    xb = x.reshape((lead,) + x.shape[batch:])
    ib = idx.reshape((lead,) + idx.shape[batch:])
    parts = [np.take(xb[b], ib[b], axis=axis - batch) for b in range(lead)]
    shape = x.shape[:axis] + idx.shape[batch:] + x.shape[axis + 1:]
    return [out.emit(0, np.stack(parts).reshape(shape) if parts else np.empty(shape, x.dtype))]


def _gather_v2_infer(inputs: list[TensorInfo], values: Arrays, attrs: Attrs) -> list[InferredShape]:
    call = OpCall("GatherV2", inputs, attrs)
    call.require_inputs()
    x, ind = call.input(0), call.input(1)
    value = values[2] if len(values) > 2 else None
    if unknown_rank(x.shape) or unknown_rank(ind.shape):
        return [inferred(x.dtype, (-2,))]
    if value is None:
        rank = len(x.shape) - 1 + len(ind.shape) - call.attr_int("batch_dims")
        return [inferred(x.dtype, (UNKNOWN,) * rank)]
    axis, batch = _gather_v2_axes(call, len(x.shape), len(ind.shape), value)
    return [inferred(x.dtype, tuple(x.shape[:axis]) + tuple(ind.shape[batch:]) + tuple(x.shape[axis + 1:]))]


def _gather_nd_compute(inputs: Arrays, attrs: Attrs, outputs: list[TensorInfo]) -> list[np.ndarray]:
    call = OpCall("GatherNd", inputs, attrs)
    call.require_inputs()
    x, indices = call.input(0), call.input(1)
    call.require_simulated(0, x.dtype)
    k = indices.shape[-1] if indices.ndim else 0
    if indices.ndim == 0 or k > x.ndim:
        raise call.fail(f"input {call.quoted(1)} {list(indices.shape)} needs rank >= 1 and a last dim <= rank of "
                        f"{call.quoted(0)} {x.ndim}")
    idx = _indices(call, 1, indices, x.shape[:k], call.attr_bool("negative_index_support"))
    out = Outputs(call, outputs)
    out.require_input_dtype(0, 0, x.dtype)
    return [out.emit(0, x[tuple(np.moveaxis(idx, -1, 0))])]


def _gather_nd_infer(inputs: list[TensorInfo], values: Arrays, attrs: Attrs) -> list[InferredShape]:
    call = OpCall("GatherNd", inputs, attrs)
    call.require_inputs()
    x, ind = call.input(0), call.input(1)
    if unknown_rank(x.shape) or unknown_rank(ind.shape) or ind.shape[-1] < 0:
        return [inferred(x.dtype, (-2,))]
    return [inferred(x.dtype, tuple(ind.shape[:-1]) + tuple(x.shape[ind.shape[-1]:]))]


def _gather_elements_compute(inputs: Arrays, attrs: Attrs, outputs: list[TensorInfo]) -> list[np.ndarray]:
    call = OpCall("GatherElements", inputs, attrs)
    call.require_inputs()
    x, index = call.input(0), call.input(1)
    call.require_dtype(0, x.dtype)
    dim = call.axis("attr 'dim'", call.attr_int("dim"), x.ndim)
    if index.ndim != x.ndim or any(i > s for d, (i, s) in enumerate(zip(index.shape, x.shape)) if d != dim):
        raise call.fail(f"input {call.quoted(1)} {list(index.shape)} must have the rank of {call.quoted(0)} "
                        f"{list(x.shape)} and no larger dims outside dim")
    idx = _indices(call, 1, index, x.shape[dim])
    window = tuple(slice(None) if d == dim else slice(0, s) for d, s in enumerate(index.shape))
    out = Outputs(call, outputs)
    out.require_input_dtype(0, 0, x.dtype)
    return [out.emit(0, np.take_along_axis(x[window], idx, axis=dim))]


def _gather_elements_infer(inputs: list[TensorInfo], values: Arrays, attrs: Attrs) -> list[InferredShape]:
    call = OpCall("GatherElements", inputs, attrs)
    call.require_inputs()
    return [inferred(call.input(0).dtype, call.input(1).shape)]


# Scatters -----------------------------------------------------------------------------------------------------
def _accumulate(target: np.ndarray, where: Any, updates: np.ndarray, ufunc: np.ufunc) -> np.ndarray:
    """target with updates combined in at where, one index after another, in the compute type; rounded once (a sum
    beyond the target type's range rounds to inf, as the device's cast does, without a NumPy warning). Integers
    divide in float32, truncated toward zero at the end."""
    integer_division = ufunc is np.divide and target.dtype.kind in "iu"
    wide = target.astype(np.float32 if integer_division else compute_dtype(target.dtype))
    with np.errstate(all="ignore"):
        ufunc.at(wide, where, updates.astype(wide.dtype, copy=False))
        if integer_division:
            return np.trunc(wide).astype(target.dtype)
        return wide.astype(target.dtype, copy=False)


def _scatter_var(op_type: str, nd: bool, ufunc: np.ufunc | None) -> None:
    """ScatterNdUpdate / ScatterUpdate / ScatterAdd ... TensorScatterMax: var with updates written (ufunc None) or
    combined in by ufunc at indices."""
    def compute(inputs: Arrays, attrs: Attrs, outputs: list[TensorInfo]) -> list[np.ndarray]:
        call = OpCall(op_type, inputs, attrs)
        call.require_inputs()
        var, indices, updates = call.input(0), call.input(1), call.input(2)
        call.require_simulated(0, var.dtype)
        call.require_same_dtype([0, 2], [var.dtype, updates.dtype])
        k = indices.shape[-1] if nd and indices.ndim else 1
        if nd and (indices.ndim == 0 or k > var.ndim):
            raise call.fail(f"input {call.quoted(1)} {list(indices.shape)} needs a last dim <= rank of "
                            f"{call.quoted(0)} {var.ndim}")
        lead = indices.shape[:-1] if nd else indices.shape
        expected = tuple(lead) + var.shape[k:]
        if updates.shape != expected:
            raise call.fail(f"input {call.quoted(2)} has shape {list(updates.shape)}, expected {list(expected)}")
        idx = _indices(call, 1, indices, var.shape[:k] if nd else var.shape[0])
        where = tuple(np.moveaxis(idx, -1, 0)) if nd else idx
        out = Outputs(call, outputs)
        out.require_input_dtype(0, 0, var.dtype)
        if ufunc is not None:
            if ufunc is np.divide and var.dtype.kind in "iu" and not updates.all():
                raise call.fail(f"input {call.quoted(2)} holds 0: an integer division by zero")
            return [out.emit(0, _accumulate(var, where, updates, ufunc))]
        result = out.buffer(0, var.shape)
        np.copyto(result, var)
        result[where] = updates
        return [out.emit(0, result)]

    builtin(op_type, compute, like_input(op_type))


def _scatter_nd_compute(inputs: Arrays, attrs: Attrs, outputs: list[TensorInfo]) -> list[np.ndarray]:
    call = OpCall("ScatterNd", inputs, attrs)
    call.require_inputs()
    indices, x = call.input(0), call.input(1)
    call.require_simulated(1, x.dtype)
    shape = tuple(call.index_values(2, call.input(2)))
    k = indices.shape[-1] if indices.ndim else 0
    if indices.ndim == 0 or k > len(shape) or x.shape != indices.shape[:-1] + shape[k:]:
        raise call.fail(f"inputs {call.quoted(0)} {list(indices.shape)} and {call.quoted(1)} {list(x.shape)} do "
                        f"not fit shape {list(shape)}")
    idx = _indices(call, 0, indices, shape[:k])
    out = Outputs(call, outputs)
    out.require_input_dtype(0, 1, x.dtype)
    return [out.emit(0, _accumulate(np.zeros(shape, x.dtype), tuple(np.moveaxis(idx, -1, 0)), x, np.add))]


def _shape_from_value(op_type: str, index: int) -> Any:
    def infer(inputs: list[TensorInfo], values: Arrays, attrs: Attrs) -> list[InferredShape]:
        call = OpCall(op_type, inputs, attrs)
        call.require_inputs()
        dtype = call.input(1).dtype
        value = values[index] if len(values) > index else None
        if value is None:
            return [inferred(dtype, (-2,))]
        return [inferred(dtype, tuple(call.index_values(index, value)))]
    return infer


_REDUCTIONS = {"add": np.add, "mul": np.multiply}


def _scatter_elements_compute(inputs: Arrays, attrs: Attrs, outputs: list[TensorInfo]) -> list[np.ndarray]:
    call = OpCall("ScatterElements", inputs, attrs)
    call.require_inputs()
    data, indices, updates = call.input(0), call.input(1), call.input(2)
    call.require_simulated(0, data.dtype)
    call.require_same_dtype([0, 2], [data.dtype, updates.dtype])
    axis = call.axis("attr 'axis'", call.attr_int("axis"), data.ndim)
    reduction = call.attr_str("reduction")
    if reduction not in ("none", "add", "mul"):
        raise call.fail(f"attr 'reduction' is {reduction!r}, expected one of: none, add, mul")
    if updates.shape != indices.shape or indices.ndim != data.ndim:
        raise call.fail(f"inputs {call.quoted(1)} {list(indices.shape)} and {call.quoted(2)} {list(updates.shape)} "
                        f"must have one shape and the rank of {call.quoted(0)} {list(data.shape)}")
    idx = _indices(call, 1, indices, data.shape[axis], negative=True)
    where = list(np.indices(indices.shape, sparse=True))
    where[axis] = idx
    out = Outputs(call, outputs)
    out.require_input_dtype(0, 0, data.dtype)
    if reduction != "none":
        return [out.emit(0, _accumulate(data, tuple(where), updates, _REDUCTIONS[reduction]))]
    result = data.copy()
    result[tuple(where)] = updates
    return [out.emit(0, result)]


# OneHot, Range, LinSpace --------------------------------------------------------------------------------------
def _one_hot_axis(call: OpCall, rank: int) -> int:
    return call.axis("attr 'axis'", call.attr_int("axis"), rank + 1)


def _one_hot_compute(inputs: Arrays, attrs: Attrs, outputs: list[TensorInfo]) -> list[np.ndarray]:
    call = OpCall("OneHot", inputs, attrs)
    call.require_inputs()
    x = call.input(0)
    call.require_dtype(0, x.dtype)
    depth = call.one_value(1, call.input(1))
    if depth < 0:
        raise call.fail(f"input {call.quoted(1)} is {depth}, expected >= 0")
    on, off = call.input(2), call.input(3)
    call.require_simulated(2, on.dtype)
    call.require_same_dtype([2, 3], [on.dtype, off.dtype])
    if on.size != 1 or off.size != 1:
        raise call.fail(f"inputs {call.quoted(2)} and {call.quoted(3)} must hold one value each")
    axis = _one_hot_axis(call, x.ndim)
    out = Outputs(call, outputs)
    out.require_input_dtype(0, 2, on.dtype)
    hit = np.expand_dims(x.astype(np.int64), -1) == np.arange(depth)
    return [out.emit(0, np.moveaxis(np.where(hit, on.reshape(()), off.reshape(())), -1, axis))]


def _one_hot_infer(inputs: list[TensorInfo], values: Arrays, attrs: Attrs) -> list[InferredShape]:
    call = OpCall("OneHot", inputs, attrs)
    call.require_inputs()
    x, dtype = call.input(0), call.input(2).dtype
    if unknown_rank(x.shape):
        return [inferred(dtype, x.shape)]
    value = values[1] if len(values) > 1 else None
    depth = UNKNOWN if value is None else call.one_value(1, value)
    axis = _one_hot_axis(call, len(x.shape))
    return [inferred(dtype, tuple(x.shape[:axis]) + (depth,) + tuple(x.shape[axis:]))]


def _scalar(call: OpCall, index: int, value: np.ndarray) -> Any:
    if value.size != 1:
        raise call.fail(f"input {call.quoted(index)} must hold one value, got shape {list(value.shape)}")
    return value.reshape(()).astype(compute_dtype(value.dtype))


def _range_count(call: OpCall, start: Any, limit: Any, delta: Any) -> int:
    if delta == 0:
        raise call.fail(f"input {call.quoted(2)} must not be 0")
    if np.asarray(start).dtype.kind != "f":
        return max(0, -((int(start) - int(limit)) // int(delta)))
    with np.errstate(all="ignore"):
        quotient = (limit - start) / delta
    return max(0, math.ceil(float(quotient)))


def _range_compute(inputs: Arrays, attrs: Attrs, outputs: list[TensorInfo]) -> list[np.ndarray]:
    call = OpCall("Range", inputs, attrs)
    call.require_inputs()
    arrays = [call.input(i) for i in range(3)]
    call.require_dtype(0, arrays[0].dtype)
    call.require_same_dtype([0, 1, 2], [a.dtype for a in arrays])
    start, limit, delta = (_scalar(call, i, a) for i, a in enumerate(arrays))
    n = _range_count(call, start, limit, delta)
    out = Outputs(call, outputs)
    out.require_input_dtype(0, 0, arrays[0].dtype)
    y = np.arange(n, dtype=start.dtype)
    with np.errstate(all="ignore"):
        np.multiply(y, delta, out=y)
        np.add(y, start, out=y)
    return [out.emit(0, y.astype(arrays[0].dtype, copy=False))]


def _range_infer(inputs: list[TensorInfo], values: Arrays, attrs: Attrs) -> list[InferredShape]:
    call = OpCall("Range", inputs, attrs)
    call.require_inputs()
    dtype = call.input(0).dtype
    if len(values) < 3 or any(v is None for v in values[:3]):
        return [inferred(dtype, (UNKNOWN,))]
    start, limit, delta = (_scalar(call, i, np.asarray(v)) for i, v in enumerate(values[:3]))
    return [inferred(dtype, (_range_count(call, start, limit, delta),))]


def _linspace_compute(inputs: Arrays, attrs: Attrs, outputs: list[TensorInfo]) -> list[np.ndarray]:
    call = OpCall("LinSpace", inputs, attrs)
    call.require_inputs()
    start_a, stop_a = call.input(0), call.input(1)
    call.require_dtype(0, start_a.dtype)
    call.require_same_dtype([0, 1], [start_a.dtype, stop_a.dtype])
    num = call.one_value(2, call.input(2))
    if num < 1:
        raise call.fail(f"input {call.quoted(2)} is {num}, expected >= 1")
    start, stop = _scalar(call, 0, start_a), _scalar(call, 1, stop_a)
    out = Outputs(call, outputs)
    out.require_input_dtype(0, 0, start_a.dtype)
    y = np.arange(num, dtype=start.dtype)
    with np.errstate(all="ignore"):
        step = (stop - start) / start.dtype.type(max(num - 1, 1))
        np.multiply(y, step, out=y)
        np.add(y, start, out=y)
    return [out.emit(0, y)]


def _linspace_infer(inputs: list[TensorInfo], values: Arrays, attrs: Attrs) -> list[InferredShape]:
    call = OpCall("LinSpace", inputs, attrs)
    call.require_inputs()
    dtype = call.input(0).dtype
    value = values[2] if len(values) > 2 else None
    return [inferred(dtype, (UNKNOWN if value is None else call.one_value(2, value),))]


# Sort, TopKV2 -------------------------------------------------------------------------------------------------
def stable_order(moved: np.ndarray, descending: bool) -> np.ndarray:
    """The stable sort order along the last axis: NaN above +inf, equal values in their original order.

    bfloat16 is ordered through its exact float32 values: NumPy's sort of ml_dtypes' bfloat16 misplaces NaN."""
    if moved.dtype == _BF16:
        moved = moved.astype(np.float32)
    if not descending:
        return np.argsort(moved, axis=-1, kind="stable")
    size = moved.shape[-1]
    return size - 1 - np.flip(np.argsort(np.flip(moved, -1), axis=-1, kind="stable"), -1)


def _sort_input(call: OpCall) -> tuple[np.ndarray, np.ndarray, int]:
    """Sort's and SortV2's checked x, x as at least 1-D, and the attr axis into it."""
    call.require_inputs()
    x = call.input(0)
    call.require_dtype(0, x.dtype)
    view = x.reshape(x.shape or (1,))
    return x, view, call.axis("attr 'axis'", call.attr_int("axis"), view.ndim)


def _sort_compute(inputs: Arrays, attrs: Attrs, outputs: list[TensorInfo]) -> list[np.ndarray]:
    call = OpCall("Sort", inputs, attrs)
    x, view, axis = _sort_input(call)
    call.attr_bool("stable")
    out = Outputs(call, outputs)
    out.require_input_dtype(0, 0, x.dtype)
    out.require_dtype(1, np.dtype(np.int32), f"Sort's {out.names[1]} is int32")
    moved = np.moveaxis(view, axis, -1)
    order = stable_order(moved, call.attr_bool("descending"))
    values = np.take_along_axis(moved, order, axis=-1)
    return [out.emit(0, np.moveaxis(values, -1, axis).reshape(x.shape)),
            out.emit(1, np.moveaxis(order, -1, axis).astype(np.int32).reshape(x.shape))]


def _sort_infer(inputs: list[TensorInfo], values: Arrays, attrs: Attrs) -> list[InferredShape]:
    call = OpCall("Sort", inputs, attrs)
    call.require_inputs()
    x = call.input(0)
    return [inferred(x.dtype, x.shape), inferred(INT32, x.shape)]


def _sort_v2_compute(inputs: Arrays, attrs: Attrs, outputs: list[TensorInfo]) -> list[np.ndarray]:
    call = OpCall("SortV2", inputs, attrs)
    x, view, axis = _sort_input(call)
    if axis != view.ndim - 1:
        raise call.fail(f"attr 'axis' is {call.attr_int('axis')}, expected the last dim (array_ops.h: \"Axis should "
                        "select the last dim\")")
    out = Outputs(call, outputs)
    out.require_input_dtype(0, 0, x.dtype)
    order = stable_order(view, call.attr_bool("descending"))
    return [out.emit(0, np.take_along_axis(view, order, axis=-1).reshape(x.shape))]


def _index_fill_d_compute(inputs: Arrays, attrs: Attrs, outputs: list[TensorInfo]) -> list[np.ndarray]:
    """x * assist1, rounded to x's type, plus assist2 (tbe/impl/index_fill_d.py: vmul then vadd)."""
    call = OpCall("IndexFillD", inputs, attrs)
    call.require_inputs()
    x, keep, fill = call.input(0), call.input(1), call.input(2)
    call.require_dtype(0, x.dtype)
    call.require_same_dtype([0, 1, 2], [x.dtype, keep.dtype, fill.dtype])
    if not x.shape == keep.shape == fill.shape:
        raise call.fail(f"{call.quoted(1)} and {call.quoted(2)} must have the shape of {call.quoted(0)} "
                        f"{list(x.shape)}, got {list(keep.shape)} and {list(fill.shape)}")
    call.axis("attr 'dim'", call.attr_int("dim"), max(x.ndim, 1))
    out = Outputs(call, outputs)
    out.require_input_dtype(0, 0, x.dtype)
    with np.errstate(all="ignore"):
        return [out.emit(0, (x * keep + fill).astype(x.dtype))]


def _histogram_compute(inputs: Arrays, attrs: Attrs, outputs: list[TensorInfo]) -> list[np.ndarray]:
    """The bin of each x in float32: (x - low) / (high - low) * nbins, floored and clipped, counted in int32."""
    call = OpCall("HistogramFixedWidthD", inputs, attrs)
    call.require_inputs()
    x, value_range = call.input(0), call.input(1)
    call.require_dtype(0, x.dtype)
    call.require_same_dtype([0, 1], [x.dtype, value_range.dtype])
    nbins = call.attr_int("nbins")
    if nbins < 1:
        raise call.fail(f"attr 'nbins' is {nbins}, expected at least 1")
    if value_range.size != 2:
        raise call.fail(f"{call.quoted(1)} must hold two values [low, high], got shape {list(value_range.shape)}")
    low, high = value_range.reshape(-1).astype(np.float32)
    if not high > low:
        raise call.fail(f"{call.quoted(1)} must hold [low, high] with low < high, got [{low}, {high}]")
    out = Outputs(call, outputs)
    out.require_dtype(0, np.dtype(np.int32), "always int32")
    with np.errstate(all="ignore"):
        scaled = (x.astype(np.float32) - low) / (high - low) * np.float32(nbins)
    bins = np.clip(np.floor(scaled), 0, nbins - 1).astype(np.int64)
    return [out.emit(0, np.bincount(bins.reshape(-1), minlength=nbins).astype(np.int32))]


def _histogram_infer(inputs: list[TensorInfo], values: Arrays, attrs: Attrs) -> list[InferredShape]:
    call = OpCall("HistogramFixedWidthD", inputs, attrs)
    call.require_inputs()
    return [inferred(INT32, [call.attr_int("nbins")])]


def _arg_max_grad_d_compute(inputs: Arrays, attrs: Attrs, outputs: list[TensorInfo]) -> list[np.ndarray]:
    """select(broadcast(indices) == assist, broadcast(updates), var), indices and updates broadcast along dimension
    (tbe/impl/arg_max_grad_d.py)."""
    call = OpCall("ArgMaxGradD", inputs, attrs)
    call.require_inputs()
    var, indices, updates, assist = (call.input(i) for i in range(4))
    call.require_dtype(0, var.dtype)
    call.require_same_dtype([0, 2], [var.dtype, updates.dtype])
    call.require_same_dtype([1, 3], [indices.dtype, assist.dtype])
    dim = call.axis("attr 'dimension'", call.attr_int("dimension"), var.ndim)
    line = var.shape[:dim] + var.shape[dim + 1:]
    size = math.prod(line)
    if indices.size != size or updates.size != size or assist.shape != var.shape:
        raise call.fail(f"{call.quoted(1)} and {call.quoted(2)} must hold {size} elements (the shape of "
                        f"{call.quoted(0)} without dim {dim}, {list(line)}) and {call.quoted(3)} must have shape "
                        f"{list(var.shape)}, got {list(indices.shape)}, {list(updates.shape)} and {list(assist.shape)}")
    out = Outputs(call, outputs)
    out.require_input_dtype(0, 0, var.dtype)
    kept = var.shape[:dim] + (1,) + var.shape[dim + 1:]
    chosen = indices.reshape(kept) == assist
    return [out.emit(0, np.where(chosen, updates.reshape(kept), var).astype(var.dtype))]


def _sparse_segment_sum_grad_compute(inputs: Arrays, attrs: Attrs, outputs: list[TensorInfo]) -> list[np.ndarray]:
    """Rows of grad added into the output rows indices names, in index order, in float32 for float16/bfloat16."""
    call = OpCall("SparseSegmentSumGrad", inputs, attrs)
    call.require_inputs()
    grad, indices, ids = call.input(0), call.input(1), call.input(2)
    call.require_dtype(0, grad.dtype)
    rows = call.one_value(3, call.input(3))
    if indices.ndim != 1 or ids.shape != indices.shape:
        raise call.fail(f"{call.quoted(1)} and {call.quoted(2)} must be 1-D of one length, got {list(indices.shape)} "
                        f"and {list(ids.shape)}")
    if grad.ndim < 1:
        raise call.fail(f"{call.quoted(0)} must have at least one dim, got a scalar")
    targets, sources = indices.astype(np.int64), ids.astype(np.int64)
    if targets.size and (targets.min() < 0 or targets.max() >= rows):
        raise call.fail(f"an index of {call.quoted(1)} lies outside [0, {rows}) ({call.name(3)})")
    if sources.size and (sources.min() < 0 or sources.max() >= grad.shape[0]):
        raise call.fail(f"a segment id of {call.quoted(2)} lies outside [0, {grad.shape[0]}) (rows of {call.quoted(0)})")
    out = Outputs(call, outputs)
    out.require_input_dtype(0, 0, grad.dtype)
    wide = compute_dtype(grad.dtype)
    y = np.zeros((rows,) + grad.shape[1:], dtype=wide)
    with np.errstate(all="ignore"):
        np.add.at(y, targets, grad.astype(wide)[sources])
    return [out.emit(0, y.astype(grad.dtype))]


def _sparse_segment_sum_grad_infer(inputs: list[TensorInfo], values: Arrays, attrs: Attrs) -> list[InferredShape]:
    call = OpCall("SparseSegmentSumGrad", inputs, attrs)
    call.require_inputs()
    grad = call.input(0)
    rows = values[3] if len(values) > 3 else None
    if unknown_rank(tuple(grad.shape)):
        return [inferred(grad.dtype, (-2,))]
    first = UNKNOWN if rows is None else call.one_value(3, rows)
    return [inferred(grad.dtype, [first, *grad.shape[1:]])]


def _bag_bounds(call: OpCall, indices: np.ndarray, offsets: np.ndarray | None) -> np.ndarray:
    """[start, end) of each bag into the flattened indices: rows of a 2-D indices, else cut at offsets."""
    if indices.ndim == 2:
        starts = np.arange(indices.shape[0]) * indices.shape[1]
        return np.stack([starts, starts + indices.shape[1]], axis=1)
    if indices.ndim != 1 or offsets is None or offsets.ndim != 1:
        raise call.fail(f"{call.quoted(1)} must be 2-D, or 1-D with a 1-D {call.quoted(2)}, got "
                        f"{list(indices.shape)} and {None if offsets is None else list(offsets.shape)}")
    cuts = offsets.astype(np.int64)
    ends = cuts[1:] if call.attr_bool("include_last_offset") else np.append(cuts[1:], indices.size)
    starts = cuts[:ends.size]
    if starts.size and (starts[0] < 0 or np.any(ends < starts) or ends[-1] > indices.size):
        raise call.fail(f"{call.quoted(2)} {cuts.tolist()} must rise from 0 to at most {indices.size}")
    return np.stack([starts, ends], axis=1)


def _embedding_bag_compute(inputs: Arrays, attrs: Attrs, outputs: list[TensorInfo]) -> list[np.ndarray]:
    """Each bag's rows (times their per-sample weights) added in index order in float32; mean multiplies that sum by the
    float32 reciprocal of the count (tbe/impl/embedding_bag.py tik_vec_rec_compute); max keeps the larger; empty
    bags are 0."""
    call = OpCall("EmbeddingBag", inputs, attrs)
    call.require_count(2, 4)
    weight, indices = call.input(0), call.input(1)
    offsets, scales = call.optional(2), call.optional(3)
    call.require_dtype(0, weight.dtype)
    call.require_dtype(1, indices.dtype)
    mode = call.attr_str("mode")
    if mode not in ("sum", "mean", "max"):
        raise call.fail(f"attr 'mode' is {mode!r}, expected 'sum', 'mean' or 'max'")
    if weight.ndim != 2:
        raise call.fail(f"{call.quoted(0)} must be 2-D, got {list(weight.shape)}")
    flat = indices.reshape(-1).astype(np.int64)
    if flat.size and (flat.min() < 0 or flat.max() >= weight.shape[0]):
        raise call.fail(f"an index of {call.quoted(1)} lies outside [0, {weight.shape[0]}) (rows of {call.quoted(0)})")
    if scales is not None and scales.size != flat.size:
        raise call.fail(f"{call.quoted(3)} must hold one weight per index ({flat.size}), got {list(scales.shape)}")
    picked = weight[flat] * (scales.reshape(-1, 1) if scales is not None else np.float32(1))
    bounds = _bag_bounds(call, indices, offsets)
    out = Outputs(call, outputs)
    out.require_input_dtype(0, 0, weight.dtype)
    y = np.zeros((bounds.shape[0], weight.shape[1]), dtype=np.float32)
    with np.errstate(all="ignore"):
        for b, (start, end) in enumerate(bounds):
            rows = picked[start:end]
            if not len(rows):
                continue
            if mode == "max":
                y[b] = np.max(rows, axis=0)
                continue
            total = np.zeros(weight.shape[1], dtype=np.float32)
            for row in rows:
                total = total + row
            y[b] = total * np.float32(1) / np.float32(len(rows)) if mode == "mean" else total
    return [out.emit(0, y)]


def _embedding_bag_infer(inputs: list[TensorInfo], values: Arrays, attrs: Attrs) -> list[InferredShape]:
    call = OpCall("EmbeddingBag", inputs, attrs)
    call.require_count(2, 4)
    weight, indices = tuple(call.input(0).shape), tuple(call.input(1).shape)
    width = weight[1] if len(weight) == 2 else UNKNOWN
    if len(indices) == 2:
        return [inferred(call.input(0).dtype, [indices[0], width])]
    offsets = call.optional(2)
    count = UNKNOWN
    if offsets is not None and len(offsets.shape) == 1 and offsets.shape[0] >= 0:
        count = offsets.shape[0] - (1 if call.attr_bool("include_last_offset") else 0)
    return [inferred(call.input(0).dtype, [count, width])]


def _topk_k(call: OpCall, value: Any, size: int) -> int:
    array = np.asarray(value)
    if array.dtype != np.dtype(np.int32) or array.size != 1:
        raise call.fail(f"input {call.quoted(1)} must be one int32 value, got shape {list(array.shape)}")
    k = int(array.reshape(()))
    if not 0 <= k <= size:
        raise call.fail(f"input {call.quoted(1)} is {k}, expected 0 <= k <= {size} (the size of the selected dim)")
    return k


def _topk_v2_compute(inputs: Arrays, attrs: Attrs, outputs: list[TensorInfo]) -> list[np.ndarray]:
    call = OpCall("TopKV2", inputs, attrs)
    call.require_inputs()
    x = call.input(0)
    call.require_dtype(0, x.dtype)
    dim = call.axis("attr 'dim'", call.attr_int("dim"), x.ndim)
    k = _topk_k(call, call.input(1), x.shape[dim])
    out = Outputs(call, outputs)
    out.require_input_dtype(0, 0, x.dtype)
    out.require_dtype(1, np.dtype(np.int32), f"TopKV2's {out.names[1]} is int32")
    moved = np.moveaxis(x, dim, -1)
    chosen = stable_order(moved, call.attr_bool("largest"))[..., :k]
    if not call.attr_bool("sorted"):
        chosen = np.sort(chosen, axis=-1)
    values = np.take_along_axis(moved, chosen, axis=-1)
    return [out.emit(0, np.moveaxis(values, -1, dim), value_dependent=True),
            out.emit(1, np.moveaxis(chosen, -1, dim).astype(np.int32), value_dependent=True)]


def _topk_v2_infer(inputs: list[TensorInfo], values: Arrays, attrs: Attrs) -> list[InferredShape]:
    call = OpCall("TopKV2", inputs, attrs)
    call.require_inputs()
    x = call.input(0)
    shape = tuple(x.shape)
    if unknown_rank(shape):
        return [inferred(x.dtype, shape), inferred(INT32, shape)]
    dim = call.axis("attr 'dim'", call.attr_int("dim"), len(shape))
    value = values[1] if len(values) > 1 else None
    if value is None or shape[dim] < 0:
        dims = tuple(UNKNOWN if i == dim else d for i, d in enumerate(shape))
        ranges = [(0, d) if i == dim else ((d, d) if d >= 0 else (0, -1)) for i, d in enumerate(shape)]
        return [inferred(x.dtype, dims, ranges), inferred(INT32, dims, ranges)]
    dims = tuple(_topk_k(call, value, shape[dim]) if i == dim else d for i, d in enumerate(shape))
    return [inferred(x.dtype, dims), inferred(INT32, dims)]


# Segment sums, masks, search, bincount ------------------------------------------------------------------------
def _segment_empty(dtype: np.dtype, ufunc: np.ufunc) -> Any:
    """The start value of every segment: 0 (sum), the dtype's lowest (maximum), its highest (minimum) or 1 (product)."""
    if ufunc in (np.add, np.multiply):
        return int(ufunc is np.multiply)
    info = np.iinfo(dtype) if dtype.kind in "iu" else ml_dtypes.finfo(dtype)
    return info.min if ufunc is np.maximum else info.max


def _segment_reduce(op_type: str, ufunc: np.ufunc, from_attr: bool) -> None:
    """UnsortedSegmentSum/Max/Min/Prod and the D forms (num_segments an attribute): every segment starts at its empty
    value and combines in the rows whose id names it, in index order; negative ids are dropped."""
    def num_of(call: OpCall, values: Arrays) -> int:
        if from_attr:
            return call.attr_int("num_segments", required=True)
        value = values[2] if len(values) > 2 else None
        return UNKNOWN if value is None else call.one_value(2, value)

    def compute(inputs: Arrays, attrs: Attrs, outputs: list[TensorInfo]) -> list[np.ndarray]:
        call = OpCall(op_type, inputs, attrs)
        call.require_inputs()
        x, ids = call.input(0), call.input(1)
        call.require_simulated(0, x.dtype)
        call.require_dtype(1, ids.dtype)
        num = num_of(call, inputs)
        if x.shape[:ids.ndim] != ids.shape:
            raise call.fail(f"input {call.quoted(1)} {list(ids.shape)} must be a prefix of the shape of "
                            f"{call.quoted(0)} {list(x.shape)}")
        if num < 0:
            raise call.fail(f"num_segments is {num}, expected >= 0")
        if (ids >= num).any():
            raise call.fail(f"input {call.quoted(1)} holds {int(ids.max())}, expected < num_segments {num}")
        out = Outputs(call, outputs)
        out.require_input_dtype(0, 0, x.dtype)
        kept = ids >= 0
        rows = x[kept] if ids.ndim else (x if kept else x[:0])
        start = np.full((num,) + x.shape[ids.ndim:], _segment_empty(x.dtype, ufunc), x.dtype)
        return [out.emit(0, _accumulate(start, ids[kept], rows, ufunc))]

    def infer(inputs: list[TensorInfo], values: Arrays, attrs: Attrs) -> list[InferredShape]:
        call = OpCall(op_type, inputs, attrs)
        call.require_inputs()
        x, ids = call.input(0), call.input(1)
        if unknown_rank(x.shape) or unknown_rank(ids.shape):
            return [inferred(x.dtype, (-2,))]
        return [inferred(x.dtype, (num_of(call, values),) + tuple(x.shape[len(ids.shape):]))]

    builtin(op_type, compute, infer)


def _sorted_segment_sum_compute(inputs: Arrays, attrs: Attrs, outputs: list[TensorInfo]) -> list[np.ndarray]:
    call = OpCall("SegmentSum", inputs, attrs)
    call.require_inputs()
    x, ids = call.input(0), call.input(1)
    call.require_simulated(0, x.dtype)
    call.require_dtype(1, ids.dtype)
    if ids.ndim != 1 or x.ndim == 0 or x.shape[0] != ids.shape[0]:
        raise call.fail(f"input {call.quoted(1)} {list(ids.shape)} must be 1-D with the first dim of "
                        f"{call.quoted(0)} {list(x.shape)}")
    if ids.size and ((ids < 0).any() or (np.diff(ids.astype(np.int64)) < 0).any()):
        raise call.fail(f"input {call.quoted(1)} must be sorted and non-negative")
    out = Outputs(call, outputs)
    out.require_input_dtype(0, 0, x.dtype)
    num = int(ids[-1]) + 1 if ids.size else 0
    return [out.emit(0, _accumulate(np.zeros((num,) + x.shape[1:], x.dtype), ids, x, np.add), value_dependent=True)]


def _sorted_segment_sum_infer(inputs: list[TensorInfo], values: Arrays, attrs: Attrs) -> list[InferredShape]:
    call = OpCall("SegmentSum", inputs, attrs)
    call.require_inputs()
    x = call.input(0)
    ids = values[1] if len(values) > 1 else None
    if unknown_rank(x.shape):
        return [inferred(x.dtype, (-2,))]
    if ids is not None:
        rows = int(np.max(ids)) + 1 if np.size(ids) else 0
        return [inferred(x.dtype, (rows,) + tuple(x.shape[1:]))]
    return [inferred(x.dtype, (UNKNOWN,) + tuple(x.shape[1:]), [(0, -1)] + [(d, d) for d in x.shape[1:]])]


def _bucketize_compute(inputs: Arrays, attrs: Attrs, outputs: list[TensorInfo]) -> list[np.ndarray]:
    call = OpCall("Bucketize", inputs, attrs)
    call.require_inputs()
    x = call.input(0)
    call.require_dtype(0, x.dtype)
    boundaries = attrs.get("boundaries")
    if not isinstance(boundaries, (list, tuple)) or any(isinstance(b, bool) for b in boundaries):
        raise call.fail(f"required attr 'boundaries' must be a list of floats, got {boundaries!r}")
    edges = np.asarray(boundaries, dtype=np.float32)
    if (np.diff(edges) < 0).any():
        raise call.fail(f"attr 'boundaries' {list(boundaries)} must be sorted")
    out = Outputs(call, outputs)
    out.require_dtype(0, np.dtype(np.int32), "Bucketize's y is int32")
    return [out.emit(0, np.searchsorted(edges, x.astype(np.float32), side="right").astype(np.int32))]


def _bucketize_infer(inputs: list[TensorInfo], values: Arrays, attrs: Attrs) -> list[InferredShape]:
    call = OpCall("Bucketize", inputs, attrs)
    call.require_inputs()
    return [inferred(INT32, call.input(0).shape)]


def _in_top_k_compute(inputs: Arrays, attrs: Attrs, outputs: list[TensorInfo]) -> list[np.ndarray]:
    call = OpCall("InTopKD", inputs, attrs)
    call.require_inputs()
    x1, x2 = call.input(0), call.input(1)
    call.require_dtype(0, x1.dtype)
    call.require_dtype(1, x2.dtype)
    if x1.ndim != 2 or x2.shape != x1.shape[:1]:
        raise call.fail(f"input {call.quoted(0)} {list(x1.shape)} must be [batch, classes] and {call.quoted(1)} "
                        f"{list(x2.shape)} [batch]")
    k = call.attr_int("k")
    out = Outputs(call, outputs)
    out.require_dtype(0, np.dtype(np.bool_), "InTopKD's y is bool")
    inside = (x2 >= 0) & (x2 < x1.shape[1])
    target = np.take_along_axis(x1, np.where(inside, x2, 0).astype(np.int64)[:, None], axis=1)
    above = np.sum(x1 > target, axis=1)
    finite = np.isfinite(x1).all(axis=1)
    return [out.emit(0, inside & finite & (above < k))]


def _in_top_k_infer(inputs: list[TensorInfo], values: Arrays, attrs: Attrs) -> list[InferredShape]:
    call = OpCall("InTopKD", inputs, attrs)
    call.require_inputs()
    return [inferred(acl_data_type(np.bool_), call.input(1).shape)]


def _index_add_compute(inputs: Arrays, attrs: Attrs, outputs: list[TensorInfo]) -> list[np.ndarray]:
    call = OpCall("InplaceIndexAdd", inputs, attrs)
    call.require_inputs()
    var, indices, updates = call.input(0), call.input(1), call.input(2)
    call.require_dtype(0, var.dtype)
    call.require_dtype(1, indices.dtype)
    call.require_same_dtype([0, 2], [var.dtype, updates.dtype])
    axis = call.axis("attr 'axis'", call.attr_int("axis", required=True), var.ndim)
    expected = var.shape[:axis] + (indices.size,) + var.shape[axis + 1:]
    if indices.ndim != 1 or updates.shape != expected:
        raise call.fail(f"input {call.quoted(2)} has shape {list(updates.shape)}, expected {list(expected)} for a "
                        f"1-D {call.quoted(1)} {list(indices.shape)}")
    idx = _indices(call, 1, indices, var.shape[axis])
    out = Outputs(call, outputs)
    out.require_input_dtype(0, 0, var.dtype)
    moved = np.moveaxis(var, axis, 0)
    summed = _accumulate(np.ascontiguousarray(moved), idx, np.moveaxis(updates, axis, 0), np.add)
    return [out.emit(0, np.ascontiguousarray(np.moveaxis(summed, 0, axis)))]


def _masked_fill_compute(inputs: Arrays, attrs: Attrs, outputs: list[TensorInfo]) -> list[np.ndarray]:
    call = OpCall("MaskedFill", inputs, attrs)
    call.require_inputs()
    x, mask, value = call.input(0), call.input(1), call.input(2)
    call.require_dtype(0, x.dtype)
    call.require_dtype(1, mask.dtype)
    call.require_same_dtype([0, 2], [x.dtype, value.dtype])
    if value.size != 1:
        raise call.fail(f"input {call.quoted(2)} must hold one value, got shape {list(value.shape)}")
    shape = broadcast(call, [0, 1], [x.shape, mask.shape])
    out = Outputs(call, outputs)
    out.require_input_dtype(0, 0, x.dtype)
    y = out.buffer(0, shape)
    np.copyto(y, x)
    np.copyto(y, value.reshape(()), where=mask)
    return [out.emit(0, y)]


def _masked_fill_infer(inputs: list[TensorInfo], values: Arrays, attrs: Attrs) -> list[InferredShape]:
    call = OpCall("MaskedFill", inputs, attrs)
    call.require_inputs()
    x, mask = call.input(0), call.input(1)
    return [inferred(x.dtype, broadcast(call, [0, 1], [x.shape, mask.shape]))]


def _masked_select_compute(inputs: Arrays, attrs: Attrs, outputs: list[TensorInfo]) -> list[np.ndarray]:
    call = OpCall("MaskedSelect", inputs, attrs)
    call.require_inputs()
    x, mask = call.input(0), call.input(1)
    call.require_simulated(0, x.dtype)
    call.require_dtype(1, mask.dtype)
    shape = broadcast(call, [0, 1], [x.shape, mask.shape])
    out = Outputs(call, outputs)
    out.require_input_dtype(0, 0, x.dtype)
    return [out.emit(0, np.broadcast_to(x, shape)[np.broadcast_to(mask, shape)], value_dependent=True)]


def _masked_select_infer(inputs: list[TensorInfo], values: Arrays, attrs: Attrs) -> list[InferredShape]:
    call = OpCall("MaskedSelect", inputs, attrs)
    call.require_inputs()
    x, mask = call.input(0), call.input(1)
    shape = broadcast(call, [0, 1], [x.shape, mask.shape])
    bound = int(np.prod(shape)) if not unknown_rank(shape) and all(d >= 0 for d in shape) else -1
    return [inferred(x.dtype, (UNKNOWN,), [(0, bound)])]


def _search_dtype(call: OpCall, out: Outputs | None) -> int:
    chosen = call.attr_dtype("dtype", (INT32, INT64))
    if out is not None:
        out.require_dtype(0, numpy_dtype(chosen), "given by attr 'dtype'")
    return chosen


def _search_sorted_compute(inputs: Arrays, attrs: Attrs, outputs: list[TensorInfo]) -> list[np.ndarray]:
    call = OpCall("SearchSorted", inputs, attrs)
    call.require_inputs()
    seq, values = call.input(0), call.input(1)
    call.require_dtype(0, seq.dtype)
    call.require_same_dtype([0, 1], [seq.dtype, values.dtype])
    if seq.ndim == 0 or (seq.ndim > 1 and seq.shape[:-1] != values.shape[:-1]):
        raise call.fail(f"input {call.quoted(0)} {list(seq.shape)} must be 1-D or share the leading dims of "
                        f"{call.quoted(1)} {list(values.shape)}")
    sorter = call.optional(2)
    if sorter is not None:
        call.require_dtype(2, sorter.dtype)
        seq = np.take_along_axis(seq, _indices(call, 2, sorter, seq.shape[-1]), axis=-1)
    out = Outputs(call, outputs)
    dtype = numpy_dtype(_search_dtype(call, out))
    side = "right" if call.attr_bool("right") else "left"
    if seq.ndim == 1:
        return [out.emit(0, np.searchsorted(seq, values, side=side).astype(dtype))]
    rows, vals = seq.reshape(-1, seq.shape[-1]), values.reshape(-1, values.shape[-1])
    result = np.stack([np.searchsorted(r, v, side=side) for r, v in zip(rows, vals)]) if len(rows) else vals
    return [out.emit(0, result.reshape(values.shape).astype(dtype))]


def _search_sorted_infer(inputs: list[TensorInfo], values: Arrays, attrs: Attrs) -> list[InferredShape]:
    call = OpCall("SearchSorted", inputs, attrs)
    call.require_inputs()
    return [inferred(_search_dtype(call, None), call.input(1).shape)]


def _bincount_compute(inputs: Arrays, attrs: Attrs, outputs: list[TensorInfo]) -> list[np.ndarray]:
    call = OpCall("Bincount", inputs, attrs)
    call.require_inputs()
    array, weights = call.input(0), call.input(2)
    call.require_dtype(0, array.dtype)
    call.require_dtype(2, weights.dtype)
    size = call.one_value(1, call.input(1))
    if size < 0:
        raise call.fail(f"input {call.quoted(1)} is {size}, expected >= 0")
    if weights.size and weights.shape != array.shape:
        raise call.fail(f"input {call.quoted(2)} {list(weights.shape)} must have the shape of {call.quoted(0)} "
                        f"{list(array.shape)} or be empty")
    out = Outputs(call, outputs)
    out.require_input_dtype(0, 2, weights.dtype)
    kept = (array >= 0) & (array < size)
    w = weights[kept] if weights.size else np.ones(int(kept.sum()), weights.dtype)
    return [out.emit(0, _accumulate(np.zeros(size, weights.dtype), array[kept], w, np.add))]


def _bincount_infer(inputs: list[TensorInfo], values: Arrays, attrs: Attrs) -> list[InferredShape]:
    call = OpCall("Bincount", inputs, attrs)
    call.require_inputs()
    dtype = call.input(2).dtype
    value = values[1] if len(values) > 1 else None
    return [inferred(dtype, (UNKNOWN if value is None else call.one_value(1, value),))]


builtin("GatherV2", _gather_v2_compute, _gather_v2_infer)
builtin("GatherNd", _gather_nd_compute, _gather_nd_infer)
builtin("GatherElements", _gather_elements_compute, _gather_elements_infer)
builtin("ScatterNd", _scatter_nd_compute, _shape_from_value("ScatterNd", 2))
_scatter_var("ScatterNdUpdate", nd=True, ufunc=None)
_scatter_var("ScatterUpdate", nd=False, ufunc=None)
_scatter_var("ScatterAdd", nd=False, ufunc=np.add)
for _op_type, _nd, _ufunc in (("ScatterSub", False, np.subtract), ("ScatterMul", False, np.multiply),
                              ("ScatterDiv", False, np.divide), ("ScatterMax", False, np.maximum),
                              ("ScatterMin", False, np.minimum), ("ScatterNdAdd", True, np.add),
                              ("ScatterNdSub", True, np.subtract), ("TensorScatterMax", True, np.maximum), ("TensorScatterMin", True, np.minimum)):
    _scatter_var(_op_type, nd=_nd, ufunc=_ufunc)
builtin("ScatterElements", _scatter_elements_compute, like_input("ScatterElements"))
builtin("OneHot", _one_hot_compute, _one_hot_infer)
builtin("Range", _range_compute, _range_infer)
builtin("LinSpace", _linspace_compute, _linspace_infer)
builtin("Sort", _sort_compute, _sort_infer)
builtin("TopKV2", _topk_v2_compute, _topk_v2_infer)
_segment_reduce("UnsortedSegmentSum", np.add, from_attr=False)
for _op_type, _ufunc in (("UnsortedSegmentMax", np.maximum), ("UnsortedSegmentMin", np.minimum),
                         ("UnsortedSegmentProd", np.multiply)):
    _segment_reduce(_op_type, _ufunc, from_attr=False)
    _segment_reduce(f"{_op_type}D", _ufunc, from_attr=True)
builtin("SegmentSum", _sorted_segment_sum_compute, _sorted_segment_sum_infer)
builtin("Bucketize", _bucketize_compute, _bucketize_infer)
builtin("InTopKD", _in_top_k_compute, _in_top_k_infer)
builtin("InplaceIndexAdd", _index_add_compute, like_input("InplaceIndexAdd"))
builtin("MaskedFill", _masked_fill_compute, _masked_fill_infer)
builtin("MaskedSelect", _masked_select_compute, _masked_select_infer)
builtin("SearchSorted", _search_sorted_compute, _search_sorted_infer)
builtin("Bincount", _bincount_compute, _bincount_infer)
builtin("SortV2", _sort_v2_compute, like_input("SortV2"))
builtin("IndexFillD", _index_fill_d_compute, like_input("IndexFillD"))
builtin("HistogramFixedWidthD", _histogram_compute, _histogram_infer)
builtin("ArgMaxGradD", _arg_max_grad_d_compute, like_input("ArgMaxGradD"))
builtin("SparseSegmentSumGrad", _sparse_segment_sum_grad_compute, _sparse_segment_sum_grad_infer)
builtin("EmbeddingBag", _embedding_bag_compute, _embedding_bag_infer)
for _op_type, _index in (("GatherV2", 0), ("GatherNd", 0), ("ScatterNdUpdate", 0), ("ScatterUpdate", 0),
                         ("ScatterAdd", 0), ("ScatterElements", 0), ("OneHot", 2), ("UnsortedSegmentSum", 0),
                         ("MaskedSelect", 0), ("TensorScatterMax", 0),
                         ("TensorScatterMin", 0), ("UnsortedSegmentProd", 0), ("SegmentSum", 0)):
    not_simulated(_op_type, _index, NOT_SIMULATED)
not_simulated("ScatterNd", 1, NOT_SIMULATED_SUMS)
