"""Quantization references in float64: AscendQuant, AscendDequant and the FakeQuantWithMinMax* ops.

AscendQuant follows its header (quantize_ops.h): the value x * scale + offset (scale applied twice when sqrt_mode, the
square root of the real scale being given) is converted from float16 to int8 by round_mode: "Round" to nearest with
ties to even (C's rint), "Floor", "Ceil", "Trunc" as C's functions, saturating to [-128, 127] (NaN gives 0). The
header documents the conversion as a float16-to-int8 cast and offset as a float16, so the input, the scaled value and
the offset are float16 values: each step is rounded to float16, as a float16 value is what the cast receives.
AscendDequant gives x times its scale input (twice when sqrt_mode), then max(., 0) when relu_flag, rounded once;
with a float16 scale (the dequantization to float16 of the header) x enters as a float16 value, so an int32 beyond
float16's range is inf there; a uint64 scale word holds the float32 scale in its low 32 bits (the further fields a
requantization reads above them are not AscendDequant's).
The FakeQuant ops follow TensorFlow's documentation of tf.raw_ops.FakeQuantWithMinMaxArgs and its siblings: the
range [min, max] is nudged so that 0.0 is one of the 2^num_bits levels (the lowest left out when narrow_range), x is
clamped to the nudged range (its minimum with the top first, then its maximum with the bottom: TensorFlow's order,
which decides a range given upside down) and rounded to the nearest level (ties upwards, TensorFlow's floor(v + 0.5)); the
gradients pass where x is inside the nudged range, and the gradients outside it are summed into min's and max's.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from aclcts.reference.base import ComputeFn, RefOp, ShapeFn, define
from aclcts.reference.numeric import round_to, widen

#: The round_mode functions of AscendQuant's header.
ROUNDING = {"Round": np.rint, "Floor": np.floor, "Ceil": np.ceil, "Trunc": np.trunc}
INT8_RANGE = (-128.0, 127.0)


def _half(x: np.ndarray) -> np.ndarray:
    """x rounded to the nearest float16 value, returned as float64."""
    return np.asarray(x, dtype=np.float64).astype(np.float16).astype(np.float64)


def ascend_quant(x: np.ndarray, scale: float, offset: float, sqrt_mode: bool, round_mode: str) -> np.ndarray:
    """int8 levels (as float64) of x * scale (* scale with sqrt_mode) + offset, each step a float16 value."""
    if round_mode not in ROUNDING:
        raise ValueError(f"round_mode must be one of {', '.join(ROUNDING)}, got {round_mode!r}")
    value = _half(x)
    with np.errstate(all="ignore"):
        for _ in range(2 if sqrt_mode else 1):
            value = _half(value * _half(scale))
        value = _half(value + _half(offset))
        levels = ROUNDING[round_mode](value)
    return np.where(np.isnan(levels), 0.0, np.clip(levels, *INT8_RANGE))


def dequant_scales(scales: np.ndarray) -> np.ndarray:
    """The scales AscendDequant's scale input holds: float16 values as they are; uint64 words' low 32 bits read as
    float32."""
    if scales.dtype == np.uint64:
        return (scales & np.uint64(0xFFFFFFFF)).astype(np.uint32).view(np.float32).astype(np.float64)
    return widen(scales)


def ascend_dequant(x: np.ndarray, scale: np.ndarray, sqrt_mode: bool, relu_flag: bool) -> np.ndarray:
    """x * scale (scale twice with sqrt_mode), negative results zeroed with relu_flag."""
    y = x * scale * scale if sqrt_mode else x * scale
    return np.maximum(y, 0.0) if relu_flag else y


def nudged(low: np.ndarray, high: np.ndarray, num_bits: int, narrow_range: bool
           ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(nudged_min, nudged_max, step) of TensorFlow's fake quantization for the range [low, high]."""
    if not 2 <= num_bits <= 16:
        raise ValueError(f"num_bits must be in [2, 16], got {num_bits}")
    quant_min = 1.0 if narrow_range else 0.0
    quant_max = float(2 ** num_bits - 1)
    step = (high - low) / (quant_max - quant_min)
    with np.errstate(all="ignore"):
        zero_from_min = quant_min - low / step
    zero = np.clip(np.floor(zero_from_min + 0.5), quant_min, quant_max)
    return (quant_min - zero) * step, (quant_max - zero) * step, step


def fake_quant(x: np.ndarray, low: np.ndarray, high: np.ndarray, num_bits: int, narrow_range: bool) -> np.ndarray:
    """x clamped to the nudged range and rounded to its nearest level (ties upwards)."""
    bottom, top, step = nudged(low, high, num_bits, narrow_range)
    clamped = np.maximum(np.minimum(x, top), bottom)
    return np.floor((clamped - bottom) / step + 0.5) * step + bottom


