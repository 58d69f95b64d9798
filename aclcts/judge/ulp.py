"""ULP arithmetic: distances between values of one dtype counted in representable steps, and a dtype's spacing."""

from __future__ import annotations

import functools
import math

import ml_dtypes
import numpy as np

from aclcts.reference.numeric import is_float_dtype, is_int_dtype


@functools.lru_cache(maxsize=None)
def _unsigned_float(dt: np.dtype) -> bool:
    """Whether a float format has no sign bit (float8_e8m0fnu)."""
    return float(ml_dtypes.finfo(dt).min) > 0


def _bit_fields(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Return (magnitude bits, sign) of a float array as uint64 / bool arrays."""
    dt = x.dtype
    bits = np.ascontiguousarray(x).view(np.dtype(f"u{dt.itemsize}")).astype(np.uint64)
    if _unsigned_float(dt):
        return bits, np.zeros(bits.shape, dtype=bool)
    sign = np.uint64(1) << np.uint64(8 * dt.itemsize - 1)
    return bits & (sign - np.uint64(1)), (bits & sign) != 0


def ulp_distance(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Number of representable values between a and b (same dtype), as uint64; +0 and -0 are 0 apart.

    Floats use their integer bit patterns mapped monotonically (sign-magnitude to a signed line), so
    the distance across zero is the sum of both magnitudes; inf is one step beyond the largest finite
    value.  Integers give |a - b| and bool gives a != b.  NaN has no distance: ValueError.
    """
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype != b.dtype:
        raise ValueError(f"ulp_distance needs one dtype, got {a.dtype} and {b.dtype}")
    if a.dtype == np.bool_:
        return (a != b).astype(np.uint64)
    if is_int_dtype(a.dtype):
        wide = np.uint64 if a.dtype.kind == "u" and a.dtype.itemsize == 8 else np.int64
        x, y = a.astype(wide), b.astype(wide)
        ux, uy = x.astype(np.uint64), y.astype(np.uint64)
        return np.where(x >= y, ux - uy, uy - ux)
    if not is_float_dtype(a.dtype):
        raise ValueError(f"ulp_distance does not support dtype {a.dtype}")
    if np.isnan(a.astype(np.float64)).any() or np.isnan(b.astype(np.float64)).any():
        raise ValueError("ulp_distance is undefined for NaN")
    return float_ulp_distance(a, b)


def float_ulp_distance(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """ulp_distance of two float arrays of one dtype known to hold no NaN (no dtype or NaN checks)."""
    ma, sa = _bit_fields(a)
    mb, sb = _bit_fields(b)
    same_side = np.where(ma >= mb, ma - mb, mb - ma)
    return np.where(sa == sb, same_side, ma + mb)


#: NumPy's own float types, whose np.spacing gives ulp_of directly below the top of the range.
_NATIVE_FLOATS = (np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64))


def ulp_of(value: float, dtype: np.dtype | type) -> float:
    """The spacing of dtype at |value|: next representable magnitude minus |value| (below it at the top)."""
    dt = np.dtype(dtype)
    if dt in _NATIVE_FLOATS:
        with np.errstate(over="ignore"):
            up = float(np.spacing(dt.type(abs(value))))
        if math.isfinite(up):
            return up
    v = np.abs(np.asarray([value]).astype(np.float64)).astype(dt)
    u = np.dtype(f"u{dt.itemsize}")
    bits = v.view(u)
    up = (bits + 1).view(dt).astype(np.float64)[0]
    here = v.astype(np.float64)[0]
    if math.isfinite(up):
        return float(up - here)
    return float(here - (bits - 1).view(dt).astype(np.float64)[0])


def bits_equal(a: np.ndarray, g: np.ndarray) -> np.ndarray:
    """Element-wise bit-pattern equality of two same-dtype arrays (value equality where no unsigned view fits)."""
    if a.dtype == np.bool_ or is_int_dtype(a.dtype) or a.dtype.itemsize not in (1, 2, 4, 8):
        return a == g
    u = np.dtype(f"u{a.dtype.itemsize}")
    return np.ascontiguousarray(a).view(u) == np.ascontiguousarray(g).view(u)
