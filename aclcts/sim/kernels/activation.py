"""Activation kernels: Relu, Sigmoid and Tanh (one-input formulas of `pointwise`), Gelu, FastGelu, Swish, Mish, LeakyRelu, Elu, Selu, Celu, Relu6, HardSigmoid, HardSwish, PRelu,
Softplus, Softsign, LogSigmoid, SoftShrink, HardShrink, BNLL, CeluV2, FastGeluV2, SoftplusV2, ThresholdV2D, ThresholdV2, Shrink.

Prototypes: aclcts.core.prototypes.activation (graphengine op_proto nonlinear_fuc_ops.h). Device numerics: fp16 and
bf16 are widened to float32, the whole formula is evaluated there and rounded once to the storage type; float32 and
float64 compute in their own type; Relu6 on integers is exact in the integer type. Float attributes are taken as
float32. The formulas are the TBE implementations' where known: Gelu's tanh form
x / (1 + exp(-2 sqrt(2/pi) (x + 0.044715 x^3))); FastGelu's x / (1 + exp(-1.702|x|)) * exp(0.851 (x - |x|)), with
x - |x| written 2 min(x, 0) so that +inf gives +inf rather than inf - inf; Celu's
alpha3 max(x, 0) + alpha1 (exp(-max(-x, 0) / alpha2) - 1); exp(x) - 1 (vexp then vadds) in the ELU family.
HardSwish divides min(max(x + 3, 0), 6) by 6 before multiplying by x, so that x near the type's maximum does not
overflow. Softplus, LogSigmoid and Mish use the overflow-free max(x, 0) + log1p(exp(-|x|)). At +-inf each function
gives its limit (where a formula would give inf * 0 or inf / inf) and NaN stays NaN, as the reference states.
The ops from CANN's own headers follow their TBE implementations (ops/built-in/tbe/impl/<op>.py) step by step:
BNLL log(exp(-|x|) + 1) + max(x, 0); CeluV2 max(x, 0) + min(alpha (exp(x * (1/alpha)) - 1), 0); FastGeluV2 its
polynomial erf with the sign (x + 1e-12) / |x + 1e-12| (NaN at +-inf, as on the device); SoftplusV2 both branches
blended by 0/1 masks (NaN at +-inf); ThresholdV2D a compare-and-select with the attributes in x's type (an integer
type truncates them), ThresholdV2 the same with tensors threshold and value; Shrink sign(x) (|x| - bias) where |x| > lambd, with sign(0) = -1.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from aclcts.sim.kernels.base import InferredShape, TensorInfo
from aclcts.sim.kernels.binary_math import several_inputs
from aclcts.sim.kernels.call import OpCall, Outputs
from aclcts.sim.kernels.numerics import FLOAT32, compute_dtype
from aclcts.sim.kernels import pointwise
from aclcts.sim.kernels.registry import builtin, not_simulated
from aclcts.sim.kernels.shapes import inferred

Params = tuple[float, ...]
#: body(x, y, params): the activation of x written into y, both in the compute type (y never aliases x).
Body = Callable[[np.ndarray, np.ndarray, Params], None]
#: read(call): the float attributes a body takes, as float32 values, checked.
Read = Callable[[OpCall], Params]

SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)
GELU_CUBIC = 0.044715
FAST_GELU_SLOPE = 1.702
SELU_SCALE = 1.0507009873554805
SELU_ALPHA = 1.6732632423543772


def _tmp(x: np.ndarray) -> np.ndarray:
    """A scratch array of x's shape and type."""
    return np.empty_like(x)


def _c(x: np.ndarray, value: float) -> np.generic:
    """A constant in x's compute type."""
    return x.dtype.type(value)


def _at_limit(y: np.ndarray, x: np.ndarray, factor: float = 1.0) -> None:
    """Write x's signed zero into y where x is infinite and factor * x < 0 (the side where the function tends to 0)."""
    infinite = np.isinf(x)
    if infinite.any():
        side = infinite & (x * x.dtype.type(factor) < 0)
        np.copyto(y, np.copysign(_c(x, 0.0), x), where=side)


