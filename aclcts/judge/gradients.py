"""The second oracle of a gradient op: dy times the derivative of its forward op's reference, by central differences.

A gradient op whose record names its forward op (Prototype.gradient_of) is run at points x drawn from the record's
domain: its inputs are x, y = the forward reference at x, and dy, each in the case's dtype, placed where gradient_of
says. Its output must equal dy * f'(x) with f' taken by central differences of the forward reference in float64
(docs/precision-policy.md, "Gradient ops: the finite-difference check"). The gradient op's own reference takes no
part, so a reference that agrees with a wrong kernel does not hide it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from aclcts.core.prototypes import Prototype
from aclcts.reference import reference

#: The central-difference step, relative to max(1, |x|).
STEP = 2.0 ** -12
#: The tolerance in units of the dtype's machine epsilon, times |dy| and the largest |f'| of the tensor.
EPSILONS = 64
#: The share of points that must be smooth at the step (no kink within 2 steps) for the check to say anything.
MIN_SMOOTH = 0.8


@dataclass(frozen=True)
class GradientPoints:
    """The inputs of one gradient-op execution and what its output must be."""

    inputs: list[np.ndarray]
    expected: np.ndarray
    tolerance: np.ndarray
    smooth: np.ndarray


def _forward(record: Prototype, attrs: dict[str, Any]) -> Any:
    """The forward op's reference as a float64 function of x, given the gradient op's attributes (its record's defaults
    for those not given)."""
    gradient_of = record.gradient_of
    assert gradient_of is not None, f"{record.op_type} names no forward op"
    ref = reference(gradient_of.forward)
    given = {**record.defaults(), **attrs}
    forward_attrs = {name: given[name] for name in gradient_of.attrs}
    return lambda x: ref.compute([x], forward_attrs, [np.dtype(np.float64)])[0]


def derivative(forward: Any, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """f'(x) by central differences at step h, and a bound on its error: the larger of the estimate from the
    difference at 2h (Richardson: the h^2 error term quadruples), which a kink within 2h of x makes large, and how far
    the one-sided slopes' gap at 2h is from twice their gap at h (both h f'' and 2h f'' where f is smooth), which a
    kink at x itself makes large."""
    h = STEP * np.maximum(1.0, np.abs(x))
    f = {k: forward(x + k * h) for k in (-2, -1, 0, 1, 2)}
    at_h = (f[1] - f[-1]) / (2.0 * h)
    at_2h = (f[2] - f[-2]) / (4.0 * h)
    gap_h = (f[1] - 2.0 * f[0] + f[-1]) / h
    gap_2h = (f[2] - 2.0 * f[0] + f[-2]) / (2.0 * h)
    return at_h, np.maximum(np.abs(at_2h - at_h) / 3.0, np.abs(gap_2h - 2.0 * gap_h))


def gradient_points(record: Prototype, attrs: dict[str, Any], shape: tuple[int, ...], dtype: np.dtype,
                    seed: int) -> GradientPoints:
    """The gradient op's inputs at points drawn from its record's domain, and dy * f'(x) with its tolerance."""
    gradient_of = record.gradient_of
    assert gradient_of is not None, f"{record.op_type} names no forward op"
    rng = np.random.default_rng(seed)
    low, high = gradient_of.domain
    x = rng.uniform(low, high, shape).astype(dtype).astype(np.float64)
    dy = rng.uniform(-2.0, 2.0, shape).astype(dtype)
    forward = _forward(record, attrs)
    y = forward(x).astype(dtype)
    slope, error = derivative(forward, x)
    expected = dy.astype(np.float64) * slope
    scale = np.abs(dy.astype(np.float64)) * max(float(np.max(np.abs(slope), initial=0.0)), 1.0)
    tolerance = EPSILONS * float(np.finfo(dtype).eps) * scale
    given = {gradient_of.x: x.astype(dtype), gradient_of.y: y, gradient_of.dy: dy}
    inputs = [given[name] for name in record.input_names()]
    return GradientPoints(inputs, expected, tolerance, error * np.abs(dy) <= tolerance / 4.0)


def mismatches(points: GradientPoints, actual: np.ndarray) -> list[str]:
    """Why actual is not dy * f'(x) at the smooth points (at most 5 elements named), or why the check cannot tell;
    empty when it is."""
    smooth = points.smooth
    if smooth.size and smooth.mean() < MIN_SMOOTH:
        return [f"only {int(smooth.sum())} of {smooth.size} points are smooth at the step; expected at least "
                f"{MIN_SMOOTH:.0%} (a domain with fewer kinks)"]
    got = np.asarray(actual, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        bad = smooth & ~(np.abs(got - points.expected) <= points.tolerance)
    return [f"at {tuple(int(i) for i in index)}: {got[index]:.7g}, dy * f'(x) by central differences is "
            f"{points.expected[index]:.7g} (tolerance {points.tolerance[index]:.3g})"
            for index in list(zip(*np.nonzero(bad)))[:5]] + ([f"... {int(bad.sum())} elements in all"]
                                                             if bad.sum() > 5 else [])
