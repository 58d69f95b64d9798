"""Faults of the const-folded twins of other families' ops: OneHotD with its on and off values swapped."""

from __future__ import annotations

from typing import Any

import numpy as np

from aclcts.sim.kernels.base import ComputeFn


def on_off_swapped(compute: ComputeFn) -> ComputeFn:
    """OneHotD binding its on-value and off-value inputs the wrong way round."""

    def faulty(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list) -> list[np.ndarray]:
        if len(inputs) == 3:
            inputs = [inputs[0], inputs[2], inputs[1]]
        return compute(inputs, attrs, outputs)

    return faulty
