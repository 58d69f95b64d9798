"""Quantization kernels: AscendQuant, AscendDequant and the FakeQuantWithMinMax* ops.

Prototypes: aclcts.core.prototypes.quantize. Device numerics after CANN's TBE implementations
(ops/built-in/tbe/impl/ascend_quant.py, ascend_dequant.py, fake_quant_with_min_max_*.py):
AscendQuant casts float32 x to float16, multiplies by the float16 scale when it is not 1 (twice with sqrt_mode), adds
the float16 offset (when it is not 0, or the scale is 1), each step rounded to float16, and converts to int8 by
round_mode with saturation (NaN to 0). AscendDequant converts x to float16 and multiplies by a float16 scale in
float16 (twice with sqrt_mode), or by a uint64 scale word's float32 scale (its low 32 bits) in float32, then applies the
ReLU and rounds to y's type. The FakeQuant ops nudge min and max (the attributes in float64 on the host, the
tensors in float32 on the device), clamp x, multiply the shifted value by the reciprocal of the step, add 0.5 and take
the floor, all in float32; the gradients sum in the vector unit's lane order.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from aclcts.core.dtypes import acl_data_type, numpy_dtype
from aclcts.sim.kernels.base import ComputeFn, InferFn, InferredShape, TensorInfo
from aclcts.sim.kernels.call import OpCall, Outputs
from aclcts.sim.kernels.numerics import FLOAT16, FLOAT32, vector_sum
from aclcts.sim.kernels.registry import builtin
from aclcts.sim.kernels.shapes import inferred
from aclcts.sim.seams import Seam

INT8 = np.dtype(np.int8)
UINT64 = np.dtype(np.uint64)


def _nearest_even(value: np.ndarray) -> np.ndarray:
    """Round to the nearest integer, ties to even (the header's "Round": C's rint)."""
    return np.rint(value)


#: The conversion of round_mode "Round".
round_to_nearest = Seam("quantize round to nearest", _nearest_even)

_ROUND_MODES: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "Round": lambda v: round_to_nearest(v), "Floor": np.floor, "Ceil": np.ceil, "Trunc": np.trunc}


def _to_int8(value: np.ndarray, mode: str) -> np.ndarray:
    """float16 values converted to int8 by round_mode, saturating, NaN to 0."""
    with np.errstate(all="ignore"):
        levels = _ROUND_MODES[mode](value.astype(FLOAT32))
        levels = np.where(np.isnan(levels), np.float32(0), np.clip(levels, -128, 127))
    return levels.astype(INT8)


# AscendQuant ----------------------------------------------------------------------------------------------------
def _quant_mode(call: OpCall) -> str:
    mode = call.attr_str("round_mode")
    if mode not in _ROUND_MODES:
        raise call.fail(f"attr 'round_mode' must be one of {', '.join(_ROUND_MODES)}, got {mode!r}")
    if call.attr_int("dst_type") != 2:
        raise call.fail(f"attr 'dst_type' {call.attr_int('dst_type')} is not simulated; the simulator holds int8 (2)")
    return mode


def _ascend_quant(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list[TensorInfo]) -> list[np.ndarray]:
    call = OpCall("AscendQuant", inputs, attrs)
    call.require_count(1)
    x = call.input(0)
    call.require_dtype(0, x.dtype)
    mode = _quant_mode(call)
    out = Outputs(call, outputs)
    out.require_dtype(0, INT8, "dst_type 2 (DT_INT8)")
    scale, offset = np.float16(call.attr_float("scale")), np.float16(call.attr_float("offset"))
    value = x.astype(FLOAT16)
    with np.errstate(all="ignore"):
        if scale != 1:
            for _ in range(2 if call.attr_bool("sqrt_mode") else 1):
                value = value * scale
        if offset != 0 or scale == 1:
            value = value + offset
    return [out.emit(0, _to_int8(value, mode))]


def _ascend_quant_infer(inputs: list[TensorInfo], values: list[np.ndarray | None], attrs: dict[str, Any]) -> list[InferredShape]:
    call = OpCall("AscendQuant", inputs, attrs)
    call.require_count(1)
    return [inferred(acl_data_type(INT8), call.input(0).shape)]


# AscendDequant --------------------------------------------------------------------------------------------------
def _dequant_scale(call: OpCall, scales: tuple[int, ...], x_shape: tuple[int, ...]) -> None:
    """Check that the scale input's shape broadcasts to x's."""
    try:
        shape = np.broadcast_shapes(tuple(scales), tuple(x_shape))
    except ValueError:
        shape = ()
    if shape != tuple(x_shape):
        raise call.fail(f"input '{call.name(1)}' {list(scales)} must broadcast to '{call.name(0)}' {list(x_shape)}")


def _ascend_dequant(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list[TensorInfo]) -> list[np.ndarray]:
    call = OpCall("AscendDequant", inputs, attrs)
    call.require_count(2)
    x, scales = call.input(0), call.input(1)
    call.require_dtype(0, x.dtype)
    call.require_dtype(1, scales.dtype)
    _dequant_scale(call, scales.shape, x.shape)
    out = Outputs(call, outputs)
    dtype = out.require_dtype(0, numpy_dtype(call.attr_dtype("dtype", call.output_types(0))), "attr 'dtype'")
    sqrt_mode = call.attr_bool("sqrt_mode")
    if scales.dtype == UINT64:
        if sqrt_mode:
            raise call.fail(f"attr 'sqrt_mode' must be false with a uint64 '{call.name(1)}' (ascend_dequant.py)")
        scale = (scales & np.uint64(0xFFFFFFFF)).astype(np.uint32).view(FLOAT32)
        y = x.astype(FLOAT32) * scale
    else:
        with np.errstate(all="ignore"):
            y = x.astype(FLOAT16) * scales
            if sqrt_mode:
                y = y * scales
    if call.attr_bool("relu_flag"):
        y = np.maximum(y, y.dtype.type(0))
    return [out.emit(0, y.astype(dtype))]


def _ascend_dequant_infer(inputs: list[TensorInfo], values: list[np.ndarray | None], attrs: dict[str, Any]) -> list[InferredShape]:
    call = OpCall("AscendDequant", inputs, attrs)
    call.require_count(2)
    x = call.input(0)
    return [inferred(call.attr_dtype("dtype", call.output_types(0)), x.shape)]


# FakeQuant ------------------------------------------------------------------------------------------------------
def _bits(call: OpCall) -> tuple[float, float]:
    """(quant_min, quant_max) of num_bits and narrow_range."""
    bits = call.attr_int("num_bits")
    if not 2 <= bits <= 16:
        raise call.fail(f"attr 'num_bits' must be in [2, 16], got {bits}")
    return (1.0 if call.attr_bool("narrow_range") else 0.0), float(2 ** bits - 1)


def _nudge(call: OpCall, low: np.ndarray, high: np.ndarray, dtype: np.dtype
           ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(nudged_min, nudged_max, step) computed in dtype."""
    quant_min, quant_max = (dtype.type(v) for v in _bits(call))
    low, high = np.asarray(low, dtype), np.asarray(high, dtype)
    with np.errstate(all="ignore"):
        step = (high - low) / (quant_max - quant_min)
        zero_from_min = quant_min - low / step
        zero = np.where(zero_from_min < quant_min, quant_min,
                        np.where(zero_from_min > quant_max, quant_max, np.floor(zero_from_min + dtype.type(0.5))))
        return (quant_min - zero) * step, (quant_max - zero) * step, step


