"""Faulty binary math and bit kernels: FloorMod taking the dividend's sign (C fmod), RightShift shifting signed
integers logically, Lerp measuring its weight from the wrong end."""

from __future__ import annotations

from typing import Any

import numpy as np

from aclcts.sim.kernels.base import ComputeFn


def floor_mod_truncates(compute: ComputeFn) -> ComputeFn:
    """FloorMod whose remainder has the sign of x1 (C fmod, as Mod) instead of the sign of x2."""

    def faulty(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list) -> list[np.ndarray]:
        results = compute(inputs, attrs, outputs)
        x1, x2 = inputs[0], inputs[1]
        y = results[0]
        # a floor remainder r != 0 of the other sign than x1 is the truncated remainder plus x2: take x2 off again
        shifted = (y != 0) & (np.signbit(y) != np.signbit(np.broadcast_to(x1, y.shape))) & (np.broadcast_to(x2, y.shape) != 0)
        with np.errstate(all="ignore"):
            truncated = np.where(shifted, y - np.broadcast_to(x2, y.shape), y).astype(y.dtype)
        return [truncated, *results[1:]]

    return faulty


def right_shift_logical_for_signed(compute: ComputeFn) -> ComputeFn:
    """RightShift of a signed type shifting in zeros (the bits read as unsigned) instead of copies of the sign bit."""

    def faulty(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list) -> list[np.ndarray]:
        results = compute(inputs, attrs, outputs)
        x, count = inputs[0], inputs[1]
        if x is None or count is None or x.dtype.kind != "i":
            return results
        unsigned = np.dtype(f"u{x.dtype.itemsize}")
        counts = np.clip(count, 0, 8 * x.dtype.itemsize - 1).astype(unsigned)
        logical = np.right_shift(x.view(unsigned), counts).view(x.dtype)
        return [np.ascontiguousarray(np.broadcast_to(logical, results[0].shape)), *results[1:]]

    return faulty


def lerp_weight_on_wrong_end(compute: ComputeFn) -> ComputeFn:
    """Lerp computing start + (1 - weight) (end - start): weight 0 gives end and 1 gives start, the ends swapped."""

    def faulty(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list) -> list[np.ndarray]:
        results = compute(inputs, attrs, outputs)
        start, end, weight = (np.asarray(a, dtype=np.float32) for a in inputs[:3])
        with np.errstate(all="ignore"):
            swapped = start + (np.float32(1) - weight) * (end - start)
        return [np.broadcast_to(swapped, results[0].shape).astype(results[0].dtype), *results[1:]]

    return faulty

