"""Linear-algebra kernels: MatrixDeterminant, LogMatrixDeterminant and MatrixTriangularSolve in the device dtype.

Prototypes: aclcts.core.prototypes.linalg. CANN runs these ops on the AI CPU (no TBE implementation), as Eigen's
partial-pivot LU and triangular solves in the tensor's own type; the kernels here do the same by explicit loops:
Gaussian elimination with partial pivoting (the largest |entry| of the column below the diagonal, rows swapped, each
swap flipping the determinant's sign), every product and difference in float32 / float64 / complex64 / complex128;
the determinant is the product of U's diagonal times the swaps' sign, its log the sum of log |u_kk| with the sign the
product of u_kk / |u_kk|. A zero column below the diagonal is skipped (the determinant 0, log -inf, sign 0).
MatrixTriangularSolve substitutes forward (lower) or backward (upper) row by row through the triangle it reads; with
adjoint it reads the conjugate transpose of that triangle, so a lower one substitutes backward.
BandedTriangularSolve substitutes through the bands themselves (row i of a lower system reads bands[d, i] for
column i - d; of an upper one bands[K-1-d, i] for column i + d; the adjoint reads bands[d, i + d] (lower) and
bands[K-1-d, i - d] (upper), conjugated); float16 is widened to float32 and rounded once (UNCONFIRMED: the AI CPU
kernel's half arithmetic is not documented).
Pdist follows dengguojie/vue-element-admin@7d77ce32d ops/built-in/tbe/impl/pdist.py: float16 widened to float32, for
each pair of rows (i < j, row-major) |x_i - x_j| in float32, raised to p (p = 0: 1 for each non-zero difference),
summed along the row in float32 (numerics.vector_sum), then raised to 1/p (p > 0).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from aclcts.sim.kernels.base import InferredShape, TensorInfo
from aclcts.sim.kernels.call import OpCall, Outputs
from aclcts.sim.kernels.numerics import FLOAT16, FLOAT32, vector_sum
from aclcts.sim.kernels.registry import builtin
from aclcts.sim.kernels.shapes import UNKNOWN, inferred, unknown_rank


def _square(call: OpCall, index: int, shape: tuple[int, ...]) -> tuple[int, ...]:
    """The batch dims of input index, [..., M, M]."""
    if len(shape) < 2 or (shape[-1] != shape[-2] and UNKNOWN not in shape[-2:]):
        raise call.fail(f"input {call.quoted(index)} {list(shape)} must be [..., M, M] (square innermost matrices)")
    return tuple(shape[:-2])


def eliminate(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """LU with partial pivoting of a [B, M, M] stack in a's dtype: (the matrix holding U on and above the diagonal,
    the sign (+1 or -1) of each batch's row permutation)."""
    lu = a.copy()
    batches, order = lu.shape[0], lu.shape[-1]
    rows = np.arange(batches)
    sign = np.ones(batches, lu.dtype)
    for k in range(order):
        pivot_row = k + np.argmax(np.abs(lu[:, k:, k]), axis=1)
        swapped = pivot_row != k
        top = lu[rows, k].copy()
        lu[rows, k] = lu[rows, pivot_row]
        lu[rows, pivot_row] = top
        sign = np.where(swapped, -sign, sign)
        pivot = lu[:, k, k]
        nonzero = pivot != 0
        factors = np.where(nonzero[:, None], lu[:, k + 1:, k] / np.where(nonzero, pivot, 1)[:, None], 0)
        lu[:, k + 1:, k] = factors
        lu[:, k + 1:, k + 1:] -= factors[:, :, None] * lu[:, k, None, k + 1:]
    return lu, sign


def _stack(x: np.ndarray) -> np.ndarray:
    return x.reshape((-1,) + x.shape[-2:])


def _factored(op_type: str, inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list[TensorInfo],
              count: int) -> tuple[Outputs, tuple[int, ...], np.ndarray, np.ndarray]:
    """The shared start of the determinant ops: checks, then (the outputs, the batch dims, U's diagonals, the swaps'
    signs) of x's LU."""
    call = OpCall(op_type, inputs, attrs)
    call.require_inputs()
    x = call.input(0)
    call.require_dtype(0, x.dtype)
    batch = _square(call, 0, x.shape)
    out = Outputs(call, outputs)
    for index in range(count):
        out.require_input_dtype(index, 0, x.dtype)
    lu, sign = eliminate(_stack(x))
    return out, batch, np.diagonal(lu, axis1=-2, axis2=-1), sign


def _determinant_compute(inputs: list[np.ndarray | None], attrs: dict[str, Any],
                         outputs: list[TensorInfo]) -> list[np.ndarray]:
    out, batch, diagonal, det = _factored("MatrixDeterminant", inputs, attrs, outputs, 1)
    for k in range(diagonal.shape[-1]):
        det = det * diagonal[:, k]
    return [out.emit(0, det.reshape(batch))]


