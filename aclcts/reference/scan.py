"""Cumsum and Cumprod references (axis as an input, or an attribute in the D forms) and CumulativeLogsumexpD's
(TensorFlow's CumulativeLogsumexp: log of the running sum of exp, -inf before the first element), exclusive and
reverse."""

from __future__ import annotations

from typing import Any

import numpy as np

from aclcts.reference.base import RefOp, define, normalize_axis, scalar_int
from aclcts.reference.numeric import round_to, widen


def scan(x: np.ndarray, axis: int, combine: np.ufunc, exclusive: bool, reverse: bool) -> np.ndarray:
    """Running sums or products along axis, element i combining 0..i (exclusive: 0..i-1, the identity first);
    reverse runs from the end. Written as explicit steps over the axis."""
    moved = np.moveaxis(x, axis, 0)
    order = range(moved.shape[0] - 1, -1, -1) if reverse else range(moved.shape[0])
    result = np.empty_like(moved)
    running = np.full(moved.shape[1:], combine.identity, dtype=moved.dtype)
    for i in order:
        if exclusive:
            result[i] = running
            running = combine(running, moved[i])
        else:
            running = combine(running, moved[i])
            result[i] = running
    return np.moveaxis(result, 0, axis)


def _scan(combine: np.ufunc, axis_attr: bool) -> Any:
    """The compute function of Cumsum/Cumprod (axis an input) or of their D forms (axis an attribute)."""
    def compute(xs: list[np.ndarray], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
        x = widen(xs[0])
        given = attrs["axis"] if axis_attr else scalar_int(xs, 1)
        axis = normalize_axis(given, max(x.ndim, 1), "axis")
        return [round_to(scan(x, axis, combine, bool(attrs["exclusive"]), bool(attrs["reverse"])), out[0])]
    return compute


def _same_shape(shapes: list[Any], values: list[Any], attrs: dict[str, Any]) -> list[tuple[int, ...]]:
    return [shapes[0]]


OPS: tuple[RefOp, ...] = (
    define("Cumsum", _scan(np.add, False), _same_shape),
    define("Cumprod", _scan(np.multiply, False), _same_shape),
    define("CumsumD", _scan(np.add, True), _same_shape),
    define("CumprodD", _scan(np.multiply, True), _same_shape),
    define("CumulativeLogsumexpD", _scan(np.logaddexp, True), _same_shape),
)
