"""The backward error of a linear solve, which judges a solve whose output is far from the reference only because its
matrix is ill-conditioned (docs/precision-policy.md#linear-solves-the-backward-error).

For each system and right-hand side j of A X = B the ratio is LAPACK's test ratio of its triangular solves (xTRT02):
||b_j - A x_j||_1 / (||A||_1 ||x_j||_1 eps), eps the unit roundoff of the output's (real) dtype, in float64 over the
inputs as given and the output as the device wrote it. A backward-stable solve keeps it of order one however badly
conditioned A is; LAPACK's test suite fails a ratio above 30 (its input files' THRESH).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from aclcts.core.prototypes import prototype
from aclcts.reference.linalg import SYSTEMS

#: The largest ratio a solve passes with: the threshold LAPACK's own test input files give its test ratios.
RESIDUAL_THRESHOLD = 30.0


def judged_by_residual(op_type: str) -> bool:
    """Whether the op's output is the solution of a linear system (aclcts.reference.linalg.SYSTEMS)."""
    return op_type in SYSTEMS


def backward_error(op_type: str, inputs: Sequence[np.ndarray], attrs: dict[str, Any], actual: np.ndarray) -> float:
    """The largest xTRT02 ratio over the systems and right-hand sides the output solves (inf where it is not finite)."""
    full = {**prototype(op_type).defaults(len(inputs)), **attrs}
    system, rhs = SYSTEMS[op_type](list(inputs), full)
    x = np.asarray(actual).astype(np.complex128 if np.iscomplexobj(actual) else np.float64)
    if not np.isfinite(x).all():
        return float("inf")
    eps = float(np.finfo(np.asarray(actual).real.dtype).eps) / 2
    residual = np.abs(rhs - system @ x).sum(axis=-2)
    scale = np.abs(system).sum(axis=-2).max(axis=-1)[..., None] * np.abs(x).sum(axis=-2) * eps
    with np.errstate(divide="ignore", invalid="ignore"):
        ratios = np.where(residual == 0, 0.0, residual / scale)
    return float(ratios.max(initial=0.0))
