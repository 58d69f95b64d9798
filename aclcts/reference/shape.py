"""Data-movement references: Transpose, Reshape, ConcatD, SplitD, Split, Slice and Tile (values copied bit for bit),
and the const-folded TransposeD, SliceD and TileD through them."""

from __future__ import annotations

from typing import Any

import numpy as np

from aclcts.reference.base import RefOp, define, needed_value, normalize_axis, normalize_axes, scalar_int
from aclcts.reference.folded import folded
from aclcts.reference.numeric import round_to


def _ints(value: np.ndarray) -> list[int]:
    """Return the elements of an index tensor as Python ints."""
    return [int(v) for v in np.asarray(value).reshape(-1)]


def transpose_perm(perm: np.ndarray, rank: int) -> tuple[int, ...]:
    """Validate Transpose's `perm` input (input 1): a permutation of range(rank)."""
    p = normalize_axes(perm, rank, 1)
    if len(p) != rank:
        raise ValueError(f"perm {_ints(perm)} must list all {rank} axes")
    return p


def reshape_target(x_shape: tuple[int, ...], shape: np.ndarray, axis: int, num_axes: int) -> tuple[int, ...]:
    """Reshape's output shape: dims [axis, axis+num_axes) of x are replaced by `shape` (num_axes -1: to the end).

    Inside `shape`, -1 (at most once) is inferred from the element count and 0 copies the input dim at
    the same position (Caffe's rule; the prototype names both TensorFlow and Caffe, and TensorFlow reads
    0 as a literal zero: UNCONFIRMED which one the device applies).
    """
    rank = len(x_shape)
    start = normalize_axis(axis, rank + 1, "axis")
    end = rank if num_axes == -1 else start + int(num_axes)
    if not start <= end <= rank:
        raise ValueError(f"axis={axis}, num_axes={num_axes} do not fit a rank-{rank} input")
    dims = _ints(shape)
    resolved = [x_shape[start + i] if d == 0 and start + i < rank else d for i, d in enumerate(dims)]
    if resolved.count(-1) > 1 or any(d < -1 for d in resolved):
        raise ValueError(f"shape {dims}: at most one -1 and no other negative dims allowed")
    new = list(x_shape[:start]) + resolved + list(x_shape[end:])
    total = int(np.prod(x_shape))
    if -1 in new:
        known = int(np.prod([d for d in new if d != -1]))
        if known == 0 or total % known:
            raise ValueError(f"cannot infer -1 in shape {dims} for {total} elements")
        new[new.index(-1)] = total // known
    if int(np.prod(new)) != total:
        raise ValueError(f"shape {dims} gives {int(np.prod(new))} elements, input has {total}")
    return tuple(new)


def slice_bounds(x_shape: tuple[int, ...], offsets: np.ndarray, size: np.ndarray) -> list[tuple[int, int]]:
    """Slice's (begin, end) per axis; size -1 means "to the end"."""
    off, sz = _ints(offsets), _ints(size)
    if len(off) != len(x_shape) or len(sz) != len(x_shape):
        raise ValueError(f"offsets {off} and size {sz} must both have {len(x_shape)} elements")
    bounds = []
    for axis, (dim, o, s) in enumerate(zip(x_shape, off, sz)):
        end = dim if s == -1 else o + s
        if not (0 <= o <= dim and s >= -1 and o <= end <= dim):
            raise ValueError(f"axis {axis}: offset {o}, size {s} outside dim {dim}")
        bounds.append((o, end))
    return bounds


def tile_multiples(x_shape: tuple[int, ...], multiples: np.ndarray) -> list[int]:
    """Validate Tile's `multiples`: a non-negative count per axis, at least as many as x has axes.

    A longer `multiples` tiles x with 1s put in front of its shape (CANN's TileInferShape and TBE tile).
    """
    m = _ints(multiples)
    if len(m) < len(x_shape) or any(v < 0 for v in m):
        raise ValueError(f"multiples {m} must be at least {len(x_shape)} non-negative ints (the rank of x)")
    return m


