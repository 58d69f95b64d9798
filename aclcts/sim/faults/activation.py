"""Faulty activation numerics: substitutes for the Gelu and LeakyRelu kernels."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from aclcts.sim.kernels.base import ComputeFn
from aclcts.sim.kernels.unary_math import erf_erfc


def _float_input(inputs: list[np.ndarray | None]) -> np.ndarray | None:
    """The first input when it is a floating-point array, else None."""
    x = inputs[0] if inputs else None
    if x is None or not (x.dtype.kind == "f" or x.dtype.name == "bfloat16"):
        return None
    return x


def gelu_erf_form(compute: ComputeFn) -> ComputeFn:
    """Gelu computed as the exact x * Phi(x) = 0.5 x erfc(-x / sqrt 2) where CANN computes the tanh approximation."""

    def faulty(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list) -> list[np.ndarray]:
        results = compute(inputs, attrs, outputs)
        x = _float_input(inputs)
        if x is not None and results and results[0].shape == x.shape:
            wide = x.astype(np.float64)
            with np.errstate(all="ignore"):
                y = 0.5 * wide * erf_erfc(-wide / math.sqrt(2.0))[1]
            y = np.where(np.isneginf(wide), -0.0, y)
            results = [y.astype(results[0].dtype), *results[1:]]
        return results

    return faulty


def leaky_relu_slope_on_positive(compute: ComputeFn) -> ComputeFn:
    """LeakyRelu scaling the positive side by negative_slope and passing the negative side through (sides swapped)."""

    def faulty(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list) -> list[np.ndarray]:
        results = compute(inputs, attrs, outputs)
        x = _float_input(inputs)
        if x is not None and results and results[0].shape == x.shape:
            slope = float(np.float32(attrs.get("negative_slope", 0.0)))
            wide = x.astype(np.float64)
            with np.errstate(all="ignore"):
                y = np.where(wide > 0, slope * wide, wide)
            results = [y.astype(results[0].dtype), *results[1:]]
        return results

    return faulty
