"""Faults of the matrix-structure ops: MatrixBandPart reading its two band widths the wrong way round."""

from __future__ import annotations

from typing import Any

import numpy as np

from aclcts.sim.kernels.base import ComputeFn


def band_widths_swapped(compute: ComputeFn) -> ComputeFn:
    """MatrixBandPart binding its lower and upper band widths the wrong way round."""

    def faulty(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list) -> list[np.ndarray]:
        if len(inputs) == 3:
            inputs = [inputs[0], inputs[2], inputs[1]]
        return compute(inputs, attrs, outputs)

    return faulty
