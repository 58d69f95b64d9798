"""Kernels of DiagPart and MatrixBandPart (exact: every output element is an input element or 0) and MatrixDiagPartD.

DiagPart reads the diagonal of x viewed as an [n, n] matrix (n the product of the first half of its dims);
MatrixBandPart keeps the band np.tril(x, upper) and np.triu(x, -lower) share (upper and lower its two band widths), a
negative width keeping the whole triangle, as TensorFlow's MatrixBandPart (CANN's prototype mirrors it).
MatrixDiagPartD multiplies x by its assist mask in x's type and sums along the longer innermost dim
(ops/built-in/tbe/impl/matrix_diag_part_d.py): floats in float32, int32 through float32 and back, other integers
wrapping in their type.
MatrixDiagPartV3, MatrixDiagV3 and MatrixSetDiagV2 (TensorFlow's) move the elements of diagonals k[0]..k[1] between a
matrix and their packed rows (diagonal k[1] first), each diagonal one strided index run; align pads the shorter
diagonals on the left (RIGHT) or the right (LEFT), superdiagonals first.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from aclcts.sim.kernels.base import InferredShape, TensorInfo
from aclcts.sim.kernels.call import OpCall, Outputs
from aclcts.sim.kernels.numerics import FLOAT32, vector_sum
from aclcts.sim.kernels.registry import builtin
from aclcts.sim.kernels.shapes import UNKNOWN, UNKNOWN_RANK, fully_known, inferred, like_input, numel, unknown_rank


def _half(call: OpCall, shape: tuple[int, ...]) -> tuple[int, ...]:
    half = len(shape) // 2
    paired = all(a == b or a < 0 or b < 0 for a, b in zip(shape[:half], shape[half:]))
    if not shape or len(shape) % 2 or not paired:
        raise call.fail(f"input {call.quoted(0)} {list(shape)} must have an even rank 2k with dims [D1..Dk, D1..Dk]")
    return tuple(a if a >= 0 else b for a, b in zip(shape[:half], shape[half:]))


def _diag_part_compute(inputs: list[np.ndarray | None], attrs: dict[str, Any],
                       outputs: list[TensorInfo]) -> list[np.ndarray]:
    call = OpCall("DiagPart", inputs, attrs)
    call.require_inputs()
    x = call.input(0)
    call.require_dtype(0, x.dtype)
    shape = _half(call, tuple(x.shape))
    out = Outputs(call, outputs)
    out.require_input_dtype(0, 0, x.dtype)
    n = numel(shape)
    return [out.emit(0, np.diagonal(x.reshape(n, n)).reshape(shape))]


def _diag_part_infer(inputs: list[TensorInfo], values: list[np.ndarray | None],
                     attrs: dict[str, Any]) -> list[InferredShape]:
    call = OpCall("DiagPart", inputs, attrs)
    call.require_inputs()
    x = call.input(0)
    if unknown_rank(x.shape):
        return [inferred(x.dtype, tuple(x.shape))]
    return [inferred(x.dtype, _half(call, tuple(x.shape)))]


def _band_compute(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list[TensorInfo]) -> list[np.ndarray]:
    call = OpCall("MatrixBandPart", inputs, attrs)
    call.require_inputs()
    x = call.input(0)
    call.require_dtype(0, x.dtype)
    if x.ndim < 2:
        raise call.fail(f"input {call.quoted(0)} {list(x.shape)} must have at least 2 dims")
    lower, upper = call.one_value(1, call.input(1)), call.one_value(2, call.input(2))
    rows, cols = x.shape[-2:]
    below = rows if lower < 0 else lower
    above = cols if upper < 0 else upper
    out = Outputs(call, outputs)
    out.require_input_dtype(0, 0, x.dtype)
    return [out.emit(0, np.triu(np.tril(x, above), -below))]


def _band_infer(inputs: list[TensorInfo], values: list[np.ndarray | None], attrs: dict[str, Any]) -> list[InferredShape]:
    call = OpCall("MatrixBandPart", inputs, attrs)
    call.require_inputs()
    x = call.input(0)
    return [inferred(x.dtype, tuple(x.shape), None if unknown_rank(x.shape) or UNKNOWN not in x.shape else
                     [(d, d) if d >= 0 else (0, -1) for d in x.shape])]


def x_and_assist(call: OpCall) -> tuple[np.ndarray, np.ndarray]:
    """An assist op's x and assist (inputs 0 and 1), checked against its record and for one dtype."""
    call.require_inputs()
    x, assist = call.input(0), call.input(1)
    call.require_dtype(0, x.dtype)
    call.require_same_dtype([0, 1], [x.dtype, assist.dtype])
    return x, assist


