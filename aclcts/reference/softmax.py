"""Softmax references: SoftmaxV2 and LogSoftmaxV2 over the axes attribute."""

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


OPS: tuple[RefOp, ...] = (
    define("SoftmaxV2", _softmax, _same),
    define("LogSoftmaxV2", _log_softmax, _same),
)
