"""Gradient kernels: the backward ops of the activations and unary math functions, elementwise over inputs of one
shape and dtype, and those of Maximum, Minimum and PRelu (one output per forward input).

Prototypes: aclcts.core.prototypes.activation_grad. Device numerics, after CANN's TBE implementations (canndev
ops/built-in/tbe/impl/<op>_grad.py): most cast fp16 to float32, evaluate the formula there and round once (WIDENED);
HardSwishGrad and FastGeluGrad compute in the storage type itself, rounded after each primitive op (IN_STORAGE_TYPE).
SqrtGrad's and SwishGrad's TBE code divides in fp16 too, where dy / y and y / x overflow for a subnormal divisor
although the result fits: they are computed widened here (UNCONFIRMED); the selections (ReluGrad, the shrink, clamp and threshold grads) are exact in any type, integers
included. Formulas in the TBE order: RsqrtGrad y*y*y*dy*(-0.5), SqrtGrad dy / y * 0.5,
FastGeluGrad (e^(-k|x|) + k x e^(-k|x|) + e^(k (x - |x|))) / (e^(-k|x|) + 1)^2, GeluGrad from tanh(u), EluGrad (min(a, 0) + 1) * g. In another order, each UNCONFIRMED: SwishGrad s + scale*y (1 - s) with s = y/x (the TBE's
scale*y + s (1 - scale*y) differs at infinite inputs), SigmoidGrad
y * (1 - y) * dy (TensorFlow's; the TBE's y - y*y is NaN at an infinite y), ReciprocalGrad and InvGrad (y * dy) * -y
and SoftsignGrad g / d / d (the TBE's y * y and d * d overflow float32 where the result does not). Complex (the UnaryDataType ops) is computed in its own
type with the conjugated derivative. Where a formula meets inf * 0 at an infinite input the kernel gives the
derivative's limit, and a NaN selecting input gives NaN, as the reference states. Kept apart from the TBE code, each
UNCONFIRMED: AbsGrad's sign (the TBE scales y by 2^15 or 2^62 and divides), Acosh/AsinhGrad's sinh and cosh (the TBE
uses Taylor series), HardSigmoidGrad's window from alpha and beta (the TBE tests |x| < 3), SwishGrad at x = 0 (0.5,
where y / x is NaN), GeluGrad's y * 0 term (left out).
MaximumGrad and MinimumGrad route grads by x1 >= x2 (x1 <= x2) in float32 for float16 and sum each output back to its
input's shape (fused_minimum_or_maximum_grad.py; it multiplies by a 0/1 mask, so a NaN or infinite grads routed away
would give NaN there: here 0, as documented, UNCONFIRMED); PReluGrad gives dx and da = the per-channel (or whole)
sum of features * grads where features <= 0, in float32 (prelu_grad.py).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from aclcts.sim.kernels.activation import float_attrs, lambd_attr, no_attrs
from aclcts.sim.kernels.base import InferredShape, TensorInfo
from aclcts.sim.kernels.call import OpCall, Outputs
from aclcts.sim.kernels.numerics import COMPLEX, Rounder, is_float, rounder, widen
from aclcts.sim.kernels.registry import builtin
from aclcts.sim.kernels.shapes import broadcast, inferred

Params = tuple[float, ...]
#: body(inputs, params, r): the gradient, in the inputs' compute type; r rounds a step's result as the device does.
Body = Callable[[list[np.ndarray], Params, Rounder], np.ndarray]

WIDENED = "widened"
IN_STORAGE_TYPE = "in storage type"
FAST_GELU_SLOPE = 1.702
SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)
GELU_CUBIC = 0.044715
SELU_SCALE_ALPHA = 1.0507009873554805 * 1.6732632423543772
SELU_SCALE = 1.0507009873554805


def _c(x: np.ndarray, value: float) -> np.generic:
    """A constant in x's compute type."""
    return x.dtype.type(value)


def _nan_where(result: np.ndarray, selector: np.ndarray) -> np.ndarray:
    """result with NaN where a float selecting input is NaN."""
    if selector.dtype.kind == "f":
        result[np.isnan(selector)] = np.nan
    return result


def _select(on: Callable[[np.ndarray, Params], np.ndarray], grad_at: int = 0, x_at: int = 1) -> Body:
    """grad where on(x, params) holds, else 0 (a zero of grad's type)."""
    def body(xs: list[np.ndarray], p: Params, r: Rounder) -> np.ndarray:
        grad, x = xs[grad_at], xs[x_at]
        return _nan_where(np.where(on(x, p), grad, grad.dtype.type(0)), x)
    return body