def _concat_inputs(shapes: list[tuple[int, ...] | None], attrs: dict[str, Any]) -> int:
    """Check ConcatD's inputs and N (checked only when given); return the normalised concat_dim."""
    if int(attrs["N"]) != len(shapes):
        raise ValueError(f"attribute N={attrs['N']} but {len(shapes)} inputs given")
    rank = len(shapes[0])
    axis = normalize_axis(attrs["concat_dim"], rank, "concat_dim")
    for i, s in enumerate(shapes):
        if len(s) != rank or any(d != e for j, (d, e) in enumerate(zip(s, shapes[0])) if j != axis):
            raise ValueError(f"input x{i} shape {s} does not match {shapes[0]} outside axis {axis}")
    return axis


def _split_axis(x_shape: tuple[int, ...], attrs: dict[str, Any]) -> int:
    """Check SplitD's attributes; return the normalised split_dim."""
    axis = normalize_axis(attrs["split_dim"], len(x_shape), "split_dim")
    n = int(attrs["num_split"])
    if n < 1 or x_shape[axis] % n:
        raise ValueError(f"num_split={n} does not divide dim {x_shape[axis]} of axis {axis}")
    return axis


def _transpose(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    """Transpose compute: (x, perm)."""
    return [round_to(np.transpose(xs[0], transpose_perm(xs[1], xs[0].ndim)), out[0])]


def _transpose_shape(shapes: list[Any], values: list[Any], attrs: dict[str, Any]) -> list[tuple[int, ...]]:
    """Transpose output shape."""
    perm = transpose_perm(needed_value(values, 1), len(shapes[0]))
    return [tuple(shapes[0][p] for p in perm)]


def _reshape(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    """Reshape compute: (x, shape)."""
    target = reshape_target(xs[0].shape, xs[1], int(attrs["axis"]), int(attrs["num_axes"]))
    return [round_to(np.reshape(xs[0], target), out[0])]


def _reshape_shape(shapes: list[Any], values: list[Any], attrs: dict[str, Any]) -> list[tuple[int, ...]]:
    """Reshape output shape."""
    return [reshape_target(shapes[0], needed_value(values, 1), int(attrs["axis"]), int(attrs["num_axes"]))]


def _concat(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    """ConcatD compute: dynamic input x."""
    axis = _concat_inputs([x.shape for x in xs], attrs)
    return [round_to(np.concatenate(xs, axis=axis), out[0])]


def _concat_shape(shapes: list[Any], values: list[Any], attrs: dict[str, Any]) -> list[tuple[int, ...]]:
    """ConcatD output shape."""
    axis = _concat_inputs(shapes, attrs)
    first = list(shapes[0])
    first[axis] = sum(s[axis] for s in shapes)
    return [tuple(first)]


def _split(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    """SplitD compute: num_split equal parts along split_dim."""
    axis = _split_axis(xs[0].shape, attrs)
    parts = np.split(xs[0], int(attrs["num_split"]), axis=axis)
    if len(parts) != len(out):
        raise ValueError(f"num_split={len(parts)} outputs but {len(out)} output dtype(s) given")
    return [round_to(p, d) for p, d in zip(parts, out)]


def _split_shape(shapes: list[Any], values: list[Any], attrs: dict[str, Any]) -> list[tuple[int, ...]]:
    """SplitD output shapes."""
    axis = _split_axis(shapes[0], attrs)
    n = int(attrs["num_split"])
    part = tuple(d // n if i == axis else d for i, d in enumerate(shapes[0]))
    return [part] * n


def _slice(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    """Slice compute: (x, offsets, size)."""
    bounds = slice_bounds(xs[0].shape, xs[1], xs[2])
    return [round_to(xs[0][tuple(slice(b, e) for b, e in bounds)], out[0])]


def _slice_shape(shapes: list[Any], values: list[Any], attrs: dict[str, Any]) -> list[tuple[int, ...]]:
    """Slice output shape."""
    bounds = slice_bounds(shapes[0], needed_value(values, 1), needed_value(values, 2))
    return [tuple(e - b for b, e in bounds)]


def _tile(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    """Tile compute: (x, multiples)."""
    return [round_to(np.tile(xs[0], tile_multiples(xs[0].shape, xs[1])), out[0])]


def _tile_shape(shapes: list[Any], values: list[Any], attrs: dict[str, Any]) -> list[tuple[int, ...]]:
    """Tile output shape."""
    m = tile_multiples(shapes[0], needed_value(values, 1))
    aligned = (1,) * (len(m) - len(shapes[0])) + tuple(shapes[0])
    return [tuple(d * k for d, k in zip(aligned, m))]


def _split_input(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    """Split compute: (split_dim, x), as SplitD with split_dim an attribute."""
    return _split([xs[1]], {**attrs, "split_dim": scalar_int(xs, 0)}, out)


def _split_input_shape(shapes: list[Any], values: list[Any], attrs: dict[str, Any]) -> list[tuple[int, ...]]:
    """Split output shapes (need the value of split_dim)."""
    return _split_shape([shapes[1]], [None], {**attrs, "split_dim": scalar_int(values, 0)})


def _axis_multiples(rank: int, attrs: dict[str, Any]) -> np.ndarray:
    """TileWithAxis's attributes as Tile's multiples: tiles at axis and ones elsewhere."""
    if int(attrs["tiles"]) < 1:
        raise ValueError(f"tiles {attrs['tiles']} must be at least 1")
    multiples = np.ones(rank, dtype=np.int64)
    multiples[normalize_axis(attrs["axis"], rank, "axis")] = int(attrs["tiles"])
    return multiples


def _tile_with_axis(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    """TileWithAxis compute: Tile with the multiples _axis_multiples gives."""
    return _tile([xs[0], _axis_multiples(xs[0].ndim, attrs)], attrs, out)


def _tile_with_axis_shape(shapes: list[Any], values: list[Any], attrs: dict[str, Any]) -> list[tuple[int, ...]]:
    """TileWithAxis output shape."""
    return _tile_shape([shapes[0]], [None, _axis_multiples(len(shapes[0]), attrs)], attrs)


def _last_dim_positions(shape: tuple[int, ...], attrs: dict[str, Any]) -> list[int]:
    """SliceLastDim's positions start, start + stride, ... short of end along the last dim (negative ones count from
    its end)."""
    if not shape:
        raise ValueError("x must have rank 1 or more")
    start, end, stride = (int(attrs[k]) for k in ("start", "end", "stride"))
    if stride < 1:
        raise ValueError(f"stride {stride} must be at least 1")
    start, end = (v + shape[-1] if v < 0 else v for v in (start, end))
    if not 0 <= start < end <= shape[-1]:
        raise ValueError(f"start {attrs['start']} and end {attrs['end']} must select a part of the last dim "
                         f"{shape[-1]}")
    return list(range(start, end, stride))


def _slice_last_dim(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    """SliceLastDim: x[..., start:end:stride]."""
    return [np.take(xs[0], _last_dim_positions(xs[0].shape, attrs), axis=-1)]


_TRANSPOSE = define("Transpose", _transpose, _transpose_shape)
_SLICE = define("Slice", _slice, _slice_shape)
_TILE = define("Tile", _tile, _tile_shape)

OPS: tuple[RefOp, ...] = (
    _TRANSPOSE,
    define("Reshape", _reshape, _reshape_shape),
    define("ConcatD", _concat, _concat_shape),
    define("SplitD", _split, _split_shape),
    _SLICE,
    _TILE,
    define("Split", _split_input, _split_input_shape),
    folded("TransposeD", _TRANSPOSE, lambda a: {1: a["perm"]}),
    folded("SliceD", _SLICE, lambda a: {1: a["offsets"], 2: a["size"]}),
    folded("TileD", _TILE, lambda a: {1: a["multiples"]}, lift="multiples"),
    define("TileWithAxis", _tile_with_axis, _tile_with_axis_shape),
    define("SliceLastDim", _slice_last_dim,
           lambda shapes, values, attrs: [tuple(shapes[0][:-1]) + (len(_last_dim_positions(shapes[0], attrs)),)]),
)
