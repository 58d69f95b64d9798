"""Data-movement ops (exact, any dtype): Transpose, Reshape, ConcatD, SplitD, Split, Slice, Tile, TileWithAxis (x
repeated along one axis), SliceLastDim (x[..., start:end:stride]), and the const-folded TransposeD, SliceD and TileD, run through their twins' kernels
(aclcts/sim/kernels/folded.py).

Records: aclcts/core/prototypes/shape.py. Slice's size -1 means "to the end".
Reshape follows the Caffe rule named by its axis/num_axes attributes: dims [axis, axis + num_axes) of x
(num_axes -1: to the end; a negative axis counts from rank + 1) are replaced by `shape`, where 0 copies the
corresponding dim of x and one -1 is inferred from the element count.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from aclcts.sim.kernels.base import InferredShape, KernelError, TensorInfo
from aclcts.sim.kernels.call import OpCall, Outputs
from aclcts.sim.kernels.folded import folded
from aclcts.sim.kernels.registry import builtin
from aclcts.sim.kernels.shapes import UNKNOWN, UNKNOWN_RANK, fully_known, inferred, numel, unknown_rank


def _value(call: OpCall, values: list[np.ndarray | None], index: int) -> list[int] | None:
    value = values[index] if index < len(values) else None
    return None if value is None else call.index_values(index, value)


def _any_dim_of(shape: tuple[int, ...]) -> tuple[int, int]:
    """The range of a dim that is one of shape's dims, not known which."""
    return (min(shape), max(shape)) if shape and fully_known(shape) else (0, -1)


# Transpose ----------------------------------------------------------------------------------------------
def _perm(call: OpCall, perm: list[int], rank: int) -> list[int]:
    if sorted(perm) != list(range(rank)):
        raise call.fail(f"input {call.quoted(1)} {perm} is not a permutation of 0..{rank - 1} (the dims of "
                        f"{call.quoted(0)})")
    return perm


def _transpose_compute(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list[TensorInfo]) -> list[np.ndarray]:
    call = OpCall("Transpose", inputs, attrs)
    call.require_inputs()
    x = call.input(0)
    perm = _perm(call, call.index_values(1, call.input(1)), x.ndim)
    out = Outputs(call, outputs)
    out.require_input_dtype(0, 0, x.dtype)
    y = out.buffer(0, tuple(x.shape[a] for a in perm))
    np.copyto(y, np.transpose(x, perm))
    return [out.emit(0, y)]


def _transpose_infer(inputs: list[TensorInfo], values: list[np.ndarray | None], attrs: dict[str, Any]) -> list[InferredShape]:
    call = OpCall("Transpose", inputs, attrs)
    call.require_inputs()
    x = call.input(0)
    shape = tuple(x.shape)
    perm = _value(call, values, 1)
    if unknown_rank(shape):
        return [inferred(x.dtype, shape)]
    if perm is None:
        return [inferred(x.dtype, [UNKNOWN] * len(shape), [_any_dim_of(shape)] * len(shape))]
    return [inferred(x.dtype, [shape[a] for a in _perm(call, perm, len(shape))])]


# Reshape ------------------------------------------------------------------------------------------------
def reshape_target(call: OpCall, shape: tuple[int, ...], target: list[int]) -> tuple[int, ...]:
    """The output dims of Reshape; -1 stays where x's unknown dims leave it undetermined."""
    rank = len(shape)
    axis = call.attr_int("axis")
    num_axes = call.attr_int("num_axes")
    start = axis + rank + 1 if axis < 0 else axis
    if not 0 <= start <= rank:
        raise call.fail(f"attr 'axis' {axis} is out of range for a rank-{rank} input (expected [{-rank - 1}, {rank}])")
    end = rank if num_axes == -1 else start + num_axes
    if num_axes < -1 or end > rank:
        raise call.fail(f"attr 'num_axes' {num_axes} is out of range for axis {axis} and a rank-{rank} input")
    middle = []
    for i, d in enumerate(target):
        if d == 0:
            if start + i >= rank:
                raise call.fail(f"input {call.quoted(1)} {target}: the 0 at position {i} has no dim of "
                                f"{call.quoted(0)} to copy")
            middle.append(shape[start + i])
        elif d < -1:
            raise call.fail(f"input {call.quoted(1)} {target} has {d}; dims must be >= -1")
        else:
            middle.append(d)
    if middle.count(-1) > 1:
        raise call.fail(f"input {call.quoted(1)} {target} has more than one -1")
    dims = list(shape[:start]) + middle + list(shape[end:])
    if -1 in middle and fully_known(shape) and all(d >= 0 for i, d in enumerate(dims) if d != -1):
        rest = numel([d for d in dims if d != -1])
        total = numel(shape)
        if rest == 0 or total % rest:
            raise call.fail(f"input {call.quoted(1)} {target} cannot hold the {total} elements of {call.quoted(0)} "
                            f"{list(shape)}")
        dims[dims.index(-1)] = total // rest
    if fully_known(shape) and fully_known(dims) and numel(dims) != numel(shape):
        raise call.fail(f"input {call.quoted(1)} {target} gives {numel(dims)} elements, but {call.quoted(0)} "
                        f"{list(shape)} has {numel(shape)}")
    return tuple(dims)