def _log_determinant_compute(inputs: list[np.ndarray | None], attrs: dict[str, Any],
                             outputs: list[TensorInfo]) -> list[np.ndarray]:
    out, batch, diagonal, sign = _factored("LogMatrixDeterminant", inputs, attrs, outputs, 2)
    magnitude = np.abs(diagonal)
    unit = np.where(magnitude == 0, 0, diagonal / np.where(magnitude == 0, 1, magnitude))
    log_abs = np.zeros(sign.shape, magnitude.dtype)
    with np.errstate(divide="ignore"):
        for k in range(diagonal.shape[-1]):
            sign = sign * unit[:, k]
            log_abs = log_abs + np.log(magnitude[:, k])
    return [out.emit(0, sign.reshape(batch)), out.emit(1, log_abs.astype(diagonal.dtype).reshape(batch))]


def substitute(system: np.ndarray, rhs: np.ndarray, lower: bool) -> np.ndarray:
    """y with system y = rhs for a triangular [..., M, M] system, row by row in the arrays' dtype."""
    y = np.zeros(rhs.shape, rhs.dtype)
    order = system.shape[-1]
    for i in (range(order) if lower else range(order - 1, -1, -1)):
        known = slice(0, i) if lower else slice(i + 1, order)
        partial = np.einsum("...j,...jk->...k", system[..., i, known], y[..., known, :])
        y[..., i, :] = (rhs[..., i, :] - partial) / system[..., i, i, None]
    return y


def _broadcast(call: OpCall, left: tuple[int, ...], rhs: tuple[int, ...]) -> tuple[int, ...]:
    """The output shape of a solve: the two inputs' batch dims broadcast, then rhs's [M, N]."""
    try:
        return tuple(np.broadcast_shapes(tuple(left[:-2]), tuple(rhs[:-2]))) + tuple(rhs[-2:])
    except ValueError:
        raise call.fail(f"the batch dims of inputs {call.quoted(0)} {list(left)} and {call.quoted(1)} {list(rhs)} "
                        "do not broadcast") from None


def _system(op_type: str, inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list[TensorInfo],
            shape_of: Any) -> tuple[OpCall, Outputs, np.ndarray, np.ndarray, tuple[int, ...]]:
    """The shared start of the solves: checks, then (the call, the outputs, the two inputs, the output shape)."""
    call = OpCall(op_type, inputs, attrs)
    call.require_inputs()
    left, rhs = call.input(0), call.input(1)
    call.require_dtype(0, left.dtype)
    call.require_same_dtype([0, 1], [left.dtype, rhs.dtype])
    shape = shape_of(call, left.shape, rhs.shape)
    out = Outputs(call, outputs)
    out.require_input_dtype(0, 0, left.dtype)
    return call, out, left, rhs, shape


def _solve_shape(call: OpCall, matrix: tuple[int, ...], rhs: tuple[int, ...]) -> tuple[int, ...]:
    batch = _square(call, 0, matrix)
    if len(rhs) < 2 or rhs[-2] != matrix[-1]:
        raise call.fail(f"input {call.quoted(1)} {list(rhs)} must be [..., M, K] with M = {matrix[-1]}, the order of "
                        f"input {call.quoted(0)}")
    return _broadcast(call, matrix, rhs)


def _solve_compute(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list[TensorInfo]) -> list[np.ndarray]:
    call, out, matrix, rhs, shape = _system("MatrixTriangularSolve", inputs, attrs, outputs, _solve_shape)
    lower, adjoint = call.attr_bool("lower"), call.attr_bool("adjoint")
    system = np.tril(matrix) if lower else np.triu(matrix)
    if adjoint:
        system = np.conj(np.swapaxes(system, -1, -2))
    system = np.broadcast_to(system, shape[:-2] + matrix.shape[-2:])
    with np.errstate(all="ignore"):
        y = substitute(system, np.broadcast_to(rhs, shape), lower != adjoint)
    return [out.emit(0, y)]


def _banded_row(bands: np.ndarray, i: int, d: int, lower: bool, adjoint: bool) -> tuple[int, np.ndarray | None]:
    """Row i's entry d diagonals off the main one, in the triangle the substitution reads: (its column, its values,
    None where the column is outside the matrix)."""
    count, order = bands.shape[-2], bands.shape[-1]
    column = i - d if lower != adjoint else i + d
    if not 0 <= column < order:
        return column, None
    if not adjoint:
        return column, bands[..., d, i] if lower else bands[..., count - 1 - d, i]
    return column, np.conj(bands[..., d, column] if lower else bands[..., count - 1 - d, column])


def banded_substitute(bands: np.ndarray, rhs: np.ndarray, lower: bool, adjoint: bool) -> np.ndarray:
    """y with A y = rhs (A^H y = rhs with adjoint), A the triangular matrix of the [..., K, M] bands."""
    count, order = bands.shape[-2], bands.shape[-1]
    forward = lower != adjoint
    y = np.zeros(rhs.shape, rhs.dtype)
    for i in (range(order) if forward else range(order - 1, -1, -1)):
        total = rhs[..., i, :].copy()
        for d in range(1, count):
            column, entry = _banded_row(bands, i, d, lower, adjoint)
            if entry is not None:
                total = total - entry[..., None] * y[..., column, :]
        y[..., i, :] = total / _banded_row(bands, i, 0, lower, adjoint)[1][..., None]
    return y