def _abs(xs: list[np.ndarray], p: Params, r: Rounder) -> np.ndarray:
    y, dy = xs
    return r(np.sign(y) * dy)


def _one_minus_square(y: np.ndarray, r: Rounder) -> np.ndarray:
    return r(_c(y, 1.0) - r(y * y))


def _acos(xs: list[np.ndarray], p: Params, r: Rounder) -> np.ndarray:
    y, dy = xs
    return r(-r(dy / r(np.sqrt(_one_minus_square(y, r)))))


def _asin(xs: list[np.ndarray], p: Params, r: Rounder) -> np.ndarray:
    y, dy = xs
    return r(dy / r(np.sqrt(_one_minus_square(y, r))))


def _acosh(xs: list[np.ndarray], p: Params, r: Rounder) -> np.ndarray:
    y, dy = xs
    return r(dy / r(np.sinh(y)))


def _asinh(xs: list[np.ndarray], p: Params, r: Rounder) -> np.ndarray:
    y, dy = xs
    return r(dy / r(np.cosh(y)))


def _atan(xs: list[np.ndarray], p: Params, r: Rounder) -> np.ndarray:
    y, dy = xs
    return r(dy / r(r(y * y) + _c(y, 1.0)))


def _elu(xs: list[np.ndarray], p: Params, r: Rounder) -> np.ndarray:
    grads, activations = xs
    return r(r(np.minimum(activations, _c(activations, 0.0)) + _c(activations, 1.0)) * grads)


def _elu_v2(xs: list[np.ndarray], p: Params, r: Rounder) -> np.ndarray:
    grads, activations = xs
    slope = np.where(activations <= 0, r(activations + _c(activations, p[0])), _c(activations, 1.0))
    return _nan_where(r(slope * grads), activations)


def _fast_gelu(xs: list[np.ndarray], p: Params, r: Rounder) -> np.ndarray:
    dy, x = xs
    k = _c(x, FAST_GELU_SLOPE)
    a = np.abs(x)
    e = r(np.exp(r(a * -k)))
    up = r(r(e + r(r(x * e) * k)) + r(np.exp(r(r(x - a) * k))))
    down = r(e + _c(x, 1.0))
    down = r(down * down)
    slope = r(up / down)
    slope = np.where(np.isposinf(x), _c(x, 1.0), np.where(np.isneginf(x), _c(x, 0.0), slope))
    return r(dy * slope)


def _gelu(xs: list[np.ndarray], p: Params, r: Rounder) -> np.ndarray:
    dy, x, _ = xs
    sq = r(x * x)
    u = r(r(r(r(sq * x) * _c(x, GELU_CUBIC)) + x) * _c(x, SQRT_2_OVER_PI))
    t = r(np.tanh(u))
    du = r(r(sq * _c(x, 3.0 * GELU_CUBIC * SQRT_2_OVER_PI)) + _c(x, SQRT_2_OVER_PI))
    flat = r(_c(x, 1.0) - r(t * t))
    slope = r(r(r(flat * x) * _c(x, 0.5)) * du)
    slope = np.where(flat == 0, _c(x, 0.0), slope)
    return r(r(r(r(t + _c(x, 1.0)) * _c(x, 0.5)) + slope) * dy)


def _hard_sigmoid(xs: list[np.ndarray], p: Params, r: Rounder) -> np.ndarray:
    grads, x = xs
    alpha, beta = (_c(x, v) for v in p)
    t = r(r(x * alpha) + beta)
    return _nan_where(np.where((t > 0) & (t < 1), r(grads * alpha), _c(x, 0.0)), x)


def _hard_swish(xs: list[np.ndarray], p: Params, r: Rounder) -> np.ndarray:
    grad, x = xs
    slope = r(r(x / _c(x, 3.0)) + _c(x, 0.5))
    slope = np.where(x < -3, _c(x, 0.0), np.where(x > 3, _c(x, 1.0), slope))
    return r(grad * slope)


def _inv(xs: list[np.ndarray], p: Params, r: Rounder) -> np.ndarray:
    y, grad = xs
    return r(r(y * grad) * r(-y))


def _leaky_relu(xs: list[np.ndarray], p: Params, r: Rounder) -> np.ndarray:
    gradients, features = xs
    return _nan_where(np.where(features > 0, gradients, r(gradients * _c(gradients, p[0]))), features)


def _log_sigmoid(xs: list[np.ndarray], p: Params, r: Rounder) -> np.ndarray:
    grads, x = xs
    one = _c(x, 1.0)
    negative_side = r(one / r(r(np.exp(x)) + one))
    e = r(np.exp(r(-x)))
    positive_side = r(e / r(e + one))
    return r(np.where(x <= 0, negative_side, positive_side) * grads)