def _reshape_compute(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list[TensorInfo]) -> list[np.ndarray]:
    call = OpCall("Reshape", inputs, attrs)
    call.require_inputs()
    x = call.input(0)
    dims = reshape_target(call, tuple(x.shape), call.index_values(1, call.input(1)))
    out = Outputs(call, outputs)
    out.require_input_dtype(0, 0, x.dtype)
    return [out.emit(0, x.reshape(dims))]


def _reshape_infer(inputs: list[TensorInfo], values: list[np.ndarray | None], attrs: dict[str, Any]) -> list[InferredShape]:
    call = OpCall("Reshape", inputs, attrs)
    call.require_inputs()
    x, shape_info = call.input(0), call.input(1)
    shape = tuple(x.shape)
    target = _value(call, values, 1)
    total = numel(shape) if fully_known(shape) and not unknown_rank(shape) else -1
    if target is None or unknown_rank(shape):
        count = shape_info.shape[0] if len(shape_info.shape) == 1 and shape_info.shape[0] >= 0 else None
        if count is None or call.attr_int("axis") != 0 or call.attr_int("num_axes") != -1:
            return [inferred(x.dtype, (-2,))]
        return [inferred(x.dtype, [UNKNOWN] * count, [(0, total)] * count)]
    dims = reshape_target(call, shape, target)
    return [inferred(x.dtype, dims, [(d, d) if d >= 0 else (0, total) for d in dims])]


# ConcatD ------------------------------------------------------------------------------------------------
def _concat_shape(call: OpCall, shapes: list[tuple[int, ...]]) -> tuple[int, ...]:
    count = call.attr_int("N")
    if count != len(shapes) or count < 1:
        raise call.fail(f"attr 'N' is {count}, but {len(shapes)} dynamic inputs '{call.record.input_names()[0]}' "
                        "were given (they must agree)")
    rank = len(shapes[0])
    dim = call.axis("attr 'concat_dim'", call.attr_int("concat_dim"), rank)
    total = 0
    for i, shape in enumerate(shapes):
        if len(shape) != rank or any(a != b for j, (a, b) in enumerate(zip(shape, shapes[0])) if j != dim and a >= 0 and b >= 0):
            raise call.fail(
                f"input {call.quoted(i)} has shape {list(shape)}; all inputs must match {call.quoted(0)} "
                f"{list(shapes[0])} except in dim {dim}"
            )
        total = -1 if total < 0 or shape[dim] < 0 else total + shape[dim]
    return tuple(total if j == dim else d for j, d in enumerate(shapes[0]))


def _concat_compute(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list[TensorInfo]) -> list[np.ndarray]:
    call = OpCall("ConcatD", inputs, attrs)
    tensors = [call.input(i) for i in range(len(inputs))]
    if not tensors:
        raise call.fail(f"at least one dynamic input '{call.record.input_names()[0]}' is required")
    call.require_same_dtype(range(len(tensors)), [t.dtype for t in tensors])
    _concat_shape(call, [tuple(t.shape) for t in tensors])
    dim = call.axis("attr 'concat_dim'", call.attr_int("concat_dim"), tensors[0].ndim)
    out = Outputs(call, outputs)
    out.require_dtype(0, tensors[0].dtype, f"same as the inputs '{call.record.input_names()[0]}'")
    return [out.emit(0, np.concatenate(tensors, axis=dim))]


