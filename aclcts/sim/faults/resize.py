"""Faults of the image resizes: half_pixel_centers ignored (the legacy top-left coordinate mapping used instead)."""

from __future__ import annotations

from typing import Any

import numpy as np

from aclcts.sim.kernels.base import ComputeFn

RESIZE_OPS = ("ResizeNearestNeighborV2", "ResizeBilinearV2")


def half_pixel_ignored(compute: ComputeFn) -> ComputeFn:
    """A resize that maps coordinates as if half_pixel_centers were false."""

    def faulty(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list) -> list[np.ndarray]:
        return compute(inputs, {**attrs, "half_pixel_centers": False}, outputs)

    return faulty