def _reciprocal(xs: list[np.ndarray], p: Params, r: Rounder) -> np.ndarray:
    y, dy = xs
    c = np.conj(y)
    return r(r(c * dy) * r(-c))


def _rsqrt(xs: list[np.ndarray], p: Params, r: Rounder) -> np.ndarray:
    y, dy = xs
    c = np.conj(y)
    return r(r(r(r(c * c) * c) * dy) * _c(y, -0.5))


def _selu(xs: list[np.ndarray], p: Params, r: Rounder) -> np.ndarray:
    gradients, outputs = xs
    negative = r(r(outputs + _c(outputs, SELU_SCALE_ALPHA)) * gradients)
    return _nan_where(np.where(outputs < 0, negative, r(gradients * _c(outputs, SELU_SCALE))), outputs)


def _sigmoid(xs: list[np.ndarray], p: Params, r: Rounder) -> np.ndarray:
    y, dy = xs
    c = np.conj(y)
    return r(r(c * r(_c(y, 1.0) - c)) * dy)


def _softplus(xs: list[np.ndarray], p: Params, r: Rounder) -> np.ndarray:
    gradients, features = xs
    return r(gradients / r(r(np.exp(r(-features))) + _c(features, 1.0)))


def _softplus_v2(xs: list[np.ndarray], p: Params, r: Rounder) -> np.ndarray:
    gradients, features = xs
    t = r(features * _c(features, p[0]))
    above = t > _c(features, p[1])
    e = r(np.exp(np.where(above, _c(t, 0.0), t)))
    slope = np.where(above, _c(t, 1.0), r(e / r(e + _c(t, 1.0))))
    return r(slope * gradients)


def _softsign(xs: list[np.ndarray], p: Params, r: Rounder) -> np.ndarray:
    gradients, features = xs
    d = r(np.abs(features) + _c(features, 1.0))
    return r(r(gradients / d) / d)


def _sqrt(xs: list[np.ndarray], p: Params, r: Rounder) -> np.ndarray:
    y, dy = xs
    if y.dtype in COMPLEX:  # no TBE form: halved first, so that a zero y gives the reference's inf, not NaN
        return r(r(dy * _c(y, 0.5)) / np.conj(y))
    return r(r(dy / y) * _c(y, 0.5))


def _swish(xs: list[np.ndarray], p: Params, r: Rounder) -> np.ndarray:
    grad, x, y = xs
    scale = _c(x, p[0])
    zero = x == 0
    s = np.where(zero, _c(x, 0.5), r(y / np.where(zero, _c(x, 1.0), x)))
    return r(r(s + r(r(y * scale) * r(_c(x, 1.0) - s))) * grad)


def _tanh(xs: list[np.ndarray], p: Params, r: Rounder) -> np.ndarray:
    y, dy = xs
    c = np.conj(y)
    return r(r(_c(y, 1.0) - r(c * c)) * dy)


class _Grad:
    """One elementwise gradient op: inputs of one shape and one of its record's dtypes -> an output of both."""

    def __init__(self, op_type: str, body: Body, read: Callable[[OpCall], Params] = no_attrs,
                 numerics: str = WIDENED, broadcasts: bool = False) -> None:
        self.op_type, self.body, self.read, self.numerics = op_type, body, read, numerics
        self.broadcasts = broadcasts

    def _shape(self, call: OpCall, shapes: list[tuple[int, ...]]) -> tuple[int, ...]:
        if self.broadcasts:
            return broadcast(call, tuple(range(len(shapes))), shapes)
        for index, shape in enumerate(shapes[1:], 1):
            if shape != shapes[0]:
                raise call.fail(f"input {call.quoted(index)} has shape {list(shape)}, expected the shape "
                                f"{list(shapes[0])} of input {call.quoted(0)}")
        return shapes[0]

    def compute(self, inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list[TensorInfo]) -> list[np.ndarray]:
        """The kernel's compute entry point."""
        call = OpCall(self.op_type, inputs, attrs)
        call.require_inputs()
        arrays = [call.input(i) for i in range(len(inputs))]
        call.require_dtype(0, arrays[0].dtype)
        call.require_same_dtype(tuple(range(len(arrays))), [a.dtype for a in arrays])
        shape = self._shape(call, [tuple(a.shape) for a in arrays])
        arrays = [np.broadcast_to(a, shape) for a in arrays]
        out = Outputs(call, outputs)
        dtype = arrays[0].dtype
        out.require_dtype(0, dtype, call.same_as(0))
        params = self.read(call)
        with np.errstate(all="ignore"):
            if not is_float(dtype) or dtype in COMPLEX:
                result = self.body(arrays, params, lambda v: v)
            else:
                step = rounder(dtype) if self.numerics == IN_STORAGE_TYPE else widen
                result = self.body([widen(a) for a in arrays], params, step)
        y = out.buffer(0, shape)
        np.copyto(y, result, casting="unsafe")
        return [out.emit(0, y)]

    def infer_shape(self, inputs: list[TensorInfo], values: list[np.ndarray | None],
                    attrs: dict[str, Any]) -> list[InferredShape]:
        """The kernel's infer_shape entry point: the first input's dtype, its shape or the broadcast shape."""
        call = OpCall(self.op_type, inputs, attrs)
        call.require_inputs()
        first = call.input(0)
        if self.broadcasts:
            return [inferred(first.dtype, broadcast(call, tuple(range(len(inputs))),
                                                    [tuple(call.input(i).shape) for i in range(len(inputs))]))]
        return [inferred(first.dtype, first.shape)]


