"""Faults of the normalisations: LayerNorm computing the unbiased (n - 1) variance instead of the biased one."""

from __future__ import annotations

from collections.abc import Callable


def unbiased_variance(_: Callable[[int], int]) -> Callable[[int], int]:
    """A variance divisor of n - 1 (the sample variance) instead of n."""

    def sample(count: int) -> int:
        return max(count - 1, 1)

    return sample
