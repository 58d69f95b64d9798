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
from aclcts.sim.kernels.shapes import UNKNOWN, inferred, like_input, unknown_rank
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
    #: Whether empty axes reduce nothing when the record has no noop_with_empty_axes (ONNX's ReduceLogSum: no).
    noop_without_attr: bool = True

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
        axes = reduction_axes(call, call.index_values(1, call.input(1)), x.ndim, spec.noop_without_attr)
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
            axes = reduction_axes(call, call.index_values(1, axes_value), len(shape), spec.noop_without_attr)
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


def _log_sum(call: OpCall, x: np.ndarray, axes: list[int]) -> np.ndarray:
    """log of the float32 sum (fp16 widened first, as tbe/impl/dynamic/reduce_log_sum.py casts it)."""
    return np.log(_sum(call, x, axes))


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
    "ReduceLogSum": Reduction(_log_sum, noop_without_attr=False),
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


# Statistics and norms ------------------------------------------------------------------------------------------
#: The int p values the norms read as +inf and -inf (tbe/impl/lp_norm.py Constant.CONST_INF and -CONST_INF - 1).
_P_INF, _P_MINUS_INF = 2147483647, -2147483648
#: The least float16 norm when epsilon is smaller (tbe/impl/lp_norm.py CONST_EPSILON_FP16).
_FP16_EPSILON = 1e-7


def _stat_axes(call: OpCall, name: str, rank: int) -> tuple[int, ...]:
    """The axes attribute name gives (repeats once), every axis when it is empty."""
    given = call.attr_list_int(name)
    return tuple(range(rank)) if not given else tuple(sorted({call.axis(f"attr {name!r}", a, rank) for a in given}))


def _stat_shape(shape: tuple[int, ...], axes: tuple[int, ...], keep: bool) -> tuple[int, ...]:
    return tuple(1 if i in axes else d for i, d in enumerate(shape)) if keep else \
        tuple(d for i, d in enumerate(shape) if i not in axes)


def _float32_inputs(call: OpCall, count: int) -> list[np.ndarray]:
    """The first count inputs (one dtype, float16 or float32), read into float32 as the TBE impls cast them."""
    arrays = [call.input(i) for i in range(count)]
    call.require_dtype(0, arrays[0].dtype)
    call.require_same_dtype(list(range(count)), [a.dtype for a in arrays])
    if any(a.shape != arrays[0].shape for a in arrays):
        raise call.fail(f"inputs {', '.join(call.quoted(i) for i in range(count))} must share one shape, got "
                        f"{[list(a.shape) for a in arrays]}")
    return [a.astype(np.float32) for a in arrays]


def _deviation(x: np.ndarray, mean: np.ndarray, axes: tuple[int, ...], unbiased: bool) -> np.ndarray:
    """sum((x - mean)^2 * cof) over axes (kept) in float32, cof 1/(n-1) with Bessel's correction, else 1/n."""
    n = int(np.prod([x.shape[a] for a in axes]))
    with np.errstate(all="ignore"):
        cof = np.float32(1.0 / (n - 1)) if unbiased and n > 1 else np.float32(np.inf if unbiased else 1.0 / n)
        return np.sum((x - mean) * (x - mean) * cof, axis=axes, keepdims=True, dtype=np.float32)