def _gelu(x: np.ndarray, y: np.ndarray, p: Params) -> None:
    t = _tmp(x)
    np.multiply(x, x, out=t)
    t *= x
    t *= _c(x, GELU_CUBIC)
    t += x
    t *= _c(x, -2.0 * SQRT_2_OVER_PI)
    np.exp(t, out=t)
    t += _c(x, 1.0)
    np.divide(x, t, out=y)
    _at_limit(y, x)


def _fast_gelu(x: np.ndarray, y: np.ndarray, p: Params) -> None:
    a = np.abs(x, out=_tmp(x))
    t = np.multiply(a, _c(x, -FAST_GELU_SLOPE), out=_tmp(x))
    np.exp(t, out=t)
    t += _c(x, 1.0)
    np.divide(x, t, out=y)
    np.minimum(x, _c(x, 0.0), out=a)
    a *= _c(x, FAST_GELU_SLOPE)
    np.exp(a, out=a)
    y *= a
    _at_limit(y, x)


def _swish(x: np.ndarray, y: np.ndarray, p: Params) -> None:
    scale = _c(x, p[0])
    if scale == 0:
        np.multiply(x, _c(x, 0.5), out=y)
        return
    t = np.multiply(x, -scale, out=_tmp(x))
    np.exp(t, out=t)
    t += _c(x, 1.0)
    np.divide(x, t, out=y)
    _at_limit(y, x, p[0])


def _softplus_into(x: np.ndarray, y: np.ndarray, sign: float) -> None:
    """y = max(sign x, 0) + log1p(exp(-|x|)), the overflow-free softplus of sign * x."""
    t = np.abs(x, out=_tmp(x))
    np.negative(t, out=t)
    np.exp(t, out=t)
    np.log1p(t, out=t)
    np.multiply(x, _c(x, sign), out=y)
    np.maximum(y, _c(x, 0.0), out=y)
    y += t


def _mish(x: np.ndarray, y: np.ndarray, p: Params) -> None:
    _softplus_into(x, y, 1.0)
    np.tanh(y, out=y)
    y *= x
    _at_limit(y, x)


def _softplus(x: np.ndarray, y: np.ndarray, p: Params) -> None:
    _softplus_into(x, y, 1.0)


def _log_sigmoid(x: np.ndarray, y: np.ndarray, p: Params) -> None:
    _softplus_into(x, y, -1.0)
    np.negative(y, out=y)


def _leaky_relu(x: np.ndarray, y: np.ndarray, p: Params) -> None:
    slope = _c(x, p[0])
    np.multiply(x, slope, out=y)
    np.copyto(y, x, where=x > 0)
    if slope == 0:
        _at_limit(y, x)


def _elu_into(x: np.ndarray, y: np.ndarray, alpha: float, scale: float, input_scale: float) -> None:
    """y = scale * x for x > 0, (alpha * scale) * (exp(input_scale * x) - 1) otherwise."""
    np.multiply(x, _c(x, input_scale), out=y)
    np.exp(y, out=y)
    y -= _c(x, 1.0)
    y *= _c(x, alpha) * _c(x, scale)
    positive = x > 0
    np.copyto(y, np.multiply(x, _c(x, scale)), where=positive)


def _elu(x: np.ndarray, y: np.ndarray, p: Params) -> None:
    _elu_into(x, y, *p)


def _selu(x: np.ndarray, y: np.ndarray, p: Params) -> None:
    _elu_into(x, y, SELU_ALPHA, SELU_SCALE, 1.0)


def _celu(x: np.ndarray, y: np.ndarray, p: Params) -> None:
    alpha1, alpha2, alpha3 = (_c(x, v) for v in p)
    t = np.negative(x, out=_tmp(x))
    np.maximum(t, _c(x, 0.0), out=t)
    t *= -(_c(x, 1.0) / alpha2)
    np.exp(t, out=t)
    t -= _c(x, 1.0)
    t *= alpha1
    np.maximum(x, _c(x, 0.0), out=y)
    y *= alpha3
    y += t


def _relu6(x: np.ndarray, y: np.ndarray, p: Params) -> None:
    np.maximum(x, x.dtype.type(0), out=y)
    np.minimum(y, x.dtype.type(6), out=y)