def _positive(x: np.ndarray, p: Params) -> np.ndarray:
    return x > 0


def _outside_lambd(x: np.ndarray, p: Params) -> np.ndarray:
    return np.abs(x) > p[0]


_OPS = (
    _Grad("AbsGrad", _abs),
    _Grad("AcosGrad", _acos),
    _Grad("AcoshGrad", _acosh),
    _Grad("AsinGrad", _asin),
    _Grad("AsinhGrad", _asinh),
    _Grad("AtanGrad", _atan),
    _Grad("EluGrad", _elu),
    _Grad("EluGradV2", _elu_v2, float_attrs("alpha")),
    _Grad("FastGeluGrad", _fast_gelu, numerics=IN_STORAGE_TYPE),
    _Grad("GeluGrad", _gelu),
    _Grad("HardShrinkGrad", _select(_outside_lambd), lambd_attr),
    _Grad("HardSigmoidGrad", _hard_sigmoid, float_attrs("alpha", "beta")),
    _Grad("HardSwishGrad", _hard_swish, numerics=IN_STORAGE_TYPE),
    _Grad("HardtanhGrad", _select(lambda x, p: (x > p[0]) & (x < p[1]), grad_at=1, x_at=0),
          float_attrs("min_val", "max_val")),
    _Grad("InvGrad", _inv),
    _Grad("LeakyReluGrad", _leaky_relu, float_attrs("negative_slope"), broadcasts=True),
    _Grad("LogSigmoidGrad", _log_sigmoid, broadcasts=True),
    _Grad("ReciprocalGrad", _reciprocal),
    _Grad("Relu6Grad", _select(lambda x, p: (x > 0) & (x < 6))),
    _Grad("ReluGrad", _select(_positive), broadcasts=True),
    _Grad("RsqrtGrad", _rsqrt),
    _Grad("SeluGrad", _selu),
    _Grad("SigmoidGrad", _sigmoid),
    _Grad("SoftShrinkGrad", _select(_outside_lambd), lambd_attr),
    _Grad("SoftplusGrad", _softplus),
    _Grad("SoftplusV2Grad", _softplus_v2, float_attrs("beta", "threshold"), broadcasts=True),
    _Grad("SoftsignGrad", _softsign),
    _Grad("SqrtGrad", _sqrt),
    _Grad("SwishGrad", _swish, float_attrs("scale")),
    _Grad("TanhGrad", _tanh),
    _Grad("ThresholdGradV2D", _select(lambda x, p: x > p[0]), float_attrs("threshold")),
)
for _op in _OPS:
    builtin(_op.op_type, _op.compute, _op.infer_shape)

#: The op types of this module.
GRAD_OP_TYPES = tuple(op.op_type for op in _OPS)


