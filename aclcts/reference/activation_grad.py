"""Gradient-op references: the backward ops of the activations and unary math functions (aclcts.core.prototypes.
activation_grad), each the incoming gradient times the forward op's derivative, written from the derivative itself.

Inputs arrive widened (float64, complex128, or int64 for the selections on integers); each function returns a result
that `round_to` rounds once to the output dtype. Where an op is given the forward output y, the derivative is written
in y as TensorFlow's *Grad ops define it (Sigmoid: y (1 - y), Tanh: 1 - y^2, Sqrt: 1 / (2 y), Rsqrt: -y^3 / 2,
Reciprocal: -y^2, Asinh: 1 / cosh(y), Acosh: 1 / sinh(y)), with the conjugate of the derivative for complex y.
Sigmoids are written as the product sigmoid(t) sigmoid(-t) where the formula has s (1 - s), so that neither tail
cancels.

Semantic choices, each UNCONFIRMED on hardware:
- A selection (ReluGrad, the shrink, clamp and threshold grads, EluGrad's and SeluGrad's sides) gives NaN where the
  selecting input is NaN: the derivative there is undefined, and a 0 or the gradient itself would hide it.
- At x = +-inf FastGeluGrad's and GeluGrad's slopes take their limits, 1 and 0 (not inf * 0 = NaN).
- SwishGrad recovers sigmoid(scale * x) as y / x, as its TBE implementation does, so that it is defined for any x and
  y the op is given; at x = 0 it takes sigmoid(0) = 0.5.
- GeluGrad's result does not depend on y (Gelu's output); the TBE implementation adds y * 0, which would turn an
  infinite y into NaN.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from aclcts.reference.activation import (FAST_GELU_SLOPE, GELU_CUBIC, GELU_SQRT_2_OVER_PI, SELU_ALPHA, SELU_SCALE, f32,
                                         prelu_weight)
from aclcts.reference.base import InputError, RefOp, define
from aclcts.reference.numeric import round_to, widen

Fn = Callable[..., np.ndarray]


def _sigmoid(t: np.ndarray) -> np.ndarray:
    """1 / (1 + e^-t), from whichever side keeps its relative precision."""
    e = np.exp(-np.abs(t))
    return np.where(t >= 0, 1.0 / (1.0 + e), e / (1.0 + e))


def _selected(grad: np.ndarray, on: np.ndarray, selector: np.ndarray, off: np.ndarray | int = 0) -> np.ndarray:
    """grad where on holds, off elsewhere, NaN where the selecting input is NaN."""
    return _nan_at(np.where(on, grad, off), selector)


def _nan_at(result: np.ndarray, selector: np.ndarray) -> np.ndarray:
    """result with NaN where a float selecting input is NaN."""
    return np.where(np.isnan(selector), np.nan, result) if selector.dtype.kind in "fc" else result


def abs_grad(y: np.ndarray, dy: np.ndarray) -> np.ndarray:
    """d|x|/dx = sign(x); y is Abs's input."""
    return dy * np.sign(y)


def acos_grad(y: np.ndarray, dy: np.ndarray) -> np.ndarray:
    """d acos(x)/dx = -1 / sqrt(1 - x^2); y is Acos's input."""
    return -dy / np.sqrt(1.0 - y * y)


def acosh_grad(y: np.ndarray, dy: np.ndarray) -> np.ndarray:
    """d acosh(x)/dx = 1 / sqrt(x^2 - 1) = 1 / sinh(acosh(x)); y is Acosh's output."""
    return dy / np.sinh(y)


def asin_grad(y: np.ndarray, dy: np.ndarray) -> np.ndarray:
    """d asin(x)/dx = 1 / sqrt(1 - x^2); y is Asin's input."""
    return dy / np.sqrt(1.0 - y * y)


def asinh_grad(y: np.ndarray, dy: np.ndarray) -> np.ndarray:
    """d asinh(x)/dx = 1 / sqrt(1 + x^2) = 1 / cosh(asinh(x)); y is Asinh's output."""
    return dy / np.cosh(y)


def atan_grad(y: np.ndarray, dy: np.ndarray) -> np.ndarray:
    """d atan(x)/dx = 1 / (1 + x^2); y is Atan's input."""
    return dy / (1.0 + y * y)


def elu_grad(grads: np.ndarray, activations: np.ndarray, alpha: float = 1.0, at_zero: bool = False) -> np.ndarray:
    """d elu(x)/dx = alpha e^x = elu(x) + alpha for x <= 0 (the negative outputs; with at_zero, output 0 too), else 1."""
    negative = activations <= 0 if at_zero else activations < 0
    return _nan_at(np.where(negative, grads * (activations + alpha), grads), activations)


