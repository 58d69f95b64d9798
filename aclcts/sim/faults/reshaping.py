"""Faults of the movement and shape ops: MirrorPad REFLECT repeating the border, StridedSlice ignoring end_mask."""

from __future__ import annotations

from typing import Any

import numpy as np

from aclcts.sim.kernels.base import ComputeFn


def mirror_pad_reflect_as_symmetric(compute: ComputeFn) -> ComputeFn:
    """MirrorPad in REFLECT mode padding as SYMMETRIC does: the border element is repeated in the padding."""

    def faulty(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list) -> list[np.ndarray]:
        mode = "SYMMETRIC" if attrs.get("mode") == "REFLECT" else attrs.get("mode")
        return compute(inputs, {**attrs, "mode": mode}, outputs)

    return faulty


def strided_slice_ignores_end_mask(compute: ComputeFn) -> ComputeFn:
    """StridedSlice reading `end` even where end_mask says to run to the end of the dim."""

    def faulty(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list) -> list[np.ndarray]:
        return compute(inputs, {**attrs, "end_mask": 0}, outputs)

    return faulty
