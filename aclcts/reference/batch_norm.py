"""Batch-normalisation step references in float64: BNTrainingReduce, BNTrainingUpdate(V2, V3), BNTrainingUpdateGrad,
BNTrainingReduceGrad, BNInfer, BNInferGrad, BN3DTrainingReduce and BN3DTrainingUpdate.

Written from the REG_OP comments of reduce_ops.h and the textbook batch normalisation (Ioffe and Szegedy 2015,
https://arxiv.org/abs/1502.03167: x_hat = (x - mu) / sqrt(sigma^2 + epsilon), y = gamma x_hat + beta, and its
gradient), on the origin layout: x is [N, C, ...] and the statistics are per channel (axis 1), n the elements of x
per channel. The moving-average conventions (factor weighs the batch; the moving variance takes the unbiased batch
variance) are those the records cite (aclcts/core/prototypes/batch_norm.py).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from aclcts.reference.base import RefOp, ShapeFn, define
from aclcts.reference.numeric import round_to, widen


def _channel_shape(x_shape: tuple[int, ...]) -> tuple[int, ...]:
    """The shape of a per-channel statistic of an x of x_shape: C at axis 1, 1 elsewhere."""
    if len(x_shape) < 2:
        raise ValueError(f"x {list(x_shape)} must have a channel axis (rank 2 or more, C at axis 1)")
    return tuple(d if i == 1 else 1 for i, d in enumerate(x_shape))


def _per_channel(value: np.ndarray, x_shape: tuple[int, ...], what: str) -> np.ndarray:
    """value (one element per channel of x) in the shape that broadcasts against x."""
    shape = _channel_shape(x_shape)
    if value.size != shape[1]:
        raise ValueError(f"{what} {list(value.shape)} must hold one value per channel of x {list(x_shape)} "
                         f"({shape[1]})")
    return value.reshape(shape)


def _per_batch(x: np.ndarray) -> int:
    """n: the elements of x per channel."""
    return x.size // x.shape[1] if x.shape[1] else 0


def channel_moments(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(sum, sum of squares) of x per channel."""
    axes = tuple(a for a in range(x.ndim) if a != 1)
    return np.sum(x, axis=axes, keepdims=True), np.sum(np.square(x), axis=axes, keepdims=True)