def _hard_sigmoid(x: np.ndarray, y: np.ndarray, p: Params) -> None:
    if x.dtype.kind in "iu":  # the TBE kernel casts int32 to float32, computes, and casts back (toward zero)
        wide = x.astype(FLOAT32)
        result = np.empty_like(wide)
        _hard_sigmoid(wide, result, p)
        np.copyto(y, np.trunc(result), casting="unsafe")
        return
    np.multiply(x, _c(x, p[0]), out=y)
    y += _c(x, p[1])
    np.maximum(y, _c(x, 0.0), out=y)
    np.minimum(y, _c(x, 1.0), out=y)


def _hard_swish(x: np.ndarray, y: np.ndarray, p: Params) -> None:
    np.add(x, _c(x, 3.0), out=y)
    np.maximum(y, _c(x, 0.0), out=y)
    np.minimum(y, _c(x, 6.0), out=y)
    y /= _c(x, 6.0)
    y *= x
    _at_limit(y, x)


def _softsign(x: np.ndarray, y: np.ndarray, p: Params) -> None:
    np.abs(x, out=y)
    y += _c(x, 1.0)
    np.divide(x, y, out=y)
    infinite = np.isinf(x)
    if infinite.any():
        np.copyto(y, np.sign(x), where=infinite)


def _soft_shrink(x: np.ndarray, y: np.ndarray, p: Params) -> None:
    """sign(x) * max(|x| - lambd, 0): x moved lambd towards 0, or a zero; NaN stays NaN."""
    np.abs(x, out=y)
    y -= _c(x, p[0])
    np.maximum(y, _c(x, 0.0), out=y)
    np.copysign(y, x, out=y)


def _hard_shrink(x: np.ndarray, y: np.ndarray, p: Params) -> None:
    """x, or +0 where |x| <= lambd; NaN stays NaN."""
    np.abs(x, out=y)
    inside = y <= _c(x, p[0])
    np.copyto(y, x)
    np.copyto(y, _c(x, 0.0), where=inside)


def _bnll(x: np.ndarray, y: np.ndarray, p: Params) -> None:
    t = np.abs(x, out=_tmp(x))
    np.negative(t, out=t)
    np.exp(t, out=t)
    t += _c(x, 1.0)
    np.log(t, out=t)
    np.maximum(x, _c(x, 0.0), out=y)
    y += t


def _celu_v2(x: np.ndarray, y: np.ndarray, p: Params) -> None:
    t = np.multiply(x, _c(x, 1.0) / _c(x, p[0]), out=_tmp(x))
    np.exp(t, out=t)
    t += _c(x, -1.0)
    t *= _c(x, p[0])
    np.minimum(t, _c(x, 0.0), out=t)
    np.maximum(x, _c(x, 0.0), out=y)
    y += t


def _fast_gelu_v2(x: np.ndarray, y: np.ndarray, p: Params) -> None:
    t = np.multiply(x, _c(x, 0.7071), out=_tmp(x))
    np.abs(t, out=t)
    np.minimum(t, _c(x, 1.769), out=t)
    t += _c(x, -1.769)
    t *= t
    t *= _c(x, -0.1444)
    t += _c(x, 0.5)
    shifted = np.add(x, _c(x, 1e-12), out=_tmp(x))
    np.divide(shifted, np.abs(shifted), out=shifted)
    t *= shifted
    t += _c(x, 0.5)
    np.multiply(x, t, out=y)


def _softplus_v2(x: np.ndarray, y: np.ndarray, p: Params) -> None:
    beta, threshold = _c(x, p[0]), _c(x, p[1])
    scaled = np.multiply(x, beta, out=_tmp(x))
    above = (scaled > threshold).astype(x.dtype)
    below = _c(x, 1.0) - above
    t = np.multiply(scaled, below, out=scaled)
    np.exp(t, out=t)
    t += _c(x, 1.0)
    np.log(t, out=t)
    t /= beta
    t *= below
    np.multiply(x, above, out=y)
    y += t


def _threshold_v2d(x: np.ndarray, y: np.ndarray, p: Params) -> None:
    threshold, value = (_attr_in_type(v, x.dtype) for v in p)
    np.copyto(y, x)
    np.copyto(y, value, where=~(x > threshold))