def _banded_compute(inputs: list[np.ndarray | None], attrs: dict[str, Any],
                    outputs: list[TensorInfo]) -> list[np.ndarray]:
    call, out, bands, rhs, shape = _system("BandedTriangularSolve", inputs, attrs, outputs, _banded_shape)
    compute = FLOAT32 if bands.dtype == FLOAT16 else bands.dtype
    wide_bands = np.broadcast_to(bands, shape[:-2] + bands.shape[-2:]).astype(compute)
    with np.errstate(all="ignore"):
        y = banded_substitute(wide_bands, np.broadcast_to(rhs, shape).astype(compute), call.attr_bool("lower"),
                              call.attr_bool("adjoint"))
    return [out.emit(0, y.astype(bands.dtype))]


def _banded_shape(call: OpCall, bands: tuple[int, ...], rhs: tuple[int, ...]) -> tuple[int, ...]:
    if len(bands) < 2 or len(rhs) < 2 or rhs[-2] != bands[-1]:
        raise call.fail(f"inputs {call.quoted(0)} {list(bands)} and {call.quoted(1)} {list(rhs)} must be [..., K, M] "
                        "and [..., M, N] with the same M")
    return _broadcast(call, bands, rhs)


def _pdist_rows(call: OpCall, shape: tuple[int, ...]) -> int:
    if len(shape) != 2:
        raise call.fail(f"input {call.quoted(0)} {list(shape)} must be a [N, M] matrix")
    return shape[0]


def _pdist_compute(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list[TensorInfo]) -> list[np.ndarray]:
    call = OpCall("Pdist", inputs, attrs)
    call.require_inputs()
    x = call.input(0)
    call.require_dtype(0, x.dtype)
    rows = _pdist_rows(call, x.shape)
    p = np.float32(call.attr_float("p"))
    out = Outputs(call, outputs)
    out.require_input_dtype(0, 0, x.dtype)
    wide = x.astype(FLOAT32)
    y = np.zeros(rows * (rows - 1) // 2, FLOAT32)
    start = 0
    with np.errstate(all="ignore"):
        for i in range(rows - 1):  # one row's distances at a time: all pairs at once would hold N^2 M / 2 values
            distance = np.abs(wide[i + 1:] - wide[i])
            powered = (distance != 0).astype(FLOAT32) if p == 0 else distance ** p
            total = vector_sum(powered, -1) if powered.size else np.zeros(len(distance), FLOAT32)
            y[start:start + len(distance)] = total if p == 0 else total ** (np.float32(1) / p)
            start += len(distance)
    return [out.emit(0, y.astype(x.dtype))]


def _pdist_infer(inputs: list[TensorInfo], values: list[np.ndarray | None], attrs: dict[str, Any]) -> list[InferredShape]:
    call = OpCall("Pdist", inputs, attrs)
    call.require_inputs()
    x = call.input(0)
    if unknown_rank(x.shape) or x.shape[0] == UNKNOWN:
        return [inferred(x.dtype, (UNKNOWN,))]
    rows = _pdist_rows(call, tuple(x.shape))
    return [inferred(x.dtype, (rows * (rows - 1) // 2,))]


def _batch_infer(op_type: str, outputs: int) -> Any:
    def infer(inputs: list[TensorInfo], values: list[np.ndarray | None], attrs: dict[str, Any]) -> list[InferredShape]:
        call = OpCall(op_type, inputs, attrs)
        call.require_inputs()
        x = call.input(0)
        if unknown_rank(x.shape):
            return [inferred(x.dtype, tuple(x.shape))] * outputs
        return [inferred(x.dtype, _square(call, 0, tuple(x.shape)))] * outputs
    return infer


def _solve_infer(op_type: str, shape_of: Any) -> Any:
    """infer_shape of a solve: rhs's shape with the batch dims broadcast (rhs's shape while a dim is unknown)."""
    def infer(inputs: list[TensorInfo], values: list[np.ndarray | None], attrs: dict[str, Any]) -> list[InferredShape]:
        call = OpCall(op_type, inputs, attrs)
        call.require_inputs()
        left, rhs = call.input(0), call.input(1)
        if unknown_rank(left.shape) or unknown_rank(rhs.shape) or UNKNOWN in left.shape or UNKNOWN in rhs.shape:
            return [inferred(rhs.dtype, tuple(rhs.shape))]
        return [inferred(rhs.dtype, shape_of(call, tuple(left.shape), tuple(rhs.shape)))]
    return infer


builtin("MatrixDeterminant", _determinant_compute, _batch_infer("MatrixDeterminant", 1))
builtin("LogMatrixDeterminant", _log_determinant_compute, _batch_infer("LogMatrixDeterminant", 2))
builtin("MatrixTriangularSolve", _solve_compute, _solve_infer("MatrixTriangularSolve", _solve_shape))
builtin("Pdist", _pdist_compute, _pdist_infer)
builtin("BandedTriangularSolve", _banded_compute, _solve_infer("BandedTriangularSolve", _banded_shape))
