"""Softmax references: SoftmaxV2 and LogSoftmaxV2 over the axes attribute, and their gradients (TensorFlow's
SoftmaxGrad and LogSoftmaxGrad, CANN's SoftmaxGradExt)."""

from __future__ import annotations

from typing import Any

import numpy as np

from aclcts.reference.base import RefOp, define, normalize_axes
from aclcts.reference.numeric import round_to, widen


def softmax(x: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
    """SoftmaxV2: exp(x - max) / sum(exp(x - max)) over axes; a slice holding NaN, or only -inf, gives NaN."""
    shifted = x - np.max(x, axis=axes, keepdims=True)
    e = np.exp(shifted)
    return e / np.sum(e, axis=axes, keepdims=True)


def log_softmax(x: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
    """LogSoftmaxV2: (x - max) - log(sum(exp(x - max))) over axes; -inf stays -inf, a slice holding NaN, or only
    -inf, gives NaN."""
    shifted = x - np.max(x, axis=axes, keepdims=True)
    return shifted - np.log(np.sum(np.exp(shifted), axis=axes, keepdims=True))


def _same(shapes: list[Any], values: list[Any], attrs: dict[str, Any]) -> list[tuple[int, ...]]:
    """Output shape equal to the input shape."""
    return [shapes[0]]


def _softmax(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    """SoftmaxV2 compute; half_to_float only changes the output dtype, which comes from `out`."""
    x = widen(xs[0])
    return [round_to(softmax(x, normalize_axes(attrs["axes"], x.ndim)), out[0])]


def _log_softmax(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    """LogSoftmaxV2 compute."""
    x = widen(xs[0])
    return [round_to(log_softmax(x, normalize_axes(attrs["axes"], x.ndim)), out[0])]


def softmax_grad(y: np.ndarray, dy: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
    """The gradient through softmax output y: y * (dy - <dy, y>) along axes (the Jacobian diag(y) - y y^T applied)."""
    return y * (dy - np.sum(dy * y, axis=axes, keepdims=True))


def log_softmax_grad(dy: np.ndarray, log_y: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
    """The gradient through log-softmax output log_y: dy - softmax * sum(dy) along axes, softmax = exp(log_y)."""
    return dy - np.exp(log_y) * np.sum(dy, axis=axes, keepdims=True)


def _softmax_grad(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    """SoftmaxGrad compute: inputs the softmax output and its incoming gradient."""
    y, dy = widen(xs[0]), widen(xs[1])
    return [round_to(softmax_grad(y, dy, normalize_axes(attrs["axes"], y.ndim)), out[0])]


def _log_softmax_grad(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    """LogSoftmaxGrad compute: inputs grad, x (the log-softmax output)."""
    dy, log_y = widen(xs[0]), widen(xs[1])
    return [round_to(log_softmax_grad(dy, log_y, normalize_axes(attrs["axis"], dy.ndim)), out[0])]


def _softmax_grad_ext(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    """SoftmaxGradExt compute: (grad - sum(grad * x1, axes)) * x1 * x2, the sum broadcast back NumPy's way."""
    grad, x1, x2 = (widen(x) for x in xs)
    axis = normalize_axes([attrs["axes"]], grad.ndim)
    total = np.sum(grad * x1, axis=axis, keepdims=bool(attrs["keep_dims"]))
    return [round_to((grad - total) * (x1 * x2), out[0])]


def _softmax_grad_ext_shape(shapes: list[Any], values: list[Any], attrs: dict[str, Any]) -> list[tuple[int, ...]]:
    """The broadcast of grad, x1, x2 and the reduced sum (keep_dims false drops the axis before broadcasting)."""
    grad = tuple(shapes[0])
    axis = normalize_axes([attrs["axes"]], len(grad))[0]
    total = grad[:axis] + ((1,) if attrs["keep_dims"] else ()) + grad[axis + 1:]
    return [tuple(np.broadcast_shapes(grad, tuple(shapes[1]), tuple(shapes[2]), total))]


OPS: tuple[RefOp, ...] = (
    define("SoftmaxV2", _softmax, _same),
    define("LogSoftmaxV2", _log_softmax, _same),
    define("SoftmaxGrad", _softmax_grad, _same),
    define("LogSoftmaxGrad", _log_softmax_grad, _same),
    define("SoftmaxGradExt", _softmax_grad_ext, _softmax_grad_ext_shape),
)