def batch_statistics(total: np.ndarray, squares: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """(mean, biased variance) from a channel's sum and sum of squares over n elements."""
    mean = total / n
    return mean, squares / n - np.square(mean)


def normalised(x: np.ndarray, mean: np.ndarray, variance: np.ndarray, epsilon: float) -> np.ndarray:
    """x_hat = (x - mean) / sqrt(variance + epsilon)."""
    return (x - mean) / np.sqrt(variance + epsilon)


def unbiased(variance: np.ndarray, n: int) -> np.ndarray:
    """The unbiased variance of n elements from the biased one: times n / (n - 1); 0 for one element."""
    return variance * n / (n - 1) if n > 1 else np.zeros_like(variance)


def moving_update(old_mean: np.ndarray, old_variance: np.ndarray, mean: np.ndarray, variance: np.ndarray,
                  n: int, factor: float) -> tuple[np.ndarray, np.ndarray]:
    """The moving (mean, variance): factor of the batch's plus 1 - factor of the old, the variance unbiased."""
    return factor * mean + (1 - factor) * old_mean, factor * unbiased(variance, n) + (1 - factor) * old_variance


def _inputs(xs: list[Any]) -> tuple[np.ndarray, list[np.ndarray]]:
    """x (the first input or, for the gradients, the batch-shaped one) and the others read per channel."""
    wide = [widen(v) for v in xs]
    x = wide[0]
    return x, [w if w.shape == x.shape else _per_channel(w, x.shape, f"input {i}") for i, w in enumerate(wide)]


def _rounded(values: tuple[np.ndarray, ...] | list[np.ndarray], out: list[np.dtype]) -> list[np.ndarray]:
    return [round_to(v, d) for v, d in zip(values, out)]


def _reduce(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    x, _ = _inputs(xs)
    _channel_shape(x.shape)
    return _rounded(channel_moments(x), out)


def _update_core(xs: list[Any], epsilon: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, int, list[np.ndarray]]:
    """(y, batch mean, biased batch variance, n, inputs) of the BNTrainingUpdate family."""
    x, (_, total, squares, scale, offset, *rest) = _inputs(xs)
    n = _per_batch(x)
    mean, variance = batch_statistics(total, squares, n)
    return scale * normalised(x, mean, variance, epsilon) + offset, mean, variance, n, rest


def _update(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    y, mean, variance, n, (old_mean, old_variance) = _update_core(xs, float(attrs["epsilon"]))
    moving = moving_update(old_mean, old_variance, mean, variance, n, float(attrs["factor"]))
    return _rounded((y, *moving, mean, variance), out)


def _update_v2(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    y, mean, variance, _, _ = _update_core(xs, float(attrs["epsilon"]))
    return _rounded((y, mean, variance), out)


def _update_v3(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    y, mean, variance, n, _ = _update_core(xs, float(attrs["epsilon"]))
    return _rounded((y, mean, unbiased(variance, n), mean, variance), out)


def _update_grad(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    grads, (_, x, mean, variance) = _inputs(xs)
    x_hat = normalised(x, mean, variance, float(attrs["epsilon"]))
    return _rounded(channel_moments(grads * x_hat)[:1] + channel_moments(grads)[:1], out)


def _reduce_grad(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    grads, (_, x, gamma_grad, beta_grad, scale, mean, variance) = _inputs(xs)
    epsilon = float(attrs["epsilon"])
    n = _per_batch(grads)
    x_hat = normalised(x, mean, variance, epsilon)
    return _rounded([scale / np.sqrt(variance + epsilon) * (grads - (beta_grad + x_hat * gamma_grad) / n)], out)


def _infer(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    x, (_, scale, offset, mean, variance) = _inputs(xs)
    return _rounded([scale * normalised(x, mean, variance, float(attrs["epsilon"])) + offset], out)


def _infer_grad(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    grads, (_, scale, variance) = _inputs(xs)
    return _rounded([grads * scale / np.sqrt(variance + float(attrs["epsilon"]))], out)


def _statistics_shape(count: int, batch_outputs: int = 0) -> ShapeFn:
    """A shape function: batch_outputs outputs of x's shape, then count per-channel ones."""

    def shape(shapes: list[Any], values: list[Any], attrs: dict[str, Any]) -> list[tuple[int, ...]]:
        x = tuple(shapes[0])
        channel = _channel_shape(x)
        for index, given in enumerate(shapes[1:], 1):
            if tuple(given) != x and int(np.prod(given)) != channel[1]:
                raise ValueError(f"input {index} {list(given)} must be x's shape {list(x)} or hold one value per "
                                 f"channel ({channel[1]})")
        return [x] * batch_outputs + [channel] * count

    return shape


OPS: tuple[RefOp, ...] = (
    define("BNTrainingReduce", _reduce, _statistics_shape(2)),
    define("BNTrainingUpdate", _update, _statistics_shape(4, 1)),
    define("BNTrainingUpdateV2", _update_v2, _statistics_shape(2, 1)),
    define("BNTrainingUpdateV3", _update_v3, _statistics_shape(4, 1)),
    define("BNTrainingUpdateGrad", _update_grad, _statistics_shape(2)),
    define("BNTrainingReduceGrad", _reduce_grad, _statistics_shape(0, 1)),
    define("BNInfer", _infer, _statistics_shape(0, 1)),
    define("BNInferGrad", _infer_grad, _statistics_shape(0, 1)),
    define("BN3DTrainingReduce", _reduce, _statistics_shape(2)),
    define("BN3DTrainingUpdate", _update, _statistics_shape(4, 1)),
)