def _stat_kernel(op_type: str, inputs_used: int, dims_attr: str, keep_attr: str, outputs_made: int,
                 body: Callable[[OpCall, list[np.ndarray], tuple[int, ...]], list[np.ndarray]],
                 float32_out: bool = False) -> None:
    """A reduction whose float32 body maps the inputs and axes to kept-dims results, squeezed unless keep_attr; the
    results in input 0's dtype, or float32 with float32_out."""
    def compute(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list[TensorInfo]) -> list[np.ndarray]:
        call = OpCall(op_type, inputs, attrs)
        call.require_inputs()
        xs = _float32_inputs(call, inputs_used)
        dtype = np.dtype(np.float32) if float32_out else call.input(0).dtype
        axes = _stat_axes(call, dims_attr, xs[0].ndim)
        out = Outputs(call, outputs)
        keep = call.attr_bool(keep_attr)
        results = []
        for i, r in enumerate(body(call, xs, axes)):
            if float32_out:
                out.require_dtype(i, dtype, "always float32")
            else:
                out.require_input_dtype(i, 0, dtype)
            with np.errstate(all="ignore"):
                results.append(out.emit(i, (r if keep else np.squeeze(r, axis=axes)).astype(dtype)))
        return results

    def infer_shape(inputs: list[TensorInfo], values: list[np.ndarray | None], attrs: dict[str, Any]) -> list[InferredShape]:
        call = OpCall(op_type, inputs, attrs)
        call.require_inputs()
        x = call.input(0)
        dtype = acl_data_type(np.dtype(np.float32)) if float32_out else x.dtype
        if unknown_rank(x.shape):
            return [inferred(dtype, (-2,))] * outputs_made
        axes = _stat_axes(call, dims_attr, len(x.shape))
        return [inferred(dtype, _stat_shape(tuple(x.shape), axes, call.attr_bool(keep_attr)))] * outputs_made

    builtin(op_type, compute, infer_shape)


def _std_mean(call: OpCall, xs: list[np.ndarray], axes: tuple[int, ...]) -> list[np.ndarray]:
    n = int(np.prod([xs[0].shape[a] for a in axes]))
    mean = np.sum(xs[0] * np.float32(1.0 / n), axis=axes, keepdims=True, dtype=np.float32)
    return [np.sqrt(_deviation(xs[0], mean, axes, call.attr_bool("unbiased"))), mean]


def _std_with_mean(call: OpCall, xs: list[np.ndarray], axes: tuple[int, ...]) -> list[np.ndarray]:
    var = _deviation(xs[0], xs[1], axes, call.attr_bool("unbiased"))
    if not call.attr_bool("invert"):
        return [np.sqrt(var)]
    with np.errstate(all="ignore"):
        return [np.sqrt(np.float32(1) / (var + np.float32(call.attr_float("epsilon"))))]


def _std_v2_update(call: OpCall, xs: list[np.ndarray], axes: tuple[int, ...]) -> list[np.ndarray]:
    var = _deviation(xs[0], xs[1], axes, call.attr_bool("unbiased"))
    return [np.sqrt(var) if call.attr_bool("if_std") else var]


def _mean_with_count(call: OpCall, xs: list[np.ndarray], axes: tuple[int, ...]) -> list[np.ndarray]:
    with np.errstate(all="ignore"):
        return [np.sum(xs[0] * xs[1] / xs[2], axis=axes, keepdims=True, dtype=np.float32)]


def _norm_floor(call: OpCall, dtype: np.dtype) -> np.float32:
    """LpNorm's least result: epsilon, raised to 1e-7 for float16 unless it is 0 (tbe/impl/lp_norm.py)."""
    epsilon = call.attr_float("epsilon")
    return np.float32(_FP16_EPSILON if dtype == np.float16 and 0 < epsilon <= _FP16_EPSILON else epsilon)


