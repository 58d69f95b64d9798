"""Gather, scatter and index-building references, written as explicit loops over index positions.

Conventions (device behaviour UNCONFIRMED where not stated by the prototype's documentation): an index outside
its dimension is an error (GatherV2: "Value in indices must be in range [0, x.shape[axis])"), except where the op
documents otherwise (OneHot: an index outside [0, depth) gives a row of the off value; Bincount: values outside
[0, size) are ignored; UnsortedSegmentSum: negative ids are dropped; ScatterElements, compatible with ONNX's:
an index in [-s, 0) counts from the end of the axis). Duplicate indices add up in ScatterNd,
ScatterAdd, ScatterElements(add/mul) and UnsortedSegmentSum; for the update ops the last one wins. Sort and TopKV2
rank NaN above +inf and keep equal values in their original order.
"""

from __future__ import annotations

import math
from typing import Any

import ml_dtypes
import numpy as np

from aclcts.reference.base import InputError, RefOp, define, needed_value, normalize_axis, scalar_int
from aclcts.reference.index import topk
from aclcts.reference.numeric import int_range, is_int_dtype, round_to, widen


def _checked(i: int, size: int, negative: bool, what: str) -> int:
    """An index inside [0, size) (negative ones counted from the end when allowed), else ValueError."""
    if negative and -size <= i < 0:
        i += size
    if not 0 <= i < size:
        raise ValueError(f"{what} {i} outside [0, {size})")
    return i


def gather_v2(x: np.ndarray, indices: np.ndarray, axis: int, batch_dims: int, negative: bool) -> np.ndarray:
    """GatherV2: y[o, j, i] = x[o, indices[o[:batch_dims], j], i], one element slice at a time."""
    outer, inner, size = x.shape[:axis], x.shape[axis + 1:], x.shape[axis]
    tail = indices.shape[batch_dims:]
    out = np.empty(outer + tail + inner, dtype=x.dtype)
    for o in np.ndindex(*outer):
        for j in np.ndindex(*tail):
            out[o + j] = x[o + (_checked(int(indices[o[:batch_dims] + j]), size, negative, "index value"),)]
    return out


def gather_nd(x: np.ndarray, indices: np.ndarray, negative: bool) -> np.ndarray:
    """GatherNd: y[j] = x[indices[j]], indices' last dim addressing x's leading dims."""
    k = indices.shape[-1]
    if k > x.ndim:
        raise ValueError(f"indices' last dim {k} exceeds the rank {x.ndim} of x")
    out = np.empty(indices.shape[:-1] + x.shape[k:], dtype=x.dtype)
    for j in np.ndindex(*indices.shape[:-1]):
        out[j] = x[tuple(_checked(int(v), x.shape[d], negative, "index value") for d, v in enumerate(indices[j]))]
    return out


def gather_elements(x: np.ndarray, index: np.ndarray, dim: int) -> np.ndarray:
    """GatherElements: y[p] = x[p with p[dim] = index[p]]."""
    out = np.empty(index.shape, dtype=x.dtype)
    for p in np.ndindex(*index.shape):
        where = list(p)
        where[dim] = _checked(int(index[p]), x.shape[dim], False, "index value")
        out[p] = x[tuple(where)]
    return out


