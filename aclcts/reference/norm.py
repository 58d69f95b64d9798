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
)
