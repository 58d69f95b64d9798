"""Faults of the scatter and sort ops: duplicate indices applied only once (the last or the first), Sort giving ties
reversed."""

from __future__ import annotations

from typing import Any

import numpy as np

from aclcts.sim.kernels.base import ComputeFn

def _one_of_each(ids: np.ndarray, last: bool) -> np.ndarray:
    """Positions of the last (or first) occurrence of every distinct value of a 1-D array, in position order."""
    if not last:
        return np.sort(np.unique(ids, return_index=True)[1])
    _, first_from_end = np.unique(ids[::-1], return_index=True)
    return np.sort(ids.size - 1 - first_from_end)


def one_duplicate_only(updates_at: int, last: bool = True) -> Any:
    """A wrapper of a scatter (indices at input 1, updates at input updates_at: ScatterAdd, ScatterMax ...) or an
    unsorted segment reduction (segment ids at input 1, values at input 0) keeping only the last (or, with last
    false, the first) update of an index given more than once (parallel writes racing instead of combining)."""

    def wrap(compute: ComputeFn) -> ComputeFn:
        def faulty(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list) -> list[np.ndarray]:
            ids, updates = np.asarray(inputs[1]), np.asarray(inputs[updates_at])
            if ids.ndim == 0:
                return compute(inputs, attrs, outputs)
            keep = _one_of_each(ids.reshape(-1), last)
            changed = list(inputs)
            changed[1] = ids.reshape(-1)[keep]
            changed[updates_at] = updates.reshape((-1,) + updates.shape[ids.ndim:])[keep]
            return compute(changed, attrs, outputs)

        return faulty

    return wrap


def sort_ties_reversed(compute: ComputeFn) -> ComputeFn:
    """Sort that puts equal values in reverse order of position (an unstable sort), even with stable = true."""

    def faulty(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list) -> list[np.ndarray]:
        x = np.asarray(inputs[0])
        if x.ndim == 0:
            return compute(inputs, attrs, outputs)
        axis = int(attrs.get("axis", -1)) % x.ndim
        values, order = compute([np.ascontiguousarray(np.flip(x, axis))], attrs, outputs)
        return [values, (x.shape[axis] - 1 - np.asarray(order)).astype(np.asarray(order).dtype)]

    return faulty
