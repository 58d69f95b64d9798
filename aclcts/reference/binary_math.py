"""Binary math references: Atan2, the division and remainder variants, SquaredDifference, Xlogy, Xdivy, MulNoNan,
and the multi-input arithmetic of CANN's elewise_calculation_ops.h: Lerp, Xlog1py, Addcdiv, Addcmul, AxpyV2, IsClose,
ApproximateEqual, MaskedScale, FusedMulAddN (each as its REG_OP comment and the framework op it mirrors define it;
float attributes taken as the float32 the op receives; integers exact on int64/Python ints, wrapped once).

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
from aclcts.reference.base import InputError, RefOp, define
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
    return complex_math.div(a, b) if np.iscomplexobj(a) else a / b


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


def lerp(start: np.ndarray, end: np.ndarray, weight: np.ndarray) -> np.ndarray:
    """Lerp: start + weight (end - start), PyTorch's lerp."""
    return start + weight * (end - start)


def xlog1py(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Xlog1py: x log1p(y), and 0 wherever x == 0 (whatever y is), TensorFlow's Xlog1py."""
    return np.where(x == 0, 0.0, x * np.log1p(y))


def _f32(value: Any) -> float:
    """A REG_OP Float attribute's value as the operator receives it: the nearest float32."""
    return float(np.float32(value))


def _wide(xs: list[np.ndarray]) -> list[np.ndarray]:
    """The inputs in their wide compute types; integers as Python ints, so that no intermediate overflows."""
    return [widen(x).astype(object) if is_int_dtype(x.dtype) else widen(x) for x in xs]


def _elementwise(fn: Callable[..., np.ndarray]) -> Callable[..., list[np.ndarray]]:
    """A compute function: fn of the widened inputs, broadcast, rounded (integers wrapped) once to the output."""
    def compute(xs: list[np.ndarray], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
        result = fn(*_wide(xs))
        return [_wrapped(result, out[0]) if is_int_dtype(out[0]) else round_to(np.asarray(result, dtype=np.float64), out[0])]
    return compute


def _addcdiv_compute(xs: list[np.ndarray], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    """Addcdiv with value taken in the other inputs' type: the output has that type, and CANN's addcdiv.py casts
    value to it first (how a value of another type enters is not documented otherwise; UNCONFIRMED on hardware)."""
    return _elementwise(_addcdiv)(xs[:3] + [round_to(widen(xs[3]), xs[0].dtype)], attrs, out)


def _addcdiv(data: np.ndarray, x1: np.ndarray, x2: np.ndarray, value: np.ndarray) -> np.ndarray:
    """Addcdiv: the data input plus value x1 / x2 (floats; an integer quotient is truncated as C divides)."""
    if x1.dtype == object:
        return data + value * _truncated_quotient(x1, np.where(x2 == 0, 1, x2).astype(object))
    return data + value * (x1 / x2)


def _is_close(xs: list[np.ndarray], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    """IsClose: |x1 - x2| <= atol + rtol |x2|; two NaNs close only with equal_nan."""
    x1, x2 = (widen(x).astype(np.float64) for x in xs[:2])
    close = np.abs(x1 - x2) <= _f32(attrs["atol"]) + _f32(attrs["rtol"]) * np.abs(x2)
    if attrs["equal_nan"]:
        close = close | (np.isnan(x1) & np.isnan(x2))
    return [close]


def _approximate_equal(xs: list[np.ndarray], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    """ApproximateEqual: |x1 - x2| < tolerance (strictly)."""
    x1, x2 = (widen(x) for x in xs[:2])
    return [np.abs(x1 - x2) < _f32(attrs["tolerance"])]


def _masked_scale(xs: list[np.ndarray], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    """MaskedScale: x * mask * value."""
    x, mask = (widen(x).astype(np.float64) for x in xs[:2])
    if x.shape != mask.shape:
        raise InputError((1, 0), lambda mask_name, x_name: f"input {mask_name!r} of shape {list(mask.shape)} must "
                                                          f"have {x_name}'s shape {list(x.shape)}")
    return [round_to(x * mask * _f32(attrs["value"]), out[0])]


def _one_value(index: int) -> Callable[..., list[tuple[int, ...]]]:
    """Output shape of an op whose input index is one value broadcast: the broadcast of the other inputs."""
    def shape(shapes: list[tuple[int, ...] | None], values: list[Any], attrs: dict[str, Any]) -> list[tuple[int, ...]]:
        if int(np.prod(shapes[index], dtype=np.int64)) != 1:
            raise InputError(index, lambda name: f"input {name!r} must hold one value, got shape {list(shapes[index])}")
        return [tuple(np.broadcast_shapes(*[s for i, s in enumerate(shapes) if s is not None and i != index]))]
    return shape


def _dot(xs: list[np.ndarray], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    """Dot: sum_i x[i] y[i] of two 1-D tensors of one length, as a [1] tensor (integers exact, wrapped once)."""
    x, y = _wide(xs[:2])
    if x.ndim != 1 or x.shape != y.shape:
        raise InputError((0, 1), lambda x_name, y_name: f"inputs {x_name!r} and {y_name!r} must be 1-D of one length, "
                                                        f"got shapes {list(x.shape)} and {list(y.shape)}")
    total = np.array([sum((x * y).tolist(), 0)], dtype=x.dtype)
    return [_wrapped(total, out[0]) if is_int_dtype(out[0]) else round_to(total.astype(np.float64), out[0])]


def _dot_shape(shapes: list[tuple[int, ...] | None], values: list[Any], attrs: dict[str, Any]) -> list[tuple[int, ...]]:
    """Dot's output shape: [1]."""
    return [(1,)]


def _ger(xs: list[np.ndarray], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    """Ger: the outer product x1[i] x2[j]."""
    return [round_to(np.multiply.outer(widen(xs[0]), widen(xs[1])), out[0])]


def _ger_shape(shapes: list[tuple[int, ...] | None], values: list[Any], attrs: dict[str, Any]) -> list[tuple[int, ...]]:
    """Ger's output shape: [len(x1), len(x2)] of two 1-D inputs."""
    if len(shapes[0]) != 1 or len(shapes[1]) != 1:
        raise InputError((0, 1), lambda a, b: f"inputs {a!r} and {b!r} must be 1-D, got shapes {list(shapes[0])} and "
                                              f"{list(shapes[1])}")
    return [(shapes[0][0], shapes[1][0])]


def _cross_dim(shape: tuple[int, ...], dim: int) -> int:
    """Cross's dim as an index: -65530 stands for the first dim of size 3 (PyTorch's cross without dim); any other
    value must index a dim of size 3."""
    if dim == -65530:
        dim = next((i for i, d in enumerate(shape) if d == 3), len(shape))
    elif -len(shape) <= dim < 0:
        dim += len(shape)
    if not 0 <= dim < len(shape) or shape[dim] != 3:
        raise InputError(0, lambda name: f"attribute dim: input {name!r} of shape {list(shape)} has no dim of size 3 "
                                         "there")
    return dim


def _cross(xs: list[np.ndarray], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    """Cross: (a1 b2 - a2 b1, a2 b0 - a0 b2, a0 b1 - a1 b0) along dim, written out by components."""
    a, b = _wide(xs[:2])
    if a.shape != b.shape:
        raise InputError((0, 1), lambda x1, x2: f"inputs {x1!r} and {x2!r} must have one shape, got {list(a.shape)} "
                                                f"and {list(b.shape)}")
    dim = _cross_dim(a.shape, int(attrs["dim"]))
    a0, a1, a2 = (np.take(a, i, axis=dim) for i in range(3))
    b0, b1, b2 = (np.take(b, i, axis=dim) for i in range(3))
    result = np.stack([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], axis=dim)
    return [_wrapped(result, out[0]) if is_int_dtype(out[0]) else round_to(result.astype(np.float64), out[0])]


def clip_by_norm_no_div_sum(x: np.ndarray, threshold: np.ndarray, ones: np.ndarray, norm: np.ndarray) -> np.ndarray:
    """ClipByNormNoDivSum: sqrt(x) where x is above the threshold (input 1), else x, raised to at least the floor
    (input 3); input 2 only stands under the unselected sqrt."""
    above = x > threshold
    with np.errstate(invalid="ignore"):
        root = np.sqrt(np.where(above, x, ones))
    return np.maximum(np.where(above, root, x), norm)


def _same_as_first(shapes: list[tuple[int, ...] | None], values: list[Any], attrs: dict[str, Any]) -> list[tuple[int, ...]]:
    """Output shape: that of the first input."""
    return [tuple(shapes[0])]


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
    define("Lerp", _elementwise(lerp), _broadcast),
    define("Xlog1py", _elementwise(xlog1py), _broadcast),
    define("Addcdiv", _addcdiv_compute, _broadcast),
    define("Addcmul", _elementwise(lambda data, x1, x2, value: data + value * x1 * x2), _broadcast),
    define("AxpyV2", _elementwise(lambda x1, x2, alpha: x1 + alpha * x2), _broadcast),
    define("IsClose", _is_close, _broadcast),
    define("ApproximateEqual", _approximate_equal, _broadcast),
    define("MaskedScale", _masked_scale, _same_as_first),
    define("FusedMulAddN", _elementwise(lambda x1, x2, x3: x1 * x3 + x2), _one_value(2)),
    define("Dot", _dot, _dot_shape),
    define("Ger", _ger, _ger_shape),
    define("AddMatMatElements", _elementwise(lambda c, a, b, beta, alpha: beta * c + alpha * (a * b)), _broadcast),
    define("Cross", _cross, _same_as_first),
    define("ClipByNormNoDivSum", _elementwise(clip_by_norm_no_div_sum), _broadcast),
)
