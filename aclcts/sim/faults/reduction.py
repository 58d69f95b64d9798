"""Faults of the scans and extreme-index ops: Cumsum/Cumprod ignoring `exclusive`, arg ops taking the last tie."""

from __future__ import annotations

from typing import Any

import numpy as np

from aclcts.sim.kernels.base import ComputeFn

SCAN_OPS = ("Cumsum", "Cumprod", "CumsumD", "CumprodD")
ARG_OPS = ("ArgMin", "ArgMaxD", "ArgMaxWithValue", "ArgMinWithValue")


def scan_ignores_exclusive(compute: ComputeFn) -> ComputeFn:
    """A scan that always includes the current element, as if `exclusive` were false."""

    def faulty(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list) -> list[np.ndarray]:
        return compute(inputs, {**attrs, "exclusive": False}, outputs)

    return faulty


def last_of_ties(compute: ComputeFn) -> ComputeFn:
    """An arg op that picks the last of equal extremes instead of the first (it scans the dimension backwards)."""

    def faulty(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list) -> list[np.ndarray]:
        x = np.asarray(inputs[0])
        given = attrs["dimension"] if "dimension" in attrs else np.asarray(inputs[1]).reshape(-1)[0]
        dim = int(given) % max(x.ndim, 1)
        results = compute([np.ascontiguousarray(np.flip(x, dim)), *inputs[1:]], attrs, outputs)
        index = np.asarray(results[0])
        return [(x.shape[dim] - 1 - index).astype(index.dtype), *results[1:]]

    return faulty
