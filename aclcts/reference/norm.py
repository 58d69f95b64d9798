"""Normalisation references in float64: LayerNorm, RmsNorm, L2Normalize, LpNormV2, SoftmaxCrossEntropyWithLogits.

The formulas are the operator headers' (hicann/ops-nn): LayerNorm's mean and (biased) variance over the axes from
begin_norm_axis, RmsNorm's rstd over the trailing axes gamma covers. Two choices where the headers are silent
(UNCONFIRMED, the simulator makes the same): L2Normalize divides by max(||x||_2, eps) (PyTorch's Normalize, which the
header names), an empty axis list meaning every axis; LpNormV2 returns the norm itself, epsilon unused.
SoftmaxCrossEntropyWithLogits broadcasts features and labels to one 2-D shape (either may be 1-D), as CANN's TBE
implementation and TensorFlow's op do.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from aclcts.reference.base import RefOp, define, normalize_axes, normalize_axis
from aclcts.reference.numeric import round_to, widen


def _trailing(rank: int, first: int) -> tuple[int, ...]:
    return tuple(range(normalize_axis(first, rank, "begin_norm_axis"), rank))


def layer_norm(x: np.ndarray, gamma: np.ndarray, beta: np.ndarray, begin_norm_axis: int,
               epsilon: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(y, mean, variance): mean and biased variance over the axes from begin_norm_axis, y scaled and shifted."""
    axes = _trailing(x.ndim, begin_norm_axis)
    count = int(np.prod([x.shape[a] for a in axes]))
    mean = x.sum(axis=axes, keepdims=True) / count
    variance = ((x - mean) ** 2).sum(axis=axes, keepdims=True) / count
    return gamma * (x - mean) / np.sqrt(variance + epsilon) + beta, mean, variance


def rms_norm(x: np.ndarray, gamma: np.ndarray, epsilon: float) -> tuple[np.ndarray, np.ndarray]:
    """(y, rstd): rstd = 1 / sqrt(mean(x^2) + epsilon) over the trailing axes gamma covers, y = gamma * x * rstd."""
    axes = tuple(range(x.ndim - gamma.ndim, x.ndim))
    rstd = 1.0 / np.sqrt(np.mean(x * x, axis=axes, keepdims=True) + epsilon)
    return gamma * (x * rstd), rstd


def l2_normalize(x: np.ndarray, axis: list[int], eps: float) -> np.ndarray:
    """x / max(||x||_2, eps) over axis (every axis when empty)."""
    axes = normalize_axes(axis, x.ndim) if len(axis) else tuple(range(x.ndim))
    return x / np.maximum(np.sqrt(np.sum(x * x, axis=axes, keepdims=True)), eps)


def lp_norm(x: np.ndarray, p: float, axes: list[int], keepdim: bool) -> np.ndarray:
    """The p-norm over axes (every axis when empty): max |x| for inf, min |x| for -inf, the non-zero count for 0."""
    dims = normalize_axes(axes, x.ndim) if len(axes) else tuple(range(x.ndim))
    a = np.abs(x)
    if p == np.inf:
        result = np.max(a, axis=dims, keepdims=True)
    elif p == -np.inf:
        result = np.min(a, axis=dims, keepdims=True)
    elif p == 0:
        result = np.sum(a != 0, axis=dims, keepdims=True).astype(np.float64)
    else:
        result = np.sum(a ** p, axis=dims, keepdims=True) ** (1.0 / p)
    return result if keepdim else np.squeeze(result, axis=dims)


