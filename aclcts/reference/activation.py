"""Activation references: Relu, Sigmoid, Tanh, Gelu, FastGelu, Swish, Mish, LeakyRelu, Elu, Selu, Celu, Relu6,
HardSigmoid, HardSwish, PRelu, Softplus, Softsign, LogSigmoid, SoftShrink, HardShrink, BNLL, CeluV2, FastGeluV2,
SoftplusV2, ThresholdV2D, Shrink.

Inputs arrive widened (float64, or int64/uint64 for Relu6); each function returns a float64 result that `round_to`
rounds once to the output dtype. Where the simulator's kernel follows the device's formula, the reference uses a
second formulation: Gelu as x * sigmoid(2u) (0.5 (1 + tanh(u)) loses the left tail to cancellation), sigmoids split
at 0 so that neither tail cancels, FastGelu as x * sigmoid(1.702 x), Softplus as logaddexp, Mish's tanh(softplus(x))
as the rational function of e^x, exp(x) - 1 as expm1, HardSwish and the shrink functions piecewise.

Semantic choices, each UNCONFIRMED on hardware:
- Gelu is the tanh approximation 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))): nonlinear_fuc_ops.h documents
  x * Phi(x), but CANN's TBE gelu implementation computes the tanh form.
- At +-inf a function takes its limit (Gelu(-inf) = -0, Softsign(+-inf) = +-1, Swish(-inf) = -0, ...), not the NaN
  a literal inf * 0 or inf / inf would give.
- NaN stays NaN, in the shrink functions too (their literal "else 0" would turn NaN into 0).
- Float attributes are REG_OP Float: the float32 value is used.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from aclcts.reference import complex_math
from aclcts.reference.base import InputError, RefOp, define
from aclcts.reference.elementwise import maximum
from aclcts.reference.numeric import round_to, widen

#: Selu's constants (Klambauer et al. 2017, "Self-Normalizing Neural Networks", eq. 14), as TF and PyTorch write them.
SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946
#: Gelu's tanh approximation (Hendrycks and Gimpel 2016): sqrt(2/pi) and the cubic coefficient.
GELU_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)
GELU_CUBIC = 0.044715
#: FastGelu's sigmoid slope (the prototype's e^(-1.702|x|)).
FAST_GELU_SLOPE = 1.702


def relu(x: np.ndarray) -> np.ndarray:
    """Relu: maximum(x, 0) with the IEEE maximum of `maximum`, so NaN stays NaN and Relu(-0) = +0."""
    return maximum(x, np.zeros_like(x))


def sigmoid(x: np.ndarray) -> np.ndarray:
    """Sigmoid: 1 / (1 + exp(-x)) (complex_math.sigmoid for complex x)."""
    if x.dtype.kind == "c":
        return complex_math.sigmoid(x)
    return 1.0 / (1.0 + np.exp(-x))


def tanh(x: np.ndarray) -> np.ndarray:
    """Tanh: hyperbolic tangent (complex_math.tanh for complex x)."""
    return complex_math.tanh(x) if x.dtype.kind == "c" else np.tanh(x)


def f32(value: Any) -> float:
    """A REG_OP Float attribute's value as the operator receives it: the nearest float32."""
    return float(np.float32(value))


def _logistic(t: np.ndarray) -> np.ndarray:
    """1 / (1 + exp(-t)), as e^t / (1 + e^t) for t < 0 so that the left tail keeps its relative precision."""
    e = np.exp(-np.abs(t))
    return np.where(t >= 0, 1.0 / (1.0 + e), e / (1.0 + e))


def _limit_zero(y: np.ndarray, x: np.ndarray, vanishing: np.ndarray) -> np.ndarray:
    """y with a signed zero (the sign of x) where x is infinite and the function tends to 0 there."""
    return np.where(np.isinf(x) & vanishing, np.copysign(0.0, x), y)


def gelu(x: np.ndarray) -> np.ndarray:
    """Gelu (tanh form): 0.5 x (1 + tanh(u)) = x * sigmoid(2u), u = sqrt(2/pi) (x + 0.044715 x^3); Gelu(-inf) = -0."""
    u = GELU_SQRT_2_OVER_PI * (x + GELU_CUBIC * x ** 3)
    return _limit_zero(x * _logistic(2.0 * u), x, x < 0)