def _attr_in_type(value: float, dtype: np.dtype) -> np.generic:
    """A float attribute as a constant of dtype: truncated toward zero for an integer type (tvm.const)."""
    if dtype.kind in "iu":
        return np.array(math.trunc(value)).astype(dtype)[()]
    return dtype.type(value)


def _shrink(x: np.ndarray, y: np.ndarray, p: Params) -> None:
    lambd, bias = _c(x, p[0]), _c(x, p[1])
    magnitude = np.abs(x, out=_tmp(x))
    inside = magnitude <= lambd
    np.subtract(magnitude, bias, out=y)
    np.copyto(y, _c(x, 0.0), where=inside)
    np.copyto(y, -y, where=x <= 0)


def no_attrs(call: OpCall) -> Params:
    return ()


def float_attrs(*names: str) -> Read:
    """Read float attributes (the record gives their defaults) as float32 values."""
    def read(call: OpCall) -> Params:
        return tuple(float(np.float32(call.attr_float(name))) for name in names)
    return read


def _celu_attrs(call: OpCall) -> Params:
    values = float_attrs("alpha1", "alpha2", "alpha3")(call)
    if values[1] == 0.0:
        raise call.fail("attr 'alpha2' is 0, expected a nonzero divisor")
    return values


def lambd_attr(call: OpCall) -> Params:
    (lambd,) = float_attrs("lambd")(call)
    if lambd < 0:
        raise call.fail(f"attr 'lambd' is {lambd}, expected a value >= 0")
    return (lambd,)


def _divisor_first(*names: str) -> Read:
    """Read float attributes (as float_attrs) of which the first divides: 0 fails."""
    def read(call: OpCall) -> Params:
        values = float_attrs(*names)(call)
        if values[0] == 0.0:
            raise call.fail(f"attr '{names[0]}' is 0, expected a nonzero divisor")
        return values
    return read


def _in_compute_type(body: Body, x: np.ndarray, y: np.ndarray, params: Params) -> np.ndarray:
    """body on x into y: straight when x's type is its compute type, else through float32 rounded once into y."""
    if compute_dtype(x.dtype) == x.dtype:
        body(x, y, params)
        return y
    wide = x.astype(FLOAT32)
    result = np.empty_like(wide)
    body(wide, result, params)
    np.copyto(y, result, casting="unsafe")
    return y


def _infer(op_type: str, count: int = 1) -> Callable[..., list[InferredShape]]:
    def infer_shape(inputs: list[TensorInfo], values: list[np.ndarray | None],
                    attrs: dict[str, Any]) -> list[InferredShape]:
        call = OpCall(op_type, inputs, attrs)
        call.require_count(count)
        x = call.input(0)
        return [inferred(x.dtype, x.shape)]
    return infer_shape


def _activation(op_type: str, body: Body, read: Read = no_attrs) -> None:
    """Register a one-input activation: dtype checks (the record's types), attributes, the output buffer, body in the
    compute type."""
    def compute(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list[TensorInfo]) -> list[np.ndarray]:
        call = OpCall(op_type, inputs, attrs)
        call.require_count(1)
        x = call.input(0)
        call.require_dtype(0, x.dtype)
        out = Outputs(call, outputs)
        out.require_dtype(0, x.dtype, call.same_as(0))
        params = read(call)
        with np.errstate(all="ignore"):
            return [out.emit(0, _in_compute_type(body, x, out.buffer(0, x.shape), params))]

    builtin(op_type, compute, _infer(op_type))


