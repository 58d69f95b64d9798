"""Faulty linear algebra: MatrixDeterminant losing the determinant's sign."""

from __future__ import annotations

from typing import Any

import numpy as np

from aclcts.sim.kernels.base import ComputeFn


def determinant_sign_dropped(compute: ComputeFn) -> ComputeFn:
    """MatrixDeterminant returning |det(x)|, as a kernel that multiplies U's diagonal but neither counts its row swaps
    nor keeps the pivots' signs would (for a complex determinant, its modulus)."""

    def faulty(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list) -> list[np.ndarray]:
        results = compute(inputs, attrs, outputs)
        return [np.abs(results[0]).astype(results[0].dtype), *results[1:]]

    return faulty