def _concat_infer(inputs: list[TensorInfo], values: list[np.ndarray | None], attrs: dict[str, Any]) -> list[InferredShape]:
    call = OpCall("ConcatD", inputs, attrs)
    tensors = [call.input(i) for i in range(len(inputs))]
    if not tensors:
        raise call.fail(f"at least one dynamic input '{call.record.input_names()[0]}' is required")
    return [inferred(tensors[0].dtype, _concat_shape(call, [tuple(t.shape) for t in tensors]))]


# SplitD -------------------------------------------------------------------------------------------------
def _split_shape(call: OpCall, shape: tuple[int, ...]) -> tuple[int, tuple[int, ...], int]:
    dim = call.axis("attr 'split_dim'", call.attr_int("split_dim"), len(shape))
    parts = call.attr_int("num_split")
    if parts < 1:
        raise call.fail(f"attr 'num_split' is {parts}, expected at least 1")
    if shape[dim] >= 0 and shape[dim] % parts:
        raise call.fail(f"dim {dim} of {call.quoted(0)} {list(shape)} is not divisible by num_split {parts}")
    piece = shape[dim] // parts if shape[dim] >= 0 else -1
    return dim, tuple(piece if j == dim else d for j, d in enumerate(shape)), parts


def _split_compute(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list[TensorInfo]) -> list[np.ndarray]:
    call = OpCall("SplitD", inputs, attrs)
    call.require_inputs()
    x = call.input(0)
    dim, _, parts = _split_shape(call, tuple(x.shape))
    out = Outputs(call, outputs, count=parts)
    for i in range(parts):
        out.require_input_dtype(i, 0, x.dtype)
    return [out.emit(i, piece) for i, piece in enumerate(np.split(x, parts, axis=dim))]


def _split_infer(inputs: list[TensorInfo], values: list[np.ndarray | None], attrs: dict[str, Any]) -> list[InferredShape]:
    call = OpCall("SplitD", inputs, attrs)
    call.require_inputs()
    x = call.input(0)
    _, piece, parts = _split_shape(call, tuple(x.shape))
    return [inferred(x.dtype, piece) for _ in range(parts)]


def _split_input_attrs(call: OpCall, split_dim: Any) -> dict[str, Any]:
    """Split's attributes as SplitD takes them: split_dim read from input 0."""
    return {"split_dim": call.one_value(0, split_dim), "num_split": call.attr_int("num_split")}


def _split_input_compute(inputs: list[np.ndarray | None], attrs: dict[str, Any],
                         outputs: list[TensorInfo]) -> list[np.ndarray]:
    call = OpCall("Split", inputs, attrs)
    call.require_inputs()
    x = call.input(1)
    call.require_dtype(1, x.dtype)
    try:
        return _split_compute([x], _split_input_attrs(call, call.input(0)), outputs)
    except KernelError as exc:
        raise call.fail(f"as {exc}") from None


def _split_input_infer(inputs: list[TensorInfo], values: list[np.ndarray | None],
                       attrs: dict[str, Any]) -> list[InferredShape]:
    call = OpCall("Split", inputs, attrs)
    call.require_inputs()
    x = call.input(1)
    dim = values[0] if values else None
    if dim is None or unknown_rank(x.shape):
        rank = (UNKNOWN_RANK,) if unknown_rank(x.shape) else (UNKNOWN,) * len(x.shape)
        return [inferred(x.dtype, rank)] * call.attr_int("num_split")
    try:
        return _split_infer([x], [None], _split_input_attrs(call, dim))
    except KernelError as exc:
        raise call.fail(f"as {exc}") from None