# Gradients of the forward ops of two inputs: one output per input -------------------------------------------------
def _summed_to(gradient: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """The gradient summed over the dims an input of shape broadcast along, in the gradient's own type."""
    lead = tuple(range(gradient.ndim - len(shape)))
    total = np.sum(gradient, axis=lead, dtype=gradient.dtype) if lead else gradient
    axes = tuple(i for i, d in enumerate(shape) if d == 1 and total.shape[i] != 1)
    return np.sum(total, axis=axes, keepdims=True, dtype=total.dtype) if axes else total


def _extremum_shapes(call: OpCall, shapes: list[tuple[int, ...]]) -> list[tuple[int, ...]]:
    """x1's and x2's shapes, once they broadcast to grads' (fused_minimum_or_maximum_grad.py's check)."""
    grads, x1, x2 = shapes
    both = broadcast(call, (1, 2), [x1, x2])
    if all(d >= 0 for d in both + grads) and both != grads:
        raise call.fail(f"inputs '{call.name(1)}' {list(x1)} and '{call.name(2)}' {list(x2)} broadcast to "
                        f"{list(both)}, expected the shape of '{call.name(0)}' {list(grads)}")
    return [x1, x2]


def _extremum_grad(call: OpCall, arrays: list[np.ndarray]) -> list[np.ndarray]:
    """grads where the comparison routes them (>= for MaximumGrad, <= for MinimumGrad), in float32 for float16,
    each output summed back to its input's shape."""
    if not (call.attr_bool("grad_x") or call.attr_bool("grad_y")):
        raise call.fail("attrs 'grad_x' and 'grad_y' are both false; at least one must be true")
    grads, x1, x2 = (widen(a) for a in arrays)
    compare = np.greater_equal if call.op_type == "MaximumGrad" else np.less_equal
    to_x1 = np.broadcast_to(compare(x1, x2), grads.shape)
    zero = grads.dtype.type(0)
    return [_summed_to(np.where(to_x1, grads, zero), x1.shape), _summed_to(np.where(to_x1, zero, grads), x2.shape)]


def _prelu_grad_shapes(call: OpCall, shapes: list[tuple[int, ...]]) -> list[tuple[int, ...]]:
    """features' and weights' shapes; weights one value or one per channel (dim 1 of features)."""
    grads, features, weights = shapes
    if all(d >= 0 for d in grads + features) and grads != features:
        raise call.fail(f"inputs '{call.name(0)}' {list(grads)} and '{call.name(1)}' {list(features)} must have one "
                        "shape")
    channels = features[1] if len(features) >= 2 else None
    if all(d >= 0 for d in weights) and int(np.prod(weights)) != 1 and not (len(weights) == 1 and weights[0] == channels):
        raise call.fail(f"input '{call.name(2)}' {list(weights)} must hold one value or one per channel (dim 1 of "
                        f"'{call.name(1)}' {list(features)})")
    return [features, weights]


def _prelu_grad(call: OpCall, arrays: list[np.ndarray]) -> list[np.ndarray]:
    """dx = grads or weights * grads by the sign of features, da the sum of features * grads where features <= 0
    over all dims but the channel's (prelu_grad.py; float16 through float32)."""
    grads, features, weights = (a.astype(np.float32) for a in arrays)
    per_channel = weights.size != 1
    slope = weights.reshape((1, -1) + (1,) * (features.ndim - 2)) if per_channel else weights.reshape(())
    positive = features > 0
    dx = np.where(positive, grads, slope * grads)
    share = np.where(positive, np.float32(0), features * grads)
    axes = tuple(i for i in range(features.ndim) if i != 1) if per_channel else None
    return [dx, np.sum(share, axis=axes, dtype=np.float32).reshape(arrays[2].shape)]


def _two_outputs(op_type: str, body: Callable[[OpCall, list[np.ndarray]], list[np.ndarray]],
                 shapes_of: Callable[[OpCall, list[tuple[int, ...]]], list[tuple[int, ...]]]) -> None:
    """Register a kernel of three inputs of one dtype and two outputs of that dtype in shapes_of's shapes."""
    def checked(call: OpCall) -> tuple[list[Any], list[tuple[int, ...]]]:
        call.require_inputs()
        tensors = [call.input(i) for i in range(3)]
        call.require_same_dtype((0, 1, 2), [t.dtype for t in tensors])
        return tensors, shapes_of(call, [tuple(t.shape) for t in tensors])

    def compute(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list[TensorInfo]) -> list[np.ndarray]:
        call = OpCall(op_type, inputs, attrs)
        arrays, shapes = checked(call)
        out = Outputs(call, outputs)
        for index in (0, 1):
            out.require_dtype(index, arrays[0].dtype, call.same_as(0))
        with np.errstate(all="ignore"):
            results = body(call, arrays)
        return [out.emit(i, np.asarray(r).reshape(shapes[i]).astype(arrays[0].dtype)) for i, r in enumerate(results)]

    def infer_shape(inputs: list[TensorInfo], values: list[np.ndarray | None], attrs: dict[str, Any]) -> list[InferredShape]:
        call = OpCall(op_type, inputs, attrs)
        tensors, shapes = checked(call)
        return [inferred(tensors[0].dtype, shape) for shape in shapes]

    builtin(op_type, compute, infer_shape)


_two_outputs("MaximumGrad", _extremum_grad, _extremum_shapes)
_two_outputs("MinimumGrad", _extremum_grad, _extremum_shapes)
_two_outputs("PReluGrad", _prelu_grad, _prelu_grad_shapes)
