"""Faults of the convolution kernels: the input gradient correlating with the filter left unflipped."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

GradientFilter = Callable[[np.ndarray, int], np.ndarray]


def not_flipped(original: GradientFilter) -> GradientFilter:
    """The filter's channel axes swapped per group but its taps not turned round in H and W."""

    def unflipped(w: np.ndarray, groups: int) -> np.ndarray:
        return original(w[:, :, ::-1, ::-1], groups)

    return unflipped
