"""SparseTensorDenseMatMul reference: the COO tensor made dense in float64/int64, then one matrix product."""

from __future__ import annotations

from typing import Any

import numpy as np

from aclcts.reference.base import InputError, RefOp, define, needed_value
from aclcts.reference.numeric import round_to, widen


def _dense_shape(dense_shape: np.ndarray) -> tuple[int, int]:
    """The two dims the dense-shape input holds, checked."""
    dims = [int(d) for d in np.asarray(dense_shape).reshape(-1)]
    if len(dims) != 2 or min(dims) < 0:
        raise InputError(2, lambda name: f"{name} must hold two non-negative dims, got {dims}")
    return dims[0], dims[1]


def densified(indices: np.ndarray, values: np.ndarray, shape: tuple[int, int]) -> np.ndarray:
    """The dense matrix of a COO tensor; entries at a repeated index add up; an index outside shape raises."""
    rows, cols = np.asarray(indices, dtype=np.int64).reshape(-1, 2).T
    if len(rows) != values.size:
        raise InputError((0, 1), lambda indices, values_name: f"{indices} has {len(rows)} entries but {values_name} "
                                                             f"{values.size}")
    if len(rows) and (rows.min() < 0 or cols.min() < 0 or rows.max() >= shape[0] or cols.max() >= shape[1]):
        raise InputError((0, 2), lambda indices, dense: f"an index of {indices} lies outside {dense} {list(shape)}")
    dense = np.zeros(shape, dtype=values.dtype)
    for row, col, value in zip(rows, cols, values.reshape(-1)):
        dense[row, col] += value
    return dense


def sparse_tensor_dense_mat_mul(indices: np.ndarray, values: np.ndarray, shape: tuple[int, int], x2: np.ndarray,
                                adjoint_a: bool, adjoint_b: bool) -> np.ndarray:
    """op(A) @ op(x2), A the COO tensor, op a transpose when its adjoint flag is set (real types only)."""
    a = densified(indices, values, shape)
    a = a.T if adjoint_a else a
    b = x2.T if adjoint_b else x2
    if a.shape[1] != b.shape[0]:
        raise ValueError(f"inner dimensions differ: op(A) {list(a.shape)} and op(x2) {list(b.shape)}")
    return a @ b


def _compute(xs: list[np.ndarray | None], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    indices, values, dense_shape, x2 = xs
    y = sparse_tensor_dense_mat_mul(indices, widen(values), _dense_shape(dense_shape), widen(x2),
                                    bool(attrs["adjoint_a"]), bool(attrs["adjoint_b"]))
    return [round_to(y, out[0])]


def _shape(shapes: list[tuple[int, ...] | None], values: list[np.ndarray | None],
           attrs: dict[str, Any]) -> list[tuple[int, ...]]:
    rows, cols = _dense_shape(needed_value(values, 2))
    x2 = shapes[3]
    if x2 is None or len(x2) != 2:
        raise ValueError(f"x2 must be 2-D, got shape {x2}")
    return [(cols if attrs["adjoint_a"] else rows, x2[0] if attrs["adjoint_b"] else x2[1])]


OPS: tuple[RefOp, ...] = (
    define("SparseTensorDenseMatMul", _compute, _shape),
)
