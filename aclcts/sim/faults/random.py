"""Faulty random kernels: a generator that ignores its key, a normal sample with a shifted mean, integers that
include their exclusive upper bound, an exponential rate read as a scale."""

from __future__ import annotations

from typing import Any

import numpy as np

from aclcts.sim.kernels.base import ComputeFn

#: The key position of a stateless random op's inputs, and the shift of the faulty normal mean (in standard
#: deviations: the two-sample test of 65,536 values sees a tenth of one at alpha 1e-6).
KEY = 1
MEAN_SHIFT = 0.1
#: The ops whose key the first fault ignores.
STATELESS_OPS = ["StatelessRandomUniformV2", "StatelessRandomNormalV2", "StatelessTruncatedNormalV2"]


def ignores_key(compute: ComputeFn) -> ComputeFn:
    """The op seeded from its counter only: every key gives the values of key 0."""

    def faulty(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list) -> list[np.ndarray]:
        seeded = list(inputs)
        if len(seeded) > KEY and seeded[KEY] is not None:
            seeded[KEY] = np.zeros_like(seeded[KEY])
        return compute(seeded, attrs, outputs)

    return faulty


def mean_shifted(compute: ComputeFn) -> ComputeFn:
    """The op's values moved by MEAN_SHIFT (a bias left in the Box-Muller transform)."""

    def faulty(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list) -> list[np.ndarray]:
        results = compute(inputs, attrs, outputs)
        return [(results[0].astype(np.float64) + MEAN_SHIFT).astype(results[0].dtype), *results[1:]]

    return faulty


#: The position of StatelessRandomUniformIntV2's maxval input.
MAXVAL = 5


def maxval_included(compute: ComputeFn) -> ComputeFn:
    """StatelessRandomUniformIntV2 draws from [minval, maxval] (the exclusive bound read as inclusive)."""

    def faulty(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list) -> list[np.ndarray]:
        widened = list(inputs)
        widened[MAXVAL] = np.asarray(inputs[MAXVAL]) + np.asarray(inputs[MAXVAL]).dtype.type(1)
        return compute(widened, attrs, outputs)

    return faulty


def rate_as_scale(compute: ComputeFn) -> ComputeFn:
    """Exponential reads its rate lambda as the scale 1 / lambda (the mean lambda instead of 1 / lambda)."""

    def faulty(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list) -> list[np.ndarray]:
        return compute(inputs, {**attrs, "lambda": 1.0 / float(attrs.get("lambda", 1.0))}, outputs)

    return faulty
