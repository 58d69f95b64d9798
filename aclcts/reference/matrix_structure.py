"""References of DiagPart, MatrixBandPart (TensorFlow's) and MatrixDiagPartD (TensorFlow's MatrixDiagPart with CANN's
assist mask), element by element from the operators' definitions."""

from __future__ import annotations

from typing import Any

import numpy as np

from aclcts.reference.base import RefOp, define, scalar_int
from aclcts.reference.numeric import round_to


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


def _matrix_diag_part_d(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    """MatrixDiagPartD: y[..., i] = sum over the longer innermost dim of x * assist, i running along the shorter one
    (x[..., i, i] when assist is the identity mask); integer products and sums wrap, bool ones are and/or."""
    x, assist = xs[0], xs[1]
    if x.ndim < 2 or x.shape != assist.shape:
        raise ValueError(f"x {list(x.shape)} and assist {list(assist.shape)} must share one shape of rank 2 or more")
    rows, cols = x.shape[-2:]
    if rows >= cols:  # i runs along the columns: sum down each of them
        x, assist = np.swapaxes(x, -1, -2), np.swapaxes(assist, -1, -2)
    if x.dtype.kind in "iub":  # modulo 2**64, then the output type's low bits
        return [np.sum(x.astype(np.uint64) * assist.astype(np.uint64), axis=-1, dtype=np.uint64).astype(out[0])]
    wide = np.complex128 if x.dtype.kind == "c" else np.float64
    return [round_to(np.sum(x.astype(wide) * assist.astype(wide), axis=-1), out[0])]


def _matrix_diag_part_d_shape(shapes: list[Any], values: list[Any], attrs: dict[str, Any]) -> list[tuple[int, ...]]:
    x = tuple(shapes[0])
    if len(x) < 2:
        raise ValueError(f"x {list(x)} must have rank 2 or more")
    return [x[:-2] + (min(x[-2:]),)]


OPS: tuple[RefOp, ...] = (
    define("DiagPart", _diag_part, lambda shapes, values, attrs: [diag_part_shape(shapes[0])]),
    define("MatrixBandPart", _band_part, lambda shapes, values, attrs: [shapes[0]]),
    define("MatrixDiagPartD", _matrix_diag_part_d, _matrix_diag_part_d_shape),
)
