"""Faults of the quantization kernels: AscendQuant's "Round" mode rounding ties upwards instead of to even."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np


def half_up(_: Callable[[np.ndarray], np.ndarray]) -> Callable[[np.ndarray], np.ndarray]:
    """Round to nearest with ties towards +inf (floor(v + 0.5)) instead of ties to even."""

    def tie_up(value: np.ndarray) -> np.ndarray:
        return np.floor(value + value.dtype.type(0.5))

    return tie_up
