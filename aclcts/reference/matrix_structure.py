"""References of DiagPart, MatrixBandPart (TensorFlow's), MatrixDiagPartD (TensorFlow's MatrixDiagPart with CANN's
assist mask) and TensorFlow's MatrixDiagPartV3, MatrixDiagV3 and MatrixSetDiagV2, element by element from the
operators' definitions (tf.raw_ops documentation)."""

from __future__ import annotations

from typing import Any

import numpy as np

from aclcts.reference.base import InputError, RefOp, define, needed_value, scalar_int
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


def _band(k: Any, index: int = 1) -> tuple[int, int]:
    """k (input index) as (lower, upper): one value is a single diagonal; lower must not exceed upper."""
    values = [int(v) for v in np.asarray(k).reshape(-1)]
    if len(values) not in (1, 2):
        raise InputError(index, lambda name: f"{name} must hold 1 or 2 values, got {len(values)}")
    lower, upper = values[0], values[-1]
    if lower > upper:
        raise InputError(index, lambda name: f"{name} {values}: the lower diagonal {lower} is above the upper {upper}")
    return lower, upper


def _length(rows: int, cols: int, d: int) -> int:
    """The number of elements of diagonal d of a rows x cols matrix (d > 0 above the main one)."""
    return max(0, min(rows + min(0, d), cols - max(0, d)))


def _shift(align: str, d: int, longest: int, rows: int, cols: int) -> int:
    """Where diagonal d's first element sits in its packed row: right-aligned ones are padded on the left."""
    superdiagonal, subdiagonal = align.split("_")
    right = (d >= 0 and superdiagonal == "RIGHT") or (d <= 0 and subdiagonal == "RIGHT")
    return longest - _length(rows, cols, d) if right else 0


def _diag_positions(rows: int, cols: int, lower: int, upper: int, align: str) -> list[tuple[int, int, int, int]]:
    """Every element of diagonals upper down to lower: (packed row, packed column, matrix row, matrix column)."""
    longest = max(_length(rows, cols, d) for d in range(lower, upper + 1))
    found = []
    for row, d in enumerate(range(upper, lower - 1, -1)):
        shift = _shift(align, d, longest, rows, cols)
        for j in range(_length(rows, cols, d)):
            found.append((row, j + shift, j + max(0, -d), j + max(0, d)))
    return found


