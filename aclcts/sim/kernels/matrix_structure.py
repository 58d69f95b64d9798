"""Kernels of DiagPart and MatrixBandPart (exact: every output element is an input element or 0) and MatrixDiagPartD.

DiagPart reads the diagonal of x viewed as an [n, n] matrix (n the product of the first half of its dims);
MatrixBandPart keeps the band np.tril(x, upper) and np.triu(x, -lower) share (upper and lower its two band widths), a
negative width keeping the whole triangle, as TensorFlow's MatrixBandPart (CANN's prototype mirrors it).
MatrixDiagPartD multiplies x by its assist mask in x's type and sums along the longer innermost dim
(ops/built-in/tbe/impl/matrix_diag_part_d.py): floats in float32, int32 through float32 and back, other integers
wrapping in their type.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from aclcts.sim.kernels.base import InferredShape, TensorInfo
from aclcts.sim.kernels.call import OpCall, Outputs
from aclcts.sim.kernels.numerics import FLOAT32, vector_sum
from aclcts.sim.kernels.registry import builtin
from aclcts.sim.kernels.shapes import UNKNOWN, inferred, numel, unknown_rank


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
    call.require_inputs()
    x, assist = call.input(0), call.input(1)
    call.require_dtype(0, x.dtype)
    call.require_same_dtype([0, 1], [x.dtype, assist.dtype])
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


builtin("DiagPart", _diag_part_compute, _diag_part_infer)
builtin("MatrixBandPart", _band_compute, _band_infer)
builtin("MatrixDiagPartD", _matrix_diag_part_d_compute, _matrix_diag_part_d_infer)