def masked_sum(x: np.ndarray, assist: np.ndarray, axis: int) -> np.ndarray:
    """x * assist in x's type summed along axis: real floats in float32 in the vector unit's order, int32 through
    float32 (rounded back), other integers, bool (and/or) and complex in their own type; the result in x's type."""
    products = np.multiply(x, assist, dtype=x.dtype)
    if x.dtype.kind in "iubc" and x.dtype != np.int32:
        return np.add.reduce(products, axis=axis, dtype=x.dtype)
    total = vector_sum(products.astype(FLOAT32), axis)
    return np.rint(total).astype(np.int64).astype(x.dtype) if x.dtype.kind == "i" else total.astype(x.dtype)


def _matrix_diag_part_d_compute(inputs: list[np.ndarray | None], attrs: dict[str, Any],
                                outputs: list[TensorInfo]) -> list[np.ndarray]:
    call = OpCall("MatrixDiagPartD", inputs, attrs)
    x, assist = x_and_assist(call)
    if x.ndim < 2 or x.shape != assist.shape:
        raise call.fail(f"inputs {call.quoted(0)} {list(x.shape)} and {call.quoted(1)} {list(assist.shape)} must "
                        "share one shape of rank 2 or more")
    out = Outputs(call, outputs)
    out.require_input_dtype(0, 0, x.dtype)
    with np.errstate(all="ignore"):
        return [out.emit(0, masked_sum(x, assist, -1 if x.shape[-2] < x.shape[-1] else -2))]


def _matrix_diag_part_d_infer(inputs: list[TensorInfo], values: list[np.ndarray | None],
                              attrs: dict[str, Any]) -> list[InferredShape]:
    call = OpCall("MatrixDiagPartD", inputs, attrs)
    call.require_inputs()
    shape = tuple(call.input(0).shape)
    if len(shape) < 2:
        raise call.fail(f"input {call.quoted(0)} {list(shape)} must have rank 2 or more")
    rows, cols = shape[-2:]
    return [inferred(call.input(0).dtype, shape[:-2] + (min(rows, cols) if rows >= 0 and cols >= 0 else UNKNOWN,))]


# The diagonal-band ops ------------------------------------------------------------------------------
def _k(call: OpCall, index: int, value: np.ndarray) -> tuple[int, int]:
    values = call.index_values(index, value)
    if len(values) not in (1, 2) or values[0] > values[-1]:
        raise call.fail(f"input {call.quoted(index)} {values} must be one diagonal or a band [lower, upper] with "
                        "lower <= upper")
    return values[0], values[-1]


def _runs(rows: int, cols: int, lower: int, upper: int, align: str) -> tuple[int, list[tuple[int, np.ndarray,
                                                                                            np.ndarray, int]]]:
    """The longest diagonal's length and, for diagonals upper down to lower, (packed row, matrix rows, matrix
    columns, start in the packed row)."""
    lengths = {d: max(0, min(rows, cols - d) if d >= 0 else min(rows + d, cols)) for d in range(lower, upper + 1)}
    longest = max(lengths.values())
    above, below = align.split("_")
    runs = []
    for row, d in enumerate(range(upper, lower - 1, -1)):
        steps = np.arange(lengths[d])
        right = above == "RIGHT" if d >= 0 else below == "RIGHT"
        runs.append((row, steps - min(d, 0), steps + max(d, 0), longest - lengths[d] if right else 0))
    return longest, runs


def _diag_part_v3_compute(inputs: list[np.ndarray | None], attrs: dict[str, Any],
                          outputs: list[TensorInfo]) -> list[np.ndarray]:
    call = OpCall("MatrixDiagPartV3", inputs, attrs)
    call.require_inputs()
    x = call.input(0)
    call.require_dtype(0, x.dtype)
    call.require_same_dtype([0, 2], [x.dtype, call.input(2).dtype])
    if x.ndim < 2:
        raise call.fail(f"input {call.quoted(0)} {list(x.shape)} must have rank 2 or more")
    lower, upper = _k(call, 1, call.input(1))
    longest, runs = _runs(x.shape[-2], x.shape[-1], lower, upper, call.attr_str("align"))
    y = np.full(x.shape[:-2] + (len(runs), longest), call.input(2).reshape(-1)[0], dtype=x.dtype)
    for row, m, n, start in runs:
        y[..., row, start:start + len(m)] = x[..., m, n]
    out = Outputs(call, outputs)
    out.require_input_dtype(0, 0, x.dtype)
    return [out.emit(0, y[..., 0, :] if len(runs) == 1 else y, value_dependent=True)]


def _diag_part_v3_infer(inputs: list[TensorInfo], values: list[np.ndarray | None],
                        attrs: dict[str, Any]) -> list[InferredShape]:
    call = OpCall("MatrixDiagPartV3", inputs, attrs)
    call.require_inputs()
    x = call.input(0)
    k = values[1] if len(values) > 1 else None
    if k is None or unknown_rank(x.shape) or UNKNOWN in x.shape[-2:]:
        return [inferred(x.dtype, [UNKNOWN_RANK])]
    lower, upper = _k(call, 1, k)
    longest, runs = _runs(x.shape[-2], x.shape[-1], lower, upper, call.attr_str("align"))
    return [inferred(x.dtype, tuple(x.shape[:-2]) + ((longest,) if len(runs) == 1 else (len(runs), longest)))]