# Slice --------------------------------------------------------------------------------------------------
def _slice_bounds(call: OpCall, shape: tuple[int, ...], offsets: list[int], size: list[int]) -> list[tuple[int, int]]:
    rank = len(shape)
    if len(offsets) != rank or len(size) != rank:
        raise call.fail(f"inputs {call.quoted(1)} {offsets} and {call.quoted(2)} {size} must each have {rank} values "
                        f"(the rank of {call.quoted(0)})")
    bounds = []
    for i, (d, start, count) in enumerate(zip(shape, offsets, size)):
        stop = d if count == -1 else start + count
        if start < 0 or count < -1 or stop > d or stop < start:
            raise call.fail(f"dim {i}: offset {start} with size {count} does not fit in {call.quoted(0)} dim {d}")
        bounds.append((start, stop))
    return bounds


def _slice_compute(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list[TensorInfo]) -> list[np.ndarray]:
    call = OpCall("Slice", inputs, attrs)
    call.require_inputs()
    x = call.input(0)
    offsets = call.index_values(1, call.input(1))
    size = call.index_values(2, call.input(2))
    bounds = _slice_bounds(call, tuple(x.shape), offsets, size)
    out = Outputs(call, outputs)
    out.require_input_dtype(0, 0, x.dtype)
    return [out.emit(0, x[tuple(slice(a, b) for a, b in bounds)])]


def _slice_infer(inputs: list[TensorInfo], values: list[np.ndarray | None], attrs: dict[str, Any]) -> list[InferredShape]:
    call = OpCall("Slice", inputs, attrs)
    call.require_inputs()
    x = call.input(0)
    shape = tuple(x.shape)
    offsets, size = _value(call, values, 1), _value(call, values, 2)
    if unknown_rank(shape):
        return [inferred(x.dtype, shape)]
    if offsets is not None and size is not None and fully_known(shape):
        return [inferred(x.dtype, [b - a for a, b in _slice_bounds(call, shape, offsets, size)])]
    if size is not None and len(size) == len(shape):
        dims = [s if s >= 0 else UNKNOWN for s in size]
        return [inferred(x.dtype, dims, [(s, s) if s >= 0 else (0, d) for s, d in zip(size, shape)])]
    return [inferred(x.dtype, [UNKNOWN] * len(shape), [(0, d) for d in shape])]


# Tile ---------------------------------------------------------------------------------------------------
def _multiples(call: OpCall, multiples: list[int], rank: int) -> list[int]:
    """Check Tile's multiples: non-negative, at least one per axis of x (more put 1s in front of x's shape)."""
    if len(multiples) < rank or any(m < 0 for m in multiples):
        raise call.fail(f"input {call.quoted(1)} {multiples} must hold at least {rank} non-negative values (the "
                        f"rank of {call.quoted(0)})")
    return multiples


def _tile_compute(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list[TensorInfo]) -> list[np.ndarray]:
    call = OpCall("Tile", inputs, attrs)
    call.require_inputs()
    x = call.input(0)
    multiples = _multiples(call, call.index_values(1, call.input(1)), x.ndim)
    out = Outputs(call, outputs)
    out.require_input_dtype(0, 0, x.dtype)
    return [out.emit(0, np.tile(x, multiples) if multiples else x.copy())]


def _tile_infer(inputs: list[TensorInfo], values: list[np.ndarray | None], attrs: dict[str, Any]) -> list[InferredShape]:
    call = OpCall("Tile", inputs, attrs)
    call.require_inputs()
    x = call.input(0)
    shape = tuple(x.shape)
    multiples = _value(call, values, 1)
    if multiples is None:
        count = tuple(call.input(1).shape)
        rank = count[0] if len(count) == 1 and count[0] > 0 else None
        if rank is None and unknown_rank(shape):
            return [inferred(x.dtype, shape)]
        rank = len(shape) if rank is None else rank
        return [inferred(x.dtype, [UNKNOWN] * rank, [(0, -1)] * rank)]
    if unknown_rank(shape):
        return [inferred(x.dtype, [UNKNOWN] * len(multiples), [(m, -1) for m in multiples])]
    _multiples(call, multiples, len(shape))
    aligned = (1,) * (len(multiples) - len(shape)) + shape
    return [inferred(x.dtype, [d * m if d >= 0 else UNKNOWN for d, m in zip(aligned, multiples)])]


# TileWithAxis -------------------------------------------------------------------------------------------
def _tiles(call: OpCall) -> int:
    tiles = call.attr_int("tiles")
    if tiles < 1:
        raise call.fail(f"attr 'tiles' {tiles} must be at least 1")
    return tiles


