"""Faults of the dropout family: DropOutDoMask reading each mask byte's bits from the most significant end."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

MaskBits = Callable[[np.ndarray, int], np.ndarray]


def bit_order_reversed(original: MaskBits) -> MaskBits:
    """Mask bits taken most significant first within each byte (bit 7 of byte 0 for element 0)."""

    def highest_bit_first(mask: np.ndarray, count: int) -> np.ndarray:
        return np.unpackbits(mask.reshape(-1), bitorder="big")[:count].astype(bool)

    return highest_bit_first
