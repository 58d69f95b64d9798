"""Faults of the assign ops: AssignSub subtracting the tensor from the value (operands swapped)."""

from __future__ import annotations

from typing import Any

import numpy as np

from aclcts.sim.kernels.base import ComputeFn


def operands_swapped(compute: ComputeFn) -> ComputeFn:
    """A two-input kernel given its inputs in the other order: AssignSub computes value - var instead of var - value."""

    def faulty(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list) -> list[np.ndarray]:
        return compute([inputs[1], inputs[0]] + list(inputs[2:]), attrs, outputs)

    return faulty
