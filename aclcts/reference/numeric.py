"""Dtype classification, the wide compute types of the reference, and the one final rounding to an output dtype.

Rounding rules of `round_to` (applied once, at the end of every reference computation):

* to a floating type (fp16, bf16, fp32, fp64, float8 ...): IEEE round-to-nearest-even straight from the
  float64 value.  NumPy rounds float64 to its native types directly.  For bf16 and float8 the float64 value
  is first rounded to odd in float32 (truncated, last bit set when inexact), then rounded to nearest even by
  ml_dtypes' float32 cast: with two bits to spare that is the single correct rounding, whatever ml_dtypes does
  with float64 itself (before 0.7 it rounds through float32 twice).  Overflow follows the target type: inf
  where it has one, NaN for float8_e4m3fn
  (which has no inf).  A device running in saturation mode would clamp instead; that mode is not modelled.
  Complex values going to a real type keep their real part.
* to an integer type from an integer value: two's-complement wrap-around (the value modulo 2**bits),
  which is what integer arithmetic units do.
* to an integer type from a floating value (the CANN Cast rule): truncate toward zero, NaN gives 0, values
  beyond the type's range saturate to its minimum or maximum (so +-inf give max/min).  Sources: Ascend C
  `Cast` ("overflow saturates by default") and `__float2int_rz` (CAST_TRUNC; NaN -> 0, inf -> INT32_MAX,
  -inf -> INT32_MIN) in the CANN 9.0.0 Ascend C API reference.  That the IR operator Cast uses the truncating
  mode for every float->int pair is UNCONFIRMED.
* to bool: any nonzero value (NaN included) is True.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np

_ML_FLOAT_NAMES = (
    "bfloat16", "float4_e2m1fn", "float6_e2m3fn", "float6_e3m2fn", "float8_e3m4", "float8_e4m3",
    "float8_e4m3b11fnuz", "float8_e4m3fn", "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz",
    "float8_e5m3fnu", "float8_e8m0fnu",
)
_ML_INT_NAMES = ("int1", "int2", "int4", "uint1", "uint2", "uint4")

ML_FLOAT_DTYPES = frozenset(np.dtype(getattr(ml_dtypes, n)) for n in _ML_FLOAT_NAMES if hasattr(ml_dtypes, n))
ML_INT_DTYPES = frozenset(np.dtype(getattr(ml_dtypes, n)) for n in _ML_INT_NAMES if hasattr(ml_dtypes, n))


def is_float_dtype(dtype: np.dtype | type) -> bool:
    """Whether dtype is a real floating type (NumPy's or one of ml_dtypes' bf16/float8/...)."""
    dt = np.dtype(dtype)
    return dt.kind == "f" or dt in ML_FLOAT_DTYPES


def is_int_dtype(dtype: np.dtype | type) -> bool:
    """Whether dtype is an integer type (bool excluded)."""
    dt = np.dtype(dtype)
    return dt.kind in "iu" or dt in ML_INT_DTYPES


def is_complex_dtype(dtype: np.dtype | type) -> bool:
    """Whether dtype is a complex type."""
    return np.dtype(dtype).kind == "c"


def widen(x: np.ndarray) -> np.ndarray:
    """Return x in its compute type: float64, int64, uint64, bool or complex128."""
    x = np.asarray(x)
    dt = x.dtype
    if dt == np.bool_:
        return x
    if is_complex_dtype(dt):
        return x.astype(np.complex128)
    if is_float_dtype(dt):
        return x.astype(np.float64)
    if dt == np.uint64:
        return x
    if is_int_dtype(dt):
        return x.astype(np.int64)
    raise ValueError(f"no reference compute type for dtype {dt}")


def int_range(dtype: np.dtype | type) -> tuple[int, int]:
    """Return (min, max) of an integer dtype, ml_dtypes' narrow integers included."""
    dt = np.dtype(dtype)
    info = ml_dtypes.iinfo(dt) if dt in ML_INT_DTYPES else np.iinfo(dt)
    return int(info.min), int(info.max)


def float_to_int(x: np.ndarray, dtype: np.dtype | type) -> np.ndarray:
    """Convert float values to an integer dtype by the Cast rule: truncate, NaN -> 0, saturate."""
    dt = np.dtype(dtype)
    lo, hi = int_range(dt)
    t = np.trunc(np.asarray(x, dtype=np.float64))
    too_high = t >= float(hi)
    too_low = t <= float(lo)
    wide = np.uint64 if dt == np.uint64 else np.int64
    out = np.where(np.isnan(t) | too_high | too_low, 0.0, t).astype(wide)
    out = np.where(too_high, wide(hi), np.where(too_low, wide(lo), out))
    return out.astype(dt)


def float32_round_to_odd(x: np.ndarray) -> np.ndarray:
    """float64 values in float32 rounded to odd: toward zero, with the last significand bit set when inexact."""
    nearest = x.astype(np.float32)
    back = nearest.astype(np.float64)
    inexact = (back != x) & ~np.isnan(x)
    bits = nearest.view(np.uint32).copy()
    bits[inexact & (np.abs(back) > np.abs(x))] -= 1  # rounded away from zero: one step back toward it
    bits[inexact] |= 1
    return bits.view(np.float32)


def round_to(x: np.ndarray, dtype: np.dtype | type) -> np.ndarray:
    """Round a compute-type result once to dtype, by the rules in this module's docstring."""
    x = np.asarray(x)
    dt = np.dtype(dtype)
    if x.dtype == dt:
        return x.copy()
    with np.errstate(all="ignore"):
        if dt == np.bool_:
            return x != 0
        if is_complex_dtype(dt):
            return x.astype(dt)
        if is_complex_dtype(x.dtype):
            x = x.real
        if is_float_dtype(dt):
            if dt in ML_FLOAT_DTYPES:
                return float32_round_to_odd(x.astype(np.float64)).astype(dt)
            return x.astype(dt)
        if is_int_dtype(dt):
            if is_float_dtype(x.dtype):
                return float_to_int(x, dt)
            return x.astype(dt)
    raise ValueError(f"cannot round reference values to dtype {dt}")
