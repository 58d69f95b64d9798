"""Faulty device numerics that only the stored golden edge cases reach: Cast at integer boundaries and on
subnormals, bfloat16 subnormals flushed (and, tolerable, one ulp off), a log-softmax without its max subtraction.
Kernel registry substitutes."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import ml_dtypes
import numpy as np

from aclcts.sim.kernels.base import ComputeFn

Convert = Callable[[np.ndarray, np.dtype], np.ndarray | None]
#: The elementwise arithmetic kernels whose bfloat16 values subnormals_flushed_bfloat16 flushes.
BFLOAT16_ARITHMETIC = ("Add", "Sub", "Mul", "RealDiv", "Neg", "Abs", "Maximum", "Minimum", "Square", "AddN")
_BF16 = np.dtype(ml_dtypes.bfloat16)
_FLOATS = tuple(np.dtype(t) for t in (np.float16, np.float32, np.float64)) + (_BF16,)


def _cast_with(rule: Convert) -> Callable[[ComputeFn], ComputeFn]:
    """A Cast whose result is rule(x, output dtype) where rule gives an array, else the real Cast's."""

    def wrap(compute: ComputeFn) -> ComputeFn:
        def faulty(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list) -> list[np.ndarray]:
            results = compute(inputs, attrs, outputs)
            x = inputs[0] if inputs else None
            if x is None or not results:
                return results
            with np.errstate(all="ignore"):
                y = rule(np.asarray(x), results[0].dtype)
            return results if y is None else [y.reshape(results[0].shape), *results[1:]]

        return faulty

    return wrap


def _wrapped_float_to_int(x: np.ndarray, target: np.dtype) -> np.ndarray | None:
    """Float -> integer through int64 and a two's complement wrap: out-of-range values wrap instead of saturating."""
    if x.dtype not in _FLOATS or target.kind not in "iu":
        return None
    return np.trunc(x.astype(np.float64)).astype(np.int64).astype(target)


def _saturated_int_to_int(x: np.ndarray, target: np.dtype) -> np.ndarray | None:
    """Integer -> narrower integer clamped to the target's range instead of keeping the low bits."""
    if x.dtype.kind not in "iu" or target.kind not in "iu":
        return None
    info = np.iinfo(target)
    wide = x.astype(np.float64) if x.dtype == np.uint64 else x.astype(np.int64)
    return np.clip(wide, info.min, info.max).astype(target)


def flushed(x: np.ndarray, dtypes: tuple[np.dtype, ...]) -> np.ndarray:
    """x with its subnormals replaced by zeros of the same sign when its dtype is one of dtypes."""
    if x.dtype not in dtypes:
        return x
    smallest = float(ml_dtypes.finfo(x.dtype).smallest_normal)
    wide = x.astype(np.float64)
    tiny = (wide != 0) & (np.abs(wide) < smallest)
    if not tiny.any():
        return x
    result = x.copy()
    result[tiny] = np.where(np.signbit(wide[tiny]), -0.0, 0.0).astype(x.dtype)
    return result


def _flushed_float_cast(x: np.ndarray, target: np.dtype) -> np.ndarray | None:
    """Float -> float conversion that reads subnormal inputs as zero and writes subnormal results as zero."""
    if x.dtype not in _FLOATS or target not in _FLOATS:
        return None
    return flushed(flushed(x, _FLOATS).astype(np.float64).astype(target), _FLOATS)


#: Cast float -> integer wraps modulo 2^bits where it should saturate.
cast_float_to_int_wraps = _cast_with(_wrapped_float_to_int)
#: Cast integer -> integer saturates where it should keep the low bits.
cast_int_to_int_saturates = _cast_with(_saturated_int_to_int)
#: Cast float -> float flushes subnormal inputs and results to zero.
cast_flushes_subnormals = _cast_with(_flushed_float_cast)


def bfloat16_flushed(compute: ComputeFn) -> ComputeFn:
    """A kernel that reads bfloat16 subnormal inputs as zero and writes bfloat16 subnormal results as zero."""

    def faulty(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list) -> list[np.ndarray]:
        results = compute([None if x is None else flushed(np.asarray(x), (_BF16,)) for x in inputs], attrs, outputs)
        return [flushed(y, (_BF16,)) for y in results]

    return faulty


def _subnormals_one_ulp_out(y: np.ndarray) -> np.ndarray:
    """y with each bfloat16 subnormal moved one ulp further from zero (other dtypes and values unchanged)."""
    if y.dtype != _BF16:
        return y
    wide = y.astype(np.float64)
    tiny = (wide != 0) & (np.abs(wide) < float(ml_dtypes.finfo(_BF16).smallest_normal))
    result = y.copy()
    result.view(np.uint16)[tiny] += 1  # the magnitude bits of a subnormal: one more is one ulp further out
    return result


def bfloat16_subnormals_one_ulp(compute: ComputeFn) -> ComputeFn:
    """A kernel whose bfloat16 subnormal results are one ulp further from zero (the last bit rounded outwards)."""

    def deviated(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list) -> list[np.ndarray]:
        return [_subnormals_one_ulp_out(y) for y in compute(inputs, attrs, outputs)]

    return deviated


def log_softmax_without_max(compute: ComputeFn) -> ComputeFn:
    """LogSoftmaxV2 as x - log(sum(exp(x))) in float32, without subtracting the maximum first."""

    def faulty(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list) -> list[np.ndarray]:
        results = compute(inputs, attrs, outputs)
        x = inputs[0] if inputs else None
        if x is None or not results or x.size == 0:
            return results
        axes = tuple(sorted({a % x.ndim for a in attrs.get("axes", [-1])}))
        with np.errstate(all="ignore"):
            wide = x.astype(np.float32)
            y = wide - np.log(np.sum(np.exp(wide), axis=axes, keepdims=True, dtype=np.float32))
            return [y.astype(results[0].dtype), *results[1:]]

    return faulty
