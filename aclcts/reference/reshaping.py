"""Movement and shape references of issue 23 (values copied bit for bit, NaN payloads included).

Second formulations of what the simulator does with NumPy's own movement routines: pads and rolls as explicit
source-index maps, strided slices as explicit index ranges per dim, concatenation and stacking by writing each
input into its place in an empty result, depth/space moves as computed source positions, Tril/Triu as index masks.
Expand (ONNX), PadV2, SpaceToBatchND and BatchToSpaceND (TensorFlow, as explicit index walks) of issue 35, and the const-folded twins through these references.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from aclcts.reference.base import InputError, RefOp, define, needed_value, normalize_axis, normalize_axes
from aclcts.reference.folded import LAST, folded

Array = np.ndarray


def _ints(value: Any) -> list[int]:
    """The elements of an index tensor as Python ints."""
    return [int(v) for v in np.asarray(value).reshape(-1)]


def _gather(x: Array, index_lists: list[list[int]]) -> Array:
    """x at the outer product of one list of source indices per dim."""
    if x.ndim == 0:
        return x.copy()
    return x[np.ix_(*[np.asarray(i, dtype=np.int64) for i in index_lists])]


# padding --------------------------------------------------------------------------------------------------------
def pad_pairs(paddings: Any, rank: int, contiguous: bool = True) -> list[tuple[int, int]]:
    """(before, after) per dim from paddings [[b0, e0], [b1, e1], ...] (contiguous) or [b0, b1, ..., e0, e1, ...]."""
    flat = _ints(paddings)
    if len(flat) != 2 * rank:
        raise ValueError(f"paddings {flat} must hold 2 values for each of the {rank} dims of x")
    pairs = [(flat[2 * i], flat[2 * i + 1]) if contiguous else (flat[i], flat[rank + i]) for i in range(rank)]
    if any(b < 0 or e < 0 for b, e in pairs):
        raise ValueError(f"paddings {flat} must not be negative")
    return pairs


def _source_index(o: int, dim: int, mode: str) -> int:
    """The source position of padded position o (o < 0 or o >= dim are padding) under a mirror/edge mode."""
    if mode == "edge":
        return min(max(o, 0), dim - 1)
    if mode == "reflect":
        period = 2 * (dim - 1)
        r = o % period if period else 0
        return r if r < dim else period - r
    period = 2 * dim
    r = o % period
    return r if r < dim else period - 1 - r


def _limit(mode: str, dim: int) -> float:
    """The largest padding a mode allows on one side of a dim of this size (edge: any, unless the dim is empty)."""
    return {"reflect": dim - 1, "symmetric": dim}.get(mode, float("inf") if dim > 0 else 0)


def mode_pad(x: Array, pairs: list[tuple[int, int]], mode: str) -> Array:
    """x padded in "reflect", "symmetric" or "edge" mode, as explicit source-index lists per dim."""
    lists = []
    for axis, ((before, after), dim) in enumerate(zip(pairs, x.shape)):
        if max(before, after) > _limit(mode, dim):
            raise ValueError(f"{mode} padding ({before}, {after}) too large for dim {axis} of size {dim}")
        lists.append([_source_index(o, dim, mode) for o in range(-before, dim + after)])
    return _gather(x, lists)


def constant_pad(x: Array, pairs: list[tuple[int, int]], value: Any) -> Array:
    """x written into an array of its dtype filled with value."""
    y = np.full(tuple(d + b + e for d, (b, e) in zip(x.shape, pairs)), value, dtype=x.dtype)
    y[tuple(slice(b, b + d) for d, (b, _) in zip(x.shape, pairs))] = x
    return y


def _padded_shape(shape: tuple[int, ...], pairs: list[tuple[int, int]]) -> tuple[int, ...]:
    return tuple(d + b + e for d, (b, e) in zip(shape, pairs))


def _pad(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[Array]:
    """Pad: zeros around x."""
    return [constant_pad(xs[0], pad_pairs(xs[1], xs[0].ndim), 0)]


def _pad_v3(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[Array]:
    """PadV3: constant (the optional constant input, zeros without it), reflect or edge."""
    x, mode = xs[0], attrs["mode"]
    pairs = pad_pairs(xs[1], x.ndim, bool(attrs["paddings_contiguous"]))
    if mode == "constant":
        value = 0 if xs[2] is None else np.asarray(xs[2]).reshape(-1)[0]
        return [constant_pad(x, pairs, value)]
    if mode not in ("reflect", "edge"):
        raise ValueError(f"mode {mode!r}: expected constant, reflect or edge")
    if x.dtype.name == "bfloat16":
        raise ValueError("bfloat16 is supported in constant mode only")
    return [mode_pad(x, pairs, mode)]


def _pad_v2(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[Array]:
    """PadV2: the first element of its padding-value input around x (CANN's pad_v2_d.py reads element 0 of a tensor of any
    shape; TensorFlow's is a scalar)."""
    value = np.asarray(xs[2]).reshape(-1)
    if value.size == 0:
        raise InputError(2, lambda name: f"{name} is empty; expected at least one value")
    return [constant_pad(xs[0], pad_pairs(xs[1], xs[0].ndim), value[0])]


def _mirror_pad(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[Array]:
    """MirrorPad: REFLECT (border not repeated) or SYMMETRIC (border repeated)."""
    mode = attrs["mode"]
    if mode not in ("REFLECT", "SYMMETRIC"):
        raise ValueError(f"mode {mode!r}: expected REFLECT or SYMMETRIC")
    return [mode_pad(xs[0], pad_pairs(xs[1], xs[0].ndim), mode.lower())]


def _pad_shape(shapes: list[Any], values: list[Any], attrs: dict[str, Any]) -> list[tuple[int, ...]]:
    contiguous = bool(attrs.get("paddings_contiguous", True))
    return [_padded_shape(shapes[0], pad_pairs(needed_value(values, 1), len(shapes[0]), contiguous))]


# dims -----------------------------------------------------------------------------------------------------------
def expand_dims_shape(shape: tuple[int, ...], axis: int) -> tuple[int, ...]:
    """shape with a 1 inserted at axis in [-rank-1, rank]."""
    a = normalize_axis(axis, len(shape) + 1, "axis")
    return shape[:a] + (1,) + shape[a:]


def squeeze_shape(shape: tuple[int, ...], axis: Any) -> tuple[int, ...]:
    """shape without the listed size-1 dims (all size-1 dims when none are listed)."""
    axes = normalize_axes(list(axis), len(shape), "axis") if len(axis) else [i for i, d in enumerate(shape) if d == 1]
    if any(shape[a] != 1 for a in axes):
        raise ValueError(f"axis {list(axis)}: every listed dim of {list(shape)} must be 1")
    return tuple(d for i, d in enumerate(shape) if i not in axes)


def unsqueeze_shape(shape: tuple[int, ...], axes: Any) -> tuple[int, ...]:
    """shape with 1s at the listed positions of the output (ONNX Unsqueeze)."""
    rank = len(shape) + len(axes)
    ones = normalize_axes(list(axes), rank, "axes")
    rest = iter(shape)
    return tuple(1 if i in ones else next(rest) for i in range(rank))


def flatten_shape(shape: tuple[int, ...], axis: int) -> tuple[int, ...]:
    """(product of dims before axis, product of the rest), axis in [-rank, rank]."""
    a = normalize_axis(axis, len(shape) + 1, "axis") if axis >= 0 else normalize_axis(axis, len(shape), "axis")
    return (int(np.prod(shape[:a], dtype=np.int64)), int(np.prod(shape[a:], dtype=np.int64)))


def broadcast_shape(shape: tuple[int, ...], target: list[int]) -> tuple[int, ...]:
    """target, checked: x's dims line up with its last dims and each is 1 or equal."""
    if len(shape) > len(target):
        raise ValueError(f"shape {target} has fewer dims than x {list(shape)}")
    tail = target[len(target) - len(shape):]
    if any(d != t and d != 1 for d, t in zip(shape, tail)) or any(t < 0 for t in target):
        raise ValueError(f"x {list(shape)} cannot be broadcast to {target}")
    return tuple(target)


def _reshaped(new_shape: Any) -> Any:
    """A compute function that keeps x's values and gives them new_shape(x.shape, xs, attrs)."""
    def compute(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[Array]:
        return [np.array(xs[0]).reshape(new_shape(xs[0].shape, xs, attrs))]
    return compute


def _expand_rule(shape: tuple[int, ...], xs: list[Any], attrs: dict[str, Any]) -> tuple[int, ...]:
    axis = _ints(xs[1])
    if len(axis) != 1:
        raise ValueError(f"axis {axis} must hold one value")
    return expand_dims_shape(tuple(shape), axis[0])


def _squeeze_rule(shape: tuple[int, ...], xs: list[Any], attrs: dict[str, Any]) -> tuple[int, ...]:
    return squeeze_shape(tuple(shape), attrs["axis"])


def _unsqueeze_rule(shape: tuple[int, ...], xs: list[Any], attrs: dict[str, Any]) -> tuple[int, ...]:
    return unsqueeze_shape(tuple(shape), attrs["axes"])


def _flatten_rule(shape: tuple[int, ...], xs: list[Any], attrs: dict[str, Any]) -> tuple[int, ...]:
    return flatten_shape(tuple(shape), int(attrs["axis"]))


def _shape_of(rule: Any, value_inputs: int = 0) -> Any:
    """The shape function of a reshaping op from its rule (the values of the value_inputs inputs after x needed)."""
    def shape(shapes: list[Any], values: list[Any], attrs: dict[str, Any]) -> list[tuple[int, ...]]:
        xs = [None] + [needed_value(values, i) for i in range(1, value_inputs + 1)]
        return [rule(shapes[0], xs, attrs)]
    return shape


def expand_shape(shape: tuple[int, ...], target: list[int]) -> tuple[int, ...]:
    """Expand's output shape (ONNX): x's shape and target aligned at their last dims, each pair equal or one of it 1."""
    rank = max(len(shape), len(target))
    dims = [(1,) * (rank - len(shape)) + tuple(shape), (1,) * (rank - len(target)) + tuple(target)]
    if any(d != t and 1 not in (d, t) for d, t in zip(*dims)) or any(t < 0 for t in target):
        raise ValueError(f"x {list(shape)} and shape {target} do not broadcast")
    return tuple(t if d == 1 else d for d, t in zip(*dims))


def _repeated(x: Array, target: tuple[int, ...]) -> Array:
    """x gathered at index 0 along its size-1 dims, written into every leading position of target."""
    lead = len(target) - x.ndim
    lists = [list(range(t)) if d == t else [0] * t for d, t in zip(x.shape, target[lead:])]
    y = np.empty(target, dtype=x.dtype)
    y[...] = _gather(x, lists)
    return y


def _broadcast_to(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[Array]:
    """BroadcastTo: x repeated to the shape input."""
    return [_repeated(xs[0], broadcast_shape(xs[0].shape, _ints(xs[1])))]


def _expand(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[Array]:
    """Expand: x repeated to the broadcast of its shape and the shape input."""
    return [_repeated(xs[0], expand_shape(xs[0].shape, _ints(xs[1])))]


# reverse, strided slice -----------------------------------------------------------------------------------------
def _reverse(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[Array]:
    """ReverseV2: x read from the far end along each listed axis."""
    x = xs[0]
    axes = normalize_axes(_ints(xs[1]), max(x.ndim, 1), "axis")
    return [_gather(x, [list(range(d - 1, -1, -1)) if i in axes else list(range(d)) for i, d in enumerate(x.shape)])]


def _bit(mask: int, i: int) -> bool:
    return bool((int(mask) >> i) & 1)


def strided_ranges(shape: tuple[int, ...], begin: list[int], end: list[int], strides: list[int],
                   attrs: dict[str, Any]) -> tuple[list[list[int]], list[int]]:
    """TensorFlow's StridedSlice rule as explicit index lists per dim of x, and the output shape (new axes 1,
    shrunk dims dropped)."""
    n = len(begin)
    if len(end) != n or len(strides) != n:
        raise ValueError(f"begin {begin}, end {end} and strides {strides} must have one length")
    ellipses = [i for i in range(n) if _bit(attrs["ellipsis_mask"], i)]
    if len(ellipses) > 1:
        raise ValueError("ellipsis_mask has more than one bit set")
    entries = list(range(n)) + ([] if ellipses else ["..."])
    if ellipses:
        entries[ellipses[0]] = "..."
    consumed = sum(1 for e in entries if e != "..." and not _bit(attrs["new_axis_mask"], e))
    lists: list[list[int]] = []
    out_shape: list[int] = []
    dim_index = 0
    for e in entries:
        if e == "...":
            for _ in range(len(shape) - consumed):
                lists.append(list(range(shape[dim_index])))
                out_shape.append(shape[dim_index])
                dim_index += 1
            continue
        if _bit(attrs["new_axis_mask"], e):
            out_shape.append(1)
            continue
        if dim_index >= len(shape):
            raise ValueError(f"begin {begin} indexes more dims than x has ({len(shape)})")
        dim, b, s = shape[dim_index], begin[e], strides[e]
        if s == 0:
            raise ValueError(f"strides {strides} has a 0")
        if _bit(attrs["shrink_axis_mask"], e):
            i = b + dim if b < 0 else b
            if not 0 <= i < dim:
                raise ValueError(f"index {b} out of range for dim {dim_index} of size {dim}")
            lists.append([i])
        else:
            lists.append(_strided(dim, b, end[e], s, _bit(attrs["begin_mask"], e), _bit(attrs["end_mask"], e)))
            out_shape.append(len(lists[-1]))
        dim_index += 1
    return lists, out_shape


def _strided(dim: int, b: int, e: int, s: int, no_begin: bool, no_end: bool) -> list[int]:
    """The positions one (begin, end, stride) walks through a dim, with the masks and TensorFlow's clamping."""
    lo, hi = (0, dim) if s > 0 else (-1, dim - 1)
    b = (lo if s > 0 else hi) if no_begin else min(max(b + dim if b < 0 else b, lo), hi)
    e = (hi if s > 0 else lo) if no_end else min(max(e + dim if e < 0 else e, lo), hi)
    positions, i = [], b
    while (i < e) if s > 0 else (i > e):
        positions.append(i)
        i += s
    return positions


def _strided_args(xs: list[Any]) -> tuple[list[int], list[int], list[int]]:
    return _ints(xs[1]), _ints(xs[2]), _ints(xs[3])


def _strided_slice(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[Array]:
    """StridedSlice: x gathered at the index lists, reshaped to the output shape."""
    lists, out_shape = strided_ranges(xs[0].shape, *_strided_args(xs), attrs)
    return [np.array(_gather(xs[0], lists)).reshape(out_shape)]


def _strided_shape(shapes: list[Any], values: list[Any], attrs: dict[str, Any]) -> list[tuple[int, ...]]:
    args = [_ints(needed_value(values, i)) for i in (1, 2, 3)]
    return [tuple(strided_ranges(shapes[0], *args, attrs)[1])]


# concatenation, stacking, splitting -----------------------------------------------------------------------------
def _check_count(attrs: dict[str, Any], count: int) -> None:
    if int(attrs["N"]) != count:
        raise ValueError(f"attribute N={attrs['N']} but {count} inputs x given")


def _concat_axis(shapes: list[tuple[int, ...]], dim: int) -> int:
    """The normalised concat axis (the input after the shapes' inputs), after checking that the shapes agree outside
    it."""
    rank = len(shapes[0])
    axis = normalize_axis(dim, rank, len(shapes))
    for i, s in enumerate(shapes):
        if len(s) != rank or any(a != b for j, (a, b) in enumerate(zip(s, shapes[0])) if j != axis):
            raise ValueError(f"input x{i} shape {list(s)} does not match {list(shapes[0])} outside axis {axis}")
    return axis


def _concat_v2(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[Array]:
    """ConcatV2: each input written at its running offset along concat_dim (the last input)."""
    parts, dim = xs[:-1], _ints(xs[-1])
    _check_count(attrs, len(parts))
    axis = _concat_axis([p.shape for p in parts], dim[0])
    shape = list(parts[0].shape)
    shape[axis] = sum(p.shape[axis] for p in parts)
    y = np.empty(shape, dtype=parts[0].dtype)
    offset = 0
    for p in parts:
        y[(slice(None),) * axis + (slice(offset, offset + p.shape[axis]),)] = p
        offset += p.shape[axis]
    return [y]


def _concat_v2_shape(shapes: list[Any], values: list[Any], attrs: dict[str, Any]) -> list[tuple[int, ...]]:
    parts = shapes[:-1]
    _check_count(attrs, len(parts))
    axis = _concat_axis(parts, _ints(needed_value(values, len(shapes) - 1))[0])
    return [tuple(sum(s[axis] for s in parts) if j == axis else d for j, d in enumerate(parts[0]))]


def _pack_axis(shapes: list[tuple[int, ...]], attrs: dict[str, Any]) -> int:
    _check_count(attrs, len(shapes))
    if any(s != shapes[0] for s in shapes):
        raise ValueError(f"inputs x have different shapes {[list(s) for s in shapes]}")
    return normalize_axis(attrs["axis"], len(shapes[0]) + 1, "axis")


def _pack(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[Array]:
    """Pack: input i written at position i of a new axis."""
    axis = _pack_axis([x.shape for x in xs], attrs)
    shape = xs[0].shape[:axis] + (len(xs),) + xs[0].shape[axis:]
    y = np.empty(shape, dtype=xs[0].dtype)
    for i, x in enumerate(xs):
        y[(slice(None),) * axis + (i,)] = x
    return [y]


def _pack_shape(shapes: list[Any], values: list[Any], attrs: dict[str, Any]) -> list[tuple[int, ...]]:
    axis = _pack_axis(shapes, attrs)
    return [shapes[0][:axis] + (len(shapes),) + shapes[0][axis:]]


def _unpack_axis(shape: tuple[int, ...], attrs: dict[str, Any]) -> int:
    axis = normalize_axis(attrs["axis"], len(shape), "axis")
    if int(attrs["num"]) != shape[axis]:
        raise ValueError(f"num={attrs['num']} but dim {axis} of x {list(shape)} is {shape[axis]}")
    return axis


def _unpack(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[Array]:
    """Unpack: output i is x at position i of axis."""
    axis = _unpack_axis(xs[0].shape, attrs)
    if len(out) != xs[0].shape[axis]:
        raise ValueError(f"{xs[0].shape[axis]} outputs but {len(out)} output dtype(s) given")
    return [np.array(np.take(xs[0], i, axis=axis)) for i in range(xs[0].shape[axis])]


def _unpack_shape(shapes: list[Any], values: list[Any], attrs: dict[str, Any]) -> list[tuple[int, ...]]:
    axis = _unpack_axis(shapes[0], attrs)
    return [shapes[0][:axis] + shapes[0][axis + 1:]] * shapes[0][axis]


def split_sizes(dim: int, sizes: list[int], num_split: int) -> list[int]:
    """SplitV's part sizes: num_split of them, one -1 taking what the others leave of dim."""
    if len(sizes) != num_split:
        raise InputError(1, lambda name: f"{name} {sizes} must hold num_split={num_split} values")
    if sizes.count(-1) > 1 or any(s < -1 for s in sizes):
        raise InputError(1, lambda name: f"{name} {sizes}: at most one -1 and no other negative size")
    known = sum(s for s in sizes if s != -1)
    resolved = [dim - known if s == -1 else s for s in sizes]
    if sum(resolved) != dim or min(resolved, default=0) < 0:
        raise InputError(1, lambda name: f"{name} {sizes} do not add up to dim {dim}")
    return resolved


def _split_v_parts(shape: tuple[int, ...], sizes: Any, split_dim: Any, attrs: dict[str, Any]) -> tuple[int, list[int]]:
    dim = _ints(split_dim)
    axis = normalize_axis(dim[0], len(shape), 2)
    return axis, split_sizes(shape[axis], _ints(sizes), int(attrs["num_split"]))


def _split_v(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[Array]:
    """SplitV: parts taken at explicit index ranges along split_dim."""
    x = xs[0]
    axis, sizes = _split_v_parts(x.shape, xs[1], xs[2], attrs)
    starts = np.concatenate([[0], np.cumsum(sizes)]).astype(int)
    return [np.take(x, np.arange(starts[i], starts[i + 1]), axis=axis) for i in range(len(sizes))]


def _split_v_shape(shapes: list[Any], values: list[Any], attrs: dict[str, Any]) -> list[tuple[int, ...]]:
    axis, sizes = _split_v_parts(shapes[0], needed_value(values, 1),
                                 needed_value(values, 2), attrs)
    return [tuple(s if j == axis else d for j, d in enumerate(shapes[0])) for s in sizes]


# depth and space ------------------------------------------------------------------------------------------------
def _nhwc(x: Array, data_format: str) -> Array:
    if data_format not in ("NHWC", "NCHW"):
        raise ValueError(f"data_format {data_format!r}: expected NHWC or NCHW")
    if x.ndim != 4:
        raise ValueError(f"x must be 4-D, got shape {list(x.shape)}")
    return x if data_format == "NHWC" else np.transpose(x, (0, 2, 3, 1))


def _from_nhwc(y: Array, data_format: str) -> Array:
    return y if data_format == "NHWC" else np.transpose(y, (0, 3, 1, 2))


def depth_to_space(x: Array, block: int, mode: str) -> Array:
    """NHWC: y[n, h*b + i, w*b + j, c] = x[n, h, w, (i*b + j)*C + c] (DCR) or x[n, h, w, c*b*b + i*b + j] (CRD)."""
    n, h, w, depth = x.shape
    if block < 2 or depth % (block * block):
        raise ValueError(f"block_size {block}: expected >= 2 dividing the depth {depth} into block_size^2 parts")
    if mode not in ("DCR", "CRD"):
        raise ValueError(f"mode {mode!r}: expected DCR or CRD")
    c_out = depth // (block * block)
    oh, ow, c = np.meshgrid(np.arange(h * block), np.arange(w * block), np.arange(c_out), indexing="ij")
    i, j = oh % block, ow % block
    src = (i * block + j) * c_out + c if mode == "DCR" else c * block * block + i * block + j
    return x[:, oh // block, ow // block, src]


def space_to_depth(x: Array, block: int) -> Array:
    """NHWC: y[n, h, w, (i*b + j)*C + c] = x[n, h*b + i, w*b + j, c]."""
    n, h, w, c_in = x.shape
    if block < 2 or h % block or w % block:
        raise ValueError(f"block_size {block}: expected >= 2 dividing height {h} and width {w}")
    oh, ow, oc = np.meshgrid(np.arange(h // block), np.arange(w // block), np.arange(c_in * block * block),
                             indexing="ij")
    ij, c = oc // c_in, oc % c_in
    return x[:, oh * block + ij // block, ow * block + ij % block, c]


def _depth_to_space(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[Array]:
    fmt = attrs["data_format"]
    return [_from_nhwc(depth_to_space(_nhwc(xs[0], fmt), int(attrs["block_size"]), attrs["mode"]), fmt)]


def _space_to_depth(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[Array]:
    fmt = attrs["data_format"]
    return [_from_nhwc(space_to_depth(_nhwc(xs[0], fmt), int(attrs["block_size"])), fmt)]


def _depth_space_shape(fn: Any) -> Any:
    def shape(shapes: list[Any], values: list[Any], attrs: dict[str, Any]) -> list[tuple[int, ...]]:
        probe = np.zeros(shapes[0], dtype=np.int8)
        return [fn([probe], attrs, [np.dtype(np.int8)])[0].shape]
    return shape


def _blocks(shape: tuple[int, ...], block: Any, pads: Any) -> tuple[list[int], list[tuple[int, int]]]:
    """block shape (M values, each >= 1) and the M (before, after) pairs of paddings or crops, checked against x."""
    sizes = _ints(block)
    pairs = [(int(a), int(b)) for a, b in np.asarray(pads, dtype=np.int64).reshape(-1, 2)]
    if not sizes or len(pairs) != len(sizes) or len(shape) < len(sizes) + 1 or min(sizes) < 1:
        raise ValueError(f"block shape {sizes} and the pairs {pairs} must both cover 1 to {len(shape) - 1} dims of "
                         f"x {list(shape)}, every block at least 1")
    if any(min(p) < 0 for p in pairs):
        raise ValueError(f"paddings or crops {pairs} must not be negative")
    return sizes, pairs


def space_to_batch(x: Array, sizes: list[int], pairs: list[tuple[int, int]]) -> Array:
    """TensorFlow's SpaceToBatchND: y[(o * batch) + n, i..., r] = padded x[n, i_k * b_k + o_k ..., r], o the
    row-major index of the block offsets (o_1..o_M)."""
    m, batch = len(sizes), x.shape[0]
    padded = constant_pad(x, [(0, 0)] + pairs + [(0, 0)] * (x.ndim - 1 - m), 0)
    spatial = padded.shape[1:1 + m]
    if any(d % b for d, b in zip(spatial, sizes)):
        raise ValueError(f"padded spatial dims {list(spatial)} are not multiples of block shape {sizes}")
    inner = [d // b for d, b in zip(spatial, sizes)]
    y = np.empty((batch * int(np.prod(sizes)), *inner, *padded.shape[1 + m:]), dtype=x.dtype)
    for o, offsets in enumerate(np.ndindex(*sizes)):
        for n in range(batch):
            for i in np.ndindex(*inner):
                y[(o * batch + n, *i)] = padded[(n, *(ik * bk + ok for ik, bk, ok in zip(i, sizes, offsets)))]
    return y


def batch_to_space(x: Array, sizes: list[int], pairs: list[tuple[int, int]]) -> Array:
    """TensorFlow's BatchToSpaceND: the inverse walk, padded y[n, i_k * b_k + o_k ..., r] = x[o * batch + n, i...,
    r], then the crops taken off each spatial dim."""
    m, total = len(sizes), int(np.prod(sizes))
    if x.shape[0] % total:
        raise ValueError(f"x's batch {x.shape[0]} is not a multiple of the block size {total}")
    batch, inner = x.shape[0] // total, x.shape[1:1 + m]
    full = [d * b for d, b in zip(inner, sizes)]
    if any(a + b > d for (a, b), d in zip(pairs, full)):
        raise ValueError(f"crops {pairs} exceed the spatial dims {full}")
    padded = np.empty((batch, *full, *x.shape[1 + m:]), dtype=x.dtype)
    for o, offsets in enumerate(np.ndindex(*sizes)):
        for n in range(batch):
            for i in np.ndindex(*inner):
                padded[(n, *(ik * bk + ok for ik, bk, ok in zip(i, sizes, offsets)))] = x[(o * batch + n, *i)]
    return np.array(padded[(slice(None), *(slice(a, d - b) for (a, b), d in zip(pairs, full)))])


def _space_batch(forward: bool) -> Any:
    """SpaceToBatchND (forward) or BatchToSpaceND: (x, block shape, paddings or crops)."""
    def compute(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[Array]:
        sizes, pairs = _blocks(xs[0].shape, xs[1], xs[2])
        return [space_to_batch(xs[0], sizes, pairs) if forward else batch_to_space(xs[0], sizes, pairs)]
    return compute


def _space_batch_shape(forward: bool) -> Any:
    """The output shape of SpaceToBatchND (forward) or BatchToSpaceND, from x's shape and the two value inputs."""
    def shape(shapes: list[Any], values: list[Any], attrs: dict[str, Any]) -> list[tuple[int, ...]]:
        x = tuple(shapes[0])
        sizes, pairs = _blocks(x, needed_value(values, 1), needed_value(values, 2))
        m, total = len(sizes), int(np.prod(sizes))
        if forward:
            spatial = [d + a + b for d, (a, b) in zip(x[1:1 + m], pairs)]
            if any(d % b for d, b in zip(spatial, sizes)):
                raise ValueError(f"padded spatial dims {spatial} are not multiples of block shape {sizes}")
            return [(x[0] * total, *(d // b for d, b in zip(spatial, sizes)), *x[1 + m:])]
        if x[0] % total:
            raise ValueError(f"x's batch {x[0]} is not a multiple of the block size {total}")
        return [(x[0] // total, *(d * b - a - c for d, b, (a, c) in zip(x[1:1 + m], sizes, pairs)), *x[1 + m:])]
    return shape


# Permute, Identity, Tril/Triu, Roll, Diag -----------------------------------------------------------------------
def permute_order(order: Any, rank: int) -> tuple[int, ...]:
    """Permute's order: a permutation of the dims of x (negative entries count from the end)."""
    o = normalize_axes(list(order), max(rank, 1), "order")
    if len(o) != rank:
        raise ValueError(f"order {list(order)} must list all {rank} dims of x")
    return o


def _permute(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[Array]:
    """Permute: y[p] = x[q] with q[order[i]] = p[i], as explicit source positions."""
    x = xs[0]
    order = permute_order(attrs["order"], x.ndim)
    positions = np.indices(tuple(x.shape[a] for a in order))
    source = [positions[order.index(a)] for a in range(x.ndim)]
    return [np.array(x[tuple(source)]) if x.ndim else x.copy()]


def _permute_shape(shapes: list[Any], values: list[Any], attrs: dict[str, Any]) -> list[tuple[int, ...]]:
    return [tuple(shapes[0][a] for a in permute_order(attrs["order"], len(shapes[0])))]


def _identity(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[Array]:
    return [np.array(xs[0])]


def _triangle(lower: bool) -> Any:
    """Tril (lower) or Triu: elements with column - row <= diagonal (Tril) or >= diagonal (Triu) kept, others 0."""
    def compute(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[Array]:
        x = xs[0]
        if x.ndim < 2:
            raise ValueError(f"x must have at least 2 dims, got shape {list(x.shape)}")
        rows, cols = np.indices(x.shape[-2:])
        offset = cols - rows
        keep = offset <= int(attrs["diagonal"]) if lower else offset >= int(attrs["diagonal"])
        y = np.zeros_like(x)
        y[..., keep] = x[..., keep]
        return [y]
    return compute


def roll_sources(n: int, shift: int) -> list[int]:
    """The source position of each output position after rolling n elements by shift."""
    return [(i - shift) % n if n else 0 for i in range(n)]


def _roll(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[Array]:
    """Roll: y[(i + shift) mod n] = x[i] along each dim; with no dims, over the flattened x (one shift)."""
    x, shifts, dims = xs[0], list(attrs["shifts"]), list(attrs["dims"])
    if not dims:
        if len(shifts) != 1:
            raise ValueError(f"shifts {shifts}: one shift expected when dims is empty")
        flat = x.reshape(-1)
        return [flat[np.asarray(roll_sources(flat.size, shifts[0]), dtype=np.int64)].reshape(x.shape)]
    if len(shifts) != len(dims):
        raise ValueError(f"shifts {shifts} and dims {dims} must have one length")
    total = [0] * x.ndim
    for s, d in zip(shifts, dims):
        total[normalize_axis(d, x.ndim, "dims")] += s
    return [_gather(x, [roll_sources(n, s) for n, s in zip(x.shape, total)])]


def _diag(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[Array]:
    """Diag: y[i..., i...] = x[i...], zero elsewhere; y's shape is x's shape twice."""
    x = xs[0]
    if x.ndim < 1:
        raise ValueError("x must have at least 1 dim")
    n = x.size
    square = np.zeros((n, n), dtype=x.dtype)
    square[np.arange(n), np.arange(n)] = x.reshape(-1)
    return [square.reshape(x.shape + x.shape)]


def _same_shape(shapes: list[Any], values: list[Any], attrs: dict[str, Any]) -> list[tuple[int, ...]]:
    return [shapes[0]]


_BROADCAST_TO = define("BroadcastTo", _broadcast_to,
                       lambda s, v, a: [broadcast_shape(s[0], _ints(needed_value(v, 1)))])
_EXPAND = define("Expand", _expand, lambda s, v, a: [expand_shape(s[0], _ints(needed_value(v, 1)))])
_PAD = define("Pad", _pad, _pad_shape)
_PAD_V2 = define("PadV2", _pad_v2, _pad_shape)
_STRIDED_SLICE = define("StridedSlice", _strided_slice, _strided_shape)
_CONCAT_V2 = define("ConcatV2", _concat_v2, _concat_v2_shape)
_SPLIT_V = define("SplitV", _split_v, _split_v_shape)

_SPACE_TO_BATCH_ND = define("SpaceToBatchND", _space_batch(True), _space_batch_shape(True))
_BATCH_TO_SPACE_ND = define("BatchToSpaceND", _space_batch(False), _space_batch_shape(False))

OPS: tuple[RefOp, ...] = (
    _PAD,
    define("PadV3", _pad_v3, _pad_shape),
    define("MirrorPad", _mirror_pad, _pad_shape),
    define("ExpandDims", _reshaped(_expand_rule), _shape_of(_expand_rule, 1)),
    define("Squeeze", _reshaped(_squeeze_rule), _shape_of(_squeeze_rule)),
    define("Unsqueeze", _reshaped(_unsqueeze_rule), _shape_of(_unsqueeze_rule)),
    define("Flatten", _reshaped(_flatten_rule), _shape_of(_flatten_rule)),
    _BROADCAST_TO,
    define("ReverseV2", _reverse, _same_shape),
    _STRIDED_SLICE,
    _CONCAT_V2,
    define("Pack", _pack, _pack_shape),
    define("Unpack", _unpack, _unpack_shape),
    _SPLIT_V,
    define("SpaceToDepth", _space_to_depth, _depth_space_shape(_space_to_depth)),
    define("DepthToSpace", _depth_to_space, _depth_space_shape(_depth_to_space)),
    define("Permute", _permute, _permute_shape),
    define("Identity", _identity, _same_shape),
    define("Tril", _triangle(True), _same_shape),
    define("Triu", _triangle(False), _same_shape),
    define("Roll", _roll, _same_shape),
    define("Diag", _diag, lambda s, v, a: [s[0] + s[0]]),
    _EXPAND,
    _PAD_V2,
    _SPACE_TO_BATCH_ND,
    _BATCH_TO_SPACE_ND,
    folded("BroadcastToD", _BROADCAST_TO, lambda a: {1: a["shape"]}),
    folded("ExpandD", _EXPAND, lambda a: {1: a["shape"]}),
    folded("PadD", _PAD, lambda a: {1: a["paddings"]}),
    folded("PadV2D", _PAD_V2, lambda a: {1: a["paddings"]}),
    folded("ConcatV2D", _CONCAT_V2, lambda a: {LAST: a["concat_dim"]}),
    folded("SplitVD", _SPLIT_V, lambda a: {1: a["size_splits"], 2: a["split_dim"]}),
    folded("StridedSliceD", _STRIDED_SLICE, lambda a: {1: a["begin"], 2: a["end"], 3: a["strides"]}),
    folded("SpaceToBatch", _SPACE_TO_BATCH_ND, lambda a: {1: [a["block_size"]] * 2}),
    folded("BatchToSpace", _BATCH_TO_SPACE_ND, lambda a: {1: [a["block_size"]] * 2}),
)