def _lp_sum(p: int, x: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
    """sum |x|^p in float32 (p multiplications); p 0 counts non-zeros, the inf values take max / min |x|."""
    a = np.abs(x)
    if p in (_P_INF, _P_MINUS_INF):
        return (np.max if p == _P_INF else np.min)(a, axis=axes, keepdims=True)
    if p == 0:
        return np.sum(a != 0, axis=axes, keepdims=True, dtype=np.float32)
    power = a
    with np.errstate(all="ignore"):
        for _ in range(p - 1):
            power = power * a
        return np.sum(power, axis=axes, keepdims=True, dtype=np.float32)


def _lp_root(p: int, s: np.ndarray) -> np.ndarray:
    """The p-th root as the TBE impl takes it: sqrt for 2, exp(log(s) / p) for p >= 3, none for 0, 1, +-inf."""
    if p in (0, 1, _P_INF, _P_MINUS_INF):
        return s
    with np.errstate(all="ignore"):
        return np.sqrt(s) if p == 2 else np.exp(np.log(s) / np.float32(p))


def _lp_p(call: OpCall) -> int:
    p = call.attr_int("p")
    if p < 0 and p != _P_MINUS_INF:
        raise call.fail(f"attr 'p' is {p}, expected 0, a positive int, {_P_INF} (inf) or {_P_MINUS_INF} (-inf)")
    return p


def _lp_norm(call: OpCall, xs: list[np.ndarray], axes: tuple[int, ...]) -> list[np.ndarray]:
    p = _lp_p(call)
    return [np.maximum(_lp_root(p, _lp_sum(p, xs[0], axes)), _norm_floor(call, call.input(0).dtype))]


def _lp_norm_reduce(call: OpCall, xs: list[np.ndarray], axes: tuple[int, ...]) -> list[np.ndarray]:
    return [_lp_sum(_lp_p(call), xs[0], axes)]


def _lp_norm_update_compute(inputs: list[np.ndarray | None], attrs: dict[str, Any],
                            outputs: list[TensorInfo]) -> list[np.ndarray]:
    call = OpCall("LpNormUpdate", inputs, attrs)
    call.require_inputs()
    x = call.input(0)
    call.require_dtype(0, x.dtype)
    out = Outputs(call, outputs)
    out.require_input_dtype(0, 0, x.dtype)
    y = np.maximum(_lp_root(_lp_p(call), x.astype(np.float32)), _norm_floor(call, x.dtype))
    with np.errstate(all="ignore"):
        return [out.emit(0, y.astype(x.dtype))]


def _lp_norm_update_infer(inputs: list[TensorInfo], values: list[np.ndarray | None],
                          attrs: dict[str, Any]) -> list[InferredShape]:
    call = OpCall("LpNormUpdate", inputs, attrs)
    call.require_inputs()
    return [inferred(call.input(0).dtype, call.input(0).shape)]


def _square_sum(call: OpCall, xs: list[np.ndarray], axes: tuple[int, ...]) -> list[np.ndarray]:
    """x * x rounded to x's type, summed in float32 (tbe/impl/square_sum_v1.py without high_precision)."""
    square = (xs[0] * xs[0]).astype(call.input(0).dtype).astype(np.float32)
    return [np.sum(square, axis=axes, keepdims=True, dtype=np.float32)]


def _mean_and_square_mean(call: OpCall, xs: list[np.ndarray], axes: tuple[int, ...]) -> list[np.ndarray]:
    """x / n and x * x / n summed in float32 (tbe/impl/reduce_mean_variance.py multiplies by 1/n first)."""
    cof = np.float32(1.0 / int(np.prod([xs[0].shape[a] for a in axes])))
    x = xs[0]
    return [np.sum(x * cof, axis=axes, keepdims=True, dtype=np.float32),
            np.sum(x * x * cof, axis=axes, keepdims=True, dtype=np.float32)]


def _square_sum_all_compute(inputs: list[np.ndarray | None], attrs: dict[str, Any],
                            outputs: list[TensorInfo]) -> list[np.ndarray]:
    call = OpCall("SquareSumAll", inputs, attrs)
    call.require_inputs()
    x1, x2 = call.input(0), call.input(1)
    call.require_dtype(0, x1.dtype)
    call.require_same_dtype([0, 1], [x1.dtype, x2.dtype])
    out = Outputs(call, outputs)
    results = []
    for i, x in enumerate((x1, x2)):
        out.require_input_dtype(i, i, x.dtype)
        with np.errstate(all="ignore"):
            flat = (x * x).reshape(1, -1)
            results.append(out.emit(i, vector_sum(flat, -1).reshape(()).astype(x.dtype)))
    return results


def _square_sum_all_infer(inputs: list[TensorInfo], values: list[np.ndarray | None],
                          attrs: dict[str, Any]) -> list[InferredShape]:
    call = OpCall("SquareSumAll", inputs, attrs)
    call.require_inputs()
    return [inferred(call.input(0).dtype, ()), inferred(call.input(1).dtype, ())]


def _renorm_dim(call: OpCall, rank: int) -> int:
    return call.axis("attr 'dim'", call.attr_int("dim"), rank)


def _renorm_compute(inputs: list[np.ndarray | None], attrs: dict[str, Any],
                    outputs: list[TensorInfo]) -> list[np.ndarray]:
    """min(norm, maxnorm) / (norm + 1e-7) in float32 as tbe/impl/renorm.py: sqrt of the sum of squares for p 2, the
    sum of |x| for p 1, exp(log(sum(exp(p log|x|))) / p) otherwise, and for p 0 the count of elements other than 1
    (renorm.py compares with 1, not 0)."""
    call = OpCall("Renorm", inputs, attrs)
    call.require_inputs()
    x = call.input(0)
    call.require_dtype(0, x.dtype)
    p = call.attr_float("p")
    if p < 0:
        raise call.fail(f"attr 'p' is {p}, expected p >= 0")
    dim = _renorm_dim(call, x.ndim)
    others = tuple(a for a in range(x.ndim) if a != dim)
    a = x.astype(np.float32)
    with np.errstate(all="ignore"):
        if p == 1:
            norm = np.sum(np.abs(a), axis=others, keepdims=True, dtype=np.float32)
        elif p == 2:
            norm = np.sqrt(np.sum(a * a, axis=others, keepdims=True, dtype=np.float32))
        elif p == 0:
            norm = np.sum(a != 1, axis=others, keepdims=True).astype(np.float32)
        else:
            powers = np.exp(np.log(np.abs(a)) * np.float32(p))
            norm = np.exp(np.log(np.sum(powers, axis=others, keepdims=True, dtype=np.float32)) * np.float32(1 / p))
        ratio = np.minimum(norm, np.float32(call.attr_float("maxnorm"))) / (norm + np.float32(1e-7))
    out = Outputs(call, outputs)
    out.require_input_dtype(0, 0, x.dtype)
    return [out.emit(0, ratio.astype(x.dtype))]


def _renorm_infer(inputs: list[TensorInfo], values: list[np.ndarray | None], attrs: dict[str, Any]) -> list[InferredShape]:
    call = OpCall("Renorm", inputs, attrs)
    call.require_inputs()
    x = call.input(0)
    if unknown_rank(x.shape):
        return [inferred(x.dtype, (-2,))]
    dim = _renorm_dim(call, len(x.shape))
    return [inferred(x.dtype, [d if i == dim else 1 for i, d in enumerate(x.shape)])]


def _l2_normalize_grad(inputs: list[np.ndarray | None], attrs: dict[str, Any],
                      outputs: list[TensorInfo]) -> list[np.ndarray]:
    """(dy - y * sum(y * dy)) / max(sqrt(sum(x * x)), eps) in float32 (tbe/impl/l2_normalize_grad.py)."""
    call = OpCall("L2NormalizeGrad", inputs, attrs)
    call.require_inputs()
    x, y, dy = _float32_inputs(call, 3)
    axes = _stat_axes(call, "dim", x.ndim)
    out = Outputs(call, outputs)
    dtype = out.require_input_dtype(0, 0, call.input(0).dtype)
    with np.errstate(all="ignore"):
        norm = np.maximum(np.sqrt(np.sum(x * x, axis=axes, keepdims=True, dtype=np.float32)),
                          np.float32(call.attr_float("eps")))
        dx = (dy - y * np.sum(y * dy, axis=axes, keepdims=True, dtype=np.float32)) / norm
        return [out.emit(0, dx.astype(dtype))]


_stat_kernel("ReduceStd", 1, "dim", "keepdim", 2, _std_mean)
_stat_kernel("ReduceStdWithMean", 2, "dim", "keepdim", 1, _std_with_mean)
_stat_kernel("ReduceStdV2Update", 2, "dim", "keepdim", 1, _std_v2_update)
_stat_kernel("ReduceMeanWithCount", 3, "axes", "keep_dims", 1, _mean_with_count)
_stat_kernel("LpNorm", 1, "axes", "keepdim", 1, _lp_norm)
_stat_kernel("LpNormReduce", 1, "axes", "keepdim", 1, _lp_norm_reduce)
builtin("LpNormUpdate", _lp_norm_update_compute, _lp_norm_update_infer)
_stat_kernel("SquareSumV1", 1, "axis", "keep_dims", 1, _square_sum)
_stat_kernel("ReduceMeanVariance", 1, "axes", "keep_dims", 2, _mean_and_square_mean, float32_out=True)
builtin("SquareSumAll", _square_sum_all_compute, _square_sum_all_infer)
builtin("Renorm", _renorm_compute, _renorm_infer)
builtin("L2NormalizeGrad", _l2_normalize_grad, like_input("L2NormalizeGrad"))
