"""Faults of the pooling ops: AvgPool counting the padding of SAME windows in the average."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

Divisor = Callable[[np.ndarray, list[tuple[int, int, int, int, int]]], np.ndarray]


def padding_counted(original: Divisor) -> Divisor:
    """A divisor of the whole window (kh * kw) everywhere, padded positions included."""

    def whole_window(ones: np.ndarray, axes: list[tuple[int, int, int, int, int]]) -> np.ndarray:
        inside = original(ones, axes)
        return np.full(inside.shape, float(axes[0][1] * axes[1][1]))

    return whole_window
