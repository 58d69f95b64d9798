"""Normalisations: LayerNorm, RmsNorm, L2Normalize, LpNormV2 and SoftmaxCrossEntropyWithLogits.

Prototypes: aclcts/core/prototypes/norm.py (hicann/ops-nn). LayerNorm reduces the axes from begin_norm_axis and gives
y, mean and the biased variance (mean/variance keep the reduced axes as 1); RmsNorm reduces the trailing axes gamma
covers and gives y and a float32 rstd; L2Normalize divides by max(||x||_2, eps) over attr axis (every axis when
empty); LpNormV2 gives the p-norm over axes (inf: max |x|, -inf: min |x|, 0: the non-zero count), epsilon unused;
SoftmaxCrossEntropyWithLogits gives loss = -sum(labels * log softmax(features)) and backprop = softmax - labels over
the last axis of the 2-D shape features and labels broadcast to (either may be 1-D; the TBE implementation
softmax_cross_entropy_with_logits.py broadcasts them, as TensorFlow's op does).
Numerics: fp16/bf16 are widened to fp32 and each output is rounded once; sums run in the vector unit's lane order
(numerics.vector_sum); the softmax subtracts the row maximum first.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from aclcts.core.dtypes import acl_data_type
from aclcts.sim.kernels.base import InferredShape, TensorInfo
from aclcts.sim.kernels.call import OpCall, Outputs
from aclcts.sim.kernels.numerics import FLOAT32, vector_sum, vector_sum_over, widen
from aclcts.sim.kernels.registry import builtin
from aclcts.sim.kernels.shapes import broadcast, inferred, like_input, unknown_rank
from aclcts.sim.seams import Seam


def _axes_list(call: OpCall, name: str, rank: int) -> tuple[int, ...]:
    given = call.attr_list_int(name)
    if not given:
        return tuple(range(rank))
    axes = sorted({call.axis(f"attr '{name}' value", a, rank) for a in given})
    return tuple(axes)


# LayerNorm ------------------------------------------------------------------------------------------------------
def _element_count(count: int) -> int:
    """The divisor of LayerNorm's variance: the element count (the biased variance the header specifies)."""
    return count


#: What LayerNorm divides the sum of squared deviations by.
variance_divisor = Seam("layer norm variance divisor", _element_count)


def _layer_norm_axes(call: OpCall, rank: int) -> tuple[int, ...]:
    return tuple(range(call.axis("attr 'begin_norm_axis'", call.attr_int("begin_norm_axis"), rank), rank))


def _layer_norm(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list[TensorInfo]) -> list[np.ndarray]:
    call = OpCall("LayerNorm", inputs, attrs)
    call.require_count(3)
    x, gamma, beta = call.input(0), call.input(1), call.input(2)
    call.require_dtype(0, x.dtype)
    call.require_same_dtype((0, 1, 2), [x.dtype, gamma.dtype, beta.dtype])
    axes = _layer_norm_axes(call, x.ndim)
    out = Outputs(call, outputs)
    for index in range(3):
        out.require_dtype(index, x.dtype, call.same_as(0))
    wide = widen(x)
    count = wide.dtype.type(int(np.prod([x.shape[a] for a in axes], dtype=np.int64)))
    with np.errstate(all="ignore"):
        mean = vector_sum_over(wide, axes) / count
        centred = wide - mean
        variance = vector_sum_over(centred * centred, axes) / wide.dtype.type(variance_divisor(int(count)))
        y = widen(gamma) * (centred / np.sqrt(variance + wide.dtype.type(call.attr_float("epsilon")))) + widen(beta)
    return [out.emit(i, v.astype(x.dtype)) for i, v in enumerate((y, mean, variance))]


def _layer_norm_infer(inputs: list[TensorInfo], values: list[np.ndarray | None], attrs: dict[str, Any]) -> list[InferredShape]:
    call = OpCall("LayerNorm", inputs, attrs)
    call.require_count(3)
    x = call.input(0)
    shape = tuple(x.shape)
    if unknown_rank(shape):
        return [inferred(x.dtype, shape)] * 3
    axes = _layer_norm_axes(call, len(shape))
    stats = tuple(1 if i in axes else d for i, d in enumerate(shape))
    return [inferred(x.dtype, shape), inferred(x.dtype, stats), inferred(x.dtype, stats)]


