"""Reduction references: ReduceSum, ReduceMax, ReduceMean, ReduceMin, ReduceProd, ReduceAll, ReduceAny and
ReduceLogSumExp (inputs x, axes; attributes keep_dims and, where the prototype has it, noop_with_empty_axes), and
their D forms (axes an attribute); the statistics ReduceStd, ReduceStdWithMean, ReduceStdV2Update,
ReduceMeanWithCount and the norms LpNorm, LpNormReduce, LpNormUpdate (p 0 counts the non-zero elements, p 2147483647
and -2147483648 stand for +inf and -inf: the largest and smallest |x|); ReduceLogSum (ONNX), the square sums
SquareSumV1 and SquareSumAll, ReduceMeanVariance (the mean and the mean of squares) and Renorm's scale factor."""

from __future__ import annotations

from typing import Any

import numpy as np

from aclcts.reference.base import RefOp, define, needed_value, normalize_axes
from aclcts.reference.numeric import is_int_dtype, round_to, widen


def reduced_axes(axes: np.ndarray, rank: int, noop_with_empty_axes: bool) -> tuple[int, ...] | None:
    """Return the axes to reduce, or None for "no reduction" (empty axes with noop_with_empty_axes)."""
    flat = np.asarray(axes).reshape(-1)
    if flat.size == 0:
        return None if noop_with_empty_axes else tuple(range(rank))
    return normalize_axes(flat, rank)


