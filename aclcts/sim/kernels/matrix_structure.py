"""Kernels of DiagPart and MatrixBandPart (exact: every output element is an input element or 0).

DiagPart reads the diagonal of x viewed as an [n, n] matrix (n the product of the first half of its dims);
MatrixBandPart keeps the band np.tril(x, upper) and np.triu(x, -lower) share (upper and lower its two band widths), a
negative width keeping the whole triangle, as TensorFlow's MatrixBandPart (CANN's prototype mirrors it).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from aclcts.sim.kernels.base import InferredShape, TensorInfo
from aclcts.sim.kernels.call import OpCall, Outputs
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


builtin("DiagPart", _diag_part_compute, _diag_part_infer)
builtin("MatrixBandPart", _band_compute, _band_infer)
