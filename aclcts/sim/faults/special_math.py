"""Faulty special-function numerics: BesselI1e losing the sign of x."""

from __future__ import annotations

from typing import Any

import numpy as np

from aclcts.sim.kernels.base import ComputeFn


def bessel_i1e_drops_sign(compute: ComputeFn) -> ComputeFn:
    """BesselI1e returning |I1e(x)|, as if the kernel's final multiplication by sign(x) were left out (I1e is odd)."""

    def faulty(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list) -> list[np.ndarray]:
        results = compute(inputs, attrs, outputs)
        return [np.abs(results[0]), *results[1:]]

    return faulty
