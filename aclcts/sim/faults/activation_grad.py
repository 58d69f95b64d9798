"""Faulty gradient numerics: a substitute for gradient kernels that returns the gradient with its sign flipped."""

from __future__ import annotations

from typing import Any

import numpy as np

from aclcts.sim.kernels.base import ComputeFn

#: The kernels the fault flips: the y-taking sigmoid and tanh gradients, where y*y - y for y - y*y is a one-token slip.
SIGN_FLIPPED_OPS = ("SigmoidGrad", "TanhGrad")


def sign_flipped(compute: ComputeFn) -> ComputeFn:
    """The kernel's result negated: -dy * f'(x) for dy * f'(x)."""

    def faulty(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list) -> list[np.ndarray]:
        results = compute(inputs, attrs, outputs)
        return [np.negative(results[0]), *results[1:]] if results else results

    return faulty