# LayerNorm's gradients ------------------------------------------------------------------------------------------
#: The epsilon the gradients add to the variance (TBE constant_util.EPSLON); LayerNormXBackpropV2's for float16.
_GRAD_EPSILON, _GRAD_EPSILON_FLOAT16 = 1e-12, 1e-5


def _grad_axes(x_shape: tuple[int, ...], mean_shape: tuple[int, ...]) -> tuple[int, ...]:
    """From the first axis where mean's dim differs from x's to the last (the last alone when none differs)."""
    first = next((i for i, (a, b) in enumerate(zip(x_shape, mean_shape)) if a != b), len(x_shape) - 1)
    return tuple(range(first, len(x_shape)))


def _gamma_lead(call: OpCall, x_shape: tuple[int, ...], gamma_shape: tuple[int, ...]) -> tuple[int, ...]:
    """The leading axes of x that gamma (its trailing dims) does not cover."""
    if len(gamma_shape) > len(x_shape) or tuple(x_shape[len(x_shape) - len(gamma_shape):]) != tuple(gamma_shape):
        raise call.fail(f"gamma {list(gamma_shape)} must be the trailing dims of {call.quoted(0)} {list(x_shape)}")
    return tuple(range(len(x_shape) - len(gamma_shape)))


def _grad_inputs(call: OpCall, same: int) -> list[np.ndarray]:
    """The inputs widened to float32, the first `same` of one dtype, every one of its record's types."""
    call.require_inputs()
    arrays = [call.input(i) for i in range(len(call.inputs))]
    for index, array in enumerate(arrays):
        call.require_dtype(index, array.dtype)
    call.require_same_dtype(tuple(range(same)), [a.dtype for a in arrays[:same]])
    return [widen(a).astype(FLOAT32) for a in arrays]


def _x_grad(dy: np.ndarray, x: np.ndarray, variance: np.ndarray, mean: np.ndarray, gamma: np.ndarray,
            epsilon: float) -> tuple[np.ndarray, np.ndarray]:
    """(dx, (x - mean) rstd) in the order of the header's formulas (pd_var, then pd_mean, then dx)."""
    axes = _grad_axes(x.shape, mean.shape)
    m = FLOAT32.type(int(np.prod([x.shape[a] for a in axes], dtype=np.int64)))
    with np.errstate(all="ignore"):
        centred, spread = x - mean, variance + FLOAT32.type(epsilon)
        rstd = FLOAT32.type(1) / np.sqrt(spread)
        pd_xl = dy * gamma
        pd_var = vector_sum_over(pd_xl * centred * (rstd * rstd * rstd), axes) * FLOAT32.type(-0.5)
        pd_mean = vector_sum_over(-pd_xl * rstd, axes) + pd_var / m * vector_sum_over(FLOAT32.type(-2) * centred, axes)
        dx = pd_xl * rstd + pd_var * (FLOAT32.type(2) / m) * centred + pd_mean / m
    return dx, centred * rstd


