"""Faulty sequence kernels: a step mask one step too long."""

from __future__ import annotations

from typing import Any

import numpy as np

from aclcts.sim.kernels.base import ComputeFn


def mask_includes_length(compute: ComputeFn) -> ComputeFn:
    """RnnGenMask marks step t valid while t <= its length (the length itself counted as a step)."""

    def faulty(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list) -> list[np.ndarray]:
        return compute([np.asarray(inputs[0]) + np.int32(1), *inputs[1:]], attrs, outputs)

    return faulty
