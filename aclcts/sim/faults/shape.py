"""Faults of the data-movement ops: TileD reading its multiples attribute last dim first."""

from __future__ import annotations

from typing import Any

import numpy as np

from aclcts.sim.kernels.base import ComputeFn


def multiples_reversed(compute: ComputeFn) -> ComputeFn:
    """TileD pairing multiples with x's dims from the other end (the list read back to front)."""

    def faulty(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list) -> list[np.ndarray]:
        if "multiples" in attrs:
            attrs = {**attrs, "multiples": list(reversed(attrs["multiples"]))}
        return compute(inputs, attrs, outputs)

    return faulty
