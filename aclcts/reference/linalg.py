"""Linear-algebra references in float64 / complex128 by numpy.linalg (LAPACK's getrf and gesv), rounded once.

MatrixDeterminant is numpy.linalg.det, LogMatrixDeterminant numpy.linalg.slogdet (TensorFlow's sign and log |det|:
sign 0 and -inf for a singular matrix), MatrixTriangularSolve numpy.linalg.solve on the chosen triangle (conjugate
transposed with adjoint), as tf.raw_ops.MatrixTriangularSolve documents; BandedTriangularSolve the same on the matrix
its bands fill (tf.linalg.banded_triangular_solve: LEFT_RIGHT alignment, the subdiagonals right-aligned, the
superdiagonals left-aligned). The simulator eliminates by its own explicit
loops in the device dtype; nothing is shared.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from aclcts.reference.base import RefOp, define
from aclcts.reference.numeric import round_to, widen


def square_batch(shape: tuple[int, ...]) -> tuple[int, ...]:
    """The batch dims of a [..., M, M] tensor (the ops' first input)."""
    if len(shape) < 2 or shape[-1] != shape[-2]:
        raise ValueError(f"input 0 {list(shape)} must be [..., M, M] (square innermost matrices)")
    return tuple(shape[:-2])


def _determinant(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    x = widen(xs[0])
    square_batch(x.shape)
    return [round_to(np.linalg.det(x), out[0])]


def _log_determinant(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    x = widen(xs[0])
    square_batch(x.shape)
    sign, log_abs = np.linalg.slogdet(x)
    return [round_to(sign, out[0]), round_to(log_abs, out[1])]


def triangle(matrix: np.ndarray, lower: bool, adjoint: bool) -> np.ndarray:
    """The system's matrix: matrix's lower or upper triangle, conjugate transposed with adjoint."""
    part = np.tril(matrix) if lower else np.triu(matrix)
    return np.conj(np.swapaxes(part, -1, -2)) if adjoint else part


def _solve_shape(shapes: list[Any], values: list[Any], attrs: dict[str, Any]) -> list[tuple[int, ...]]:
    matrix, rhs = tuple(shapes[0]), tuple(shapes[1])
    batch = square_batch(matrix)
    if len(rhs) < 2 or rhs[-2] != matrix[-1]:
        raise ValueError(f"rhs {list(rhs)} must be [..., M, K] with M = {matrix[-1]}, matrix's order")
    return [np.broadcast_shapes(batch, rhs[:-2]) + rhs[-2:]]


def _triangular_system(xs: list[Any], attrs: dict[str, Any]) -> tuple[np.ndarray, np.ndarray]:
    """MatrixTriangularSolve's system (A [..., M, M], B [..., M, K]) in float64, broadcast to the output's batch."""
    matrix, rhs = widen(xs[0]), widen(xs[1])
    (shape,) = _solve_shape([matrix.shape, rhs.shape], [], attrs)
    system = triangle(matrix, bool(attrs["lower"]), bool(attrs["adjoint"]))
    return np.broadcast_to(system, shape[:-2] + matrix.shape[-2:]), np.broadcast_to(rhs, shape)


def _triangular_solve(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    return [_solved(_triangular_system(xs, attrs), out[0])]


def _solved(system: tuple[np.ndarray, np.ndarray], dtype: np.dtype) -> np.ndarray:
    """The solution X of A X = B, rounded to dtype."""
    with np.errstate(all="ignore"):
        return round_to(np.linalg.solve(*system), dtype)


def band_matrix(bands: np.ndarray, lower: bool) -> np.ndarray:
    """The [..., M, M] matrix whose K = bands.shape[-2] diagonals the bands hold: lower, entry (i, i - d) is
    bands[..., d, i]; upper, entry (i, i + d) is bands[..., K - 1 - d, i]."""
    count, order = bands.shape[-2], bands.shape[-1]
    dense = np.zeros(bands.shape[:-2] + (order, order), bands.dtype)
    for d in range(min(count, order)):
        for i in range(order):
            if lower and i - d >= 0:
                dense[..., i, i - d] = bands[..., d, i]
            elif not lower and i + d < order:
                dense[..., i, i + d] = bands[..., count - 1 - d, i]
    return dense


def _banded_shape(shapes: list[Any], values: list[Any], attrs: dict[str, Any]) -> list[tuple[int, ...]]:
    bands, rhs = tuple(shapes[0]), tuple(shapes[1])
    if len(bands) < 2 or len(rhs) < 2 or rhs[-2] != bands[-1]:
        raise ValueError(f"bands {list(bands)} must be [..., K, M] and rhs {list(rhs)} [..., M, N] with the same M")
    return [np.broadcast_shapes(bands[:-2], rhs[:-2]) + rhs[-2:]]


def _banded_system(xs: list[Any], attrs: dict[str, Any]) -> tuple[np.ndarray, np.ndarray]:
    """BandedTriangularSolve's system (A [..., M, M], B [..., M, N]) in float64, broadcast to the output's batch."""
    bands, rhs = widen(xs[0]), widen(xs[1])
    (shape,) = _banded_shape([bands.shape, rhs.shape], [], attrs)
    matrix = band_matrix(bands, bool(attrs["lower"]))
    system = np.conj(np.swapaxes(matrix, -1, -2)) if bool(attrs["adjoint"]) else matrix
    return np.broadcast_to(system, shape[:-2] + matrix.shape[-2:]), np.broadcast_to(rhs, shape)


def _banded_solve(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    return [_solved(_banded_system(xs, attrs), out[0])]


def _pdist_shape(shapes: list[Any], values: list[Any], attrs: dict[str, Any]) -> list[tuple[int, ...]]:
    shape = tuple(shapes[0])
    if len(shape) != 2:
        raise ValueError(f"input 0 {list(shape)} must be a [N, M] matrix")
    return [(shape[0] * (shape[0] - 1) // 2,)]


def _pdist(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    """torch.nn.functional.pdist: numpy.linalg.norm of each row difference x[i] - x[j], i < j (p = 0: the number of
    non-zero entries)."""
    x = widen(xs[0])
    (shape,) = _pdist_shape([x.shape], [], attrs)
    p = float(attrs["p"])
    if not shape[0] or not x.shape[1]:
        return [round_to(np.zeros(shape), out[0])]
    # row i against the rows after it, in the order of np.triu_indices (all pairs at once would hold N^2 M / 2 values)
    rows = [np.linalg.norm(x[i + 1:] - x[i], ord=p, axis=-1) for i in range(x.shape[0] - 1)]
    return [round_to(np.concatenate(rows), out[0])]


#: The ops whose output X solves a linear system A X = B: a function of the inputs and attributes giving (A, B) in
#: float64, by which a solve is judged by its backward error (aclcts.judge.residual).
SYSTEMS: dict[str, Callable[[list[Any], dict[str, Any]], tuple[np.ndarray, np.ndarray]]] = {
    "MatrixTriangularSolve": _triangular_system,
    "BandedTriangularSolve": _banded_system,
}

OPS: tuple[RefOp, ...] = (
    define("MatrixDeterminant", _determinant, lambda shapes, values, attrs: [square_batch(tuple(shapes[0]))]),
    define("LogMatrixDeterminant", _log_determinant,
           lambda shapes, values, attrs: [square_batch(tuple(shapes[0]))] * 2),
    define("MatrixTriangularSolve", _triangular_solve, _solve_shape),
    define("BandedTriangularSolve", _banded_solve, _banded_shape),
    define("Pdist", _pdist, _pdist_shape),
)