def _range(call: OpCall, first: int, per_channel: bool, x_shape: tuple[int, ...]
           ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The nudged range of the Args ops' attributes (first < 0) or of inputs first and first + 1 (as float32)."""
    if first < 0:
        low, high = np.float64(call.attr_float("min")), np.float64(call.attr_float("max"))
        bottom, top, step = _nudge(call, low, high, np.dtype(np.float64))
        return bottom.astype(FLOAT32), top.astype(FLOAT32), step.astype(FLOAT32)
    low, high = call.input(first), call.input(first + 1)
    for index, tensor in ((first, low), (first + 1, high)):
        call.require_dtype(index, tensor.dtype)
        wanted = tuple(x_shape[-1:]) if per_channel else None
        if (per_channel and tuple(tensor.shape) != wanted) or (not per_channel and tensor.size != 1):
            expected = f"shape {list(wanted)} (the last dim of x)" if per_channel else "one value"
            raise call.fail(f"input '{call.name(index)}' must hold {expected}, got shape {list(tensor.shape)}")
    if not per_channel:
        low, high = low.reshape(()), high.reshape(())
    return _nudge(call, low, high, FLOAT32)


def _quantized(x: np.ndarray, bottom: np.ndarray, top: np.ndarray, step: np.ndarray) -> np.ndarray:
    """x clamped, shifted, times the step's reciprocal, plus 0.5, floored, scaled back: the TBE order in float32."""
    with np.errstate(all="ignore"):
        clamped = np.maximum(np.minimum(x, top), bottom)
        levels = np.floor((clamped - bottom) * (np.float32(1) / step) + np.float32(0.5))
        return levels * step + bottom


def _fake_quant(op_type: str, first: int, per_channel: bool = False) -> ComputeFn:
    def compute(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list[TensorInfo]) -> list[np.ndarray]:
        call = OpCall(op_type, inputs, attrs)
        call.require_inputs()
        x = call.input(0)
        call.require_dtype(0, x.dtype)
        bottom, top, step = _range(call, first, per_channel, x.shape)
        out = Outputs(call, outputs)
        out.require_input_dtype(0, 0, x.dtype)
        return [out.emit(0, _quantized(x, bottom, top, step).astype(FLOAT32))]
    return compute


def _fake_quant_gradient(op_type: str, first: int, per_channel: bool = False) -> ComputeFn:
    def compute(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list[TensorInfo]) -> list[np.ndarray]:
        call = OpCall(op_type, inputs, attrs)
        call.require_inputs()
        gradients, x = call.input(0), call.input(1)
        call.require_dtype(0, gradients.dtype)
        call.require_dtype(1, x.dtype)
        if gradients.shape != x.shape:
            raise call.fail(f"'{call.name(0)}' {list(gradients.shape)} and '{call.name(1)}' {list(x.shape)} must "
                            "have one shape")
        bottom, top, _ = _range(call, first, per_channel, x.shape)
        out = Outputs(call, outputs)
        zero = np.float32(0)
        wrt_x = np.where((x >= bottom) & (x <= top), gradients, zero)
        if first < 0:
            return [out.emit(0, wrt_x)]
        shape = call.input(first).shape
        sums = []
        for outside in (x < bottom, x > top):
            part = np.where(outside, gradients, zero)
            flat = part.reshape(-1, x.shape[-1]).T if per_channel else part.reshape(1, -1)
            total = vector_sum(flat, -1) if flat.shape[-1] else np.zeros(flat.shape[:-1], FLOAT32)
            sums.append(total.astype(FLOAT32).reshape(shape))
        return [out.emit(i, v) for i, v in enumerate((wrt_x, *sums))]
    return compute


def _same_as(op_type: str, index: int) -> InferFn:
    """Every output shaped as input index (y, or the gradient with respect to x); those of min and max as min."""
    def infer(inputs: list[TensorInfo], values: list[np.ndarray | None], attrs: dict[str, Any]) -> list[InferredShape]:
        call = OpCall(op_type, inputs, attrs)
        call.require_inputs()
        x = call.input(index)
        shapes = [inferred(x.dtype, x.shape)]
        if index == 1 and len(inputs) == 4:
            low = call.input(2)
            shapes += [inferred(low.dtype, low.shape), inferred(low.dtype, low.shape)]
        return shapes
    return infer


builtin("AscendQuant", _ascend_quant, _ascend_quant_infer)
builtin("AscendDequant", _ascend_dequant, _ascend_dequant_infer)
builtin("FakeQuantWithMinMaxArgs", _fake_quant("FakeQuantWithMinMaxArgs", -1),
        _same_as("FakeQuantWithMinMaxArgs", 0))
builtin("FakeQuantWithMinMaxArgsGradient", _fake_quant_gradient("FakeQuantWithMinMaxArgsGradient", -1),
        _same_as("FakeQuantWithMinMaxArgsGradient", 1))
builtin("FakeQuantWithMinMaxVars", _fake_quant("FakeQuantWithMinMaxVars", 1), _same_as("FakeQuantWithMinMaxVars", 0))
builtin("FakeQuantWithMinMaxVarsGradient", _fake_quant_gradient("FakeQuantWithMinMaxVarsGradient", 2),
        _same_as("FakeQuantWithMinMaxVarsGradient", 1))
builtin("FakeQuantWithMinMaxVarsPerChannel", _fake_quant("FakeQuantWithMinMaxVarsPerChannel", 1, True),
        _same_as("FakeQuantWithMinMaxVarsPerChannel", 0))
builtin("FakeQuantWithMinMaxVarsPerChannelGradient",
        _fake_quant_gradient("FakeQuantWithMinMaxVarsPerChannelGradient", 2, True),
        _same_as("FakeQuantWithMinMaxVarsPerChannelGradient", 1))