def fake_quant_gradient(gradients: np.ndarray, x: np.ndarray, low: np.ndarray, high: np.ndarray, num_bits: int,
                        narrow_range: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(gradient wrt x, wrt min, wrt max): gradients inside the nudged range, those below it, those above it."""
    bottom, top, _ = nudged(low, high, num_bits, narrow_range)
    inside = (x >= bottom) & (x <= top)
    return np.where(inside, gradients, 0.0), np.where(x < bottom, gradients, 0.0), np.where(x > top, gradients, 0.0)


def _ascend_quant(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    levels = ascend_quant(widen(xs[0]), float(attrs["scale"]), float(attrs["offset"]), bool(attrs["sqrt_mode"]),
                          str(attrs["round_mode"]))
    return [levels.astype(out[0])]


def _ascend_dequant(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    x = widen(xs[0]).astype(np.float64)
    y = ascend_dequant(x if xs[1].dtype == np.uint64 else _half(x), dequant_scales(np.asarray(xs[1])),
                       bool(attrs["sqrt_mode"]), bool(attrs["relu_flag"]))
    return [round_to(y, out[0])]


def _scalar_range(xs: list[Any], attrs: dict[str, Any], first: int) -> tuple[np.ndarray, np.ndarray]:
    """(min, max): the attributes of the Args ops (first is None), else inputs first and first + 1."""
    if first < 0:
        return np.float64(attrs["min"]), np.float64(attrs["max"])
    return widen(xs[first]).reshape(-1)[0], widen(xs[first + 1]).reshape(-1)[0]


def _fake_quant_op(first: int, per_channel: bool = False) -> ComputeFn:
    """The compute of a FakeQuant op: the range from the attributes (first < 0) or inputs first, first + 1."""

    def compute(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
        low, high = (widen(xs[first]), widen(xs[first + 1])) if per_channel else _scalar_range(xs, attrs, first)
        y = fake_quant(widen(xs[0]), low, high, int(attrs["num_bits"]), bool(attrs["narrow_range"]))
        return [round_to(y, out[0])]
    return compute


def _fake_quant_gradient_op(first: int, per_channel: bool = False) -> ComputeFn:
    """The compute of a FakeQuant gradient op; min's and max's gradients summed per channel or over everything."""

    def compute(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
        low, high = (widen(xs[first]), widen(xs[first + 1])) if per_channel else _scalar_range(xs, attrs, first)
        wrt_x, below, above = fake_quant_gradient(widen(xs[0]), widen(xs[1]), low, high, int(attrs["num_bits"]),
                                                  bool(attrs["narrow_range"]))
        if first < 0:
            return [round_to(wrt_x, out[0])]
        axes = tuple(range(wrt_x.ndim - 1)) if per_channel else None
        shape = np.shape(xs[first])
        sums = [np.sum(part, axis=axes).reshape(shape) for part in (below, above)]
        return [round_to(r, d) for r, d in zip([wrt_x, *sums], out)]
    return compute


def _first_shape(shapes: list[Any], values: list[Any], attrs: dict[str, Any]) -> list[tuple[int, ...]]:
    return [tuple(shapes[0])]


def _x_shape(shapes: list[Any], values: list[Any], attrs: dict[str, Any]) -> list[tuple[int, ...]]:
    return [tuple(shapes[1])]


def _checked_range(shapes: list[Any], first: int, per_channel: bool) -> None:
    """ValueError unless min and max (inputs first, first + 1) have the shape the op takes."""
    x = tuple(shapes[first - 1])
    for index in (first, first + 1):
        shape = tuple(shapes[index])
        if per_channel and shape != x[-1:]:
            raise ValueError(f"min and max must have shape [{x[-1] if x else ''}] (x's last dim), got {list(shape)}")
        if not per_channel and int(np.prod(shape)) != 1:
            raise ValueError(f"min and max must hold one value each, got shape {list(shape)}")


def _vars_shape(per_channel: bool) -> ShapeFn:
    def shape(shapes: list[Any], values: list[Any], attrs: dict[str, Any]) -> list[tuple[int, ...]]:
        _checked_range(shapes, 1, per_channel)
        return [tuple(shapes[0])]
    return shape


def _vars_gradient_shape(per_channel: bool) -> ShapeFn:
    def shape(shapes: list[Any], values: list[Any], attrs: dict[str, Any]) -> list[tuple[int, ...]]:
        _checked_range(shapes, 2, per_channel)
        return [tuple(shapes[1]), tuple(shapes[2]), tuple(shapes[3])]
    return shape


def _dequant_shape(shapes: list[Any], values: list[Any], attrs: dict[str, Any]) -> list[tuple[int, ...]]:
    x, scale = tuple(shapes[0]), tuple(shapes[1])
    if np.broadcast_shapes(x, scale) != x:
        raise ValueError(f"the scale {list(scale)} must broadcast to x {list(x)}")
    return [x]


OPS: tuple[RefOp, ...] = (
    define("AscendQuant", _ascend_quant, _first_shape),
    define("AscendDequant", _ascend_dequant, _dequant_shape),
    define("FakeQuantWithMinMaxArgs", _fake_quant_op(-1), _first_shape),
    define("FakeQuantWithMinMaxArgsGradient", _fake_quant_gradient_op(-1), _x_shape),
    define("FakeQuantWithMinMaxVars", _fake_quant_op(1), _vars_shape(False)),
    define("FakeQuantWithMinMaxVarsGradient", _fake_quant_gradient_op(2), _vars_gradient_shape(False)),
    define("FakeQuantWithMinMaxVarsPerChannel", _fake_quant_op(1, True), _vars_shape(True)),
    define("FakeQuantWithMinMaxVarsPerChannelGradient", _fake_quant_gradient_op(2, True), _vars_gradient_shape(True)),
)