def _param_grads(dy: np.ndarray, x_hat: np.ndarray, lead: tuple[int, ...],
                 shape: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """(dgamma, dbeta): dy * x_hat and dy summed over the lead axes, in shape."""
    with np.errstate(all="ignore"):
        return vector_sum_over(dy * x_hat, lead).reshape(shape), vector_sum_over(dy, lead).reshape(shape)


def _emit_all(call: OpCall, outputs: list[TensorInfo], results: tuple[np.ndarray, ...] | list[np.ndarray],
              dtypes: list[np.dtype]) -> list[np.ndarray]:
    out = Outputs(call, outputs)
    for index, dtype in enumerate(dtypes):
        out.require_dtype(index, dtype, "always float32" if dtype == FLOAT32 and index else call.same_as(0))
    with np.errstate(all="ignore"):
        return [out.emit(i, r.astype(d)) for i, (r, d) in enumerate(zip(results, dtypes))]


def _layer_norm_grad(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list[TensorInfo]) -> list[np.ndarray]:
    call = OpCall("LayerNormGrad", inputs, attrs)
    dy, x, variance, mean, gamma = _grad_inputs(call, 5)
    lead = _gamma_lead(call, dy.shape, gamma.shape)
    dx, x_hat = _x_grad(dy, x, variance, mean, gamma, _GRAD_EPSILON)
    return _emit_all(call, outputs, (dx, *_param_grads(dy, x_hat, lead, gamma.shape)), [call.input(0).dtype] * 3)


def _layer_norm_x_backprop(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list[TensorInfo]) -> list[np.ndarray]:
    call = OpCall("LayerNormXBackprop", inputs, attrs)
    dy, x, variance, mean, gamma = _grad_inputs(call, 5)
    _gamma_lead(call, dy.shape, gamma.shape)
    return _emit_all(call, outputs, _x_grad(dy, x, variance, mean, gamma, _GRAD_EPSILON)[:1], [call.input(0).dtype])


def _layer_norm_x_backprop_v2(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list[TensorInfo]) -> list[np.ndarray]:
    call = OpCall("LayerNormXBackpropV2", inputs, attrs)
    dy, x, variance, mean, gamma = _grad_inputs(call, 5)
    _gamma_lead(call, dy.shape, gamma.shape)
    epsilon = _GRAD_EPSILON_FLOAT16 if call.input(0).dtype == np.float16 else _GRAD_EPSILON
    return _emit_all(call, outputs, _x_grad(dy, x, variance, mean, gamma, epsilon), [call.input(0).dtype, FLOAT32])


def _shape_gamma(call: OpCall, x_shape: tuple[int, ...]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(shape_gamma, the leading axes of x it does not cover)."""
    shape = tuple(call.attr_list_int("shape_gamma"))
    return shape, _gamma_lead(call, x_shape, shape)


def _beta_gamma_backprop(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list[TensorInfo]) -> list[np.ndarray]:
    call = OpCall("LayerNormBetaGammaBackprop", inputs, attrs)
    dy, x, variance, mean = _grad_inputs(call, 4)
    shape, lead = _shape_gamma(call, dy.shape)
    with np.errstate(all="ignore"):
        x_hat = (x - mean) * (FLOAT32.type(1) / np.sqrt(variance + FLOAT32.type(_GRAD_EPSILON)))
    return _emit_all(call, outputs, _param_grads(dy, x_hat, lead, shape), [call.input(0).dtype] * 2)


def _beta_gamma_backprop_v2(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list[TensorInfo]) -> list[np.ndarray]:
    call = OpCall("LayerNormBetaGammaBackpropV2", inputs, attrs)
    dy, x_hat = _grad_inputs(call, 1)
    if x_hat.shape != dy.shape:
        raise call.fail(f"input {call.quoted(1)} {list(x_hat.shape)} must have the shape of {call.quoted(0)} "
                        f"{list(dy.shape)}")
    shape, lead = _shape_gamma(call, dy.shape)
    return _emit_all(call, outputs, _param_grads(dy, x_hat, lead, shape), [call.input(0).dtype] * 2)


def _grad_infer(op_type: str, layout: str) -> Any:
    """infer_shape of a LayerNorm gradient whose outputs are, by layout letter: d dy's shape and dtype, f dy's shape
    in float32, g gamma's shape (shape_gamma's when the op has that attribute) in dy's dtype."""

    def infer(inputs: list[TensorInfo], values: list[np.ndarray | None], attrs: dict[str, Any]) -> list[InferredShape]:
        call = OpCall(op_type, inputs, attrs)
        call.require_inputs()
        dy = call.input(0)
        gamma = tuple(call.attr_list_int("shape_gamma")) if "d" not in layout \
            else tuple(call.input(len(call.inputs) - 1).shape)
        shapes = {"d": (dy.dtype, tuple(dy.shape)), "f": (acl_data_type(FLOAT32), tuple(dy.shape)),
                  "g": (dy.dtype, gamma)}
        return [inferred(*shapes[letter]) for letter in layout]

    return infer


# RmsNorm --------------------------------------------------------------------------------------------------------
def _rms_axes(call: OpCall, x_shape: tuple[int, ...], gamma_shape: tuple[int, ...]) -> tuple[int, ...]:
    if len(gamma_shape) > len(x_shape) or tuple(x_shape[len(x_shape) - len(gamma_shape):]) != tuple(gamma_shape):
        raise call.fail(f"input '{call.name(1)}' {list(gamma_shape)} must be the trailing dims of '{call.name(0)}' "
                        f"{list(x_shape)}")
    return tuple(range(len(x_shape) - len(gamma_shape), len(x_shape)))


def _rms_norm(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list[TensorInfo]) -> list[np.ndarray]:
    call = OpCall("RmsNorm", inputs, attrs)
    call.require_count(2)
    x, gamma = call.input(0), call.input(1)
    call.require_dtype(0, x.dtype)
    call.require_same_dtype((0, 1), [x.dtype, gamma.dtype])
    axes = _rms_axes(call, x.shape, gamma.shape)
    out = Outputs(call, outputs)
    out.require_dtype(0, x.dtype, call.same_as(0))
    out.require_dtype(1, FLOAT32, "always float32")
    wide = widen(x)
    count = wide.dtype.type(int(np.prod(gamma.shape, dtype=np.int64)))
    with np.errstate(all="ignore"):
        rstd = np.float32(1) / np.sqrt(vector_sum_over(wide * wide, axes) / count + wide.dtype.type(call.attr_float("epsilon")))
        y = widen(gamma) * (wide * rstd)
    return [out.emit(0, y.astype(x.dtype)), out.emit(1, rstd.astype(FLOAT32))]


def _rms_norm_infer(inputs: list[TensorInfo], values: list[np.ndarray | None], attrs: dict[str, Any]) -> list[InferredShape]:
    call = OpCall("RmsNorm", inputs, attrs)
    call.require_count(2)
    x, gamma = call.input(0), call.input(1)
    shape = tuple(x.shape)
    axes = _rms_axes(call, shape, tuple(gamma.shape))
    stats = tuple(1 if i in axes else d for i, d in enumerate(shape))
    return [inferred(x.dtype, shape), inferred(acl_data_type(FLOAT32), stats)]


# L2Normalize and LpNormV2 ------------------------------------------------------------------------------------------
def _l2_normalize(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list[TensorInfo]) -> list[np.ndarray]:
    call = OpCall("L2Normalize", inputs, attrs)
    call.require_count(1)
    x = call.input(0)
    call.require_dtype(0, x.dtype)
    axes = _axes_list(call, "axis", x.ndim)
    out = Outputs(call, outputs)
    out.require_dtype(0, x.dtype, call.same_as(0))
    wide = widen(x)
    with np.errstate(all="ignore"):
        norm = np.sqrt(vector_sum_over(wide * wide, axes))
        y = wide / np.maximum(norm, wide.dtype.type(call.attr_float("eps")))
    return [out.emit(0, y.astype(x.dtype))]


def _lp_shape(call: OpCall, shape: tuple[int, ...]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    axes = _axes_list(call, "axes", len(shape))
    if call.attr_bool("keepdim"):
        return axes, tuple(1 if i in axes else d for i, d in enumerate(shape))
    return axes, tuple(d for i, d in enumerate(shape) if i not in axes)


def _lp_norm(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list[TensorInfo]) -> list[np.ndarray]:
    call = OpCall("LpNormV2", inputs, attrs)
    call.require_count(1)
    x = call.input(0)
    call.require_dtype(0, x.dtype)
    axes, shape = _lp_shape(call, tuple(x.shape))
    out = Outputs(call, outputs)
    out.require_dtype(0, x.dtype, call.same_as(0))
    p = call.attr_float("p")
    a = np.abs(widen(x))
    with np.errstate(all="ignore"):
        if p == np.inf:
            y = np.max(a, axis=axes, keepdims=True)
        elif p == -np.inf:
            y = np.min(a, axis=axes, keepdims=True)
        elif p == 0:
            y = vector_sum_over((a != 0).astype(a.dtype), axes)
        else:
            y = vector_sum_over(a ** a.dtype.type(p), axes) ** a.dtype.type(1.0 / p)
    return [out.emit(0, y.reshape(shape).astype(x.dtype))]


def _lp_norm_infer(inputs: list[TensorInfo], values: list[np.ndarray | None], attrs: dict[str, Any]) -> list[InferredShape]:
    call = OpCall("LpNormV2", inputs, attrs)
    call.require_count(1)
    x = call.input(0)
    return [inferred(x.dtype, _lp_shape(call, tuple(x.shape))[1])]


# SoftmaxCrossEntropyWithLogits ------------------------------------------------------------------------------------
def _cross_entropy_shape(call: OpCall, features: tuple[int, ...], labels: tuple[int, ...]) -> tuple[int, ...]:
    """The 2-D shape features and labels broadcast to (either may be 1-D, as in the TBE implementation)."""
    shape = broadcast(call, [0, 1], [features, labels])
    if len(features) > 2 or len(labels) > 2 or len(shape) != 2:
        raise call.fail(f"'{call.name(0)}' {list(features)} and '{call.name(1)}' {list(labels)} must be 2-D or "
                        f"broadcast to 2-D")
    return shape


def _cross_entropy(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list[TensorInfo]) -> list[np.ndarray]:
    call = OpCall("SoftmaxCrossEntropyWithLogits", inputs, attrs)
    call.require_count(2)
    features, labels = call.input(0), call.input(1)
    call.require_dtype(0, features.dtype)
    call.require_same_dtype((0, 1), [features.dtype, labels.dtype])
    shape = _cross_entropy_shape(call, features.shape, labels.shape)
    out = Outputs(call, outputs)
    out.require_dtype(0, features.dtype, call.same_as(0))
    out.require_dtype(1, features.dtype, call.same_as(0))
    f, t = np.broadcast_to(widen(features), shape), np.broadcast_to(widen(labels), shape)
    with np.errstate(all="ignore"):
        shifted = f - np.max(f, axis=-1, keepdims=True) if f.shape[-1] else f
        log_sum = np.log(vector_sum(np.exp(shifted), -1))[..., None] if f.shape[-1] else np.zeros_like(f[..., :1])
        log_softmax = shifted - log_sum
        loss = -vector_sum(t * log_softmax, -1) if f.shape[-1] else np.zeros(f.shape[:-1], f.dtype)
        backprop = np.exp(log_softmax) - t
    return [out.emit(0, loss.astype(features.dtype)), out.emit(1, backprop.astype(features.dtype))]


def _cross_entropy_infer(inputs: list[TensorInfo], values: list[np.ndarray | None], attrs: dict[str, Any]) -> list[InferredShape]:
    call = OpCall("SoftmaxCrossEntropyWithLogits", inputs, attrs)
    call.require_count(2)
    features, labels = call.input(0), call.input(1)
    shape = _cross_entropy_shape(call, tuple(features.shape), tuple(labels.shape))
    return [inferred(features.dtype, shape[:-1]), inferred(features.dtype, shape)]


builtin("LayerNorm", _layer_norm, _layer_norm_infer)
builtin("RmsNorm", _rms_norm, _rms_norm_infer)
builtin("LayerNormGrad", _layer_norm_grad, _grad_infer("LayerNormGrad", "dgg"))
builtin("LayerNormXBackprop", _layer_norm_x_backprop, _grad_infer("LayerNormXBackprop", "d"))
builtin("LayerNormXBackpropV2", _layer_norm_x_backprop_v2, _grad_infer("LayerNormXBackpropV2", "df"))
builtin("LayerNormBetaGammaBackprop", _beta_gamma_backprop, _grad_infer("LayerNormBetaGammaBackprop", "gg"))
builtin("LayerNormBetaGammaBackpropV2", _beta_gamma_backprop_v2, _grad_infer("LayerNormBetaGammaBackpropV2", "gg"))
builtin("L2Normalize", _l2_normalize, like_input("L2Normalize"))
builtin("LpNormV2", _lp_norm, _lp_norm_infer)
builtin("SoftmaxCrossEntropyWithLogits", _cross_entropy, _cross_entropy_infer)