def softmax_cross_entropy(features: np.ndarray, labels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(loss, backprop) over the last axis: loss = -sum(labels * log softmax), backprop = softmax - labels.

    The row maximum is subtracted before the exponentials are summed, as TensorFlow's kernel does: features of a
    large magnitude keep their differences (a running logaddexp rounds each step to the ulp of the features), and
    a row holding +inf gives NaN.
    """
    if not features.shape[-1]:
        return np.zeros(features.shape[:-1]), features - labels
    with np.errstate(invalid="ignore"):
        shifted = features - np.max(features, axis=-1, keepdims=True)
        log_softmax = shifted - np.log(np.sum(np.exp(shifted), axis=-1, keepdims=True))
        return -np.sum(labels * log_softmax, axis=-1), np.exp(log_softmax) - labels


def layer_norm_axes(x_shape: tuple[int, ...], mean_shape: tuple[int, ...]) -> tuple[int, ...]:
    """The axes LayerNorm's gradients normalise: from the first where mean's dim differs from x's to the last; the
    last alone when none differs (the nn_norm_ops.h LayerNormGrad convention)."""
    first = next((i for i, (a, b) in enumerate(zip(x_shape, mean_shape)) if a != b), len(x_shape) - 1)
    return tuple(range(first, len(x_shape)))


def layer_norm_x_grad(dy: np.ndarray, x: np.ndarray, variance: np.ndarray, mean: np.ndarray, gamma: np.ndarray,
                      epsilon: float) -> tuple[np.ndarray, np.ndarray]:
    """(dx, (x - mean) rstd) by the header's formulas: pd_xl = dy gamma, pd_var = sum(-0.5 pd_xl (x - mean)
    (variance + epsilon)^-1.5), pd_mean = sum(-pd_xl (variance + epsilon)^-0.5) + pd_var / m sum(-2 (x - mean)),
    dx = pd_xl (variance + epsilon)^-0.5 + pd_var (2/m)(x - mean) + pd_mean / m; m the normalised count.
    (The header's form, not a simplified one, so infinities and NaNs land where the documented formula puts them.)"""
    axes = layer_norm_axes(x.shape, mean.shape)
    m = int(np.prod([x.shape[a] for a in axes]))

    def total(v: np.ndarray) -> np.ndarray:
        return np.sum(v, axis=axes, keepdims=True)

    pd_xl, centred = dy * gamma, x - mean
    pd_var = total(-0.5 * pd_xl * centred * np.power(variance + epsilon, -1.5))
    pd_mean = total(-pd_xl * np.power(variance + epsilon, -0.5)) + pd_var / m * total(-2.0 * centred)
    dx = pd_xl * np.power(variance + epsilon, -0.5) + pd_var * (2.0 / m) * centred + pd_mean / m
    return dx, centred * np.power(variance + epsilon, -0.5)


def layer_norm_param_grads(dy: np.ndarray, x_hat: np.ndarray, gamma_shape: tuple[int, ...]) -> tuple[np.ndarray, ...]:
    """(dgamma, dbeta): dy * x_hat and dy summed over the leading axes gamma does not cover, in gamma's shape."""
    lead = tuple(range(dy.ndim - len(gamma_shape)))
    return np.sum(dy * x_hat, axis=lead).reshape(gamma_shape), np.sum(dy, axis=lead).reshape(gamma_shape)


#: The epsilon LayerNorm's gradients add to the variance (TBE constant_util.EPSLON), and float16's in
#: LayerNormXBackpropV2.
LN_GRAD_EPSILON, LN_GRAD_EPSILON_FLOAT16 = 1e-12, 1e-5


def _ln_x_grad(xs: list[Any], epsilon: float = LN_GRAD_EPSILON) -> tuple[np.ndarray, np.ndarray]:
    return layer_norm_x_grad(*(widen(v) for v in xs[:5]), epsilon)


def _layer_norm_grad(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    dx, x_hat = _ln_x_grad(xs)
    dgamma, dbeta = layer_norm_param_grads(widen(xs[0]), x_hat, xs[4].shape)
    return [round_to(v, d) for v, d in zip((dx, dgamma, dbeta), out)]


def _layer_norm_x_backprop(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    return [round_to(_ln_x_grad(xs)[0], out[0])]


def _layer_norm_x_backprop_v2(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    epsilon = LN_GRAD_EPSILON_FLOAT16 if xs[0].dtype == np.float16 else LN_GRAD_EPSILON
    return [round_to(v, d) for v, d in zip(_ln_x_grad(xs, epsilon), out)]


def _beta_gamma_backprop(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    dy, x, variance, mean = (widen(v) for v in xs)
    x_hat = (x - mean) / np.sqrt(variance + LN_GRAD_EPSILON)
    grads = layer_norm_param_grads(dy, x_hat, tuple(attrs["shape_gamma"]))
    return [round_to(v, d) for v, d in zip(grads, out)]


def _beta_gamma_backprop_v2(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    grads = layer_norm_param_grads(widen(xs[0]), widen(xs[1]), tuple(attrs["shape_gamma"]))
    return [round_to(v, d) for v, d in zip(grads, out)]


def _gamma_shape(shapes: list[Any], attrs: dict[str, Any]) -> tuple[int, ...]:
    gamma = tuple(attrs["shape_gamma"]) if "shape_gamma" in attrs else tuple(shapes[4])
    x = tuple(shapes[0])
    if len(gamma) > len(x) or x[len(x) - len(gamma):] != gamma:
        raise ValueError(f"gamma {list(gamma)} must be the trailing dims of dy {list(x)}")
    return gamma


def _layer_norm_grad_shape(shapes: list[Any], values: list[Any], attrs: dict[str, Any]) -> list[tuple[int, ...]]:
    gamma = _gamma_shape(shapes, attrs)
    return [tuple(shapes[0]), gamma, gamma]


def _x_and_res_shape(shapes: list[Any], values: list[Any], attrs: dict[str, Any]) -> list[tuple[int, ...]]:
    _gamma_shape(shapes, attrs)
    return [tuple(shapes[0])] * 2


def _params_shape(shapes: list[Any], values: list[Any], attrs: dict[str, Any]) -> list[tuple[int, ...]]:
    return [_gamma_shape(shapes, attrs)] * 2


def _layer_norm(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    x, gamma, beta = (widen(v) for v in xs)
    results = layer_norm(x, gamma, beta, int(attrs["begin_norm_axis"]), float(attrs["epsilon"]))
    return [round_to(r, d) for r, d in zip(results, out)]


def _layer_norm_shape(shapes: list[Any], values: list[Any], attrs: dict[str, Any]) -> list[tuple[int, ...]]:
    axes = _trailing(len(shapes[0]), int(attrs["begin_norm_axis"]))
    stats = tuple(1 if i in axes else d for i, d in enumerate(shapes[0]))
    return [shapes[0], stats, stats]


def _rms_norm(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    y, rstd = rms_norm(widen(xs[0]), widen(xs[1]), float(attrs["epsilon"]))
    return [round_to(y, out[0]), round_to(rstd, out[1])]


def _rms_norm_shape(shapes: list[Any], values: list[Any], attrs: dict[str, Any]) -> list[tuple[int, ...]]:
    x, gamma = shapes[0], shapes[1]
    if len(gamma) > len(x) or tuple(x[len(x) - len(gamma):]) != tuple(gamma):
        raise ValueError(f"gamma {gamma} must be the trailing dims of x {x}")
    return [x, tuple(x[: len(x) - len(gamma)]) + (1,) * len(gamma)]


def _l2_normalize(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    return [round_to(l2_normalize(widen(xs[0]), list(attrs["axis"]), float(attrs["eps"])), out[0])]


def _lp_norm(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    y = lp_norm(widen(xs[0]), float(attrs["p"]), list(attrs["axes"]), bool(attrs["keepdim"]))
    return [round_to(y, out[0])]


def _lp_norm_shape(shapes: list[Any], values: list[Any], attrs: dict[str, Any]) -> list[tuple[int, ...]]:
    x = shapes[0]
    dims = normalize_axes(list(attrs["axes"]), len(x)) if len(attrs["axes"]) else tuple(range(len(x)))
    if attrs["keepdim"]:
        return [tuple(1 if i in dims else d for i, d in enumerate(x))]
    return [tuple(d for i, d in enumerate(x) if i not in dims)]


def _cross_entropy_2d(features: tuple[int, ...], labels: tuple[int, ...]) -> tuple[int, ...]:
    """The 2-D shape features and labels broadcast to (either may be 1-D), else ValueError."""
    try:
        shape = np.broadcast_shapes(features, labels)
    except ValueError:
        shape = ()
    if len(features) > 2 or len(labels) > 2 or len(shape) != 2:
        raise ValueError(f"features {features} and labels {labels} must be 2-D or broadcast to 2-D")
    return shape


def _cross_entropy(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    shape = _cross_entropy_2d(xs[0].shape, xs[1].shape)
    loss, backprop = softmax_cross_entropy(np.broadcast_to(widen(xs[0]), shape), np.broadcast_to(widen(xs[1]), shape))
    return [round_to(loss, out[0]), round_to(backprop, out[1])]


def _cross_entropy_shape(shapes: list[Any], values: list[Any], attrs: dict[str, Any]) -> list[tuple[int, ...]]:
    shape = _cross_entropy_2d(tuple(shapes[0]), tuple(shapes[1]))
    return [shape[:-1], shape]


def _same_shape(shapes: list[Any], values: list[Any], attrs: dict[str, Any]) -> list[tuple[int, ...]]:
    return [shapes[0]]


OPS: tuple[RefOp, ...] = (
    define("LayerNorm", _layer_norm, _layer_norm_shape),
    define("RmsNorm", _rms_norm, _rms_norm_shape),
    define("L2Normalize", _l2_normalize, _same_shape),
    define("LpNormV2", _lp_norm, _lp_norm_shape),
    define("SoftmaxCrossEntropyWithLogits", _cross_entropy, _cross_entropy_shape),
    define("LayerNormGrad", _layer_norm_grad, _layer_norm_grad_shape),
    define("LayerNormXBackprop", _layer_norm_x_backprop, _same_shape),
    define("LayerNormXBackpropV2", _layer_norm_x_backprop_v2, _x_and_res_shape),
    define("LayerNormBetaGammaBackprop", _beta_gamma_backprop, _params_shape),
    define("LayerNormBetaGammaBackpropV2", _beta_gamma_backprop_v2, _params_shape),
)
