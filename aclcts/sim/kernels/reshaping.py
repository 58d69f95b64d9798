"""Movement and shape kernels of issue 23 (exact, values copied bit for bit): Pad, PadV3, MirrorPad, ExpandDims,
Squeeze, Unsqueeze, Flatten, BroadcastTo, ReverseV2, StridedSlice, ConcatV2, Pack, Unpack, SplitV, SpaceToDepth,
DepthToSpace, Permute, Identity, Tril, Triu, Roll, Diag; Expand, PadV2, SpaceToBatchND and BatchToSpaceND, and the const-folded BroadcastToD, ExpandD,
PadD, PadV2D, ConcatV2D, SplitVD and StridedSliceD through their twins' kernels (aclcts/sim/kernels/folded.py).

Prototypes: aclcts/core/prototypes/reshaping.py (graphengine 910 op_proto/inc/ pad_ops.h, array_ops.h,
transformation_ops.h, selection_ops.h, split_combination_ops.h, matrix_calculation_ops.h, nn_norm_ops.h).
Semantics where the headers name a framework: StridedSlice, ReverseV2, MirrorPad, SplitV, Pack/Unpack, BroadcastTo,
SpaceToDepth/DepthToSpace and Diag as TensorFlow; PadV3, Flatten and Unsqueeze as ONNX; Roll, Tril and Triu as PyTorch.
No arithmetic happens: every output element is one input element (or the padding value, or 0), so the kernels compute
in the storage dtype with NumPy's movement routines (views, np.pad, np.flip, np.roll, reshape/transpose).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from aclcts.core.prototypes import prototype
from aclcts.sim.kernels.base import InferredShape, TensorInfo
from aclcts.sim.kernels.call import OpCall, Outputs
from aclcts.sim.kernels.folded import LAST, folded
from aclcts.sim.kernels.numerics import BFLOAT16
from aclcts.sim.kernels.registry import builtin
from aclcts.sim.kernels.shapes import UNKNOWN, UNKNOWN_RANK, fully_known, inferred, unknown_rank

Shape = tuple[int, ...]
#: An op's output shapes from x's known shape, the values of its other inputs (None if not known) and the call.
ShapeRule = Callable[[OpCall, Shape, list[list[int] | None]], list[Shape]]
Compute = Callable[[OpCall, np.ndarray, list[np.ndarray], Outputs], list[np.ndarray]]


def _values(call: OpCall, arrays: list[Any], count: int, any_rank: bool = False) -> list[list[int] | None]:
    """The integers of the count index inputs after x (None for an absent value); of any rank with any_rank. An int16
    one (Expand's shape may be) is read as int64."""
    def widened(value: Any) -> Any:
        return np.asarray(value, dtype=np.int64) if np.asarray(value).dtype == np.int16 else value
    return [None if i >= len(arrays) or arrays[i] is None else call.index_values(i, widened(arrays[i]), any_rank)
            for i in range(1, 1 + count)]


def _register(op_type: str, rule: ShapeRule, compute: Compute, same_shape: bool = False,
              partial: ShapeRule | None = None, any_rank: bool = False, index_inputs: int | None = None) -> None:
    """A kernel whose first input is x, followed by its record's required index inputs (or the first index_inputs of
    them; the compute reads the others itself) and optional inputs, every output of x's dtype. infer_shape gives the
    rule's shapes when x's shape and the index values are known, x's own shape for a same_shape op, the `partial`
    rule's shapes (unknown dims kept) when only the values are known, and an unknown rank otherwise. any_rank: the
    index inputs may have any rank (Pad's paddings [n, 2])."""
    record = prototype(op_type)
    required = sum(t.kind == "required" for t in record.inputs)
    count = required - 1 if index_inputs is None else index_inputs
    dynamic_outputs = any(t.kind == "dynamic" for t in record.outputs)

    def run(inputs: list[np.ndarray | None], attrs: dict[str, Any], infos: list[TensorInfo]) -> list[np.ndarray]:
        call = OpCall(op_type, inputs, attrs)
        call.require_inputs()
        x = call.input(0)
        call.require_dtype(0, x.dtype)
        values = _values(call, [call.input(i) for i in range(required)], count, any_rank)
        out = Outputs(call, infos, count=len(rule(call, tuple(x.shape), values)) if dynamic_outputs else None)
        for i in range(len(infos)):
            out.require_input_dtype(i, 0, x.dtype)
        return compute(call, x, [np.asarray(v) for v in values], out)

    def infer(inputs: list[TensorInfo], given: list[np.ndarray | None], attrs: dict[str, Any]) -> list[InferredShape]:
        call = OpCall(op_type, inputs, attrs)
        call.require_inputs()
        x = call.input(0)
        shape = tuple(x.shape)
        values = _values(call, list(given), count, any_rank)
        if not unknown_rank(shape) and fully_known(shape) and all(v is not None for v in values):
            return [inferred(x.dtype, s) for s in rule(call, shape, values)]
        if same_shape:
            return [inferred(x.dtype, shape)]
        if partial is not None and not unknown_rank(shape) and all(v is not None for v in values):
            return [inferred(x.dtype, s) for s in partial(call, shape, values)]
        return [inferred(x.dtype, (UNKNOWN_RANK,))]

    builtin(op_type, run, infer)


def _same(call: OpCall, shape: Shape, values: list) -> list[Shape]:
    return [shape]


# padding --------------------------------------------------------------------------------------------------------
def _pairs(call: OpCall, paddings: list[int], rank: int, contiguous: bool = True) -> list[tuple[int, int]]:
    if len(paddings) != 2 * rank:
        raise call.fail(f"input {call.quoted(1)} {paddings} must hold 2 values per dim of {call.quoted(0)} "
                        f"({2 * rank})")
    pairs = [(paddings[2 * i], paddings[2 * i + 1]) if contiguous else (paddings[i], paddings[rank + i])
             for i in range(rank)]
    if any(b < 0 or e < 0 for b, e in pairs):
        raise call.fail(f"input {call.quoted(1)} {paddings} has a negative padding")
    return pairs


def _pad_rule(call: OpCall, shape: Shape, values: list) -> list[Shape]:
    contiguous = call.attr_bool("paddings_contiguous") if call.op_type == "PadV3" else True
    return [tuple(d + b + e for d, (b, e) in zip(shape, _pairs(call, values[0], len(shape), contiguous)))]


def _pad_partial(call: OpCall, shape: Shape, values: list) -> list[Shape]:
    """The padded shape where x's dims are known; its unknown dims stay unknown."""
    contiguous = call.attr_bool("paddings_contiguous") if call.op_type == "PadV3" else True
    pairs = _pairs(call, values[0], len(shape), contiguous)
    return [tuple(d + b + e if d >= 0 else UNKNOWN for d, (b, e) in zip(shape, pairs))]


def _constant_pad(x: np.ndarray, pairs: list[tuple[int, int]], value: Any, out: Outputs) -> np.ndarray:
    y = out.buffer(0, tuple(d + b + e for d, (b, e) in zip(x.shape, pairs)))
    y[...] = value
    y[tuple(slice(b, b + d) for d, (b, _) in zip(x.shape, pairs))] = x
    return y


def _mode_pad(call: OpCall, x: np.ndarray, pairs: list[tuple[int, int]], mode: str) -> np.ndarray:
    """np.pad in reflect (border once), symmetric (border repeated) or edge mode, limits checked first."""
    for axis, (d, (b, e)) in enumerate(zip(x.shape, pairs)):
        limit = {"reflect": d - 1, "symmetric": d}.get(mode, d if d == 0 else max(b, e))
        if max(b, e) > limit:
            raise call.fail(f"{mode} padding ({b}, {e}) of dim {axis} exceeds {limit} (dim size {d})")
    return np.pad(x, pairs, mode=mode) if x.ndim else x.copy()


def _pad(call: OpCall, x: np.ndarray, values: list[np.ndarray], out: Outputs) -> list[np.ndarray]:
    return [out.emit(0, _constant_pad(x, _pairs(call, values[0].tolist(), x.ndim), 0, out))]


def _pad_v3(call: OpCall, x: np.ndarray, values: list[np.ndarray], out: Outputs) -> list[np.ndarray]:
    pairs = _pairs(call, values[0].tolist(), x.ndim, call.attr_bool("paddings_contiguous"))
    mode = call.attr_str("mode")
    if mode == "constant":
        fill = call.optional(2)
        if fill is not None:
            call.require_same_dtype([0, 2], [x.dtype, np.asarray(fill).dtype])
        value = 0 if fill is None else np.asarray(fill).reshape(-1)[:1]
        return [out.emit(0, _constant_pad(x, pairs, value, out))]
    if mode not in ("reflect", "edge"):
        raise call.fail(f"attr 'mode' is {mode!r}, expected one of: constant, reflect, edge")
    if x.dtype == BFLOAT16:
        raise call.fail(f"bfloat16 {call.quoted(0)} is supported in constant mode only, not {mode!r}")
    return [out.emit(0, _mode_pad(call, x, pairs, mode))]


# PadV2 pads with the first element of its padding-value input, as CANN's pad_v2_d.py reads it (_get_constant_values).
def _pad_v2(call: OpCall, x: np.ndarray, values: list[np.ndarray], out: Outputs) -> list[np.ndarray]:
    fill = np.asarray(call.input(2))
    call.require_same_dtype([0, 2], [x.dtype, fill.dtype])
    if fill.size == 0:
        raise call.fail(f"input {call.quoted(2)} is empty; expected at least one value (its first is the padding)")
    return [out.emit(0, _constant_pad(x, _pairs(call, values[0].tolist(), x.ndim), fill.reshape(-1)[0], out))]


def _mirror_pad(call: OpCall, x: np.ndarray, values: list[np.ndarray], out: Outputs) -> list[np.ndarray]:
    mode = call.attr_str("mode")
    if mode not in ("REFLECT", "SYMMETRIC"):
        raise call.fail(f"attr 'mode' is {mode!r}, expected one of: REFLECT, SYMMETRIC")
    return [out.emit(0, _mode_pad(call, x, _pairs(call, values[0].tolist(), x.ndim), mode.lower()))]


# dims -----------------------------------------------------------------------------------------------------------
def _expand_rule(call: OpCall, shape: Shape, values: list) -> list[Shape]:
    if len(values[0]) != 1:
        raise call.fail(f"input {call.quoted(1)} must hold one value, got {values[0]}")
    axis = call.axis(f"input {call.quoted(1)}", values[0][0], len(shape), allow_end=True)
    return [shape[:axis] + (1,) + shape[axis:]]


def _squeeze_rule(call: OpCall, shape: Shape, values: list) -> list[Shape]:
    listed = call.attr_list_int("axis")
    axes = {call.axis("attr 'axis'", a, len(shape)) for a in listed}
    if not listed:
        axes = {i for i, d in enumerate(shape) if d == 1}
    bad = sorted(a for a in axes if shape[a] != 1)
    if bad:
        raise call.fail(f"attr 'axis' {listed}: dim(s) {bad} of {call.quoted(0)} {list(shape)} are not 1")
    return [tuple(d for i, d in enumerate(shape) if i not in axes)]


def _unsqueeze_rule(call: OpCall, shape: Shape, values: list) -> list[Shape]:
    listed = call.attr_list_int("axes")
    rank = len(shape) + len(listed)
    axes = {call.axis("attr 'axes'", a, rank) for a in listed}
    if len(axes) != len(listed):
        raise call.fail(f"attr 'axes' {listed} repeats a dim")
    dims = list(shape)
    for a in sorted(axes):
        dims.insert(a, 1)
    return [tuple(dims)]


def _flatten_rule(call: OpCall, shape: Shape, values: list) -> list[Shape]:
    axis = call.attr_int("axis")
    if not -len(shape) <= axis <= len(shape):
        raise call.fail(f"attr 'axis' {axis} is out of range for a rank-{len(shape)} input "
                        f"(expected [{-len(shape)}, {len(shape)}])")
    axis %= len(shape) + 1 if axis >= 0 else len(shape)
    return [(int(np.prod(shape[:axis], dtype=np.int64)), int(np.prod(shape[axis:], dtype=np.int64)))]


def _reshape_to(rule: ShapeRule) -> Compute:
    def compute(call: OpCall, x: np.ndarray, values: list[np.ndarray], out: Outputs) -> list[np.ndarray]:
        return [out.emit(0, x.reshape(rule(call, tuple(x.shape), [v.tolist() for v in values])[0]))]
    return compute


def _broadcast_rule(call: OpCall, shape: Shape, values: list) -> list[Shape]:
    target = tuple(values[0])
    try:
        if np.broadcast_shapes(shape, target) == target and all(d >= 0 for d in target):
            return [target]
    except ValueError:
        pass
    raise call.fail(f"{call.quoted(0)} {list(shape)} cannot be broadcast to input {call.quoted(1)} {list(target)}")


def _repeated_by(rule: ShapeRule) -> Compute:
    """A compute that repeats x into the shape rule gives (BroadcastTo's, Expand's)."""
    def compute(call: OpCall, x: np.ndarray, values: list[np.ndarray], out: Outputs) -> list[np.ndarray]:
        y = out.buffer(0, rule(call, tuple(x.shape), [values[0].tolist()])[0])
        np.copyto(y, x)
        return [out.emit(0, y)]
    return compute


def _paddings(call: OpCall) -> list[list[int]]:
    """PadD's and PadV2D's paddings attribute: [before, after] per dim of x."""
    value = call.attrs.get("paddings")
    if not isinstance(value, (list, tuple)) or any(
            not isinstance(pair, (list, tuple)) or len(pair) != 2 or
            any(isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)) for v in pair) for pair in value):
        raise call.fail(f"attr 'paddings' must be a list of [before, after] int pairs, got {value!r}")
    return [list(pair) for pair in value]


