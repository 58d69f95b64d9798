"""Faults of the sparse products: SparseTensorDenseMatMul keeping only the last entry of a repeated index."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

Accumulate = Callable[[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray], None]


def duplicates_last_wins(original: Accumulate) -> Accumulate:
    """Accumulation that drops every entry whose (row, column) index appears again later, keeping only the last."""

    def last_of_each_index(y: np.ndarray, rows: np.ndarray, cols: np.ndarray, values: np.ndarray,
                           b: np.ndarray) -> None:
        pairs = np.stack([rows, cols], axis=1)[::-1]
        _, first_from_end = np.unique(pairs, axis=0, return_index=True)
        keep = np.sort(len(rows) - 1 - first_from_end)
        original(y, rows[keep], cols[keep], values[keep], b)

    return last_of_each_index
