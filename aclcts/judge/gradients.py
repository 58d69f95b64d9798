"""The second oracle of a gradient op: dy times the derivative of its forward op's reference, by central differences.

A gradient op whose record names its forward op (Prototype.gradient_of) is run at points x drawn from the record's
domain: its inputs are x, y = the forward reference at x, and dy, each in the case's dtype, placed where gradient_of
says (a forward op of several inputs: each drawn, one output per input). Its output must equal dy * f'(x) with f'
taken by central differences of the forward reference in float64
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
    """The inputs of one gradient-op execution and what its outputs must be (one entry per judged output)."""

    inputs: list[np.ndarray]
    expected: list[np.ndarray]
    tolerance: list[np.ndarray]
    smooth: list[np.ndarray]


def _forward(record: Prototype, attrs: dict[str, Any]) -> Any:
    """The forward op's reference as a float64 function of its inputs, given the gradient op's attributes (its
    record's defaults for those not given)."""
    gradient_of = record.gradient_of
    assert gradient_of is not None, f"{record.op_type} names no forward op"
    ref = reference(gradient_of.forward)
    given = {**record.defaults(), **attrs}
    forward_attrs = {name: given[name] for name in gradient_of.attrs}
    return lambda *xs: ref.compute(list(xs), forward_attrs, [np.dtype(np.float64)])[0]


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


def _tolerance(dy: np.ndarray, slope: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """EPSILONS of the dtype times |dy| times the largest |f'| of the tensor (at least 1)."""
    scale = np.abs(dy) * max(float(np.max(np.abs(slope), initial=0.0)), 1.0)
    return EPSILONS * float(np.finfo(dtype).eps) * scale


def _with_respect_to(forward: Any, wide: list[np.ndarray], k: int, dy: np.ndarray,
                     dtype: np.dtype) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The gradient of sum(dy * f) with respect to forward input k, its tolerance and which elements are smooth: all
    elements at once for an input of the output's shape, else one element at a time (its partials summed over the
    output elements it reaches)."""
    def moved(value: np.ndarray, at: Any = None) -> Any:
        def f(t: np.ndarray) -> np.ndarray:
            args = list(wide)
            if at is None:
                args[k] = t
            else:
                args[k] = wide[k].copy()
                args[k][at] = t[0]
            return forward(*args)
        return f

    if wide[k].shape == dy.shape:
        slope, error = derivative(moved(wide[k]), wide[k])
        tolerance = _tolerance(dy, slope, dtype)
        return dy * slope, tolerance, error * np.abs(dy) <= tolerance / 4.0
    expected, tolerance, smooth = (np.zeros(wide[k].shape), np.zeros(wide[k].shape), np.zeros(wide[k].shape, bool))
    for at in np.ndindex(*wide[k].shape):
        slope, error = derivative(moved(wide[k], at), wide[k][at].reshape(1))
        expected[at] = float(np.sum(dy * slope))
        tolerance[at] = float(np.sum(_tolerance(dy, slope, dtype)))
        smooth[at] = float(np.sum(error * np.abs(dy))) <= tolerance[at] / 4.0
    return expected, tolerance, smooth


def gradient_points(record: Prototype, attrs: dict[str, Any], shape: tuple[int, ...], dtype: np.dtype,
                    seed: int, shapes: dict[str, tuple[int, ...]] | None = None) -> GradientPoints:
    """The gradient op's inputs at points drawn from its record's domain, and dy * f'(x) with its tolerance, for each
    input the forward op is differentiated by; shape is dy's, shapes those of the gradient op's inputs that differ
    (a forward input of several, e.g. PRelu's weight)."""
    gradient_of = record.gradient_of
    assert gradient_of is not None, f"{record.op_type} names no forward op"
    rng = np.random.default_rng(seed)
    low, high = gradient_of.domain
    names = gradient_of.wrt or (gradient_of.x,)
    xs = [rng.uniform(low, high, (shapes or {}).get(name, shape)).astype(dtype) for name in names]
    dy = rng.uniform(-2.0, 2.0, shape).astype(dtype)
    forward = _forward(record, attrs)
    wide = [x.astype(np.float64) for x in xs]
    judged = [_with_respect_to(forward, wide, k, dy.astype(np.float64), dtype) for k in range(len(names))]
    given = {**dict(zip(names, xs)), gradient_of.dy: dy}
    if gradient_of.y:
        given[gradient_of.y] = forward(*wide).astype(dtype)
    inputs = [given[name] for name in record.input_names()]
    return GradientPoints(inputs, *(list(column) for column in zip(*judged)))


def mismatches(points: GradientPoints, actual: np.ndarray | list[np.ndarray]) -> list[str]:
    """Why the outputs are not dy * f'(x) at the smooth points (at most 5 elements named per output), or why the check
    cannot tell; empty when they are. actual: the one judged output, or one per judged output."""
    outputs = [actual] if isinstance(actual, np.ndarray) else list(actual)
    found = []
    for k, (expected, tolerance, smooth, got) in enumerate(zip(points.expected, points.tolerance, points.smooth,
                                                                outputs)):
        label = f"output {k}: " if len(points.expected) > 1 else ""
        found += [label + line for line in _mismatches(expected, tolerance, smooth, got)]
    return found


def _mismatches(expected: np.ndarray, tolerance: np.ndarray, smooth: np.ndarray, actual: np.ndarray) -> list[str]:
    """Why one output is not the expected gradient at its smooth points, or why the check cannot tell."""
    if smooth.size and smooth.mean() < MIN_SMOOTH:
        return [f"only {int(smooth.sum())} of {smooth.size} points are smooth at the step; expected at least "
                f"{MIN_SMOOTH:.0%} (a domain with fewer kinks)"]
    got = np.asarray(actual, dtype=np.float64).reshape(expected.shape)
    with np.errstate(invalid="ignore"):
        bad = smooth & ~(np.abs(got - expected) <= tolerance)
    return [f"at {tuple(int(i) for i in index)}: {got[index]:.7g}, dy * f'(x) by central differences is "
            f"{expected[index]:.7g} (tolerance {tolerance[index]:.3g})"
            for index in list(zip(*np.nonzero(bad)))[:5]] + ([f"... {int(bad.sum())} elements in all"]
                                                             if bad.sum() > 5 else [])