def _expand_to_rule(call: OpCall, shape: Shape, values: list) -> list[Shape]:
    """Expand's output: x's shape and the shape input broadcast both ways (ONNX)."""
    target = tuple(values[0])
    try:
        if all(d >= 0 for d in target):
            return [tuple(np.broadcast_shapes(shape, target))]
    except ValueError:
        pass
    raise call.fail(f"{call.quoted(0)} {list(shape)} and input {call.quoted(1)} {list(target)} do not broadcast")


# reverse, strided slice -----------------------------------------------------------------------------------------
def _reverse(call: OpCall, x: np.ndarray, values: list[np.ndarray], out: Outputs) -> list[np.ndarray]:
    axes = [call.axis(f"input {call.quoted(1)}", a, x.ndim) for a in values[0].tolist()]
    if len(set(axes)) != len(axes):
        raise call.fail(f"input {call.quoted(1)} {values[0].tolist()} repeats a dim")
    return [out.emit(0, np.flip(x, axes) if axes else x)]


def _index(call: OpCall, shape: Shape, values: list) -> tuple[Any, ...]:
    """StridedSlice's masks and begin/end/strides as one NumPy index (Python slices clamp as TensorFlow does)."""
    begin, end, strides = values
    if not len(begin) == len(end) == len(strides):
        raise call.fail(f"inputs {call.quoted(1)} {begin}, {call.quoted(2)} {end} and {call.quoted(3)} {strides} "
                        "must have one length")
    masks = {m: call.attr_int(m) for m in ("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask",
                                                "shrink_axis_mask")}
    if bin(masks["ellipsis_mask"] & ((1 << len(begin)) - 1)).count("1") > 1:
        raise call.fail(f"attr 'ellipsis_mask' {masks['ellipsis_mask']} sets more than one bit")
    index: list[Any] = []
    for i, (b, e, s) in enumerate(zip(begin, end, strides)):
        bit = 1 << i
        if masks["ellipsis_mask"] & bit:
            index.append(Ellipsis)
        elif masks["new_axis_mask"] & bit:
            index.append(np.newaxis)
        elif s == 0:
            raise call.fail(f"input {call.quoted(3)} {strides} has a 0")
        elif masks["shrink_axis_mask"] & bit:
            index.append(b)
        else:
            index.append(slice(None if masks["begin_mask"] & bit else b, None if masks["end_mask"] & bit else e, s))
    return tuple(index)