def fast_gelu(x: np.ndarray) -> np.ndarray:
    """FastGelu: x * sigmoid(1.702 x), the prototype's x / (1 + e^(-1.702|x|)) * e^(0.851 (x - |x|)); -inf -> -0."""
    return _limit_zero(x * _logistic(FAST_GELU_SLOPE * x), x, x < 0)


def swish(x: np.ndarray, scale: float) -> np.ndarray:
    """Swish: x * sigmoid(scale * x); scale 0 gives x / 2; 0 at the infinity where scale * x -> -inf."""
    if scale == 0.0:
        return 0.5 * x
    return _limit_zero(x * _logistic(scale * x), x, scale * x < 0)


def mish(x: np.ndarray) -> np.ndarray:
    """Mish: x tanh(ln(1 + e^x)) = x n / (n + 2) with n = e^x (e^x + 2); tanh(...) is 1 in float64 beyond x = 20."""
    e = np.exp(np.minimum(x, 20.0))
    n = e * (e + 2.0)
    y = np.where(x > 20.0, x, x * n / (n + 2.0))
    return _limit_zero(y, x, x < 0)


def leaky_relu(x: np.ndarray, negative_slope: float) -> np.ndarray:
    """LeakyRelu: x if x > 0 else negative_slope * x; a zero slope gives -0 at -inf too (not 0 * -inf = NaN)."""
    y = np.where(x > 0, x, negative_slope * x)
    return np.where(np.isneginf(x), -0.0, y) if negative_slope == 0.0 else y


def elu(x: np.ndarray, alpha: float, scale: float, input_scale: float) -> np.ndarray:
    """Elu: scale * x for x > 0, scale * alpha * (exp(input_scale * x) - 1) otherwise (PyTorch's elu)."""
    return np.where(x > 0, scale * x, scale * alpha * np.expm1(input_scale * x))


def selu(x: np.ndarray) -> np.ndarray:
    """Selu: SELU_SCALE * x for x > 0, SELU_SCALE * SELU_ALPHA * (exp(x) - 1) otherwise."""
    return SELU_SCALE * np.where(x > 0, x, SELU_ALPHA * np.expm1(x))


def celu(x: np.ndarray, alpha1: float, alpha2: float, alpha3: float) -> np.ndarray:
    """Celu (CANN's three-alpha form): alpha3 * x for x >= 0, alpha1 * (exp(x / alpha2) - 1) for x < 0."""
    if alpha2 == 0.0:
        raise ValueError("attribute alpha2 is 0; expected a nonzero divisor")
    return np.where(x >= 0, alpha3 * x, alpha1 * np.expm1(x / alpha2))


def relu6(x: np.ndarray) -> np.ndarray:
    """Relu6: min(max(x, 0), 6); NaN stays NaN, integers are exact."""
    return np.where(x <= 0, np.zeros_like(x), np.where(x >= 6, np.full_like(x, 6), x))


def hard_sigmoid(x: np.ndarray, alpha: float, beta: float) -> np.ndarray:
    """HardSigmoid: alpha * x + beta clamped to [0, 1]; NaN stays NaN.

    An integer x is taken as CANN's TBE kernel takes int32 (hard_sigmoid.py): converted to float32, with the product
    and the sum each rounded to float32, so that a sum within half a float32 step of 1 reaches 1 as on the device
    before the result is truncated back to the integer type. UNCONFIRMED on hardware; SoCs whose vector unit has no
    float32 multiply compute in float16 instead (not modelled).
    """
    if x.dtype.kind in "iu":
        product = (alpha * x.astype(np.float32).astype(np.float64)).astype(np.float32).astype(np.float64)
        t = (product + beta).astype(np.float32).astype(np.float64)
    else:
        t = alpha * x + beta
    return np.where(t <= 0, 0.0, np.where(t >= 1, 1.0, t))


def hard_swish(x: np.ndarray) -> np.ndarray:
    """HardSwish: 0 for x <= -3, x for x >= 3, x (x + 3) / 6 between; NaN stays NaN."""
    return np.where(x <= -3, 0.0, np.where(x >= 3, x, x * (x + 3.0) / 6.0))


