"""ReduceSum, ReduceMax and ReduceMean references: inputs (x, axes), attributes keep_dims and noop_with_empty_axes."""

from __future__ import annotations

from typing import Any

import numpy as np

from aclcts.reference.base import RefOp, define, needed_value, normalize_axes
from aclcts.reference.numeric import is_int_dtype, round_to, widen

_ATTRS = {"keep_dims": False, "noop_with_empty_axes": True}


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


def _reduce(fn: Any) -> Any:
    """Wrap a keepdims reduction into a compute function honouring keep_dims and noop_with_empty_axes."""
    def compute(xs: list[np.ndarray], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
        x = widen(xs[0])
        axes = reduced_axes(xs[1], x.ndim, bool(attrs["noop_with_empty_axes"]))
        if axes is None:
            return [round_to(x, out[0])]
        result = fn(x, axes)
        if not attrs["keep_dims"]:
            result = np.squeeze(result, axis=axes)
        return [round_to(result, out[0])]
    return compute


def _shape(shapes: list[tuple[int, ...] | None], values: list[Any], attrs: dict[str, Any]) -> list[tuple[int, ...]]:
    """Output shape of a reduction (needs the value of `axes`)."""
    x_shape = shapes[0]
    axes = reduced_axes(needed_value(values, 1, "axes"), len(x_shape), bool(attrs["noop_with_empty_axes"]))
    if axes is None:
        return [x_shape]
    if attrs["keep_dims"]:
        return [tuple(1 if i in axes else d for i, d in enumerate(x_shape))]
    return [tuple(d for i, d in enumerate(x_shape) if i not in axes)]


OPS: tuple[RefOp, ...] = (
    define("ReduceSum", ("x", "axes"), _ATTRS, _reduce(reduce_sum), _shape),
    define("ReduceMax", ("x", "axes"), _ATTRS, _reduce(reduce_max), _shape),
    define("ReduceMean", ("x", "axes"), _ATTRS, _reduce(reduce_mean), _shape),
)