def _strided_view(call: OpCall, x: np.ndarray, values: list) -> np.ndarray:
    try:
        return x[_index(call, tuple(x.shape), values)]
    except IndexError as exc:
        raise call.fail(f"{'/'.join(call.record.input_names()[1:])} {values} do not fit {call.quoted(0)} "
                        f"{list(x.shape)}: {exc}") from None


def _probe(shape: Shape) -> np.ndarray:
    """An array of this shape that takes no memory, to index for the shape of a view."""
    return np.broadcast_to(np.empty((), dtype=np.bool_), shape)


def _strided_rule(call: OpCall, shape: Shape, values: list) -> list[Shape]:
    return [tuple(_strided_view(call, _probe(shape), values).shape)]


def _strided_partial(call: OpCall, shape: Shape, values: list) -> list[Shape]:
    """StridedSlice's output where x has unknown dims: as the full rule, but a dim of x that is unknown and sliced
    (not shrunk) stays unknown, of the same rank (CANN op_proto strided_slice_infer_shape.h,
    StridedSliceCommonInferShape)."""
    begin, end, _ = values
    size = 1 + max([abs(v) for v in begin + end] + [1])  # an unknown dim this long fits every index given
    dims = list(_strided_rule(call, tuple(d if d >= 0 else size for d in shape), values)[0])
    index = list(_index(call, shape, values))
    if Ellipsis not in index:
        index.append(Ellipsis)
    spanned = len(shape) - sum(1 for e in index if e is not None and e is not Ellipsis)
    axis = position = 0
    for entry in index:
        if entry is None:
            position += 1
            continue
        kept = entry is Ellipsis or isinstance(entry, slice)
        for _ in range(spanned if entry is Ellipsis else 1):
            if kept and shape[axis] < 0:
                dims[position] = UNKNOWN
            position += kept
            axis += 1
    return [tuple(dims)]