def _divide(a: Any, b: Any) -> Any:
    """a / b: true division of floats, integer division truncated toward zero (TensorFlow's ScatterDiv on integers);
    an integer division by zero is an error."""
    if np.asarray(a).dtype.kind == "f" or np.asarray(b).dtype.kind == "f":
        return a / b
    if np.any(np.asarray(b) == 0):
        raise ValueError("integer division by zero in updates")
    return np.sign(a) * np.sign(b) * (np.abs(a) // np.abs(b))


#: How each scatter combines the value at an index with an update: the update itself (set), or an arithmetic result.
COMBINE = {
    "set": lambda old, new: new,
    "add": lambda old, new: old + new,
    "sub": lambda old, new: old - new,
    "mul": lambda old, new: old * new,
    "div": _divide,
    "max": np.maximum,
    "min": np.minimum,
}


def scatter(var: np.ndarray, indices: np.ndarray, updates: np.ndarray, nd: bool, how: str) -> np.ndarray:
    """A copy of var with updates combined in at indices, one index after another (how: a key of COMBINE); nd:
    indices' last dim addresses var's leading dims (ScatterNd*), else each index names a slice of var's first dim."""
    combine = COMBINE[how]
    out = var.copy()
    positions = indices.shape[:-1] if nd else indices.shape
    expected = positions + var.shape[indices.shape[-1] if nd else 1:]
    if updates.shape != expected:
        raise InputError(2, lambda name: f"{name} has shape {list(updates.shape)}, expected {list(expected)} "
                                         f"(the index positions, then the dims of one indexed slice)")
    for j in np.ndindex(*positions):
        if nd:
            at = tuple(_checked(int(v), var.shape[d], False, "index value") for d, v in enumerate(indices[j]))
        else:
            at = (_checked(int(indices[j]), var.shape[0], False, "index value"),)
        out[at] = combine(out[at], updates[j])
    return out


def scatter_elements(data: np.ndarray, indices: np.ndarray, updates: np.ndarray, axis: int,
                     reduction: str) -> np.ndarray:
    """ScatterElements (ONNX): y[p with p[axis] = indices[p]] set, added or multiplied by updates[p], in order; an
    index in [-s, 0) counts from the end of the axis (ONNX bounds [-s, s-1]; CANN's AI CPU kernel adds s)."""
    if reduction not in ("none", "add", "mul"):
        raise ValueError(f"reduction {reduction!r}; expected none, add or mul")
    out = data.copy()
    for p in np.ndindex(*indices.shape):
        where = list(p)
        where[axis] = _checked(int(indices[p]), data.shape[axis], True, "index value")
        at = tuple(where)
        out[at] = updates[p] if reduction == "none" else out[at] + updates[p] if reduction == "add" else \
            out[at] * updates[p]
    return out


def one_hot(x: np.ndarray, depth: int, on: Any, off: Any, axis: int) -> np.ndarray:
    """OneHot: the off value everywhere, the on value at position x[p] of the new axis when 0 <= x[p] < depth."""
    rank = x.ndim + 1
    axis = rank - 1 if axis == -1 else normalize_axis(axis, rank, "axis")
    shape = x.shape[:axis] + (depth,) + x.shape[axis:]
    out = np.full(shape, off)
    for p in np.ndindex(*x.shape):
        if 0 <= int(x[p]) < depth:
            out[p[:axis] + (int(x[p]),) + p[axis:]] = on
    return out


def range_count(start: float, limit: float, delta: float) -> int:
    """The number of elements of Range: ceil((limit - start) / delta), at least 0; delta 0 is an error."""
    if delta == 0:
        raise ValueError("delta must not be 0")
    return max(0, math.ceil((limit - start) / delta))


def linspace(start: float, stop: float, num: int) -> np.ndarray:
    """LinSpace: num values start + i * (stop - start) / (num - 1); num 1 gives [start]."""
    if num < 1:
        raise ValueError(f"num {num} must be at least 1")
    if num == 1:
        return np.array([start], dtype=np.float64)
    return np.array([start + i * (stop - start) / (num - 1) for i in range(num)], dtype=np.float64)


def sort(x: np.ndarray, axis: int, descending: bool) -> tuple[np.ndarray, np.ndarray]:
    """Sort along axis with Python's stable sort: NaN above +inf, equal values in their original order."""
    moved = np.moveaxis(widen(x), axis, -1)
    order = np.empty(moved.shape, dtype=np.int64)
    for p in np.ndindex(*moved.shape[:-1]):
        row = moved[p].tolist()
        order[p] = sorted(range(len(row)), key=lambda i: (1, 0.0) if row[i] != row[i] else (0, row[i]),
                          reverse=descending)
    values = np.take_along_axis(np.moveaxis(x, axis, -1), order, axis=-1)
    return np.moveaxis(values, -1, axis), np.moveaxis(order, -1, axis)


def segment_sum(x: np.ndarray, ids: np.ndarray, num: int) -> np.ndarray:
    """UnsortedSegmentSum: y[s] = sum of x[j] over ids[j] == s; negative ids are dropped, ids >= num an error."""
    out = np.zeros((num,) + x.shape[ids.ndim:], dtype=x.dtype)
    for j in np.ndindex(*ids.shape):
        s = int(ids[j])
        if s >= num:
            raise InputError(2, lambda name: f"segment id {s} >= {name} {num}")
        if s >= 0:
            out[s] = out[s] + x[j]
    return out


def segment_reduce(x: np.ndarray, ids: np.ndarray, num: int, how: str, empty: float) -> np.ndarray:
    """UnsortedSegmentMax/Min/Prod (how max, min, mul): y[s] combines the x[j] with ids[j] == s; a segment no id
    names holds empty (TensorFlow: the dtype's lowest value for max, its highest for min, 1 for prod); negative ids
    are dropped, ids >= num an error."""
    combine = COMBINE[how]
    out = np.full((num,) + x.shape[ids.ndim:], empty, dtype=x.dtype)
    seen = np.zeros(num, dtype=bool)
    for j in np.ndindex(*ids.shape):
        s = int(ids[j])
        if s >= num:
            raise ValueError(f"segment id {s} >= num_segments {num}")
        if s >= 0:
            out[s] = x[j] if not seen[s] else combine(out[s], x[j])
            seen[s] = True
    return out


def sorted_segment_sum(x: np.ndarray, ids: np.ndarray) -> np.ndarray:
    """SegmentSum (TensorFlow): ids sorted and non-negative; y has max(ids) + 1 rows, y[s] the sum of the x[j] with
    ids[j] == s (0 for a segment no id names)."""
    flat = [int(v) for v in ids.reshape(-1)]
    if any(v < 0 for v in flat) or flat != sorted(flat):
        raise ValueError(f"segment ids must be sorted and non-negative, got {flat}")
    out = np.zeros(((flat[-1] + 1) if flat else 0,) + x.shape[ids.ndim:], dtype=x.dtype)
    for j in np.ndindex(*ids.shape):
        out[int(ids[j])] = out[int(ids[j])] + x[j]
    return out


def bucketize(x: np.ndarray, boundaries: list[float]) -> np.ndarray:
    """Bucketize: per element, how many boundaries are <= it (the index of its bucket)."""
    out = np.empty(x.shape, dtype=np.int64)
    for p in np.ndindex(*x.shape):
        out[p] = sum(1 for b in boundaries if b <= x[p])
    return out


def in_top_k(predictions: np.ndarray, targets: np.ndarray, k: int) -> np.ndarray:
    """InTopK: whether predictions[i, targets[i]] is among the k largest of row i, counting ties in (fewer than k
    values of the row are above it); a target outside the row or a non-finite prediction gives false."""
    out = np.zeros(targets.shape, dtype=bool)
    for i in range(targets.shape[0]):
        t = int(targets[i])
        row = predictions[i]
        if 0 <= t < row.size and np.isfinite(row).all():
            out[i] = sum(1 for v in row if v > row[t]) < k
    return out


def index_add(var: np.ndarray, indices: np.ndarray, updates: np.ndarray, axis: int) -> np.ndarray:
    """InplaceIndexAdd (PyTorch index_add_): a copy of var whose slice indices[i] along axis has updates' slice i
    added, every repeat in turn."""
    out = var.copy()
    for i, at in enumerate(indices.reshape(-1)):
        target = [slice(None)] * var.ndim
        target[axis] = _checked(int(at), var.shape[axis], False, "index value")
        source = [slice(None)] * var.ndim
        source[axis] = i
        out[tuple(target)] = out[tuple(target)] + updates[tuple(source)]
    return out


def masked_fill(x: np.ndarray, mask: np.ndarray, value: np.ndarray) -> np.ndarray:
    """MaskedFill: x (broadcast with mask) with value written where mask is true."""
    shape = np.broadcast_shapes(x.shape, mask.shape)
    out = np.array(np.broadcast_to(x, shape))
    out[np.broadcast_to(mask, shape)] = value.reshape(())
    return out


def masked_select(x: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """MaskedSelect: the elements of x (broadcast with mask) where mask is true, in row-major order."""
    shape = np.broadcast_shapes(x.shape, mask.shape)
    xs, ms = np.broadcast_to(x, shape).reshape(-1), np.broadcast_to(mask, shape).reshape(-1)
    return np.array([xs[i] for i in range(xs.size) if ms[i]], dtype=x.dtype)


def search_sorted(seq: np.ndarray, values: np.ndarray, right: bool) -> np.ndarray:
    """SearchSorted: per value, how many elements of its sorted row are below it (<= with right)."""
    rows = seq.reshape(-1, seq.shape[-1]) if seq.ndim > 1 else None
    out = np.empty(values.shape, dtype=np.int64)
    for p in np.ndindex(*values.shape):
        row = seq if rows is None else seq[p[:-1]]
        out[p] = int(np.count_nonzero(row <= values[p] if right else row < values[p]))
    return out


def bincount(array: np.ndarray, size: int, weights: np.ndarray) -> np.ndarray:
    """Bincount: bins[v] = sum of weights[i] over array[i] == v (weight 1 when weights is empty); values outside
    [0, size) are ignored."""
    if size < 0:
        raise ValueError(f"size {size} is negative")
    bins = np.zeros(size, dtype=weights.dtype)
    flat, w = array.reshape(-1), weights.reshape(-1)
    for i in range(flat.size):
        if 0 <= int(flat[i]) < size:
            bins[int(flat[i])] += w[i] if w.size else 1
    return bins


# compute and shape functions --------------------------------------------------------------------------------
Xs = list[Any]
Attrs = dict[str, Any]
Dtypes = list[np.dtype]


def _gather_v2(xs: Xs, attrs: Attrs, out: Dtypes) -> list[np.ndarray]:
    x = widen(xs[0])
    axis, batch = _gather_v2_axes(x.shape, xs[1].shape, scalar_int(xs, 2), attrs)
    return [round_to(gather_v2(x, xs[1], axis, batch, bool(attrs["negative_index_support"])), out[0])]


def _gather_v2_axes(shape: tuple[int, ...], ishape: tuple[int, ...], axis: int, attrs: Attrs) -> tuple[int, int]:
    axis = normalize_axis(axis, len(shape), 2)
    batch = int(attrs["batch_dims"])
    batch = batch + len(ishape) if batch < 0 else batch
    if not 0 <= batch <= min(axis, len(ishape)) or shape[:batch] != ishape[:batch]:
        raise ValueError(f"batch_dims {attrs['batch_dims']} does not fit x {shape}, indices {ishape}, axis {axis}")
    return axis, batch


def _gather_v2_shape(shapes: Xs, values: Xs, attrs: Attrs) -> list[tuple[int, ...]]:
    x, ind = shapes[0], shapes[1]
    axis, batch = _gather_v2_axes(x, ind, scalar_int(values, 2), attrs)
    return [x[:axis] + ind[batch:] + x[axis + 1:]]


def _gather_nd(xs: Xs, attrs: Attrs, out: Dtypes) -> list[np.ndarray]:
    return [round_to(gather_nd(widen(xs[0]), xs[1], bool(attrs["negative_index_support"])), out[0])]


def _gather_nd_shape(shapes: Xs, values: Xs, attrs: Attrs) -> list[tuple[int, ...]]:
    return [shapes[1][:-1] + shapes[0][shapes[1][-1]:]]


def _gather_elements(xs: Xs, attrs: Attrs, out: Dtypes) -> list[np.ndarray]:
    dim = normalize_axis(attrs["dim"], xs[0].ndim, "dim")
    return [round_to(gather_elements(widen(xs[0]), xs[1], dim), out[0])]


def _index_shape(shapes: Xs, values: Xs, attrs: Attrs) -> list[tuple[int, ...]]:
    return [shapes[1]]


def _scatter_nd(xs: Xs, attrs: Attrs, out: Dtypes) -> list[np.ndarray]:
    shape = tuple(int(d) for d in np.asarray(xs[2]).reshape(-1))
    zeros = np.zeros(shape, dtype=widen(xs[1]).dtype)
    return [round_to(scatter(zeros, xs[0], widen(xs[1]), True, "add"), out[0])]


def _scatter_nd_shape(shapes: Xs, values: Xs, attrs: Attrs) -> list[tuple[int, ...]]:
    return [tuple(int(d) for d in np.asarray(needed_value(values, 2)).reshape(-1))]


def _scatter(nd: bool, how: str) -> Any:
    def compute(xs: Xs, attrs: Attrs, out: Dtypes) -> list[np.ndarray]:
        return [round_to(scatter(widen(xs[0]), xs[1], widen(xs[2]), nd, how), out[0])]
    return compute


def _first_shape(shapes: Xs, values: Xs, attrs: Attrs) -> list[tuple[int, ...]]:
    return [shapes[0]]


def _scatter_elements(xs: Xs, attrs: Attrs, out: Dtypes) -> list[np.ndarray]:
    axis = normalize_axis(attrs["axis"], xs[0].ndim, "axis")
    return [round_to(scatter_elements(widen(xs[0]), xs[1], widen(xs[2]), axis, str(attrs["reduction"])), out[0])]


def _depth(values: Xs) -> int:
    """OneHot's depth, the length of the new axis: a size, never negative (TensorFlow's OneHot refuses one)."""
    depth = scalar_int(values, 1)
    if depth < 0:
        raise InputError(1, lambda name: f"input {name!r} is {depth}, expected >= 0 (the length of the new axis)")
    return depth


def _one_hot(xs: Xs, attrs: Attrs, out: Dtypes) -> list[np.ndarray]:
    on, off = widen(xs[2]).reshape(()), widen(xs[3]).reshape(())
    return [round_to(one_hot(xs[0], _depth(xs), on, off, int(attrs["axis"])), out[0])]


def _one_hot_shape(shapes: Xs, values: Xs, attrs: Attrs) -> list[tuple[int, ...]]:
    depth = _depth(values)
    rank = len(shapes[0]) + 1
    axis = rank - 1 if attrs["axis"] == -1 else normalize_axis(attrs["axis"], rank, "axis")
    return [shapes[0][:axis] + (depth,) + shapes[0][axis:]]


def _scalar(values: Xs, index: int) -> float:
    """The one value input index holds (needed_value when it is absent)."""
    value = needed_value(values, index)
    array = widen(value).reshape(-1)
    if array.size != 1:
        raise InputError(index, lambda name: f"input {name!r} must hold one value, got shape {np.shape(value)}")
    return array[0]


def _range(xs: Xs, attrs: Attrs, out: Dtypes) -> list[np.ndarray]:
    start, limit, delta = (_scalar(xs, i) for i in range(3))
    n = range_count(float(start), float(limit), float(delta))
    return [round_to(np.array([start + i * delta for i in range(n)], dtype=np.asarray(start).dtype), out[0])]


def _range_shape(shapes: Xs, values: Xs, attrs: Attrs) -> list[tuple[int, ...]]:
    start, limit, delta = (float(_scalar(values, i)) for i in range(3))
    return [(range_count(start, limit, delta),)]


def _linspace(xs: Xs, attrs: Attrs, out: Dtypes) -> list[np.ndarray]:
    result = linspace(float(_scalar(xs, 0)), float(_scalar(xs, 1)), scalar_int(xs, 2))
    return [round_to(result, out[0])]


def _linspace_shape(shapes: Xs, values: Xs, attrs: Attrs) -> list[tuple[int, ...]]:
    return [(scalar_int(values, 2),)]


def _sort(xs: Xs, attrs: Attrs, out: Dtypes) -> list[np.ndarray]:
    axis = normalize_axis(attrs["axis"], max(xs[0].ndim, 1), "axis")
    values, order = sort(xs[0].reshape(xs[0].shape or (1,)), axis, bool(attrs["descending"]))
    return [round_to(values.reshape(xs[0].shape), out[0]), round_to(order.reshape(xs[0].shape), out[1])]


def _two_like_first(shapes: Xs, values: Xs, attrs: Attrs) -> list[tuple[int, ...]]:
    return [shapes[0], shapes[0]]


def _topk_v2(xs: Xs, attrs: Attrs, out: Dtypes) -> list[np.ndarray]:
    axis = normalize_axis(attrs["dim"], xs[0].ndim, "dim")
    values, indices = topk(xs[0], scalar_int(xs, 1), axis, bool(attrs["largest"]))
    return [round_to(values, out[0]), round_to(indices, out[1])]


def _topk_v2_shape(shapes: Xs, values: Xs, attrs: Attrs) -> list[tuple[int, ...]]:
    axis = normalize_axis(attrs["dim"], len(shapes[0]), "dim")
    k = scalar_int(values, 1)
    if not 0 <= k <= shapes[0][axis]:
        raise ValueError(f"k={k} outside [0, {shapes[0][axis]}]")
    s = tuple(k if i == axis else d for i, d in enumerate(shapes[0]))
    return [s, s]


def _segment_sum(xs: Xs, attrs: Attrs, out: Dtypes) -> list[np.ndarray]:
    return [round_to(segment_sum(widen(xs[0]), xs[1], scalar_int(xs, 2)), out[0])]


def _segment_sum_shape(shapes: Xs, values: Xs, attrs: Attrs) -> list[tuple[int, ...]]:
    num = scalar_int(values, 2)
    return [(num,) + shapes[0][len(shapes[1]):]]


def _segment_empty(how: str, dtype: np.dtype) -> float:
    """The value of an empty segment: the dtype's lowest (max), highest (min) or 1 (prod)."""
    if how == "mul":
        return 1
    low, high = int_range(dtype) if is_int_dtype(dtype) else (-float(ml_dtypes.finfo(dtype).max),
                                                               float(ml_dtypes.finfo(dtype).max))
    return low if how == "max" else high


def _segment_reduce(how: str, from_attr: bool) -> Any:
    def compute(xs: Xs, attrs: Attrs, out: Dtypes) -> list[np.ndarray]:
        num = int(attrs["num_segments"]) if from_attr else scalar_int(xs, 2)
        return [round_to(segment_reduce(widen(xs[0]), xs[1], num, how, _segment_empty(how, out[0])), out[0])]
    return compute


def _segment_reduce_shape(from_attr: bool) -> Any:
    def shape(shapes: Xs, values: Xs, attrs: Attrs) -> list[tuple[int, ...]]:
        num = int(attrs["num_segments"]) if from_attr else scalar_int(values, 2)
        return [(num,) + shapes[0][len(shapes[1]):]]
    return shape


def _sorted_segment_sum(xs: Xs, attrs: Attrs, out: Dtypes) -> list[np.ndarray]:
    return [round_to(sorted_segment_sum(widen(xs[0]), xs[1]), out[0])]


def _sorted_segment_sum_shape(shapes: Xs, values: Xs, attrs: Attrs) -> list[tuple[int, ...]]:
    ids = needed_value(values, 1)
    return [(int(ids.max()) + 1 if ids.size else 0,) + shapes[0][len(shapes[1]):]]


def _bucketize(xs: Xs, attrs: Attrs, out: Dtypes) -> list[np.ndarray]:
    return [round_to(bucketize(widen(xs[0]), [float(b) for b in attrs["boundaries"]]), out[0])]


def _in_top_k(xs: Xs, attrs: Attrs, out: Dtypes) -> list[np.ndarray]:
    return [round_to(in_top_k(widen(xs[0]), xs[1], int(attrs["k"])), out[0])]


def _in_top_k_shape(shapes: Xs, values: Xs, attrs: Attrs) -> list[tuple[int, ...]]:
    return [shapes[1]]


def _index_add(xs: Xs, attrs: Attrs, out: Dtypes) -> list[np.ndarray]:
    axis = normalize_axis(attrs["axis"], xs[0].ndim, "axis")
    return [round_to(index_add(widen(xs[0]), xs[1], widen(xs[2]), axis), out[0])]


def _masked_fill(xs: Xs, attrs: Attrs, out: Dtypes) -> list[np.ndarray]:
    return [round_to(masked_fill(widen(xs[0]), xs[1].astype(bool), widen(xs[2])), out[0])]


def _masked_fill_shape(shapes: Xs, values: Xs, attrs: Attrs) -> list[tuple[int, ...]]:
    return [np.broadcast_shapes(shapes[0], shapes[1])]


def _masked_select(xs: Xs, attrs: Attrs, out: Dtypes) -> list[np.ndarray]:
    return [round_to(masked_select(widen(xs[0]), xs[1].astype(bool)), out[0])]


def _masked_select_shape(shapes: Xs, values: Xs, attrs: Attrs) -> list[tuple[int, ...]]:
    x, mask = needed_value(values, 0), needed_value(values, 1)
    return [masked_select(x, mask.astype(bool)).shape]


def _search_sorted(xs: Xs, attrs: Attrs, out: Dtypes) -> list[np.ndarray]:
    seq = widen(xs[0])
    if xs[2] is not None:
        seq = np.take_along_axis(seq, xs[2].astype(np.int64), axis=-1)
    return [round_to(search_sorted(seq, widen(xs[1]), bool(attrs["right"])), out[0])]


def _search_sorted_shape(shapes: Xs, values: Xs, attrs: Attrs) -> list[tuple[int, ...]]:
    return [shapes[1]]


def _bincount(xs: Xs, attrs: Attrs, out: Dtypes) -> list[np.ndarray]:
    return [round_to(bincount(xs[0], scalar_int(xs, 1), widen(xs[2])), out[0])]


def _bincount_shape(shapes: Xs, values: Xs, attrs: Attrs) -> list[tuple[int, ...]]:
    return [(scalar_int(values, 1),)]


def _sort_v2(xs: Xs, attrs: Attrs, out: Dtypes) -> list[np.ndarray]:
    axis = normalize_axis(attrs["axis"], max(xs[0].ndim, 1), "axis")
    values, _ = sort(xs[0].reshape(xs[0].shape or (1,)), axis, bool(attrs["descending"]))
    return [round_to(values.reshape(xs[0].shape), out[0])]


def _index_fill_d(xs: Xs, attrs: Attrs, out: Dtypes) -> list[np.ndarray]:
    """y = x * assist1 + assist2: x where assist1 is 1 and assist2 0, the fill value where assist1 is 0."""
    x, keep, fill = (widen(a) for a in xs)
    return [round_to(x * keep + fill, out[0])]


def histogram_fixed_width(x: np.ndarray, low: float, high: float, nbins: int) -> np.ndarray:
    """TensorFlow HistogramFixedWidth: counts of x in nbins equal bins over [low, high); values below go to the
    first bin, values at or above high to the last."""
    if not high > low:
        raise InputError(1, lambda name: f"{name} must hold [low, high] with low < high, got [{low}, {high}]")
    if nbins < 1:
        raise ValueError(f"nbins {nbins} must be at least 1")
    bins = np.clip(np.floor((x - low) / (high - low) * nbins), 0, nbins - 1).astype(np.int64)
    return np.bincount(bins.reshape(-1), minlength=nbins)


def _histogram(xs: Xs, attrs: Attrs, out: Dtypes) -> list[np.ndarray]:
    low, high = (float(v) for v in widen(xs[1]).reshape(-1)[:2])
    return [round_to(histogram_fixed_width(widen(xs[0]), low, high, int(attrs["nbins"])), out[0])]


def _histogram_shape(shapes: Xs, values: Xs, attrs: Attrs) -> list[tuple[int, ...]]:
    return [(int(attrs["nbins"]),)]


def _arg_max_grad_d(xs: Xs, attrs: Attrs, out: Dtypes) -> list[np.ndarray]:
    """Each element of var whose position along dimension (as assist records it) is the one indices names for its
    line takes that line's update; the others keep var."""
    var, indices, updates, assist = xs
    dim = normalize_axis(attrs["dimension"], var.ndim, "dimension")
    line_shape = var.shape[:dim] + var.shape[dim + 1:]
    if indices.size != math.prod(line_shape) or updates.size != indices.size:
        raise InputError((1, 2), lambda a, b: f"{a} and {b} must hold one element per line of var along dimension "
                                              f"{dim} ({math.prod(line_shape)}), got {indices.size} and {updates.size}")
    indices, updates = indices.reshape(line_shape), updates.reshape(line_shape)
    y = widen(var).copy()
    for p in np.ndindex(*var.shape):
        line = p[:dim] + p[dim + 1:]
        if assist[p] == indices[line]:
            y[p] = widen(updates)[line]
    return [round_to(y, out[0])]


def sparse_segment_sum_grad(grad: np.ndarray, indices: np.ndarray, ids: np.ndarray, rows: int) -> np.ndarray:
    """TensorFlow SparseSegmentSumGrad: row indices[i] of the output gets row ids[i] of grad added."""
    if indices.shape != ids.shape or indices.ndim != 1:
        raise InputError((1, 2), lambda a, b: f"{a} and {b} must be 1-D of one length, got {list(indices.shape)} and "
                                              f"{list(ids.shape)}")
    out = np.zeros((rows,) + grad.shape[1:], dtype=np.float64)
    for i in range(indices.size):
        target = _checked(int(indices[i]), rows, False, "row")
        source = _checked(int(ids[i]), grad.shape[0], False, "segment id")
        out[target] += grad[source]
    return out


def _sparse_segment_sum_grad(xs: Xs, attrs: Attrs, out: Dtypes) -> list[np.ndarray]:
    grad, indices, ids, _ = xs
    rows = scalar_int(xs, 3)
    return [round_to(sparse_segment_sum_grad(widen(grad), np.asarray(indices), np.asarray(ids), rows), out[0])]


def _sparse_segment_sum_grad_shape(shapes: Xs, values: Xs, attrs: Attrs) -> list[tuple[int, ...]]:
    return [(scalar_int(values, 3),) + tuple(shapes[0][1:])]


def embedding_bags(indices: np.ndarray, offsets: np.ndarray | None, include_last: bool) -> list[list[int]]:
    """The positions into indices.reshape(-1) that make up each bag (PyTorch embedding_bag)."""
    if indices.ndim == 2:
        width = indices.shape[1]
        return [list(range(b * width, (b + 1) * width)) for b in range(indices.shape[0])]
    if offsets is None:
        raise InputError(2, lambda name: f"a 1-D indices needs {name}")
    starts = [int(o) for o in offsets.reshape(-1)]
    ends = starts[1:] + ([] if include_last else [indices.size])
    starts = starts[:len(ends)]
    if any(not 0 <= a <= b <= indices.size for a, b in zip(starts, ends)):
        raise InputError(2, lambda name: f"{name} {starts} must rise from 0 to at most {indices.size}")
    return [list(range(a, b)) for a, b in zip(starts, ends)]


def _embedding_bag(xs: Xs, attrs: Attrs, out: Dtypes) -> list[np.ndarray]:
    weight, indices, offsets, scales = xs
    mode = attrs["mode"]
    flat = np.asarray(indices).reshape(-1)
    rows = widen(weight)
    factors = widen(scales).reshape(-1) if scales is not None else np.ones(flat.size)
    bags = embedding_bags(np.asarray(indices), offsets, bool(attrs["include_last_offset"]))
    y = np.zeros((len(bags), weight.shape[1]), dtype=np.float64)
    for b, positions in enumerate(bags):
        picked = [rows[_checked(int(flat[i]), weight.shape[0], False, "row")] * factors[i] for i in positions]
        if picked:
            y[b] = np.max(picked, axis=0) if mode == "max" else np.sum(picked, axis=0) / (
                len(picked) if mode == "mean" else 1)
    return [round_to(y, out[0])]


def _embedding_bag_shape(shapes: Xs, values: Xs, attrs: Attrs) -> list[tuple[int, ...]]:
    weight, indices = shapes[0], shapes[1]
    if len(indices) == 2:
        return [(indices[0], weight[1])]
    count = shapes[2][0] - (1 if attrs["include_last_offset"] else 0)
    return [(count, weight[1])]


def _like_first(shapes: Xs, values: Xs, attrs: Attrs) -> list[tuple[int, ...]]:
    return [shapes[0]]


OPS: tuple[RefOp, ...] = (
    define("GatherV2", _gather_v2, _gather_v2_shape),
    define("GatherNd", _gather_nd, _gather_nd_shape),
    define("GatherElements", _gather_elements, _index_shape),
    define("ScatterNd", _scatter_nd, _scatter_nd_shape),
    define("ScatterNdUpdate", _scatter(True, "set"), _first_shape),
    define("ScatterUpdate", _scatter(False, "set"), _first_shape),
    define("ScatterAdd", _scatter(False, "add"), _first_shape),
    define("ScatterElements", _scatter_elements, _first_shape),
    define("OneHot", _one_hot, _one_hot_shape),
    define("Range", _range, _range_shape),
    define("LinSpace", _linspace, _linspace_shape),
    define("Sort", _sort, _two_like_first),
    define("TopKV2", _topk_v2, _topk_v2_shape),
    define("UnsortedSegmentSum", _segment_sum, _segment_sum_shape),
    define("MaskedFill", _masked_fill, _masked_fill_shape),
    define("MaskedSelect", _masked_select, _masked_select_shape),
    define("SearchSorted", _search_sorted, _search_sorted_shape),
    define("Bincount", _bincount, _bincount_shape),
    define("ScatterSub", _scatter(False, "sub"), _first_shape),
    define("ScatterMul", _scatter(False, "mul"), _first_shape),
    define("ScatterDiv", _scatter(False, "div"), _first_shape),
    define("ScatterMax", _scatter(False, "max"), _first_shape),
    define("ScatterMin", _scatter(False, "min"), _first_shape),
    define("ScatterNdAdd", _scatter(True, "add"), _first_shape),
    define("ScatterNdSub", _scatter(True, "sub"), _first_shape),
    define("TensorScatterMax", _scatter(True, "max"), _first_shape),
    define("TensorScatterMin", _scatter(True, "min"), _first_shape),
    define("UnsortedSegmentMax", _segment_reduce("max", False), _segment_reduce_shape(False)),
    define("UnsortedSegmentMin", _segment_reduce("min", False), _segment_reduce_shape(False)),
    define("UnsortedSegmentProd", _segment_reduce("mul", False), _segment_reduce_shape(False)),
    define("UnsortedSegmentMaxD", _segment_reduce("max", True), _segment_reduce_shape(True)),
    define("UnsortedSegmentMinD", _segment_reduce("min", True), _segment_reduce_shape(True)),
    define("UnsortedSegmentProdD", _segment_reduce("mul", True), _segment_reduce_shape(True)),
    define("SegmentSum", _sorted_segment_sum, _sorted_segment_sum_shape),
    define("Bucketize", _bucketize, _first_shape),
    define("InTopKD", _in_top_k, _in_top_k_shape),
    define("InplaceIndexAdd", _index_add, _first_shape),
    define("SortV2", _sort_v2, _like_first),
    define("IndexFillD", _index_fill_d, _like_first),
    define("HistogramFixedWidthD", _histogram, _histogram_shape),
    define("ArgMaxGradD", _arg_max_grad_d, _like_first),
    define("SparseSegmentSumGrad", _sparse_segment_sum_grad, _sparse_segment_sum_grad_shape),
    define("EmbeddingBag", _embedding_bag, _embedding_bag_shape),
)
