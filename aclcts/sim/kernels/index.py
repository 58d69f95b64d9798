"""Index and selection ops: ArgMaxV2, ArgMin, ArgMaxD, ArgMinD, ArgMaxWithValue, ArgMinWithValue, TopK, NonZero, Where,
Unique (the last four have value-dependent shapes), DataFormatDimMap, and the const-folded TopKD through TopK's
kernel (aclcts/sim/kernels/folded.py).

Records: aclcts/core/prototypes/index.py. Behaviour:
- ArgMaxV2 / ArgMin / ArgMaxD / ArgMinD / ArgMaxWithValue / ArgMinWithValue: the first maximum (minimum) wins, a NaN before
  any number. The official sample op_list.json (docs/contract/single-op-json.md#examples) gives ArgMaxV2 no dtype
  attr and an int32 output, so without the attribute the output desc decides between int32 and int64.
- TopK: ties keep the lower index first; unsorted results come in index order (simulator choice).
- NonZero, PyTorch-compatible: one row of coordinates per non-zero element ([n, rank]), or one column each when
  transpose is set ([rank, n]).
- Where: the coordinates of the non-zero elements, [n, rank], as in the dynamic-shape template of the ATC guide
  (docs/contract/single-op-json.md#examples).
- Unique, TensorFlow-compatible, of a 1-D input: the distinct values in order of first occurrence, and for each
  element its position among them.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from aclcts.core.dtypes import acl_data_type, numpy_dtype
from aclcts.sim.kernels.base import InferredShape, TensorInfo
from aclcts.sim.kernels.call import OpCall, Outputs, dtype_name
from aclcts.sim.kernels.gather_scatter import stable_order
from aclcts.sim.kernels.folded import folded
from aclcts.sim.kernels.registry import builtin, not_simulated
from aclcts.sim.kernels.shapes import UNKNOWN, fully_known, inferred, numel, unknown_rank

INT32 = acl_data_type(np.int32)
INT64 = acl_data_type(np.int64)
#: Record dtypes the simulator does not implement for ArgMaxV2/ArgMin: complex values have no order.
NOT_SIMULATED = ("complex64", "complex128")


def _index_dtype(call: OpCall, out: Outputs | None, attr: str) -> int:
    """The index output dtype: attr `attr` when given (the output must agree), else the output desc's (or the
    attribute's default)."""
    if attr in call.attrs:
        chosen = call.attr_dtype(attr, (INT32, INT64))
        if out is not None and out.infos[0].dtype != chosen:
            raise call.fail(
                f"attr '{attr}' is {dtype_name(chosen)}, but output '{out.names[0]}' has {dtype_name(out.infos[0].dtype)}"
            )
        return chosen
    if out is None:
        return int(call.record.attr(attr).default)
    given = out.infos[0].dtype
    if given not in (INT32, INT64):
        raise call.fail(f"output '{out.names[0]}' has dtype {dtype_name(given)}, expected int32 or int64")
    return given


# ArgMaxV2 -----------------------------------------------------------------------------------------------
def _argmax_dim(call: OpCall, value: Any, rank: int) -> int:
    return call.axis(f"input {call.quoted(1)} value", call.one_value(1, value), rank)


def _first_extreme(call: OpCall, out: Outputs, x: np.ndarray, dim: int, pick: Any, dtype: np.dtype) -> np.ndarray:
    """The index of the first extreme (pick: np.argmax or np.argmin) along dim, as output 0 of dtype."""
    if x.shape[dim] == 0:
        raise call.fail(f"cannot take the index of an extreme over empty dim {dim} of {call.quoted(0)} "
                        f"{list(x.shape)}")
    return out.emit(0, pick(x, axis=dim).astype(dtype))


def _arg_kernel(op_type: str, pick: Any) -> None:
    """ArgMaxV2 / ArgMin: (x, dimension) -> the first extreme's index along the dimension (NaN wins)."""
    def compute(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list[TensorInfo]) -> list[np.ndarray]:
        call = OpCall(op_type, inputs, attrs)
        call.require_inputs()
        x = call.input(0)
        call.require_simulated(0, x.dtype)
        dim = _argmax_dim(call, call.input(1), x.ndim)
        out = Outputs(call, outputs)
        return [_first_extreme(call, out, x, dim, pick, numpy_dtype(_index_dtype(call, out, "dtype")))]

    def infer_shape(inputs: list[TensorInfo], values: list[np.ndarray | None], attrs: dict[str, Any]) -> list[InferredShape]:
        call = OpCall(op_type, inputs, attrs)
        call.require_inputs()
        x = call.input(0)
        shape = tuple(x.shape)
        dtype = _index_dtype(call, None, "dtype")
        value = values[1] if len(values) > 1 else None
        if unknown_rank(shape):
            return [inferred(dtype, shape)]
        if value is None:
            bound = (min(shape), max(shape)) if shape and fully_known(shape) else (0, -1)
            return [inferred(dtype, [UNKNOWN] * (len(shape) - 1), [bound] * (len(shape) - 1))]
        dim = _argmax_dim(call, value, len(shape))
        return [inferred(dtype, shape[:dim] + shape[dim + 1 :])]

    builtin(op_type, compute, infer_shape)
    not_simulated(op_type, 0, NOT_SIMULATED)