def _strided_slice(call: OpCall, x: np.ndarray, values: list[np.ndarray], out: Outputs) -> list[np.ndarray]:
    return [out.emit(0, _strided_view(call, x, [v.tolist() for v in values]))]


# splitting ------------------------------------------------------------------------------------------------------
def _unpack_axis(call: OpCall, shape: Shape) -> int:
    axis = call.axis("attr 'axis'", call.attr_int("axis"), len(shape))
    num = call.attr_int("num")
    if num != shape[axis]:
        raise call.fail(f"attr 'num' is {num}, but dim {axis} of {call.quoted(0)} {list(shape)} is {shape[axis]}")
    return axis


def _unpack_rule(call: OpCall, shape: Shape, values: list) -> list[Shape]:
    axis = _unpack_axis(call, shape)
    return [shape[:axis] + shape[axis + 1:]] * shape[axis]


def _unpack_partial(call: OpCall, shape: Shape, values: list) -> list[Shape]:
    """Unpack's outputs where x has unknown dims: `num` of them, x's dims without the axis (-1 kept)."""
    axis = call.axis("attr 'axis'", call.attr_int("axis"), len(shape))
    if shape[axis] >= 0:
        return _unpack_rule(call, shape, values)
    return [shape[:axis] + shape[axis + 1:]] * call.attr_int("num")


def _unpack(call: OpCall, x: np.ndarray, values: list[np.ndarray], out: Outputs) -> list[np.ndarray]:
    axis = _unpack_axis(call, tuple(x.shape))
    moved = np.moveaxis(x, axis, 0)
    return [out.emit(i, moved[i]) for i in range(moved.shape[0])]


def _split_sizes(call: OpCall, shape: Shape, values: list) -> tuple[int, list[int]]:
    sizes, split_dim = values
    if len(split_dim) != 1:
        raise call.fail(f"input {call.quoted(2)} must hold one value, got {split_dim}")
    axis = call.axis(f"input {call.quoted(2)}", split_dim[0], len(shape))
    num = call.attr_int("num_split")
    if len(sizes) != num or sizes.count(-1) > 1 or any(s < -1 for s in sizes):
        raise call.fail(f"input {call.quoted(1)} {sizes} must hold num_split={num} sizes, at most one of them -1")
    rest = shape[axis] - sum(s for s in sizes if s >= 0)
    resolved = [rest if s == -1 else s for s in sizes]
    if rest < 0 or sum(resolved) != shape[axis]:
        raise call.fail(f"input {call.quoted(1)} {sizes} does not add up to dim {axis} of {call.quoted(0)} "
                        f"({shape[axis]})")
    return axis, resolved


