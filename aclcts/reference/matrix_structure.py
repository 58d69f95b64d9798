"""References of DiagPart and MatrixBandPart (TensorFlow's), element by element from the operators' definitions."""

from __future__ import annotations

from typing import Any

import numpy as np

from aclcts.reference.base import RefOp, define, scalar_int


def diag_part_shape(shape: tuple[int, ...]) -> tuple[int, ...]:
    """DiagPart's output shape: the first half of x's dims, which the second half must repeat."""
    half = len(shape) // 2
    if len(shape) == 0 or len(shape) % 2 or tuple(shape[:half]) != tuple(shape[half:]):
        raise ValueError(f"x {list(shape)} must have an even rank 2k with dims [D1..Dk, D1..Dk]")
    return tuple(shape[:half])


def _diag_part(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    """DiagPart: y[i1..ik] = x[i1..ik, i1..ik]."""
    x = xs[0]
    y = np.empty(diag_part_shape(x.shape), dtype=x.dtype)
    for index in np.ndindex(*y.shape):
        y[index] = x[index + index]
    return [y]


def _band_part(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    """MatrixBandPart: y[..., m, n] = x[..., m, n] where (lower < 0 or m - n <= lower) and (upper < 0 or
    n - m <= upper), else 0."""
    x = xs[0]
    if x.ndim < 2:
        raise ValueError(f"x {list(x.shape)} must have at least 2 dims")
    lower, upper = scalar_int(xs, 1), scalar_int(xs, 2)
    y = np.zeros_like(x)
    for m in range(x.shape[-2]):
        for n in range(x.shape[-1]):
            if (lower < 0 or m - n <= lower) and (upper < 0 or n - m <= upper):
                y[..., m, n] = x[..., m, n]
    return [y]


OPS: tuple[RefOp, ...] = (
    define("DiagPart", _diag_part, lambda shapes, values, attrs: [diag_part_shape(shapes[0])]),
    define("MatrixBandPart", _band_part, lambda shapes, values, attrs: [shapes[0]]),
)