_activation("Gelu", _gelu)
_activation("FastGelu", _fast_gelu)
_activation("Swish", _swish, float_attrs("scale"))
_activation("Mish", _mish)
_activation("LeakyRelu", _leaky_relu, float_attrs("negative_slope"))
_activation("Elu", _elu, float_attrs("alpha", "scale", "input_scale"))
_activation("Selu", _selu)
_activation("Celu", _celu, _celu_attrs)
_activation("Relu6", _relu6)
_activation("HardSigmoid", _hard_sigmoid, float_attrs("alpha", "beta"))
_activation("HardSwish", _hard_swish)
_activation("Softplus", _softplus)
_activation("Softsign", _softsign)
_activation("LogSigmoid", _log_sigmoid)
_activation("SoftShrink", _soft_shrink, lambd_attr)
_activation("HardShrink", _hard_shrink, lambd_attr)
_activation("BNLL", _bnll)
_activation("CeluV2", _celu_v2, _divisor_first("alpha"))
_activation("FastGeluV2", _fast_gelu_v2)
_activation("SoftplusV2", _softplus_v2, _divisor_first("beta", "threshold"))
_activation("ThresholdV2D", _threshold_v2d, float_attrs("threshold", "value"))
_activation("Shrink", _shrink, float_attrs("lambd", "bias"))


# PRelu -------------------------------------------------------------------------------------------------------------
def _prelu_weight_shape(call: OpCall, weight: tuple[int, ...], x: tuple[int, ...]) -> tuple[int, ...]:
    """The shape weight broadcasts in: () for one value, (1, C, 1, ...) for one per channel of x (dimension 1)."""
    size = int(np.prod(weight, dtype=np.int64))
    if size == 1 and len(weight) <= 1:
        return ()
    if len(weight) != 1 or len(x) < 2 or weight[0] != x[1]:
        raise call.fail(f"input '{call.name(1)}' has shape {list(weight)}, expected one value or one per channel "
                        f"(dimension 1 of {call.name(0)}'s shape {list(x)})")
    return (1, weight[0]) + (1,) * (len(x) - 2)


def _prelu(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list[TensorInfo]) -> list[np.ndarray]:
    call = OpCall("PRelu", inputs, attrs)
    call.require_count(2)
    x, weight = call.input(0), call.input(1)
    call.require_dtype(0, x.dtype)
    call.require_same_dtype((0, 1), [x.dtype, weight.dtype])
    w = weight.reshape(_prelu_weight_shape(call, weight.shape, x.shape))
    out = Outputs(call, outputs)
    out.require_dtype(0, x.dtype, call.same_as(0))
    y = out.buffer(0, x.shape)
    with np.errstate(all="ignore"):
        if x.dtype == FLOAT32:
            np.multiply(x, w, out=y)
            np.copyto(y, x, where=x > 0)
        else:
            wide = x.astype(FLOAT32)
            result = np.multiply(wide, w.astype(FLOAT32), out=np.empty_like(wide))
            np.copyto(result, wide, where=wide > 0)
            np.copyto(y, result, casting="unsafe")
    return [out.emit(0, y)]


def _prelu_infer(inputs: list[TensorInfo], values: list[np.ndarray | None],
                 attrs: dict[str, Any]) -> list[InferredShape]:
    call = OpCall("PRelu", inputs, attrs)
    call.require_count(2)
    x, weight = call.input(0), call.input(1)
    if all(d >= 0 for d in x.shape) and all(d >= 0 for d in weight.shape):
        _prelu_weight_shape(call, tuple(weight.shape), tuple(x.shape))
    return [inferred(x.dtype, x.shape)]


builtin("PRelu", _prelu, _prelu_infer)

for _op_type in ("Relu", "Sigmoid", "Tanh"):
    builtin(_op_type, *pointwise.kernel(_op_type))
    not_simulated(_op_type, 0, pointwise.unsimulated(_op_type))


def _threshold_v2(call: OpCall, arrays: list[np.ndarray]) -> np.ndarray:
    """A compare-and-select in x's type (threshold_v2.py's vcmpsel; its integers go through float32, exact for int8
    and uint8 and for int32 up to 2^24); value 0 when absent."""
    x, threshold, value = arrays
    for index, one in ((1, threshold), (2, value)):
        if one is not None and one.size != 1:
            raise call.fail(f"input '{call.name(index)}' must hold one value, got shape {list(one.shape)}")
    chosen = x.dtype.type(0) if value is None else value.reshape(())
    return np.where(x > threshold.reshape(()), x, chosen)


def _threshold_v2_shape(call: OpCall, shapes: list[tuple[int, ...]]) -> tuple[int, ...]:
    return tuple(shapes[0])


builtin("ThresholdV2", *several_inputs("ThresholdV2", _threshold_v2, shape_of=_threshold_v2_shape))