def _dimension_attr(call: OpCall, rank: int) -> int:
    return call.axis("attr 'dimension'", call.attr_int("dimension"), rank)


def _arg_d_kernel(op_type: str, pick: Any) -> None:
    """ArgMaxD / ArgMinD: x -> the first extreme's int32 index along attr dimension."""
    def compute(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list[TensorInfo]) -> list[np.ndarray]:
        call = OpCall(op_type, inputs, attrs)
        call.require_inputs()
        x = call.input(0)
        call.require_dtype(0, x.dtype)
        dim = _dimension_attr(call, x.ndim)
        out = Outputs(call, outputs)
        out.require_dtype(0, np.dtype(np.int32), f"the prototype's only {out.names[0]} type")
        return [_first_extreme(call, out, x, dim, pick, np.dtype(np.int32))]

    def infer_shape(inputs: list[TensorInfo], values: list[np.ndarray | None], attrs: dict[str, Any]) -> list[InferredShape]:
        call = OpCall(op_type, inputs, attrs)
        call.require_inputs()
        shape = tuple(call.input(0).shape)
        if unknown_rank(shape):
            return [inferred(INT32, shape)]
        dim = _dimension_attr(call, len(shape))
        return [inferred(INT32, shape[:dim] + shape[dim + 1 :])]

    builtin(op_type, compute, infer_shape)


def _with_value_kernel(op_type: str, pick: Any) -> None:
    """ArgMaxWithValue / ArgMinWithValue: x -> (indice, values) along attr dimension, keep_dims optional."""
    def shape_of(call: OpCall, shape: tuple[int, ...]) -> tuple[int, ...]:
        dim = _dimension_attr(call, len(shape))
        if call.attr_bool("keep_dims"):
            return shape[:dim] + (1,) + shape[dim + 1 :]
        return shape[:dim] + shape[dim + 1 :]

    def compute(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list[TensorInfo]) -> list[np.ndarray]:
        call = OpCall(op_type, inputs, attrs)
        call.require_inputs()
        x = call.input(0)
        call.require_dtype(0, x.dtype)
        dim = _dimension_attr(call, x.ndim)
        out = Outputs(call, outputs)
        index_dtype = _index_dtype(call, out, "indice_dtype")
        out.require_input_dtype(1, 0, x.dtype)
        if x.shape[dim] == 0:
            raise call.fail(f"cannot take an extreme over empty dim {dim} of {call.quoted(0)} {list(x.shape)}")
        index = np.expand_dims(pick(x, axis=dim), dim)
        value = np.take_along_axis(x, index, axis=dim)
        shape = shape_of(call, tuple(x.shape))
        return [out.emit(0, index.reshape(shape).astype(numpy_dtype(index_dtype))), out.emit(1, value.reshape(shape))]

    def infer_shape(inputs: list[TensorInfo], values: list[np.ndarray | None], attrs: dict[str, Any]) -> list[InferredShape]:
        call = OpCall(op_type, inputs, attrs)
        call.require_inputs()
        x = call.input(0)
        index_dtype = _index_dtype(call, None, "indice_dtype")
        shape = tuple(x.shape)
        if unknown_rank(shape):
            return [inferred(index_dtype, shape), inferred(x.dtype, shape)]
        result = shape_of(call, shape)
        return [inferred(index_dtype, result), inferred(x.dtype, result)]

    builtin(op_type, compute, infer_shape)


# TopK ---------------------------------------------------------------------------------------------------
def _topk_setup(call: OpCall, shape: tuple[int, ...]) -> int:
    return call.axis("attr 'dim'", call.attr_int("dim"), len(shape))


def _k(call: OpCall, value: Any, size: int) -> int:
    array = np.asarray(value)
    if array.dtype != np.dtype(np.int32) or array.size != 1:
        raise call.fail(f"input {call.quoted(1)} must be one int32 value, got dtype {dtype_name(array.dtype)} shape "
                        f"{list(array.shape)}")
    k = int(array.reshape(()))
    if not 0 <= k <= size:
        raise call.fail(f"input {call.quoted(1)} is {k}, expected 0 <= k <= {size} (the size of the selected dim)")
    return k


