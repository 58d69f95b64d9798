"""Faulty unary math numerics: substitutes for the Round and Rint kernels."""

from __future__ import annotations

from typing import Any

import numpy as np

from aclcts.sim.kernels.base import ComputeFn

#: The ops that round to integers half to even.
ROUNDING_OPS = ("Round", "Rint")


def _away_from_zero(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """y with every element whose input lies exactly halfway between two integers moved to the one away from zero."""
    wide = x.astype(np.float64)
    whole = np.trunc(wide)
    tie = np.abs(wide - whole) == 0.5
    if not tie.any():
        return y
    y = y.copy()
    y[tie] = (whole + np.copysign(1.0, wide))[tie].astype(y.dtype)
    return y


def round_half_away_from_zero(compute: ComputeFn) -> ComputeFn:
    """Round (decimals 0) and Rint on floats rounding halves away from zero (2.5 -> 3, -0.5 -> -1), as C round() does."""

    def faulty(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list) -> list[np.ndarray]:
        results = compute(inputs, attrs, outputs)
        x = inputs[0] if inputs else None
        floating = x is not None and (x.dtype.kind == "f" or x.dtype.name == "bfloat16")
        if floating and attrs.get("decimals", 0) == 0 and results and results[0].shape == x.shape:
            results = [_away_from_zero(x, results[0]), *results[1:]]
        return results

    return faulty