def _split_rule(call: OpCall, shape: Shape, values: list) -> list[Shape]:
    axis, sizes = _split_sizes(call, shape, values)
    return [shape[:axis] + (s,) + shape[axis + 1:] for s in sizes]


def _split_partial(call: OpCall, shape: Shape, values: list) -> list[Shape]:
    """SplitV's outputs where x has unknown dims: x's dims, the split dim sized as given where x's is known (a -1
    size, or any size of an unknown split dim, stays unknown)."""
    sizes, split_dim = values
    axis = call.axis(f"input {call.quoted(2)}", split_dim[0], len(shape)) if len(split_dim) == 1 else -1
    if axis < 0 or shape[axis] >= 0:
        return _split_rule(call, shape, values)
    return [shape[:axis] + (UNKNOWN if s < 0 else s,) + shape[axis + 1:] for s in sizes]


def _split_v(call: OpCall, x: np.ndarray, values: list[np.ndarray], out: Outputs) -> list[np.ndarray]:
    axis, sizes = _split_sizes(call, tuple(x.shape), [v.tolist() for v in values])
    parts = np.split(x, np.cumsum(sizes)[:-1], axis=axis)
    return [out.emit(i, p) for i, p in enumerate(parts)]


# depth and space ------------------------------------------------------------------------------------------------
def _block(call: OpCall, shape: Shape, to_depth: bool) -> tuple[int, str, Shape]:
    """block_size, data_format and x's shape as (N, H, W, C), checked."""
    block = call.attr_int("block_size")
    fmt = call.attr_str("data_format")
    if fmt not in ("NHWC", "NCHW"):
        raise call.fail(f"attr 'data_format' is {fmt!r}, expected one of: NHWC, NCHW")
    if len(shape) != 4:
        raise call.fail(f"input {call.quoted(0)} must be 4-D, got {list(shape)}")
    n, h, w, c = shape if fmt == "NHWC" else (shape[0], shape[2], shape[3], shape[1])
    if block < 2 or (h % block or w % block if to_depth else c % (block * block)):
        what = "the height and width" if to_depth else "the depth by block_size^2"
        raise call.fail(f"attr 'block_size' {block} must be >= 2 and divide {what} of {call.quoted(0)} "
                        f"{list(shape)}")
    return block, fmt, (n, h, w, c)