def _matrix_diag_part_v3(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    """MatrixDiagPartV3: diagonals k[1] down to k[0] of each innermost matrix, packed into rows of the longest one's
    length, padded with the padding input's value as align says; one diagonal drops the row dim."""
    x, pad = xs[0], np.asarray(xs[2]).reshape(-1)[0]
    lower, upper = _band(xs[1])
    rows, cols = x.shape[-2:]
    count = upper - lower + 1
    longest = max(_length(rows, cols, d) for d in range(lower, upper + 1))
    y = np.full(x.shape[:-2] + (count, longest), pad, dtype=x.dtype)
    for batch in np.ndindex(*x.shape[:-2]):
        for row, column, m, n in _diag_positions(rows, cols, lower, upper, attrs["align"]):
            y[batch + (row, column)] = x[batch + (m, n)]
    return [y.reshape(y.shape[:-2] + (longest,)) if count == 1 else y]


def _matrix_diag_part_v3_shape(shapes: list[Any], values: list[Any], attrs: dict[str, Any]) -> list[tuple[int, ...]]:
    x = tuple(shapes[0])
    if len(x) < 2:
        raise ValueError(f"x {list(x)} must have rank 2 or more")
    lower, upper = _band(needed_value(values, 1))
    count = upper - lower + 1
    longest = max(_length(x[-2], x[-1], d) for d in range(lower, upper + 1))
    return [x[:-2] + ((longest,) if count == 1 else (count, longest))]


def _diag_dims(diagonal: tuple[int, ...], lower: int, upper: int, rows: int, cols: int) -> tuple[int, int]:
    """MatrixDiagV3's output rows and columns: the smallest matrix holding the diagonals where the row or column count
    input is -1 (both -1: a square one)."""
    longest = diagonal[-1]
    least_rows, least_cols = longest - min(upper, 0), longest + max(lower, 0)
    if rows < 0 and cols < 0:
        rows = cols = max(least_rows, least_cols)
    elif rows < 0:
        rows = least_rows
    elif cols < 0:
        cols = least_cols
    if rows < least_rows or cols < least_cols:
        raise InputError((2, 3), lambda r, c: f"{r} {rows} and {c} {cols} cannot hold diagonals {lower}..{upper} of "
                                                f"length {longest}")
    return rows, cols


def _matrix_diag_v3_shape(shapes: list[Any], values: list[Any], attrs: dict[str, Any]) -> list[tuple[int, ...]]:
    diagonal = tuple(shapes[0])
    lower, upper = _band(needed_value(values, 1))
    if lower != upper and (len(diagonal) < 2 or diagonal[-2] != upper - lower + 1):
        raise ValueError(f"x {list(diagonal)} must hold the {upper - lower + 1} diagonals {lower}..{upper}")
    batch = diagonal[:-1] if lower == upper else diagonal[:-2]
    rows, cols = _diag_dims(diagonal, lower, upper, scalar_int(values, 2), scalar_int(values, 3))
    return [batch + (rows, cols)]


def _matrix_diag_v3(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    """MatrixDiagV3: a matrix of the padding input's value with diagonals k[1] down to k[0] taken from the packed rows
    of x."""
    diagonal, pad = xs[0], np.asarray(xs[4]).reshape(-1)[0]
    lower, upper = _band(xs[1])
    rows, cols = _diag_dims(diagonal.shape, lower, upper, scalar_int(xs, 2), scalar_int(xs, 3))
    packed = diagonal[..., None, :] if lower == upper else diagonal
    if packed.ndim < 2 or packed.shape[-2] != upper - lower + 1:
        raise ValueError(f"x {list(diagonal.shape)} must hold the {upper - lower + 1} diagonals {lower}..{upper}")
    y = np.full(packed.shape[:-2] + (rows, cols), pad, dtype=diagonal.dtype)
    for batch in np.ndindex(*packed.shape[:-2]):
        for row, column, m, n in _diag_positions(rows, cols, lower, upper, attrs["align"]):
            y[batch + (m, n)] = packed[batch + (row, column)]
    return [y]


def _matrix_set_diag_v2(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    """MatrixSetDiagV2: input with diagonals k[1] down to k[0] replaced by the packed rows of diagonal (both sides
    aligned LEFT)."""
    x, diagonal = xs[0], xs[1]
    lower, upper = _band(xs[2], 2)
    rows, cols = x.shape[-2:]
    count, longest = upper - lower + 1, max(_length(rows, cols, d) for d in range(lower, upper + 1))
    wanted = x.shape[:-2] + ((longest,) if count == 1 else (count, longest))
    if diagonal.shape != wanted:
        raise ValueError(f"diagonal {list(diagonal.shape)} must be {list(wanted)} for input {list(x.shape)}")
    packed = diagonal[..., None, :] if count == 1 else diagonal
    y = x.copy()
    for batch in np.ndindex(*x.shape[:-2]):
        for row, column, m, n in _diag_positions(rows, cols, lower, upper, "LEFT_LEFT"):
            y[batch + (m, n)] = packed[batch + (row, column)]
    return [y]


OPS: tuple[RefOp, ...] = (
    define("DiagPart", _diag_part, lambda shapes, values, attrs: [diag_part_shape(shapes[0])]),
    define("MatrixBandPart", _band_part, lambda shapes, values, attrs: [shapes[0]]),
    define("MatrixDiagPartD", _matrix_diag_part_d, _matrix_diag_part_d_shape),
    define("MatrixDiagPartV3", _matrix_diag_part_v3, _matrix_diag_part_v3_shape),
    define("MatrixDiagV3", _matrix_diag_v3, _matrix_diag_v3_shape),
    define("MatrixSetDiagV2", _matrix_set_diag_v2, lambda shapes, values, attrs: [shapes[0]]),
)
