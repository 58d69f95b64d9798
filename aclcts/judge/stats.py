"""The two-sample Kolmogorov-Smirnov test random outputs are judged by (docs/precision-policy.md, "Random ops")."""

from __future__ import annotations

import math

import numpy as np


def ks_statistic(sample: np.ndarray, other: np.ndarray) -> float:
    """The largest distance between the empirical distribution functions of two samples (ties counted as one step)."""
    a, b = np.sort(np.asarray(sample, np.float64).ravel()), np.sort(np.asarray(other, np.float64).ravel())
    if not a.size or not b.size:
        return 0.0
    points = np.concatenate([a, b])
    cdf_a = np.searchsorted(a, points, side="right") / a.size
    cdf_b = np.searchsorted(b, points, side="right") / b.size
    return float(np.max(np.abs(cdf_a - cdf_b)))


def ks_critical(alpha: float, n: int, m: int) -> float:
    """The distance above which two samples of sizes n and m are said to come from different distributions, at
    false-alarm rate alpha: c(alpha) * sqrt((n + m) / (n * m)), c(alpha) = sqrt(-ln(alpha / 2) / 2), the large-sample
    form of the two-sample test."""
    if n == 0 or m == 0:
        return math.inf
    return math.sqrt(-math.log(alpha / 2.0) / 2.0) * math.sqrt((n + m) / (n * m))