def _space_rule(to_depth: bool) -> ShapeRule:
    def rule(call: OpCall, shape: Shape, values: list) -> list[Shape]:
        b, fmt, (n, h, w, c) = _block(call, shape, to_depth)
        h, w, c = (h // b, w // b, c * b * b) if to_depth else (h * b, w * b, c // (b * b))
        return [(n, h, w, c) if fmt == "NHWC" else (n, c, h, w)]
    return rule


def _space_partial(to_depth: bool) -> ShapeRule:
    """The output where x has unknown dims: the known dims as the full rule, each unknown one -1 in its place (CANN
    op_proto transformation_ops.cc, SpaceToDepthInfer and DepthToSpaceInfer)."""
    full = _space_rule(to_depth)

    def rule(call: OpCall, shape: Shape, values: list) -> list[Shape]:
        block = call.attr_int("block_size")
        dims = full(call, tuple(d if d >= 0 else block * block for d in shape), values)[0]
        return [tuple(UNKNOWN if d < 0 else o for d, o in zip(shape, dims))]
    return rule


def _space_to_depth(call: OpCall, x: np.ndarray, values: list[np.ndarray], out: Outputs) -> list[np.ndarray]:
    b, fmt, (n, h, w, c) = _block(call, tuple(x.shape), True)
    nhwc = x if fmt == "NHWC" else np.transpose(x, (0, 2, 3, 1))
    y = nhwc.reshape(n, h // b, b, w // b, b, c).transpose(0, 1, 3, 2, 4, 5).reshape(n, h // b, w // b, c * b * b)
    return [out.emit(0, y if fmt == "NHWC" else np.transpose(y, (0, 3, 1, 2)))]


def _depth_to_space(call: OpCall, x: np.ndarray, values: list[np.ndarray], out: Outputs) -> list[np.ndarray]:
    b, fmt, (n, h, w, c) = _block(call, tuple(x.shape), False)
    mode = call.attr_str("mode")
    if mode not in ("DCR", "CRD"):
        raise call.fail(f"attr 'mode' is {mode!r}, expected one of: DCR, CRD")
    nhwc = x if fmt == "NHWC" else np.transpose(x, (0, 2, 3, 1))
    c_out = c // (b * b)
    if mode == "DCR":
        blocks = nhwc.reshape(n, h, w, b, b, c_out)
    else:
        blocks = nhwc.reshape(n, h, w, c_out, b, b).transpose(0, 1, 2, 4, 5, 3)
    y = blocks.transpose(0, 1, 3, 2, 4, 5).reshape(n, h * b, w * b, c_out)
    return [out.emit(0, y if fmt == "NHWC" else np.transpose(y, (0, 3, 1, 2)))]


def _block_args(call: OpCall, shape: Shape, values: list) -> tuple[list[int], list[list[int]]]:
    """block shape and its [before, after] pairs (paddings or crops), checked against x's shape."""
    sizes, flat = list(values[0]), list(values[1])
    m = len(sizes)
    if not 1 <= m < len(shape) or len(flat) != 2 * m or min(sizes) < 1 or min(flat) < 0:
        raise call.fail(f"inputs {call.quoted(1)} {sizes} and {call.quoted(2)} {flat} must give 1 to {len(shape) - 1} "
                        f"blocks of at least 1 and as many non-negative pairs for {call.quoted(0)} {list(shape)}")
    return sizes, [flat[2 * i:2 * i + 2] for i in range(m)]


def _space_rule_nd(call: OpCall, shape: Shape, values: list) -> list[Shape]:
    sizes, pairs = _block_args(call, shape, values)
    m = len(sizes)
    padded = [d + a + b for d, (a, b) in zip(shape[1:1 + m], pairs)]
    if any(d % b for d, b in zip(padded, sizes)):
        raise call.fail(f"the padded dims {padded} of {call.quoted(0)} are not multiples of the blocks {sizes}")
    return [(shape[0] * int(np.prod(sizes)), *(d // b for d, b in zip(padded, sizes)), *shape[1 + m:])]


def _batch_rule_nd(call: OpCall, shape: Shape, values: list) -> list[Shape]:
    sizes, pairs = _block_args(call, shape, values)
    m, total = len(sizes), int(np.prod(sizes))
    full = [d * b for d, b in zip(shape[1:1 + m], sizes)]
    if shape[0] % total or any(a + b > d for (a, b), d in zip(pairs, full)):
        raise call.fail(f"{call.quoted(0)} {list(shape)}: its batch must be a multiple of {total} and the crops "
                        f"{pairs} must fit its dims times the blocks {full}")
    return [(shape[0] // total, *(d - a - b for d, (a, b) in zip(full, pairs)), *shape[1 + m:])]


def _space_to_batch_nd(call: OpCall, x: np.ndarray, values: list[np.ndarray], out: Outputs) -> list[np.ndarray]:
    """Pad, split each spatial dim into (dim / block, block), move the blocks in front of the batch, merge them."""
    sizes, pairs = _block_args(call, tuple(x.shape), [v.tolist() for v in values])
    (shape,) = _space_rule_nd(call, tuple(x.shape), [sizes, sum(pairs, [])])
    m, rest = len(sizes), x.shape[1 + len(sizes):]
    padded = np.pad(x, [(0, 0)] + [tuple(p) for p in pairs] + [(0, 0)] * len(rest))
    split = padded.reshape(x.shape[0], *[v for d, b in zip(shape[1:1 + m], sizes) for v in (d, b)], *rest)
    order = [2 + 2 * k for k in range(m)] + [0] + [1 + 2 * k for k in range(m)] + list(range(1 + 2 * m, split.ndim))
    return [out.emit(0, split.transpose(order).reshape(shape))]


def _batch_to_space_nd(call: OpCall, x: np.ndarray, values: list[np.ndarray], out: Outputs) -> list[np.ndarray]:
    """Split the batch into (blocks..., batch), interleave each block with its spatial dim, merge, crop."""
    sizes, pairs = _block_args(call, tuple(x.shape), [v.tolist() for v in values])
    _batch_rule_nd(call, tuple(x.shape), [sizes, sum(pairs, [])])
    m, rest = len(sizes), x.shape[1 + len(sizes):]
    batch = x.shape[0] // int(np.prod(sizes))
    split = x.reshape(*sizes, batch, *x.shape[1:])
    order = [m] + [v for k in range(m) for v in (m + 1 + k, k)] + list(range(2 * m + 1, split.ndim))
    full = split.transpose(order).reshape(batch, *[d * b for d, b in zip(x.shape[1:1 + m], sizes)], *rest)
    crop = tuple(slice(a, d - b) for (a, b), d in zip(pairs, full.shape[1:1 + m]))
    return [out.emit(0, full[(slice(None), *crop)])]


# Permute, Identity, Tril/Triu, Roll, Diag -----------------------------------------------------------------------
def _order(call: OpCall, rank: int) -> list[int]:
    listed = call.attr_list_int("order")
    order = [call.axis("attr 'order'", a, max(rank, 1)) for a in listed]
    if sorted(order) != list(range(rank)):
        raise call.fail(f"attr 'order' {listed} is not a permutation of the {rank} dims of {call.quoted(0)}")
    return order


def _permute(call: OpCall, x: np.ndarray, values: list[np.ndarray], out: Outputs) -> list[np.ndarray]:
    order = _order(call, x.ndim)
    y = out.buffer(0, tuple(x.shape[a] for a in order))
    np.copyto(y, np.transpose(x, order))
    return [out.emit(0, y)]


def _identity(call: OpCall, x: np.ndarray, values: list[np.ndarray], out: Outputs) -> list[np.ndarray]:
    return [out.emit(0, x)]


def _matrix_rule(call: OpCall, shape: Shape, values: list) -> list[Shape]:
    if len(shape) < 2:
        raise call.fail(f"input {call.quoted(0)} must have at least 2 dims, got {list(shape)}")
    return [shape]


def _triangle(lower: bool) -> Compute:
    def compute(call: OpCall, x: np.ndarray, values: list[np.ndarray], out: Outputs) -> list[np.ndarray]:
        _matrix_rule(call, tuple(x.shape), [])
        k = call.attr_int("diagonal")
        return [out.emit(0, np.tril(x, k) if lower else np.triu(x, k))]
    return compute


def _roll(call: OpCall, x: np.ndarray, values: list[np.ndarray], out: Outputs) -> list[np.ndarray]:
    shifts = call.attr_list_int("shifts")
    dims = call.attr_list_int("dims")
    if not dims:
        if len(shifts) != 1:
            raise call.fail(f"attr 'shifts' {shifts} must hold one shift when 'dims' is empty")
        return [out.emit(0, np.roll(x, shifts[0]) if x.size else x)]
    if len(shifts) != len(dims):
        raise call.fail(f"attrs 'shifts' {shifts} and 'dims' {dims} must have one length")
    axes = [call.axis("attr 'dims'", d, x.ndim) for d in dims]
    return [out.emit(0, np.roll(x, shifts, axes) if x.size else x)]


def _diag_rule(call: OpCall, shape: Shape, values: list) -> list[Shape]:
    if not shape:
        raise call.fail(f"input {call.quoted(0)} must have at least 1 dim")
    return [shape + shape]


def _diag(call: OpCall, x: np.ndarray, values: list[np.ndarray], out: Outputs) -> list[np.ndarray]:
    (shape,) = _diag_rule(call, tuple(x.shape), [])
    y = out.buffer(0, shape)
    y.fill(0)
    y.reshape(-1)[:: x.size + 1] = x.reshape(-1)
    return [out.emit(0, y)]


# multi-input ops ------------------------------------------------------------------------------------------------
def _inputs_x(call: OpCall, count: int) -> list[np.ndarray]:
    tensors = [call.input(i) for i in range(count)]
    name = call.record.input_names()[0]
    if not tensors:
        raise call.fail(f"at least one dynamic input '{name}' is required")
    call.require_same_dtype(range(count), [t.dtype for t in tensors])
    if call.attr_int("N") != count and "N" in call.attrs:
        raise call.fail(f"attr 'N' is {call.attrs['N']}, but {count} dynamic inputs '{name}' were given")
    return tensors


def _concat_rule(call: OpCall, shapes: list[Shape], dim: int) -> tuple[int, Shape]:
    rank = len(shapes[0])
    axis = call.axis(f"input {call.quoted(len(call.inputs) - 1)}", dim, rank)
    for i, s in enumerate(shapes):
        if len(s) != rank or any(a != b for j, (a, b) in enumerate(zip(s, shapes[0])) if j != axis):
            raise call.fail(f"input {call.quoted(i)} has shape {list(s)}; all inputs must match {call.quoted(0)} "
                            f"{list(shapes[0])} except in dim {axis}")
    return axis, tuple(sum(s[axis] for s in shapes) if j == axis else d for j, d in enumerate(shapes[0]))


def _concat_dim(call: OpCall, value: Any) -> int:
    return call.one_value(len(call.inputs) - 1, value)


def _concat_compute(inputs: list[np.ndarray | None], attrs: dict[str, Any],
                    infos: list[TensorInfo]) -> list[np.ndarray]:
    call = OpCall("ConcatV2", inputs, attrs)
    call.require_inputs()
    tensors = _inputs_x(call, len(inputs) - 1)
    call.require_dtype(0, tensors[0].dtype)
    axis, shape = _concat_rule(call, [tuple(t.shape) for t in tensors], _concat_dim(call, inputs[-1]))
    out = Outputs(call, infos)
    out.require_dtype(0, tensors[0].dtype, f"same as the inputs '{call.record.input_names()[0]}'")
    y = out.buffer(0, shape)
    np.concatenate(tensors, axis=axis, out=y)
    return [out.emit(0, y)]


def _concat_infer(inputs: list[TensorInfo], values: list[np.ndarray | None],
                  attrs: dict[str, Any]) -> list[InferredShape]:
    call = OpCall("ConcatV2", inputs, attrs)
    call.require_inputs()
    shapes = [tuple(call.input(i).shape) for i in range(len(inputs) - 1)]
    dim = values[-1] if len(values) == len(inputs) else None
    if dim is None or not all(fully_known(s) and not unknown_rank(s) for s in shapes):
        return [inferred(inputs[0].dtype, (UNKNOWN_RANK,))]
    return [inferred(inputs[0].dtype, _concat_rule(call, shapes, _concat_dim(call, dim))[1])]


def _pack_shape(call: OpCall, shapes: list[Shape]) -> tuple[int, Shape]:
    if any(s != shapes[0] for s in shapes):
        raise call.fail(f"inputs '{call.record.input_names()[0]}' have shapes {[list(s) for s in shapes]}; they "
                        "must be equal")
    axis = call.axis("attr 'axis'", call.attr_int("axis"), len(shapes[0]), allow_end=True)
    return axis, shapes[0][:axis] + (len(shapes),) + shapes[0][axis:]


def _pack_compute(inputs: list[np.ndarray | None], attrs: dict[str, Any], infos: list[TensorInfo]) -> list[np.ndarray]:
    call = OpCall("Pack", inputs, attrs)
    tensors = _inputs_x(call, len(inputs))
    call.require_dtype(0, tensors[0].dtype)
    axis, shape = _pack_shape(call, [tuple(t.shape) for t in tensors])
    out = Outputs(call, infos)
    out.require_dtype(0, tensors[0].dtype, f"same as the inputs '{call.record.input_names()[0]}'")
    y = out.buffer(0, shape)
    np.stack(tensors, axis=axis, out=y)
    return [out.emit(0, y)]


def _pack_infer(inputs: list[TensorInfo], values: list[np.ndarray | None],
                attrs: dict[str, Any]) -> list[InferredShape]:
    call = OpCall("Pack", inputs, attrs)
    shapes = [tuple(call.input(i).shape) for i in range(len(inputs))]
    if not shapes or any(unknown_rank(s) for s in shapes):
        return [inferred(inputs[0].dtype, (UNKNOWN_RANK,))]
    if not all(fully_known(s) for s in shapes):
        return [inferred(inputs[0].dtype, [UNKNOWN] * (len(shapes[0]) + 1))]
    return [inferred(inputs[0].dtype, _pack_shape(call, shapes)[1])]


# Pad's and MirrorPad's paddings is [rank, 2] as in TensorFlow; CANN's PadInferShape reads it flat (op_proto
# pad_ops.cc), so a paddings of any rank holding 2 values per dim is read in order.
_register("Pad", _pad_rule, _pad, partial=_pad_partial, any_rank=True)
_register("PadV3", _pad_rule, _pad_v3, partial=_pad_partial)
_register("MirrorPad", _pad_rule, _mirror_pad, partial=_pad_partial, any_rank=True)
_register("ExpandDims", _expand_rule, _reshape_to(_expand_rule))
_register("Squeeze", _squeeze_rule, _reshape_to(_squeeze_rule))
_register("Unsqueeze", _unsqueeze_rule, _reshape_to(_unsqueeze_rule))
_register("Flatten", _flatten_rule, _reshape_to(_flatten_rule))
# BroadcastTo's infer function gives the values of `shape` whatever x's dims are (CANN op_proto pad_ops.cc,
# BroadcastToInferShape).
_register("BroadcastTo", _broadcast_rule, _repeated_by(_broadcast_rule), partial=lambda call, shape, values: [tuple(values[0])])
_register("ReverseV2", _same, _reverse, same_shape=True)
_register("StridedSlice", _strided_rule, _strided_slice, partial=_strided_partial)
_register("Unpack", _unpack_rule, _unpack, partial=_unpack_partial)
_register("SplitV", _split_rule, _split_v, partial=_split_partial)
_register("SpaceToDepth", _space_rule(True), _space_to_depth, partial=_space_partial(True))
_register("DepthToSpace", _space_rule(False), _depth_to_space, partial=_space_partial(False))
_register("Permute", lambda c, s, v: [tuple(s[a] for a in _order(c, len(s)))], _permute)
_register("Identity", _same, _identity, same_shape=True)
_register("Tril", _matrix_rule, _triangle(True), same_shape=True)
_register("Triu", _matrix_rule, _triangle(False), same_shape=True)
_register("Roll", _same, _roll, same_shape=True)
# Diag's infer function keeps x's dims twice, unknown ones as -1 (CANN op_proto pad_ops.cc, DiagInferShape).
_register("Diag", _diag_rule, _diag, partial=_diag_rule)
builtin("ConcatV2", _concat_compute, _concat_infer)
builtin("Pack", _pack_compute, _pack_infer)
_register("PadV2", _pad_rule, _pad_v2, partial=_pad_partial, any_rank=True, index_inputs=1)
_register("Expand", _expand_to_rule, _repeated_by(_expand_to_rule))
_register("SpaceToBatchND", _space_rule_nd, _space_to_batch_nd, any_rank=True)
_register("BatchToSpaceND", _batch_rule_nd, _batch_to_space_nd, any_rank=True)
builtin("BroadcastToD", *folded("BroadcastToD", "BroadcastTo", lambda call: {1: call.attr_list_int("shape")}))
builtin("ExpandD", *folded("ExpandD", "Expand", lambda call: {1: call.attr_list_int("shape")}))
builtin("PadD", *folded("PadD", "Pad", lambda call: {1: _paddings(call)}))
builtin("PadV2D", *folded("PadV2D", "PadV2", lambda call: {1: _paddings(call)}))
builtin("ConcatV2D", *folded("ConcatV2D", "ConcatV2", lambda call: {LAST: call.attr_int("concat_dim")}))
builtin("SplitVD", *folded("SplitVD", "SplitV", lambda call: {1: call.attr_list_int("size_splits"),
                                                             2: call.attr_int("split_dim")}))
builtin("StridedSliceD", *folded("StridedSliceD", "StridedSlice", lambda call: {
    1: call.attr_list_int("begin"), 2: call.attr_list_int("end"), 3: call.attr_list_int("strides")}))
# TensorFlow's 4-D forms: the ND kernels with the block [block_size, block_size].
builtin("SpaceToBatch", *folded("SpaceToBatch", "SpaceToBatchND", lambda call: {1: [call.attr_int("block_size")] * 2}))
builtin("BatchToSpace", *folded("BatchToSpace", "BatchToSpaceND", lambda call: {1: [call.attr_int("block_size")] * 2}))