def _tile_with_axis_compute(inputs: list[np.ndarray | None], attrs: dict[str, Any],
                            outputs: list[TensorInfo]) -> list[np.ndarray]:
    call = OpCall("TileWithAxis", inputs, attrs)
    call.require_inputs()
    x = call.input(0)
    call.require_dtype(0, x.dtype)
    axis = call.axis("axis", call.attr_int("axis"), x.ndim)
    tiles = _tiles(call)
    out = Outputs(call, outputs)
    out.require_input_dtype(0, 0, x.dtype)
    return [out.emit(0, np.concatenate([x] * tiles, axis=axis))]


def _tile_with_axis_infer(inputs: list[TensorInfo], values: list[np.ndarray | None],
                          attrs: dict[str, Any]) -> list[InferredShape]:
    call = OpCall("TileWithAxis", inputs, attrs)
    call.require_inputs()
    x = call.input(0)
    shape = list(x.shape)
    if unknown_rank(shape):
        return [inferred(x.dtype, shape)]
    axis = call.axis("axis", call.attr_int("axis"), len(shape))
    if shape[axis] >= 0:
        shape[axis] *= _tiles(call)
    return [inferred(x.dtype, shape)]


# SliceLastDim -------------------------------------------------------------------------------------------
def _last_dim_slice(call: OpCall, shape: tuple[int, ...]) -> slice:
    if not shape:
        raise call.fail(f"input {call.quoted(0)} must have rank 1 or more")
    dim, stride = shape[-1], call.attr_int("stride")
    start, end = (v + dim if v < 0 else v for v in (call.attr_int("start"), call.attr_int("end")))
    if stride < 1 or not 0 <= start < end <= dim:
        raise call.fail(f"attrs start {call.attr_int('start')}, end {call.attr_int('end')}, stride {stride} must "
                        f"select a part of the last dim {dim} with a positive stride")
    return slice(start, end, stride)


def _slice_last_dim_compute(inputs: list[np.ndarray | None], attrs: dict[str, Any],
                            outputs: list[TensorInfo]) -> list[np.ndarray]:
    call = OpCall("SliceLastDim", inputs, attrs)
    call.require_inputs()
    x = call.input(0)
    call.require_dtype(0, x.dtype)
    out = Outputs(call, outputs)
    out.require_input_dtype(0, 0, x.dtype)
    return [out.emit(0, x[..., _last_dim_slice(call, x.shape)])]


def _slice_last_dim_infer(inputs: list[TensorInfo], values: list[np.ndarray | None],
                          attrs: dict[str, Any]) -> list[InferredShape]:
    call = OpCall("SliceLastDim", inputs, attrs)
    call.require_inputs()
    x = call.input(0)
    shape = tuple(x.shape)
    if unknown_rank(shape) or (shape and shape[-1] < 0):
        return [inferred(x.dtype, shape[:-1] + (UNKNOWN,) if shape and not unknown_rank(shape) else shape)]
    return [inferred(x.dtype, shape[:-1] + (len(range(shape[-1])[_last_dim_slice(call, shape)]),))]


builtin("Transpose", _transpose_compute, _transpose_infer)
builtin("Reshape", _reshape_compute, _reshape_infer)
builtin("ConcatD", _concat_compute, _concat_infer)
builtin("SplitD", _split_compute, _split_infer)
builtin("Split", _split_input_compute, _split_input_infer)
builtin("Slice", _slice_compute, _slice_infer)
builtin("Tile", _tile_compute, _tile_infer)
builtin("TransposeD", *folded("TransposeD", "Transpose", lambda call: {1: call.attr_list_int("perm")}))
builtin("SliceD", *folded("SliceD", "Slice", lambda call: {1: call.attr_list_int("offsets"),
                                                          2: call.attr_list_int("size")}))
builtin("TileD", *folded("TileD", "Tile", lambda call: {1: call.attr_list_int("multiples")}, lift="multiples"))
builtin("TileWithAxis", _tile_with_axis_compute, _tile_with_axis_infer)
builtin("SliceLastDim", _slice_last_dim_compute, _slice_last_dim_infer)