def prelu(x: np.ndarray, weight: np.ndarray) -> np.ndarray:
    """PRelu: x if x > 0 else weight * x, weight one value or one per channel (dimension 1 of x)."""
    return np.where(x > 0, x, prelu_weight(weight, x.shape) * x)


def prelu_weight(weight: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """weight shaped to broadcast along x's channel dimension (1), or a scalar; ValueError if it does not fit."""
    w = np.asarray(weight)
    if w.size == 1 and w.ndim <= 1:
        return w.reshape(())
    if w.ndim != 1 or len(shape) < 2 or w.shape[0] != shape[1]:
        raise InputError((1, 0), lambda weight_name, x_name: f"input {weight_name!r} of shape {list(w.shape)} must hold "
                         f"one value or one per channel (dimension 1 of {x_name}'s shape {list(shape)})")
    return w.reshape((1, -1) + (1,) * (len(shape) - 2))


def softplus(x: np.ndarray) -> np.ndarray:
    """Softplus: log(exp(x) + 1) = logaddexp(0, x)."""
    return np.logaddexp(0.0, x)


def softsign(x: np.ndarray) -> np.ndarray:
    """Softsign: x / (|x| + 1); +-1 at +-inf."""
    return np.where(np.isinf(x), np.sign(x), x / (np.abs(x) + 1.0))


def log_sigmoid(x: np.ndarray) -> np.ndarray:
    """LogSigmoid: -ln(1 + e^(-x)) = -logaddexp(0, -x)."""
    return -np.logaddexp(0.0, -x)


def _check_lambd(lambd: float) -> None:
    if lambd < 0:
        raise ValueError(f"attribute lambd={lambd}: expected a value >= 0")


def soft_shrink(x: np.ndarray, lambd: float) -> np.ndarray:
    """SoftShrink: 0 where |x| <= lambd, else x moved lambd towards 0; NaN stays NaN."""
    _check_lambd(lambd)
    return np.where(np.abs(x) <= lambd, 0.0, x - np.copysign(lambd, x))


def hard_shrink(x: np.ndarray, lambd: float) -> np.ndarray:
    """HardShrink: 0 where |x| <= lambd, else x; NaN stays NaN."""
    _check_lambd(lambd)
    return np.where(np.abs(x) <= lambd, 0.0, x)


#: FastGeluV2's constants, from CANN's TBE implementation (fast_gelu_v2.py): its erf approximation
#: erf(t) ~ sgn(t) (1 + a (min(|t|, -b) + b)^2) with a = -0.2888, b = -1.769, at t = 0.7071 x (x / sqrt 2).
FAST_GELU_V2_A = -0.2888
FAST_GELU_V2_B = -1.769
FAST_GELU_V2_SCALE = 0.7071
#: The offset of FastGeluV2's documented sign function sgn(x) = (x + 1e-12) / |x + 1e-12|.
FAST_GELU_V2_SIGN_OFFSET = 1e-12


def celu_v2(x: np.ndarray, alpha: float) -> np.ndarray:
    """CeluV2: max(0, x) + min(0, alpha (exp(x / alpha) - 1)), the exponential part by expm1."""
    if alpha == 0.0:
        raise ValueError("attribute alpha is 0; expected a nonzero divisor")
    return np.maximum(x, 0.0) + np.minimum(alpha * np.expm1(x / alpha), 0.0)


def fast_gelu_v2(x: np.ndarray) -> np.ndarray:
    """FastGeluV2: x Phi(x) with Phi(x) = (1 + erf(x / sqrt 2)) / 2 and the documented erf approximation."""
    t = np.minimum(np.abs(FAST_GELU_V2_SCALE * x), -FAST_GELU_V2_B)
    erf = 1.0 + FAST_GELU_V2_A * (t + FAST_GELU_V2_B) ** 2
    sign = np.where(x + FAST_GELU_V2_SIGN_OFFSET > 0, 1.0, -1.0)
    return np.where(np.isnan(x), x, x * 0.5 * (1.0 + sign * erf))


def softplus_v2(x: np.ndarray, beta: float, threshold: float) -> np.ndarray:
    """SoftplusV2: x where beta x > threshold, else log(1 + exp(beta x)) / beta (logaddexp)."""
    if beta == 0.0:
        raise ValueError("attribute beta is 0; expected a nonzero divisor")
    return np.where(beta * x > threshold, x, np.logaddexp(0.0, beta * x) / beta)


def threshold_v2d(x: np.ndarray, threshold: float, value: float) -> np.ndarray:
    """ThresholdV2D: x where x > threshold, else value (NaN is not above it: value). On an integer x the value is
    the integer the Cast rule makes of it (truncated; UNCONFIRMED on hardware), so that x stays exact."""
    if x.dtype.kind in "iu":
        return np.where(x > threshold, x, np.asarray(math.trunc(value)).astype(x.dtype))
    return np.where(x > threshold, x, value)


def shrink(x: np.ndarray, lambd: float, bias: float) -> np.ndarray:
    """Shrink: x - bias above lambd, x + bias below -lambd, 0 between; NaN stays NaN."""
    return np.where(x > lambd, x - bias, np.where(x < -lambd, x + bias, np.where(np.isnan(x), x, 0.0)))


def _unary(fn: Callable[..., np.ndarray], *attrs: str) -> Any:
    """A compute function: fn(x, *float32 attribute values), rounded once to the output dtype."""
    def compute(xs: list[np.ndarray], at: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
        return [round_to(fn(widen(xs[0]), *(f32(at[a]) for a in attrs)), out[0])]
    return compute


def _prelu(xs: list[np.ndarray], at: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    return [round_to(prelu(widen(xs[0]), widen(xs[1])), out[0])]


def _threshold_v2(xs: list[np.ndarray], at: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    """ThresholdV2: x where x > threshold, else value (0 without one); a NaN x is not above: value."""
    x, threshold = widen(xs[0]), widen(xs[1])
    value = widen(xs[2]) if len(xs) > 2 and xs[2] is not None else np.zeros(1, dtype=x.dtype)
    for index, one in ((1, threshold), (2, value)):
        if one.size != 1:
            raise InputError(index, lambda name, n=one.shape: f"input {name!r} must hold one value, got shape {list(n)}")
    return [round_to(np.where(x > threshold.reshape(()), x, value.reshape(())), out[0])]


def _same(shapes: list[Any], values: list[Any], attrs: dict[str, Any]) -> list[tuple[int, ...]]:
    return [tuple(shapes[0])]


def _prelu_shape(shapes: list[Any], values: list[Any], attrs: dict[str, Any]) -> list[tuple[int, ...]]:
    prelu_weight(np.zeros(shapes[1]), tuple(shapes[0]))
    return [tuple(shapes[0])]


OPS: tuple[RefOp, ...] = (
    define("Relu", _unary(relu), _same),
    define("Sigmoid", _unary(sigmoid), _same),
    define("Tanh", _unary(tanh), _same),
    define("Gelu", _unary(gelu), _same),
    define("FastGelu", _unary(fast_gelu), _same),
    define("Swish", _unary(swish, "scale"), _same),
    define("Mish", _unary(mish), _same),
    define("LeakyRelu", _unary(leaky_relu, "negative_slope"), _same),
    define("Elu", _unary(elu, "alpha", "scale", "input_scale"), _same),
    define("Selu", _unary(selu), _same),
    define("Celu", _unary(celu, "alpha1", "alpha2", "alpha3"), _same),
    define("Relu6", _unary(relu6), _same),
    define("HardSigmoid", _unary(hard_sigmoid, "alpha", "beta"), _same),
    define("HardSwish", _unary(hard_swish), _same),
    define("PRelu", _prelu, _prelu_shape),
    define("Softplus", _unary(softplus), _same),
    define("Softsign", _unary(softsign), _same),
    define("LogSigmoid", _unary(log_sigmoid), _same),
    define("SoftShrink", _unary(soft_shrink, "lambd"), _same),
    define("HardShrink", _unary(hard_shrink, "lambd"), _same),
    define("BNLL", _unary(softplus), _same),
    define("CeluV2", _unary(celu_v2, "alpha"), _same),
    define("FastGeluV2", _unary(fast_gelu_v2), _same),
    define("SoftplusV2", _unary(softplus_v2, "beta", "threshold"), _same),
    define("ThresholdV2D", _unary(threshold_v2d, "threshold", "value"), _same),
    define("ThresholdV2", _threshold_v2, _same),
    define("Shrink", _unary(shrink, "lambd", "bias"), _same),
)
