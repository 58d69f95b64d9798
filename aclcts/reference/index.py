"""Index-producing references: ArgMaxV2, ArgMin, ArgMaxD, ArgMinD, ArgMaxWithValue, ArgMinWithValue, TopK, NonZero,
Where, Unique and DataFormatDimMap; the const-folded TopKD through TopK's reference.

One NaN convention for all of them (device behaviour UNCONFIRMED): NaN ranks above +inf, as in NumPy's
argmax and PyTorch's topk/sort.  Equal values keep their original order (lower index first).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from aclcts.reference.base import RefOp, define, needed_value, normalize_axis, scalar_int
from aclcts.reference.folded import folded
from aclcts.reference.numeric import round_to, widen


def argmax(x: np.ndarray, axis: int) -> np.ndarray:
    """ArgMaxV2: index of the first maximum along axis; the first NaN wins over any number."""
    if x.shape[axis] == 0:
        raise ValueError(f"ArgMaxV2 over an empty axis of shape {x.shape}")
    return np.argmax(x, axis=axis)


def first_extreme(x: np.ndarray, axis: int, smallest: bool) -> np.ndarray:
    """Index of the first smallest (or largest) element along axis, found as the first position equal to the
    extreme; a slice holding NaN gives its first NaN."""
    if x.shape[axis] == 0:
        raise ValueError(f"no extreme over an empty axis of shape {x.shape}")
    moved = np.moveaxis(x, axis, -1)
    nan = np.isnan(moved) if moved.dtype.kind == "f" else np.zeros(moved.shape, bool)
    filled = np.where(nan, 0, moved)
    extreme = np.min(filled, axis=-1, keepdims=True) if smallest else np.max(filled, axis=-1, keepdims=True)
    hit = np.where(nan.any(axis=-1, keepdims=True), nan, filled == extreme)
    return np.argmax(hit, axis=-1)


def topk_order(x: np.ndarray, largest: bool) -> np.ndarray:
    """Return, along the last axis, the order of TopK: best first, ties by lower index, NaN largest.

    x is in its compute type; for integers and bool, `~x` reverses the order without overflow.
    """
    idx = np.broadcast_to(np.arange(x.shape[-1]), x.shape)
    if x.dtype.kind == "f":
        nan = np.isnan(x)
        filled = np.where(nan, 0.0, x)
        keys = (idx, -filled, ~nan) if largest else (idx, filled, nan)
    else:
        keys = (idx, ~x) if largest else (idx, x)
    return np.lexsort(keys, axis=-1)


def topk(x: np.ndarray, k: int, axis: int, largest: bool) -> tuple[np.ndarray, np.ndarray]:
    """TopK: the k largest (or smallest) values along axis and their indices, always in sorted order.

    With sorted=false the device may return any order; the reference still returns sorted results, so
    a case using sorted=false must compare order-insensitively.
    """
    if not 0 <= k <= x.shape[axis]:
        raise ValueError(f"k={k} outside [0, {x.shape[axis]}] for axis {axis} of shape {x.shape}")
    moved = np.moveaxis(x, axis, -1)
    order = topk_order(widen(moved), largest)[..., :k]
    values = np.take_along_axis(moved, order, axis=-1)
    return np.moveaxis(values, -1, axis), np.moveaxis(order, -1, axis)


def nonzero(x: np.ndarray, transpose: bool) -> np.ndarray:
    """NonZero: coordinates of nonzero elements in row-major order, [count, rank] ([rank, count] if transpose).

    NaN counts as nonzero and -0.0 as zero.
    """
    if x.ndim == 0:
        raise ValueError("NonZero needs an input of rank >= 1")
    coords = np.stack(np.nonzero(widen(x) != 0), axis=0)
    return coords if transpose else coords.T


def unique(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Unique: distinct values in order of first occurrence and, per element, the index of its value.

    TensorFlow semantics (the prototype is "compatible with TensorFlow Unique"): every NaN is distinct,
    -0.0 and +0.0 are the same value (the first one seen is kept).
    """
    if x.ndim != 1:
        raise ValueError(f"Unique needs a 1-D input, got shape {x.shape}")
    first: dict[Any, int] = {}
    kept: list[int] = []
    idx = np.empty(x.shape, dtype=np.int64)
    for i, v in enumerate(widen(x).tolist()):
        key: Any = ("nan", i) if v != v else v
        if key not in first:
            first[key] = len(kept)
            kept.append(i)
        idx[i] = first[key]
    return x[np.asarray(kept, dtype=np.int64)], idx