def _topk_compute(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list[TensorInfo]) -> list[np.ndarray]:
    call = OpCall("TopK", inputs, attrs)
    call.require_inputs()
    x = call.input(0)
    call.require_dtype(0, x.dtype)
    dim = _topk_setup(call, tuple(x.shape))
    k = _k(call, call.input(1), x.shape[dim])
    largest, ordered = call.attr_bool("largest"), call.attr_bool("sorted")
    out = Outputs(call, outputs)
    out.require_input_dtype(0, 0, x.dtype)
    out.require_dtype(1, np.dtype(np.int32), f"TopK's {out.names[1]} is int32")
    moved = np.moveaxis(x, dim, -1)
    chosen = stable_order(moved, descending=largest)[..., :k]
    if not ordered:
        chosen = np.sort(chosen, axis=-1)
    values = np.take_along_axis(moved, chosen, axis=-1)
    return [
        out.emit(0, np.moveaxis(values, -1, dim), value_dependent=True),
        out.emit(1, np.moveaxis(chosen, -1, dim).astype(np.int32), value_dependent=True),
    ]


def _topk_infer(inputs: list[TensorInfo], values: list[np.ndarray | None], attrs: dict[str, Any]) -> list[InferredShape]:
    call = OpCall("TopK", inputs, attrs)
    call.require_inputs()
    x = call.input(0)
    shape = tuple(x.shape)
    if unknown_rank(shape):
        return [inferred(x.dtype, shape), inferred(INT32, shape)]
    dim = _topk_setup(call, shape)
    value = values[1] if len(values) > 1 else None
    if value is None or shape[dim] < 0:
        dims = tuple(UNKNOWN if i == dim else d for i, d in enumerate(shape))
        ranges = [(0, d) if i == dim else ((d, d) if d >= 0 else (0, -1)) for i, d in enumerate(shape)]
        return [inferred(x.dtype, dims, ranges), inferred(INT32, dims, ranges)]
    k = _k(call, value, shape[dim])
    dims = tuple(k if i == dim else d for i, d in enumerate(shape))
    return [inferred(x.dtype, dims), inferred(INT32, dims)]


# NonZero and Where --------------------------------------------------------------------------------------
def _positions(x: np.ndarray) -> np.ndarray:
    """The [n, rank] coordinates of x's nonzero elements in row-major order."""
    return np.argwhere(np.asarray(x) != 0)


def _nonzero_compute(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list[TensorInfo]) -> list[np.ndarray]:
    call = OpCall("NonZero", inputs, attrs)
    call.require_inputs()
    x = call.input(0)
    call.require_dtype(0, x.dtype)
    out = Outputs(call, outputs)
    dtype = numpy_dtype(_index_dtype(call, out, "dtype"))
    coordinates = _positions(x)
    if call.attr_bool("transpose"):
        coordinates = coordinates.T
    return [out.emit(0, coordinates.astype(dtype), value_dependent=True)]


def _coordinates_shape(dtype: int, shape: tuple[int, ...], transpose: bool) -> InferredShape:
    if unknown_rank(shape):
        dims, ranges = [UNKNOWN, UNKNOWN], [(0, -1), (0, -1)]
    else:
        count = (0, numel(shape)) if fully_known(shape) else (0, -1)
        dims, ranges = [UNKNOWN, len(shape)], [count, (len(shape), len(shape))]
    if transpose:
        dims, ranges = dims[::-1], ranges[::-1]
    return inferred(dtype, dims, ranges)


def _nonzero_infer(inputs: list[TensorInfo], values: list[np.ndarray | None], attrs: dict[str, Any]) -> list[InferredShape]:
    call = OpCall("NonZero", inputs, attrs)
    call.require_inputs()
    x = call.input(0)
    dtype = _index_dtype(call, None, "dtype")
    return [_coordinates_shape(dtype, tuple(x.shape), call.attr_bool("transpose"))]


def _where_compute(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list[TensorInfo]) -> list[np.ndarray]:
    call = OpCall("Where", inputs, attrs)
    call.require_inputs()
    x = call.input(0)
    call.require_dtype(0, x.dtype)
    out = Outputs(call, outputs)
    out.require_dtype(0, np.dtype(np.int64), "Where gives int64 coordinates")
    return [out.emit(0, _positions(x).astype(np.int64), value_dependent=True)]