def reduce_sum(x: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
    """ReduceSum: sum over axes in the wide type (integers wrap when rounded); an empty sum is 0."""
    return np.sum(x, axis=axes, keepdims=True)


def reduce_max(x: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
    """ReduceMax: maximum over axes; a NaN anywhere in a slice makes that result NaN (device UNCONFIRMED)."""
    if any(x.shape[a] == 0 for a in axes):
        raise ValueError(f"ReduceMax over an empty axis of shape {x.shape} has no value")
    return np.max(x, axis=axes, keepdims=True)


def reduce_mean(x: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
    """ReduceMean: float mean over axes (empty -> NaN); integers: the sum divided by the count, truncated."""
    count = int(np.prod([x.shape[a] for a in axes]))
    total = np.sum(x, axis=axes, keepdims=True)
    if is_int_dtype(x.dtype):
        if count == 0:
            return np.zeros_like(total)
        return (np.abs(total) // count) * np.sign(total)
    return total / count if count else np.full(total.shape, np.nan)


def reduce_min(x: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
    """ReduceMin: minimum over axes; a NaN anywhere in a slice makes that result NaN (device UNCONFIRMED)."""
    if any(x.shape[a] == 0 for a in axes):
        raise ValueError(f"ReduceMin over an empty axis of shape {x.shape} has no value")
    return np.min(x, axis=axes, keepdims=True)


def reduce_prod(x: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
    """ReduceProd: product over axes in the wide type (integers wrap when rounded); an empty product is 1."""
    return np.prod(x, axis=axes, keepdims=True)


def reduce_all(x: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
    """ReduceAll: whether every element of a slice is true (non-zero, NaN counting as true); empty gives true."""
    return np.all(x != 0, axis=axes, keepdims=True)


def reduce_any(x: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
    """ReduceAny: whether some element of a slice is true (non-zero, NaN counting as true); empty gives false."""
    return np.any(x != 0, axis=axes, keepdims=True)


def reduce_log_sum_exp(x: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
    """ReduceLogSumExp: log(sum(exp(x))) over axes, folded pairwise with logaddexp (never overflows); empty: -inf."""
    result = np.moveaxis(x, axes, tuple(range(-len(axes), 0)))
    flat = result.reshape(result.shape[: x.ndim - len(axes)] + (-1,))
    folded = np.logaddexp.reduce(flat, axis=-1) if flat.shape[-1] else np.full(flat.shape[:-1], -np.inf)
    return np.expand_dims(folded, axes)


def _squeezed(result: np.ndarray, axes: tuple[int, ...], keep_dims: bool) -> np.ndarray:
    return result if keep_dims else np.squeeze(result, axis=axes)


def _reduce(fn: Any, noop_default: bool | None = None) -> Any:
    """Wrap a keepdims reduction (inputs x, axes) into a compute function honouring keep_dims and empty axes:
    noop_with_empty_axes when the prototype has it, else noop_default (None: the attribute)."""
    def compute(xs: list[np.ndarray], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
        x = widen(xs[0])
        noop = bool(attrs["noop_with_empty_axes"]) if noop_default is None else noop_default
        axes = reduced_axes(xs[1], x.ndim, noop)
        if axes is None:
            return [round_to(x, out[0])]
        return [round_to(_squeezed(fn(x, axes), axes, bool(attrs["keep_dims"])), out[0])]
    return compute


def _reduce_d(fn: Any) -> Any:
    """Wrap a keepdims reduction into the compute function of its D form (x only, the axes an attribute)."""
    def compute(xs: list[np.ndarray], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
        x = widen(xs[0])
        axes = reduced_axes(np.asarray(attrs["axes"], np.int64), x.ndim, bool(attrs.get("noop_with_empty_axes")))
        if axes is None:
            return [round_to(x, out[0])]
        return [round_to(_squeezed(fn(x, axes), axes, bool(attrs["keep_dims"])), out[0])]
    return compute


def _kept(x_shape: tuple[int, ...], axes: tuple[int, ...] | None, keep_dims: bool) -> tuple[int, ...]:
    """The output shape of reducing x_shape over axes (None: no reduction)."""
    if axes is None:
        return x_shape
    if keep_dims:
        return tuple(1 if i in axes else d for i, d in enumerate(x_shape))
    return tuple(d for i, d in enumerate(x_shape) if i not in axes)


def _shape_with(noop_default: bool | None = None) -> Any:
    """Output shape of a reduction with an axes input (needs its value); empty axes as in _reduce."""
    def shape(shapes: list[tuple[int, ...] | None], values: list[Any], attrs: dict[str, Any]) -> list[tuple[int, ...]]:
        noop = bool(attrs["noop_with_empty_axes"]) if noop_default is None else noop_default
        axes = reduced_axes(needed_value(values, 1), len(shapes[0]), noop)
        return [_kept(shapes[0], axes, bool(attrs["keep_dims"]))]
    return shape


def _shape_d(shapes: list[tuple[int, ...] | None], values: list[Any], attrs: dict[str, Any]) -> list[tuple[int, ...]]:
    """Output shape of a D-form reduction (axes an attribute)."""
    axes = reduced_axes(np.asarray(attrs["axes"], np.int64), len(shapes[0]),
                        bool(attrs.get("noop_with_empty_axes")))
    return [_kept(shapes[0], axes, bool(attrs["keep_dims"]))]


_shape = _shape_with()

#: The int p values LpNorm and its parts read as +inf and -inf (INT32_MAX and INT32_MIN).
P_INF, P_MINUS_INF = 2147483647, -2147483648
#: The least norm of float16, where LpNorm's epsilon is smaller (and not 0).
FLOAT16_EPSILON = 1e-7


def stat_axes(dims: Any, rank: int) -> tuple[int, ...]:
    """The axes a dim/axes list names (repeats once), every axis when it is empty."""
    given = [int(a) for a in np.asarray(dims).reshape(-1)]
    return tuple(range(rank)) if not given else tuple(sorted({normalize_axes([a], rank)[0] for a in given}))


def variance(x: np.ndarray, mean: np.ndarray, axes: tuple[int, ...], unbiased: bool) -> np.ndarray:
    """The mean squared deviation of x from mean over axes (kept), divided by n - 1 with Bessel's correction."""
    n = int(np.prod([x.shape[a] for a in axes]))
    return np.sum((x - mean) ** 2, axis=axes, keepdims=True) / (n - 1 if unbiased else n)


def lp_sum(x: np.ndarray, p: int, axes: tuple[int, ...]) -> np.ndarray:
    """The sum of |x|^p over axes (kept): p 0 counts non-zeros; the inf p values give the largest / smallest |x|."""
    a = np.abs(x)
    if p == P_INF:
        return np.max(a, axis=axes, keepdims=True)
    if p == P_MINUS_INF:
        return np.min(a, axis=axes, keepdims=True)
    if p == 0:
        return np.sum(a != 0, axis=axes, keepdims=True).astype(np.float64)
    return np.sum(a ** p, axis=axes, keepdims=True)


def lp_root(s: np.ndarray, p: int) -> np.ndarray:
    """The p-th root of an lp_sum (none for p 0, 1 and the inf values); a negative value has none: NaN (NumPy's
    power would give (-inf) ** (1/3) = inf)."""
    if p in (0, 1, P_INF, P_MINUS_INF):
        return s
    with np.errstate(invalid="ignore"):
        return np.where(s < 0, np.nan, np.abs(s) ** (1.0 / p))


def norm_floor(epsilon: float, dtype: np.dtype) -> float:
    """The least value LpNorm and LpNormUpdate return: epsilon, raised to 1e-7 for float16 unless it is 0."""
    if np.dtype(dtype) == np.float16 and 0 < epsilon <= FLOAT16_EPSILON:
        return FLOAT16_EPSILON
    return epsilon


def reduce_log_sum(x: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
    """ReduceLogSum (ONNX): the natural log of the sum over axes; a negative sum gives NaN, a zero sum -inf."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.log(np.sum(x, axis=axes, keepdims=True))


def renorm_factor(x: np.ndarray, p: float, dim: int, maxnorm: float) -> np.ndarray:
    """PyTorch renorm's scale per sub-tensor x[..., i, ...] along dim, as CANN's Renorm returns it: min(norm,
    maxnorm) / (norm + 1e-7), norm the p-norm of the sub-tensor (p 0: its count of non-zero elements)."""
    others = tuple(a for a in range(x.ndim) if a != dim)
    if p == 0:
        norm = np.sum(x != 0, axis=others, keepdims=True).astype(np.float64)
    else:
        norm = np.sum(np.abs(x) ** p, axis=others, keepdims=True) ** (1.0 / p)
    return np.minimum(norm, maxnorm) / (norm + 1e-7)


def l2_normalize_grad(x: np.ndarray, y: np.ndarray, dy: np.ndarray, axes: tuple[int, ...], eps: float) -> np.ndarray:
    """The gradient through y = x / max(||x||, eps) over axes, y given: (dy - y <dy, y>) / max(||x||, eps)."""
    norm = np.maximum(np.sqrt(np.sum(x * x, axis=axes, keepdims=True)), eps)
    return (dy - y * np.sum(dy * y, axis=axes, keepdims=True)) / norm


def _kept_or_not(result: np.ndarray, axes: tuple[int, ...], keep: bool) -> np.ndarray:
    return result if keep else np.squeeze(result, axis=axes)


def _reduce_std(xs: list[np.ndarray], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    x = widen(xs[0])
    axes = stat_axes(attrs["dim"], x.ndim)
    mean = np.mean(x, axis=axes, keepdims=True)
    std = np.sqrt(variance(x, mean, axes, bool(attrs["unbiased"])))
    return [round_to(_kept_or_not(r, axes, bool(attrs["keepdim"])), d) for r, d in zip((std, mean), out)]


def _reduce_std_with_mean(xs: list[np.ndarray], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    x = widen(xs[0])
    axes = stat_axes(attrs["dim"], x.ndim)
    var = variance(x, widen(xs[1]), axes, bool(attrs["unbiased"]))
    y = 1 / np.sqrt(var + float(attrs["epsilon"])) if attrs["invert"] else np.sqrt(var)
    return [round_to(_kept_or_not(y, axes, bool(attrs["keepdim"])), out[0])]


def _reduce_std_v2_update(xs: list[np.ndarray], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    x = widen(xs[0])
    axes = stat_axes(attrs["dim"], x.ndim)
    var = variance(x, widen(xs[1]), axes, bool(attrs["unbiased"]))
    return [round_to(_kept_or_not(np.sqrt(var) if attrs["if_std"] else var, axes, bool(attrs["keepdim"])), out[0])]


def _reduce_mean_with_count(xs: list[np.ndarray], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    x = widen(xs[0])
    axes = stat_axes(attrs["axes"], x.ndim)
    y = np.sum(x * widen(xs[1]) / widen(xs[2]), axis=axes, keepdims=True)
    return [round_to(_kept_or_not(y, axes, bool(attrs["keep_dims"])), out[0])]


def _lp_norm(root: bool, floor: bool) -> Any:
    def compute(xs: list[np.ndarray], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
        x, p = widen(xs[0]), int(attrs["p"])
        axes = stat_axes(attrs["axes"], x.ndim)
        y = lp_sum(x, p, axes)
        y = lp_root(y, p) if root else y
        y = np.maximum(y, norm_floor(float(attrs["epsilon"]), out[0])) if floor else y
        return [round_to(_kept_or_not(y, axes, bool(attrs["keepdim"])), out[0])]
    return compute


def _lp_norm_update(xs: list[np.ndarray], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    y = lp_root(widen(xs[0]), int(attrs["p"]))
    return [round_to(np.maximum(y, norm_floor(float(attrs["epsilon"]), out[0])), out[0])]


def _square_sum_v1(xs: list[np.ndarray], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    x = widen(xs[0])
    axes = stat_axes(attrs["axis"], x.ndim)
    return [round_to(_kept_or_not(np.sum(x * x, axis=axes, keepdims=True), axes, bool(attrs["keep_dims"])), out[0])]


def _square_sum_all(xs: list[np.ndarray], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    return [round_to(np.sum(widen(x) ** 2), d) for x, d in zip(xs, out)]


def _reduce_mean_variance(xs: list[np.ndarray], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    x = widen(xs[0])
    axes = stat_axes(attrs["axes"], x.ndim)
    results = (np.mean(x, axis=axes, keepdims=True), np.mean(x * x, axis=axes, keepdims=True))
    return [round_to(_kept_or_not(r, axes, bool(attrs["keep_dims"])), d) for r, d in zip(results, out)]


def _renorm(xs: list[np.ndarray], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    x = widen(xs[0])
    dim = normalize_axes([attrs["dim"]], x.ndim, "dim")[0]
    return [round_to(renorm_factor(x, float(attrs["p"]), dim, float(attrs["maxnorm"])), out[0])]


def _renorm_shape(shapes: list[tuple[int, ...] | None], values: list[Any], attrs: dict[str, Any]) -> list[tuple[int, ...]]:
    x = shapes[0]
    dim = normalize_axes([attrs["dim"]], len(x), "dim")[0]
    return [tuple(d if i == dim else 1 for i, d in enumerate(x))]


def _l2_normalize_grad(xs: list[np.ndarray], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    x, y, dy = (widen(a) for a in xs)
    axes = stat_axes(attrs["dim"], x.ndim)
    return [round_to(l2_normalize_grad(x, y, dy, axes, float(attrs["eps"])), out[0])]


def _scalars(shapes: list[tuple[int, ...] | None], values: list[Any], attrs: dict[str, Any]) -> list[tuple[int, ...]]:
    return [(), ()]


def _stat_shape(dims_attr: str, keep_attr: str, count: int = 1) -> Any:
    def shape(shapes: list[tuple[int, ...] | None], values: list[Any], attrs: dict[str, Any]) -> list[tuple[int, ...]]:
        x = shapes[0]
        axes = stat_axes(attrs[dims_attr], len(x))
        kept = tuple(1 if i in axes else d for i, d in enumerate(x)) if attrs[keep_attr] else \
            tuple(d for i, d in enumerate(x) if i not in axes)
        return [kept] * count
    return shape


def _same_shape(shapes: list[tuple[int, ...] | None], values: list[Any], attrs: dict[str, Any]) -> list[tuple[int, ...]]:
    return [shapes[0]]


OPS: tuple[RefOp, ...] = (
    define("ReduceSum", _reduce(reduce_sum), _shape),
    define("ReduceMax", _reduce(reduce_max), _shape),
    define("ReduceMean", _reduce(reduce_mean), _shape),
    define("ReduceMin", _reduce(reduce_min), _shape),
    define("ReduceProd", _reduce(reduce_prod), _shape),
    define("ReduceAll", _reduce(reduce_all, True), _shape_with(True)),
    define("ReduceAny", _reduce(reduce_any, True), _shape_with(True)),
    define("ReduceLogSumExp", _reduce(reduce_log_sum_exp), _shape),
    define("ReduceSumD", _reduce_d(reduce_sum), _shape_d),
    define("ReduceMaxD", _reduce_d(reduce_max), _shape_d),
    define("ReduceMeanD", _reduce_d(reduce_mean), _shape_d),
    define("ReduceMinD", _reduce_d(reduce_min), _shape_d),
    define("ReduceProdD", _reduce_d(reduce_prod), _shape_d),
    define("ReduceAllD", _reduce_d(reduce_all), _shape_d),
    define("ReduceAnyD", _reduce_d(reduce_any), _shape_d),
    define("ReduceStd", _reduce_std, _stat_shape("dim", "keepdim", 2)),
    define("ReduceStdWithMean", _reduce_std_with_mean, _stat_shape("dim", "keepdim")),
    define("ReduceStdV2Update", _reduce_std_v2_update, _stat_shape("dim", "keepdim")),
    define("ReduceMeanWithCount", _reduce_mean_with_count, _stat_shape("axes", "keep_dims")),
    define("LpNorm", _lp_norm(root=True, floor=True), _stat_shape("axes", "keepdim")),
    define("LpNormReduce", _lp_norm(root=False, floor=False), _stat_shape("axes", "keepdim")),
    define("LpNormUpdate", _lp_norm_update, _same_shape),
    define("ReduceLogSum", _reduce(reduce_log_sum, noop_default=False), _shape_with(False)),
    define("SquareSumV1", _square_sum_v1, _stat_shape("axis", "keep_dims")),
    define("SquareSumAll", _square_sum_all, _scalars),
    define("ReduceMeanVariance", _reduce_mean_variance, _stat_shape("axes", "keep_dims", 2)),
    define("Renorm", _renorm, _renorm_shape),
    define("L2NormalizeGrad", _l2_normalize_grad, _same_shape),
)