def elu_grad_v2(grads: np.ndarray, activations: np.ndarray, alpha: float) -> np.ndarray:
    """EluGradV2: alpha as an attribute, the output 0 counted with the negative side."""
    return elu_grad(grads, activations, alpha, at_zero=True)


def fast_gelu_grad(dy: np.ndarray, x: np.ndarray) -> np.ndarray:
    """d (x sigmoid(k x))/dx = sigmoid(kx) + k x sigmoid(kx) sigmoid(-kx), k = 1.702."""
    t = FAST_GELU_SLOPE * x
    s = _sigmoid(t)
    return dy * (s + np.where(np.isinf(x), 0.0, t * s * _sigmoid(-t)))


def gelu_grad(dy: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """d (x sigmoid(2u))/dx with u = sqrt(2/pi) (x + 0.044715 x^3): sigmoid(2u) + 2 x u' sigmoid(2u) sigmoid(-2u)."""
    u2 = 2.0 * GELU_SQRT_2_OVER_PI * (x + GELU_CUBIC * x ** 3)
    du2 = 2.0 * GELU_SQRT_2_OVER_PI * (1.0 + 3.0 * GELU_CUBIC * x * x)
    s = _sigmoid(u2)
    with np.errstate(invalid="ignore"):
        slope = np.where(np.isinf(x), 0.0, x * du2 * s * _sigmoid(-u2))
    return dy * (s + slope)


def shrink_grad(gradients: np.ndarray, features: np.ndarray, lambd: float) -> np.ndarray:
    """HardShrinkGrad and SoftShrinkGrad: the gradient passes where |x| > lambd (both functions' slope is 1 there)."""
    return _selected(gradients, np.abs(features) > lambd, features)


def hard_sigmoid_grad(grads: np.ndarray, x: np.ndarray, alpha: float, beta: float) -> np.ndarray:
    """The slope of alpha x + beta clamped to the unit interval: alpha where the clamp does not bind, else 0."""
    t = alpha * x + beta
    return _selected(alpha * grads, (t > 0) & (t < 1), x)


def hard_swish_grad(grad: np.ndarray, x: np.ndarray) -> np.ndarray:
    """d (x relu6(x + 3) / 6)/dx: 0 below -3, (2x + 3) / 6 between, 1 above 3."""
    slope = np.where(x < -3.0, 0.0, np.where(x > 3.0, 1.0, (2.0 * x + 3.0) / 6.0))
    return grad * slope


def hardtanh_grad(result: np.ndarray, grad: np.ndarray, min_val: float, max_val: float) -> np.ndarray:
    """d clamp(x, min_val, max_val)/dx: 1 strictly inside, else 0."""
    return _selected(grad, (result > min_val) & (result < max_val), result)


def inv_grad(x: np.ndarray, grad: np.ndarray) -> np.ndarray:
    """d (1/t)/dt = -1/t^2 = -y^2; x is Inv's output y."""
    return -grad * (x * x)


def leaky_relu_grad(gradients: np.ndarray, features: np.ndarray, negative_slope: float) -> np.ndarray:
    """1 for x > 0, negative_slope otherwise."""
    return _selected(gradients, features > 0, features, negative_slope * gradients)


def log_sigmoid_grad(grads: np.ndarray, features: np.ndarray) -> np.ndarray:
    """d (-log(1 + e^-x))/dx = 1 / (1 + e^x) = sigmoid(-x)."""
    return grads * _sigmoid(-features)


def reciprocal_grad(y: np.ndarray, dy: np.ndarray) -> np.ndarray:
    """-y^2 (conjugated for complex y); y is Reciprocal's output."""
    return -dy * np.conj(y * y)


def relu6_grad(gradients: np.ndarray, features: np.ndarray) -> np.ndarray:
    """1 on the open interval (0, 6), else 0."""
    return _selected(gradients, (features > 0) & (features < 6), features)


def relu_grad(gradients: np.ndarray, features: np.ndarray) -> np.ndarray:
    """1 for x > 0, else 0."""
    return _selected(gradients, features > 0, features)


def rsqrt_grad(y: np.ndarray, dy: np.ndarray) -> np.ndarray:
    """d x^(-1/2)/dx = -x^(-3/2) / 2 = -y^3 / 2 (conjugated for complex y)."""
    c = np.conj(y)
    return -0.5 * dy * (c * c * c)


def selu_grad(gradients: np.ndarray, outputs: np.ndarray) -> np.ndarray:
    """scale alpha e^x = selu(x) + scale alpha for the negative outputs, scale otherwise."""
    return _nan_at(np.where(outputs < 0, gradients * (outputs + SELU_SCALE * SELU_ALPHA), SELU_SCALE * gradients),
                   outputs)


def sigmoid_grad(y: np.ndarray, dy: np.ndarray) -> np.ndarray:
    """y (1 - y) (conjugated for complex y); y is Sigmoid's output."""
    return dy * np.conj(y * (1.0 - y))


def softplus_grad(gradients: np.ndarray, features: np.ndarray) -> np.ndarray:
    """d log(1 + e^x)/dx = sigmoid(x)."""
    return gradients * _sigmoid(features)


def softplus_v2_grad(gradients: np.ndarray, features: np.ndarray, beta: float, threshold: float) -> np.ndarray:
    """Softplus_v2 is x where beta x > threshold (slope 1), log(1 + e^(beta x)) / beta elsewhere (slope
    sigmoid(beta x))."""
    t = beta * features
    return np.where(t > threshold, gradients, gradients * _sigmoid(t))


def softsign_grad(gradients: np.ndarray, features: np.ndarray) -> np.ndarray:
    """d (x / (1 + |x|))/dx = 1 / (1 + |x|)^2."""
    d = 1.0 + np.abs(features)
    return gradients / (d * d)


def sqrt_grad(y: np.ndarray, dy: np.ndarray) -> np.ndarray:
    """d sqrt(x)/dx = 1 / (2 sqrt(x)) = 1 / (2 y) (conjugated for complex y)."""
    return dy * 0.5 / np.conj(y)


def swish_grad(grad: np.ndarray, x: np.ndarray, y: np.ndarray, scale: float) -> np.ndarray:
    """d (x s(kx))/dx = s + k x s (1 - s) = s + k y (1 - s), with s = y / x (0.5 at x = 0)."""
    s = np.where(x == 0, 0.5, y / np.where(x == 0, 1.0, x))
    return grad * (s + scale * y * (1.0 - s))


def tanh_grad(y: np.ndarray, dy: np.ndarray) -> np.ndarray:
    """1 - y^2 (conjugated for complex y); y is Tanh's output."""
    return dy * np.conj(1.0 - y * y)


def threshold_grad(gradients: np.ndarray, features: np.ndarray, threshold: float) -> np.ndarray:
    """ThresholdV2D passes x where x > threshold: slope 1 there, 0 elsewhere."""
    return _selected(gradients, features > threshold, features)


def _elementwise(fn: Fn, *attrs: str) -> Any:
    """A compute function: fn(*widened inputs, *float32 attribute values), rounded once to the output dtype."""
    def compute(xs: list[np.ndarray], at: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
        return [round_to(fn(*(widen(x) for x in xs), *(f32(at[a]) for a in attrs)), out[0])]
    return compute


def _same(shapes: list[Any], values: list[Any], attrs: dict[str, Any]) -> list[tuple[int, ...]]:
    first = tuple(shapes[0])
    for shape in shapes[1:]:
        if tuple(shape) != first:
            raise ValueError(f"the inputs have shapes {[list(s) for s in shapes]}; expected one shape")
    return [first]


def _broadcast(shapes: list[Any], values: list[Any], attrs: dict[str, Any]) -> list[tuple[int, ...]]:
    return [tuple(np.broadcast_shapes(*(tuple(s) for s in shapes)))]


#: The ops whose inputs broadcast (their records' shape rule).
BROADCASTING = ("LeakyReluGrad", "LogSigmoidGrad", "ReluGrad", "SoftplusV2Grad")

OPS: tuple[RefOp, ...] = tuple(define(op_type, _elementwise(fn, *attrs), _broadcast if op_type in BROADCASTING else _same)
                               for op_type, fn, attrs in (
    ("AbsGrad", abs_grad, ()),
    ("AcosGrad", acos_grad, ()),
    ("AcoshGrad", acosh_grad, ()),
    ("AsinGrad", asin_grad, ()),
    ("AsinhGrad", asinh_grad, ()),
    ("AtanGrad", atan_grad, ()),
    ("EluGrad", elu_grad, ()),
    ("EluGradV2", elu_grad_v2, ("alpha",)),
    ("FastGeluGrad", fast_gelu_grad, ()),
    ("GeluGrad", gelu_grad, ()),
    ("HardShrinkGrad", shrink_grad, ("lambd",)),
    ("HardSigmoidGrad", hard_sigmoid_grad, ("alpha", "beta")),
    ("HardSwishGrad", hard_swish_grad, ()),
    ("HardtanhGrad", hardtanh_grad, ("min_val", "max_val")),
    ("InvGrad", inv_grad, ()),
    ("LeakyReluGrad", leaky_relu_grad, ("negative_slope",)),
    ("LogSigmoidGrad", log_sigmoid_grad, ()),
    ("ReciprocalGrad", reciprocal_grad, ()),
    ("Relu6Grad", relu6_grad, ()),
    ("ReluGrad", relu_grad, ()),
    ("RsqrtGrad", rsqrt_grad, ()),
    ("SeluGrad", selu_grad, ()),
    ("SigmoidGrad", sigmoid_grad, ()),
    ("SoftShrinkGrad", shrink_grad, ("lambd",)),
    ("SoftplusGrad", softplus_grad, ()),
    ("SoftplusV2Grad", softplus_v2_grad, ("beta", "threshold")),
    ("SoftsignGrad", softsign_grad, ()),
    ("SqrtGrad", sqrt_grad, ()),
    ("SwishGrad", swish_grad, ("scale",)),
    ("TanhGrad", tanh_grad, ()),
    ("ThresholdGradV2D", threshold_grad, ("threshold",)),
))


def summed_to(gradient: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """A gradient of the broadcast shape summed back to an input's shape (over the dims that input broadcast along)."""
    lead = gradient.ndim - len(shape)
    total = gradient.sum(axis=tuple(range(lead))) if lead else gradient
    axes = tuple(i for i, d in enumerate(shape) if d == 1 and total.shape[i] != 1)
    return total.sum(axis=axes, keepdims=True) if axes else total


def _extremum_grad(routes_to_x1: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> Any:
    """MaximumGrad / MinimumGrad: grads to x1 where routes_to_x1(x1, x2), else to x2, each summed to its shape."""
    def compute(xs: list[np.ndarray], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
        if not (attrs["grad_x"] or attrs["grad_y"]):
            raise ValueError("attributes grad_x and grad_y are both false; at least one must be true")
        grads, x1, x2 = (widen(x) for x in xs)
        to_x1 = np.broadcast_to(routes_to_x1(x1, x2), grads.shape)
        y1 = summed_to(np.where(to_x1, grads, 0), x1.shape)
        y2 = summed_to(np.where(to_x1, 0, grads), x2.shape)
        return [round_to(y1, out[0]), round_to(y2, out[1])]
    return compute


def _extremum_grad_shape(shapes: list[Any], values: list[Any], attrs: dict[str, Any]) -> list[tuple[int, ...]]:
    """y1 and y2 have x1's and x2's shapes; x1 and x2 broadcast to grads' shape."""
    grads, x1, x2 = (tuple(s) for s in shapes)
    if tuple(np.broadcast_shapes(x1, x2)) != grads:
        raise InputError((1, 2, 0), lambda a, b, g: f"inputs {a!r} {list(x1)} and {b!r} {list(x2)} must broadcast to "
                                                    f"{g!r}'s shape {list(grads)}")
    return [x1, x2]


def _prelu_grad(xs: list[np.ndarray], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    """PReluGrad: dx = grads where features > 0, else weights grads; da = the sum, over the elements each weight
    scales, of features grads where features <= 0."""
    grads, features, weights = (widen(x) for x in xs)
    slope = prelu_weight(weights, features.shape)
    positive = features > 0
    dx = np.where(positive, grads, slope * grads)
    per_element = np.where(positive, 0.0, features * grads)
    da = per_element.sum() if slope.ndim == 0 else per_element.sum(axis=tuple(i for i in range(features.ndim) if i != 1))
    return [round_to(dx, out[0]), round_to(np.asarray(da).reshape(weights.shape), out[1])]


def _prelu_grad_shape(shapes: list[Any], values: list[Any], attrs: dict[str, Any]) -> list[tuple[int, ...]]:
    """dx has features' shape (grads' too), da weights' shape."""
    grads, features, weights = (tuple(s) for s in shapes)
    if grads != features:
        raise InputError((0, 1), lambda g, f: f"inputs {g!r} {list(grads)} and {f!r} {list(features)} must have one shape")
    per_channel = len(weights) == 1 and len(features) >= 2 and weights[0] == features[1]
    if int(np.prod(weights, dtype=np.int64)) != 1 and not per_channel:
        raise InputError((2, 1), lambda w, f: f"input {w!r} of shape {list(weights)} must hold one value or one per "
                                              f"channel (dimension 1 of {f!r}'s shape {list(features)})")
    return [features, weights]


OPS += (
    define("MaximumGrad", _extremum_grad(np.greater_equal), _extremum_grad_shape),
    define("MinimumGrad", _extremum_grad(np.less_equal), _extremum_grad_shape),
    define("PReluGrad", _prelu_grad, _prelu_grad_shape),
)
