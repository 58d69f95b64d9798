"""SparseTensorDenseMatMul: y = op(A) @ op(B) with A a rank-2 COO tensor given by inputs 0 to 2 (its indices
[nnz, 2], values [nnz] and dense shape [2]) and B input 3; op transposes when adjoint_a / adjoint_b is set.

Prototype: graphengine 910 sparse_ops.h REG_OP(SparseTensorDenseMatMul) (aclcts/core/prototypes/sparse.py).
Numerics: each entry's products v * B[col, :] are added into its output row in entry order, in float32 for float16
values (rounded once to float16 at the end), in the values' own type otherwise; integer types wrap. Entries sharing
an index add up. An index outside the dense shape, or a dense shape disagreeing with B, fails the execution.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from aclcts.sim.kernels.base import InferredShape, TensorInfo
from aclcts.sim.kernels.call import OpCall, Outputs
from aclcts.sim.kernels.numerics import compute_dtype
from aclcts.sim.kernels.registry import builtin
from aclcts.sim.kernels.shapes import UNKNOWN, inferred
from aclcts.sim.seams import Seam

_OP = "SparseTensorDenseMatMul"


def _dense_dims(call: OpCall, value: Any) -> tuple[int, int]:
    dims = call.index_values(2, value)
    if len(dims) != 2 or min(dims) < 0:
        raise call.fail(f"input {call.quoted(2)} {dims} must hold two non-negative dims")
    return dims[0], dims[1]


def _entries(call: OpCall, indices: np.ndarray, count: int, dims: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
    """Rows and columns of the nnz entries, checked against the dense shape (input 2)."""
    if indices.ndim != 2 or indices.shape[1] != 2 or indices.shape[0] != count:
        raise call.fail(f"input {call.quoted(0)} must have shape [{count}, 2] (nnz of {call.quoted(1)}), "
                        f"got {list(indices.shape)}")
    rows, cols = indices[:, 0].astype(np.int64), indices[:, 1].astype(np.int64)
    outside = (rows < 0) | (rows >= dims[0]) | (cols < 0) | (cols >= dims[1])
    if outside.any():
        first = int(np.argmax(outside))
        raise call.fail(f"index {first} of {call.quoted(0)} ({rows[first]}, {cols[first]}) lies outside "
                        f"{call.name(2)} {list(dims)}")
    return rows, cols


def _accumulate(y: np.ndarray, rows: np.ndarray, cols: np.ndarray, values: np.ndarray, b: np.ndarray) -> None:
    """Add each entry's products values[i] * b[cols[i]] into row rows[i] of y, in entry order."""
    np.add.at(y, rows, values[:, None] * b[cols])


#: How the entries' products are added into the output rows.
accumulate = Seam("sparse accumulation", _accumulate)


def _compute(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list[TensorInfo]) -> list[np.ndarray]:
    call = OpCall(_OP, inputs, attrs)
    call.require_inputs()
    indices, values = call.input(0), call.input(1)
    x2 = call.input(3)
    call.require_dtype(0, indices.dtype)
    call.require_dtype(1, values.dtype)
    call.require_same_dtype([1, 3], [values.dtype, x2.dtype])
    dims = _dense_dims(call, call.input(2))
    if values.ndim != 1 or x2.ndim != 2:
        raise call.fail(f"{call.quoted(1)} must be 1-D and {call.quoted(3)} 2-D, got {list(values.shape)} and {list(x2.shape)}")
    rows, cols = _entries(call, indices, values.size, dims)
    if call.attr_bool("adjoint_a"):
        rows, cols, dims = cols, rows, (dims[1], dims[0])
    b = x2.T if call.attr_bool("adjoint_b") else x2
    if dims[1] != b.shape[0]:
        raise call.fail(f"inner dimensions differ: op(A) {list(dims)} and op({call.name(3)}) {list(b.shape)}")
    out = Outputs(call, outputs)
    out.require_input_dtype(0, 1, values.dtype)
    wide = compute_dtype(values.dtype)
    y = np.zeros((dims[0], b.shape[1]), dtype=wide)
    with np.errstate(all="ignore"):
        accumulate(y, rows, cols, values.astype(wide, copy=False), b.astype(wide, copy=False))
    return [out.emit(0, y.astype(values.dtype, copy=False))]


def _infer(inputs: list[TensorInfo], values: list[np.ndarray | None], attrs: dict[str, Any]) -> list[InferredShape]:
    call = OpCall(_OP, inputs, attrs)
    call.require_inputs()
    dtype = call.input(1).dtype
    x2 = tuple(call.input(3).shape)
    cols = UNKNOWN if len(x2) != 2 else x2[0] if call.attr_bool("adjoint_b") else x2[1]
    value = values[2] if len(values) > 2 else None
    if value is None:
        return [inferred(dtype, [UNKNOWN, cols])]
    dims = _dense_dims(call, value)
    return [inferred(dtype, [dims[1] if call.attr_bool("adjoint_a") else dims[0], cols])]


builtin(_OP, _compute, _infer)
