"""Faults of the loss kernels: MseLossGrad taking the gradient of the wrong sign (label - predict)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np


def flipped_residual(_: Callable[..., np.ndarray]) -> Callable[..., np.ndarray]:
    """label - predict instead of predict - label: every gradient of the wrong sign."""

    def flipped(predict: np.ndarray, label: np.ndarray) -> np.ndarray:
        return label - predict

    return flipped
