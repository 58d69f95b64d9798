"""Faults of the optimizer updates: the step of var reading an accumulator's old value instead of its updated one."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np


def uses_old_moment(_: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    """The accumulator value a step of var reads: the one before this step's update (a stale read of the state)."""

    def stale(old: np.ndarray, new: np.ndarray) -> np.ndarray:
        return old

    return stale
