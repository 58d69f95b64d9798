"""Special-function references: BesselI0e and BesselI1e from their definitions, in float64, rounded once.

exp(-|x|) I_nu(x) for nu = 0, 1 is summed from the power series of I_nu (DLMF 10.25.2,
https://dlmf.nist.gov/10.25.E2) for |x| <= SERIES_LIMIT, and taken from the large-argument expansion of I_nu
(DLMF 10.40.1, https://dlmf.nist.gov/10.40.E1) beyond it, where the series would need hundreds of terms. The
simulator's kernels use the Abramowitz and Stegun polynomials CANN's TBE implementation uses instead; the two share
nothing. I1e is odd (I_1(-x) = -I_1(x)), I0e even; both tend to 0 at +-inf and keep NaN.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from aclcts.reference.base import RefOp, define
from aclcts.reference.numeric import round_to, widen

#: |x| up to which the power series is summed (its terms peak near e^|x|, far below float64's range).
SERIES_LIMIT = 30.0
#: Terms of the power series: (x^2/4)^k / (k! (k+nu)!) is below 1e-17 of the sum by k = 80 at |x| = 30.
SERIES_TERMS = 80
#: Terms of the large-argument expansion: at |x| > 30 its terms fall below 1e-17 well before the 16th.
EXPANSION_TERMS = 16


def _series(a: np.ndarray, order: int) -> np.ndarray:
    """exp(-a) I_order(a) for 0 <= a <= SERIES_LIMIT: (a/2)^order sum_k (a^2/4)^k / (k! (k+order)!) times exp(-a)."""
    quarter = a * a / 4.0
    term = (a / 2.0) ** order / math.factorial(order)
    total = term.copy()
    for k in range(1, SERIES_TERMS):
        term = term * quarter / (k * (k + order))
        total = total + term
    return total * np.exp(-a)


def _expansion(a: np.ndarray, order: int) -> np.ndarray:
    """exp(-a) I_order(a) for large a: (2 pi a)^(-1/2) sum_k (-1)^k a_k(order) / a^k, with
    a_k(nu) = (4nu^2 - 1^2)(4nu^2 - 3^2)...(4nu^2 - (2k-1)^2) / (k! 8^k)."""
    mu = 4.0 * order * order
    coefficient = 1.0
    total = np.ones_like(a)
    power = np.ones_like(a)
    for k in range(1, EXPANSION_TERMS):
        coefficient *= -(mu - (2 * k - 1) ** 2) / (k * 8.0)
        power = power / a
        total = total + coefficient * power
    return total / np.sqrt(2.0 * math.pi * a)


def scaled_bessel_i(x: np.ndarray, order: int) -> np.ndarray:
    """exp(-|x|) I_order(x) in float64 for order 0 or 1 (odd in x for order 1)."""
    a = np.abs(x)
    near = a <= SERIES_LIMIT
    value = np.where(near, _series(np.where(near, a, 0.0), order), _expansion(np.where(near, SERIES_LIMIT, a), order))
    value = np.where(np.isinf(a), 0.0, value)
    return np.copysign(value, x) if order % 2 else np.where(np.isnan(x), x, value)


def _bessel(order: int) -> Any:
    def compute(xs: list[np.ndarray], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
        return [round_to(scaled_bessel_i(widen(xs[0]), order), out[0])]
    return compute


def _same(shapes: list[Any], values: list[Any], attrs: dict[str, Any]) -> list[tuple[int, ...]]:
    return [tuple(shapes[0])]


OPS: tuple[RefOp, ...] = (
    define("BesselI0e", _bessel(0), _same),
    define("BesselI1e", _bessel(1), _same),
)