def _where_infer(inputs: list[TensorInfo], values: list[np.ndarray | None], attrs: dict[str, Any]) -> list[InferredShape]:
    call = OpCall("Where", inputs, attrs)
    call.require_inputs()
    return [_coordinates_shape(INT64, tuple(call.input(0).shape), False)]


# Unique -------------------------------------------------------------------------------------------------
def _unique_compute(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list[TensorInfo]) -> list[np.ndarray]:
    call = OpCall("Unique", inputs, attrs)
    call.require_inputs()
    x = call.input(0)
    call.require_dtype(0, x.dtype)
    if x.ndim != 1:
        raise call.fail(f"input {call.quoted(0)} must be 1-D, got shape {list(x.shape)}")
    out = Outputs(call, outputs)
    out.require_input_dtype(0, 0, x.dtype)
    idx_dtype = call.attr_dtype("out_idx", (INT32, INT64))
    out.require_dtype(1, numpy_dtype(idx_dtype), "given by attr 'out_idx'")
    _, first, inverse = np.unique(x, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")
    rank_of = np.empty_like(order)
    rank_of[order] = np.arange(order.size)
    return [
        out.emit(0, x[np.sort(first)], value_dependent=True),
        out.emit(1, rank_of[inverse.reshape(-1)].astype(numpy_dtype(idx_dtype))),
    ]


def _unique_infer(inputs: list[TensorInfo], values: list[np.ndarray | None], attrs: dict[str, Any]) -> list[InferredShape]:
    call = OpCall("Unique", inputs, attrs)
    call.require_inputs()
    x = call.input(0)
    idx_dtype = call.attr_dtype("out_idx", (INT32, INT64))
    shape = tuple(x.shape)
    if not unknown_rank(shape) and len(shape) != 1:
        raise call.fail(f"input {call.quoted(0)} must be 1-D, got shape {list(shape)}")
    n = shape[0] if len(shape) == 1 else -1
    unique_range = (min(n, 1), n) if n >= 0 else (1, -1)
    return [inferred(x.dtype, (UNKNOWN,), [unique_range]), inferred(idx_dtype, (n,))]


_arg_kernel("ArgMaxV2", np.argmax)
_arg_kernel("ArgMin", np.argmin)
_arg_d_kernel("ArgMaxD", np.argmax)
_arg_d_kernel("ArgMinD", np.argmin)
_with_value_kernel("ArgMaxWithValue", np.argmax)
_with_value_kernel("ArgMinWithValue", np.argmin)
def _dim_map_table(call: OpCall) -> np.ndarray:
    """DataFormatDimMap's lookup: entry i (i in [-4, 4), read modulo 4) is where dst_format puts src_format's dim i."""
    src, dst = call.attr_str("src_format"), call.attr_str("dst_format")
    if len(src) != 4 or sorted(src) != sorted(dst):
        raise call.fail(f"attrs 'src_format' {src!r} and 'dst_format' {dst!r} must be 4 letters, one a permutation "
                        "of the other")
    return np.array([dst.find(letter) for letter in src])


def _dim_map_compute(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list[TensorInfo]) -> list[np.ndarray]:
    call = OpCall("DataFormatDimMap", inputs, attrs)
    call.require_inputs()
    x = call.input(0)
    call.require_dtype(0, x.dtype)
    table = _dim_map_table(call)
    if x.size and (x.min() < -4 or x.max() >= 4):
        raise call.fail(f"input {call.quoted(0)} holds values outside [-4, 4)")
    out = Outputs(call, outputs)
    out.require_input_dtype(0, 0, x.dtype)
    return [out.emit(0, table[x % 4].astype(x.dtype))]


def _dim_map_infer(inputs: list[TensorInfo], values: list[np.ndarray | None], attrs: dict[str, Any]) -> list[InferredShape]:
    call = OpCall("DataFormatDimMap", inputs, attrs)
    call.require_inputs()
    x = call.input(0)
    return [inferred(x.dtype, x.shape)]


builtin("TopK", _topk_compute, _topk_infer)
builtin("DataFormatDimMap", _dim_map_compute, _dim_map_infer)
# TopKD's second input is the index table CANN's topk_d.py reads the indices from; the results follow TensorFlow's
# TopK, so it is checked (float16, by the record) and otherwise unused.
builtin("TopKD", *folded("TopKD", "TopK", lambda call: {1: np.array(call.attr_int("k"), dtype=np.int32)}, drop=(1,)))
builtin("NonZero", _nonzero_compute, _nonzero_infer)
builtin("Where", _where_compute, _where_infer)
builtin("Unique", _unique_compute, _unique_infer)
