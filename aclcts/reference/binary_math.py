"""Binary math references: Atan2, the division and remainder variants, SquaredDifference, Xlogy, Xdivy, MulNoNan.

Floats are computed in float64 and rounded once. Integers are computed exactly on Python ints (object arrays, so
no intermediate can overflow) from the written-out sign rules, then wrapped to the output type (two's complement):
INT_MIN // -1 therefore wraps to INT_MIN. Integer division by zero: FloorMod returns x1 (its prototype: "integer
division by zero on NPU returns x1"), DivNoNan 0 (its definition); the other prototypes leave it undefined (Mod and
TruncateMod: "x2 does not support 0"), and the suite states a rule it does not test (UNCONFIRMED on hardware): the
divisions saturate like a real quotient cast to the type (x/0 gives the type's max or min, 0/0 gives 0), the
remainders return x1 as FloorMod does.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from aclcts.reference import complex_math
from aclcts.reference.base import RefOp, define
from aclcts.reference.numeric import int_range, is_int_dtype, round_to, widen

def _sign(v: np.ndarray) -> np.ndarray:
    """-1, 0 or 1 for each Python int."""
    return np.array([(i > 0) - (i < 0) for i in v.reshape(-1)], dtype=object).reshape(v.shape)


def _truncated_quotient(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """|a| // |b| carrying the sign of a * b (C division), b != 0 assumed: Python ints."""
    return (abs(a) // abs(b)) * _sign(a) * _sign(b)


def _saturated(a: np.ndarray, out: np.dtype) -> np.ndarray:
    """What x / 0 gives for an integer type: max for x > 0, min for x < 0, 0 for 0 (the Cast rule of +-inf, NaN)."""
    lo, hi = int_range(out)
    return np.where(a > 0, hi, np.where(a < 0, lo, 0)).astype(object)


# --- integer forms (object arrays of Python ints, broadcast, divisor zero handled by the caller's mask) ---------

def int_div(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Div / TruncateDiv on integers: truncate toward zero."""
    return _truncated_quotient(a, b)


def int_floor_div(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """FloorDiv on integers: the truncated quotient, one lower when inexact and the signs differ."""
    q = _truncated_quotient(a, b)
    inexact = q * b != a
    differ = _sign(a) * _sign(b) < 0
    return q - (inexact & differ).astype(object)


def int_trunc_mod(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Mod / TruncateMod on integers: a - b * trunc(a / b), sign of a."""
    return a - b * _truncated_quotient(a, b)


def int_floor_mod(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """FloorMod on integers: the truncated remainder, plus b when it is nonzero and its sign differs from b's."""
    r = int_trunc_mod(a, b)
    return r + np.where(_sign(r) * _sign(b) < 0, b, 0)


# --- float forms (float64) --------------------------------------------------------------------------------------

def atan2(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Atan2: the angle of (x2, x1), C99 signs (atan2(+-0, -0) = +-pi, atan2(+-inf, +-inf) = +-pi/4 or 3pi/4)."""
    return np.arctan2(a, b)


def div(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Div: IEEE x1 / x2 (x/0 = +-inf, 0/0 = NaN); complex_math.div for complex."""
    return complex_math.div(a, b) if a.dtype.kind == "c" else a / b


def div_no_nan(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """DivNoNan: 0 where x2 == 0 (even for x1 NaN), else x1 / x2."""
    return np.where(b == 0, 0.0, a / np.where(b == 0, 1.0, b))


def _quotient(a: np.ndarray, b: np.ndarray, out: np.dtype) -> np.ndarray:
    """x1 / x2 as the op's formula takes it: rounded to float32 for outputs up to float32, float64 for float64.

    CANN documents FloorDiv as floor(cast(x1, float32) / cast(x2, float32)) (hicann/ops-math aclnnFloorDiv), as
    TensorFlow's floor(x / y) in the tensor's type: the rounded quotient is floored, so a quotient that underflows
    float32 floors to -0, not -1. TruncateDiv is taken the same way.
    """
    q = a / b
    return q if np.dtype(out) == np.float64 else q.astype(np.float32).astype(np.float64)


def floor_div(a: np.ndarray, b: np.ndarray, out: np.dtype) -> np.ndarray:
    """FloorDiv: floor of the quotient (`_quotient`)."""
    return np.floor(_quotient(a, b, out))


def truncate_div(a: np.ndarray, b: np.ndarray, out: np.dtype) -> np.ndarray:
    """TruncateDiv: trunc of the quotient (`_quotient`)."""
    return np.trunc(_quotient(a, b, out))


def trunc_mod(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Mod / TruncateMod: C fmod, written as sign(x1) * fmod(|x1|, |x2|) (exact; zero keeps x1's sign)."""
    return np.copysign(np.fmod(np.abs(a), np.abs(b)), a)


def floor_mod(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """FloorMod: the truncated remainder r, plus x2 when r != 0 and r, x2 differ in sign (TensorFlow's rule)."""
    r = trunc_mod(a, b)
    return np.where((r != 0) & (np.signbit(r) != np.signbit(b)), r + b, r)


def squared_difference(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """SquaredDifference: (x1 - x2) * (x1 - x2)."""
    d = a - b
    return d * d


def xlogy(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Xlogy: 0 where x1 == 0 (whatever x2 is, as the prototype says), else x1 * log(x2)."""
    return np.where(a == 0, 0.0, a * np.log(b))


def xdivy(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Xdivy: 0 where x1 == 0 (whatever x2 is), else x1 / x2."""
    return np.where(a == 0, 0.0, a / b)


def mul_no_nan(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """MulNoNan: 0 where x2 == 0 (whatever x1 is, NaN and inf included), else x1 * x2."""
    return np.where(b == 0, 0, a * b)


def _wrapped(v: np.ndarray, out: np.dtype) -> np.ndarray:
    """Python ints reduced modulo 2**bits into the output type's range."""
    lo, hi = int_range(out)
    span = hi - lo + 1
    return np.array([(int(i) - lo) % span + lo for i in v.reshape(-1)], dtype=out).reshape(v.shape)


def _compute(on_float: Callable[..., np.ndarray], on_int: Callable[..., np.ndarray] | None, by_zero: str,
             float_out: bool = False) -> Any:
    """A RefOp compute function: on_float in float64, or on_int on Python ints with the divisor-zero rule by_zero
    ('none': no division, 'dividend', 'zero' or 'saturate'); float_out passes the output dtype to on_float too."""
    def compute(xs: list[np.ndarray], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
        a, b = np.broadcast_arrays(widen(xs[0]), widen(xs[1]))
        if not is_int_dtype(a.dtype):
            return [round_to(on_float(a, b, out[0]) if float_out else on_float(a, b), out[0])]
        if on_int is None:
            raise ValueError(f"integer inputs ({xs[0].dtype}) are not in the prototype")
        a, b = a.astype(object), b.astype(object)
        if by_zero == "none":
            return [_wrapped(on_int(a, b), out[0])]
        zero = b == 0
        q = on_int(a, np.where(zero, 1, b).astype(object))
        fill = {"dividend": a, "zero": np.zeros_like(a), "saturate": _saturated(a, out[0])}[by_zero]
        return [_wrapped(np.where(zero, fill, q).astype(object), out[0])]
    return compute


def _int_squared_difference(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """SquaredDifference on Python ints (exact, wrapped afterwards)."""
    return (a - b) * (a - b)


def _broadcast(shapes: list[tuple[int, ...] | None], values: list[Any], attrs: dict[str, Any]) -> list[tuple[int, ...]]:
    """Output shape: the broadcast of x1 and x2."""
    return [tuple(np.broadcast_shapes(*[s for s in shapes if s is not None]))]


OPS: tuple[RefOp, ...] = (
    define("Atan2", _compute(atan2, None, "none"), _broadcast),
    define("Div", _compute(div, int_div, "saturate"), _broadcast),
    define("DivNoNan", _compute(div_no_nan, int_div, "zero"), _broadcast),
    define("FloorDiv", _compute(floor_div, int_floor_div, "saturate", True), _broadcast),
    define("FloorMod", _compute(floor_mod, int_floor_mod, "dividend"), _broadcast),
    define("Mod", _compute(trunc_mod, int_trunc_mod, "dividend"), _broadcast),
    define("TruncateDiv", _compute(truncate_div, int_div, "saturate", True), _broadcast),
    define("TruncateMod", _compute(trunc_mod, int_trunc_mod, "dividend"), _broadcast),
    define("SquaredDifference", _compute(squared_difference, _int_squared_difference, "none"), _broadcast),
    define("Xlogy", _compute(xlogy, None, "none"), _broadcast),
    define("Xdivy", _compute(xdivy, None, "none"), _broadcast),
    define("MulNoNan", _compute(mul_no_nan, mul_no_nan, "none"), _broadcast),
)
