"""Faults of the batch-normalisation steps: the moving variance updated with the biased batch variance."""

from __future__ import annotations

from collections.abc import Callable


def biased_variance(_: Callable[[int], float]) -> Callable[[int], float]:
    """A variance correction of 1 (the biased variance kept) instead of n / (n - 1)."""

    def kept(count: int) -> float:
        return 1.0

    return kept