def _diag_v3_dims(call: OpCall, longest: int, lower: int, upper: int, rows: int, cols: int) -> tuple[int, int]:
    need_rows, need_cols = longest - min(upper, 0), longest + max(lower, 0)
    if rows == -1 and cols == -1:
        rows = cols = max(need_rows, need_cols)
    rows = need_rows if rows == -1 else rows
    cols = need_cols if cols == -1 else cols
    if rows < need_rows or cols < need_cols:
        raise call.fail(f"inputs {call.quoted(2)} {rows} and {call.quoted(3)} {cols} are too small for diagonals "
                        f"{lower}..{upper} of length {longest}")
    return rows, cols


def _diag_v3_compute(inputs: list[np.ndarray | None], attrs: dict[str, Any],
                     outputs: list[TensorInfo]) -> list[np.ndarray]:
    call = OpCall("MatrixDiagV3", inputs, attrs)
    call.require_inputs()
    diagonal = call.input(0)
    call.require_dtype(0, diagonal.dtype)
    call.require_same_dtype([0, 4], [diagonal.dtype, call.input(4).dtype])
    lower, upper = _k(call, 1, call.input(1))
    packed = diagonal[..., None, :] if lower == upper else diagonal
    if packed.ndim < 2 or packed.shape[-2] != upper - lower + 1:
        raise call.fail(f"input {call.quoted(0)} {list(diagonal.shape)} must hold {upper - lower + 1} diagonals")
    rows, cols = _diag_v3_dims(call, packed.shape[-1], lower, upper, call.one_value(2, call.input(2)),
                               call.one_value(3, call.input(3)))
    _, runs = _runs(rows, cols, lower, upper, call.attr_str("align"))
    y = np.full(packed.shape[:-2] + (rows, cols), call.input(4).reshape(-1)[0], dtype=diagonal.dtype)
    for row, m, n, start in runs:
        y[..., m, n] = packed[..., row, start:start + len(m)]
    out = Outputs(call, outputs)
    out.require_input_dtype(0, 0, diagonal.dtype)
    return [out.emit(0, y, value_dependent=True)]


def _diag_v3_infer(inputs: list[TensorInfo], values: list[np.ndarray | None],
                   attrs: dict[str, Any]) -> list[InferredShape]:
    call = OpCall("MatrixDiagV3", inputs, attrs)
    call.require_inputs()
    diagonal = call.input(0)
    given = (list(values) + [None] * 4)[1:4]
    if any(v is None for v in given) or unknown_rank(diagonal.shape) or not fully_known(diagonal.shape):
        return [inferred(diagonal.dtype, [UNKNOWN_RANK])]
    lower, upper = _k(call, 1, given[0])
    batch = tuple(diagonal.shape[:-1] if lower == upper else diagonal.shape[:-2])
    rows, cols = _diag_v3_dims(call, diagonal.shape[-1], lower, upper, call.one_value(2, given[1]),
                               call.one_value(3, given[2]))
    return [inferred(diagonal.dtype, batch + (rows, cols))]


def _set_diag_v2_compute(inputs: list[np.ndarray | None], attrs: dict[str, Any],
                         outputs: list[TensorInfo]) -> list[np.ndarray]:
    call = OpCall("MatrixSetDiagV2", inputs, attrs)
    call.require_inputs()
    x, diagonal = call.input(0), call.input(1)
    call.require_dtype(0, x.dtype)
    call.require_same_dtype([0, 1], [x.dtype, diagonal.dtype])
    if x.ndim < 2:
        raise call.fail(f"input {call.quoted(0)} {list(x.shape)} must have rank 2 or more")
    lower, upper = _k(call, 2, call.input(2))
    longest, runs = _runs(x.shape[-2], x.shape[-1], lower, upper, "LEFT_LEFT")
    wanted = x.shape[:-2] + ((longest,) if lower == upper else (len(runs), longest))
    if diagonal.shape != wanted:
        raise call.fail(f"input {call.quoted(1)} {list(diagonal.shape)} must be {list(wanted)}")
    packed = diagonal[..., None, :] if lower == upper else diagonal
    y = x.copy()
    for row, m, n, start in runs:
        y[..., m, n] = packed[..., row, start:start + len(m)]
    out = Outputs(call, outputs)
    out.require_input_dtype(0, 0, x.dtype)
    return [out.emit(0, y)]


builtin("DiagPart", _diag_part_compute, _diag_part_infer)
builtin("MatrixBandPart", _band_compute, _band_infer)
builtin("MatrixDiagPartD", _matrix_diag_part_d_compute, _matrix_diag_part_d_infer)
builtin("MatrixDiagPartV3", _diag_part_v3_compute, _diag_part_v3_infer)
builtin("MatrixDiagV3", _diag_v3_compute, _diag_v3_infer)
builtin("MatrixSetDiagV2", _set_diag_v2_compute, like_input("MatrixSetDiagV2"))