def _argmax(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    """ArgMaxV2 compute: (x, dimension); the output dtype comes from the output descriptor."""
    x = widen(xs[0])
    axis = normalize_axis(scalar_int(xs, 1), x.ndim, 1)
    return [round_to(argmax(x, axis), out[0])]


def _argmax_shape(shapes: list[Any], values: list[Any], attrs: dict[str, Any]) -> list[tuple[int, ...]]:
    """ArgMaxV2 output shape: x's shape without the reduced axis."""
    axis = normalize_axis(scalar_int(values, 1), len(shapes[0]), 1)
    return [tuple(d for i, d in enumerate(shapes[0]) if i != axis)]


def _argmin(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    """ArgMin compute: (x, dimension); the output dtype comes from the output descriptor."""
    x = widen(xs[0])
    axis = normalize_axis(scalar_int(xs, 1), x.ndim, 1)
    return [round_to(first_extreme(x, axis, smallest=True), out[0])]


def _arg_d(smallest: bool) -> Any:
    """ArgMaxD / ArgMinD compute: x, with the dimension an attribute."""
    def compute(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
        x = widen(xs[0])
        return [round_to(first_extreme(x, normalize_axis(attrs["dimension"], x.ndim, "dimension"), smallest), out[0])]
    return compute


def _argmax_d_shape(shapes: list[Any], values: list[Any], attrs: dict[str, Any]) -> list[tuple[int, ...]]:
    """ArgMaxD output shape: x's shape without the dimension."""
    axis = normalize_axis(attrs["dimension"], len(shapes[0]), "dimension")
    return [tuple(d for i, d in enumerate(shapes[0]) if i != axis)]


def _with_value(smallest: bool) -> Any:
    """ArgMaxWithValue / ArgMinWithValue compute: x -> (indice, values) along the dimension attribute."""
    def compute(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
        x = widen(xs[0])
        axis = normalize_axis(attrs["dimension"], x.ndim, "dimension")
        index = np.expand_dims(first_extreme(x, axis, smallest), axis)
        value = np.take_along_axis(x, index, axis=axis)
        if not attrs["keep_dims"]:
            index, value = np.squeeze(index, axis), np.squeeze(value, axis)
        return [round_to(index, out[0]), round_to(value, out[1])]
    return compute


def _with_value_shape(shapes: list[Any], values: list[Any], attrs: dict[str, Any]) -> list[tuple[int, ...]]:
    """ArgMaxWithValue / ArgMinWithValue output shapes: the dimension removed, or 1 with keep_dims; twice."""
    axis = normalize_axis(attrs["dimension"], len(shapes[0]), "dimension")
    kept = tuple(1 if i == axis else d for i, d in enumerate(shapes[0]))
    shape = kept if attrs["keep_dims"] else tuple(d for i, d in enumerate(shapes[0]) if i != axis)
    return [shape, shape]


def _topk(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    """TopK compute: (x, k) -> (values, indices)."""
    axis = normalize_axis(attrs["dim"], xs[0].ndim, "dim")
    values, indices = topk(xs[0], scalar_int(xs, 1), axis, bool(attrs["largest"]))
    return [round_to(values, out[0]), round_to(indices, out[1])]


def _topk_shape(shapes: list[Any], values: list[Any], attrs: dict[str, Any]) -> list[tuple[int, ...]]:
    """TopK output shapes: x's shape with k along dim, twice."""
    axis = normalize_axis(attrs["dim"], len(shapes[0]), "dim")
    k = scalar_int(values, 1)
    if not 0 <= k <= shapes[0][axis]:
        raise ValueError(f"k={k} outside [0, {shapes[0][axis]}] for axis {axis} of shape {shapes[0]}")
    s = tuple(k if i == axis else d for i, d in enumerate(shapes[0]))
    return [s, s]


def _nonzero(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    """NonZero compute."""
    return [round_to(nonzero(xs[0], bool(attrs["transpose"])), out[0])]


def _nonzero_shape(shapes: list[Any], values: list[Any], attrs: dict[str, Any]) -> list[tuple[int, ...]]:
    """NonZero output shape (needs the value of x)."""
    return [nonzero(needed_value(values, 0), bool(attrs["transpose"])).shape]


def _where(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    """Where compute: the [count, rank] coordinates of x's nonzero elements (NonZero without transpose)."""
    return [round_to(nonzero(xs[0], False), out[0])]


def _where_shape(shapes: list[Any], values: list[Any], attrs: dict[str, Any]) -> list[tuple[int, ...]]:
    """Where output shape (needs the value of x)."""
    return [nonzero(needed_value(values, 0), False).shape]


def _unique(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    """Unique compute: x -> (y, idx)."""
    y, idx = unique(xs[0])
    return [round_to(y, out[0]), round_to(idx, out[1])]


def _unique_shape(shapes: list[Any], values: list[Any], attrs: dict[str, Any]) -> list[tuple[int, ...]]:
    """Unique output shapes (need the value of x)."""
    y, idx = unique(needed_value(values, 0))
    return [y.shape, idx.shape]


def _dim_map(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    """DataFormatDimMap: each x (a dim index of src_format, negative from its end) replaced by the position in
    dst_format of the letter src_format has there."""
    src, dst = str(attrs["src_format"]), str(attrs["dst_format"])
    if len(src) != 4 or sorted(src) != sorted(dst):
        raise ValueError(f"src_format {src!r} and dst_format {dst!r} must be 4 letters, one a permutation of the other")
    y = np.empty(xs[0].shape, dtype=np.int64)
    for p in np.ndindex(*xs[0].shape):
        v = int(xs[0][p])
        if not -4 <= v < 4:
            raise ValueError(f"x holds {v}, outside [-4, 4)")
        y[p] = dst.index(src[v])
    return [round_to(y, out[0])]


_TOPK = define("TopK", _topk, _topk_shape)

OPS: tuple[RefOp, ...] = (
    define("ArgMaxV2", _argmax, _argmax_shape),
    define("ArgMin", _argmin, _argmax_shape),
    define("ArgMaxD", _arg_d(False), _argmax_d_shape),
    define("ArgMinD", _arg_d(True), _argmax_d_shape),
    define("ArgMaxWithValue", _with_value(False), _with_value_shape),
    define("ArgMinWithValue", _with_value(True), _with_value_shape),
    _TOPK,
    define("DataFormatDimMap", _dim_map, lambda shapes, values, attrs: [shapes[0]]),
    folded("TopKD", _TOPK, lambda a: {1: np.array(a["k"], dtype=np.int32)}, drop=(1,)),
    define("NonZero", _nonzero, _nonzero_shape),
    define("Where", _where, _where_shape),
    define("Unique", _unique, _unique_shape),
)
