"""Unary math references: trigonometric, hyperbolic, error function, rounding, predicates, fills, scalar scale/shift.

Inputs arrive widened (float64 / int64 / complex128); each function returns a wide result that `round_to` rounds
once to the output dtype. Where a second formulation is cheap it is used instead of the obvious NumPy call: Erf and
Erfc through Python's math module, Round and Rint by the half-to-even rule written out, the predicates by
comparisons; Trunc by NumPy's trunc (the kernel takes floor and ceil of the two signs). Float attributes (Muls, Adds,
Axpy, Fills, Power) are REG_OP Float, a 32-bit float: the reference uses the float32 value the operator receives.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from aclcts.reference import complex_math
from aclcts.reference.base import InputError, RefOp, define, needed_value
from aclcts.reference.complex_math import on_complex
from aclcts.reference.elementwise import reciprocal
from aclcts.reference.numeric import is_int_dtype, round_to, widen

_ERF = np.frompyfunc(math.erf, 1, 1)
_ERFC = np.frompyfunc(math.erfc, 1, 1)


def erf(x: np.ndarray) -> np.ndarray:
    """Erf: the Gauss error function, math.erf element by element (erf(±inf) = ±1, erf(-0) = -0)."""
    return np.asarray(_ERF(x), dtype=np.float64)


def erfc(x: np.ndarray) -> np.ndarray:
    """Erfc: 1 - erf(x) without cancellation, math.erfc element by element (erfc(-inf) = 2, erfc(inf) = 0)."""
    return np.asarray(_ERFC(x), dtype=np.float64)


def half_even(x: np.ndarray) -> np.ndarray:
    """The integer nearest to x, a tie going to the even one; ±0, ±inf and NaN stay themselves, sign kept at 0."""
    low = np.floor(x)
    frac = x - low
    low_is_even = np.remainder(low, 2.0) == 0
    up = (frac > 0.5) | ((frac == 0.5) & ~low_is_even)
    r = np.where(up, low + 1.0, low)
    r = np.copysign(r, x)
    return np.where(np.isfinite(x), r, x)


def _int_half_even_multiple(x: np.ndarray, step: int) -> np.ndarray:
    """Integers rounded to the nearest multiple of step, a tie going to the even multiple (exact integer arithmetic)."""
    q, rem = np.divmod(x, step)
    twice = 2 * rem
    up = (twice > step) | ((twice == step) & (q % 2 != 0))
    return (q + up) * step


def round_decimals(x: np.ndarray, decimals: int) -> np.ndarray:
    """Round: half to even at `decimals` decimal places (negative: tens, hundreds ...); integers exact."""
    if is_int_dtype(x.dtype):
        return x if decimals >= 0 else _int_half_even_multiple(x, 10 ** -decimals)
    if decimals == 0:
        return half_even(x)
    if decimals > 0:
        scale = 10.0 ** decimals
        return np.where(np.isfinite(x) & (np.abs(x) < 2.0 ** 52), half_even(x * scale) / scale, x)
    scale = 10.0 ** -decimals
    return np.where(np.isfinite(x), half_even(x / scale) * scale, x)


def sign(x: np.ndarray) -> np.ndarray:
    """Sign: -1, 0 or 1 (x / |x| for complex); ±0 gives +0 and NaN gives NaN (TensorFlow Sign; device UNCONFIRMED)."""
    if is_int_dtype(x.dtype):
        return (x > 0).astype(np.int64) - (x < 0).astype(np.int64)
    if x.dtype.kind == "c":
        return np.where(x == 0, 0j, x / np.where(x == 0, 1, np.abs(x)))
    return np.where(x > 0, 1.0, np.where(x < 0, -1.0, np.where(x == x, 0.0, np.nan)))


def is_nan(x: np.ndarray) -> np.ndarray:
    """IsNan: x differs from itself."""
    return x != x


def is_inf(x: np.ndarray) -> np.ndarray:
    """IsInf: |x| is infinite."""
    return np.abs(x) == np.inf


def is_finite(x: np.ndarray) -> np.ndarray:
    """IsFinite: neither NaN nor ±inf (x - x is 0 exactly for finite x)."""
    return (x - x) == 0


def float_attr(value: Any) -> float:
    """A REG_OP Float attribute's value as the operator receives it: the nearest float32."""
    return float(np.float32(value))


def scalar_for(x: np.ndarray, value: float) -> float | int:
    """A float attribute applied to x's type: itself for floats, truncated toward zero for integers (tvm.const).

    That the integer kernels of Muls/Adds/Axpy truncate the attribute is UNCONFIRMED on hardware.
    """
    return math.trunc(value) if is_int_dtype(x.dtype) else value


def clip_by_value(x: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """ClipByValue: min(max(x, lo), hi); NaN in any operand gives NaN, lo > hi gives hi."""
    return np.minimum(np.maximum(x, lo), hi)


_MATH_FUNCTIONS = {
    "Sin": on_complex(np.sin, complex_math.sin), "Cos": on_complex(np.cos, complex_math.cos),
    "Tan": on_complex(np.tan, complex_math.tan), "Asin": np.arcsin, "Acos": np.arccos, "Atan": np.arctan,
    "Sinh": on_complex(np.sinh, complex_math.sinh), "Cosh": on_complex(np.cosh, complex_math.cosh), "Asinh": np.arcsinh, "Acosh": np.arccosh, "Atanh": np.arctanh,
    "Erf": erf, "Erfc": erfc, "Log1p": np.log1p, "Expm1": np.expm1, "Floor": np.floor, "Ceil": np.ceil,
    "Rint": half_even, "Sign": sign,
}
_PREDICATES = {"IsFinite": is_finite, "IsInf": is_inf, "IsNan": is_nan}


def _elementwise(fn: Any) -> Any:
    """A one-input compute function: fn of the widened input, integers passed to fn as float64 unless it is Sign."""
    def compute(xs: list[np.ndarray], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
        x = widen(xs[0])
        if is_int_dtype(x.dtype) and fn is not sign:
            x = x.astype(np.float64)
        return [round_to(fn(x), out[0])]
    return compute


def _round(xs: list[np.ndarray], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    x = widen(xs[0])
    if x.dtype.kind == "c":
        return [round_to(round_decimals(x.real, int(attrs["decimals"]))
                         + 1j * round_decimals(x.imag, int(attrs["decimals"])), out[0])]
    return [round_to(round_decimals(x, int(attrs["decimals"])), out[0])]


def _like(value: int) -> Any:
    def compute(xs: list[np.ndarray], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
        return [np.full(np.shape(xs[0]), value, dtype=out[0])]
    return compute


def _fill(xs: list[np.ndarray], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    shape = fill_shape(xs[0])
    return [round_to(np.broadcast_to(widen(_scalar_value(xs[1])), shape), out[0])]


def _scalar_value(value: np.ndarray) -> np.ndarray:
    """Fill's value: a 0-D (or one-element) tensor."""
    if np.size(value) != 1:
        raise InputError(1, lambda name: f"input {name!r} must hold exactly one element, got shape "
                                          f"{list(np.shape(value))}")
    return np.asarray(value).reshape(())


def fill_shape(dims: np.ndarray) -> tuple[int, ...]:
    """Fill's output shape: the 1-D dims, each >= 0."""
    dims = np.asarray(dims)
    if dims.ndim != 1 or np.any(dims < 0):
        raise InputError(0, lambda name: f"input {name!r} must be a 1-D list of sizes >= 0, got {dims.tolist()}")
    return tuple(int(d) for d in dims)


def _fill_shape(shapes: list[Any], values: list[Any], attrs: dict[str, Any]) -> list[tuple[int, ...]]:
    return [fill_shape(needed_value(values, 0))]


def _scaled(combine: Any, attr: str) -> Any:
    """Muls/Adds compute: combine(x, the attribute applied to x's type)."""
    def compute(xs: list[np.ndarray], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
        x = widen(xs[0])
        return [round_to(combine(x, scalar_for(x, float_attr(attrs[attr]))), out[0])]
    return compute


def _axpy(xs: list[np.ndarray], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    x1, x2 = widen(xs[0]), widen(xs[1])
    return [round_to(x1 + scalar_for(x2, float_attr(attrs["alpha"])) * x2, out[0])]


def _clip(xs: list[np.ndarray], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    x, lo, hi = (widen(a) for a in xs)
    return [round_to(np.broadcast_to(clip_by_value(x, lo, hi), x.shape), out[0])]


def _inv(xs: list[np.ndarray], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    """Inv: 1 / x, TensorFlow's Inv (the Reciprocal rule: an integer 1 / 0 saturates)."""
    return [round_to(reciprocal(widen(xs[0]), out[0]), out[0])]


def _trunc(xs: list[np.ndarray], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    """Trunc: x rounded toward zero; integers as they are."""
    x = widen(xs[0])
    return [round_to(x if is_int_dtype(x.dtype) else np.trunc(x), out[0])]


def _fills(xs: list[np.ndarray], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    """Fills: x's shape filled with the float32 attribute value, rounded once to the output type."""
    return [round_to(np.full(np.shape(xs[0]), float_attr(attrs["value"])), out[0])]


def _tensor_move(xs: list[np.ndarray], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    """TensorMove: a copy of x."""
    return [round_to(widen(xs[0]), out[0])]


def _power(xs: list[np.ndarray], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    """Power: (shift + scale x) ^ power in float64; a negative base (-inf too) to a fractional power is NaN, the real
    power having no value there (C's pow gives +inf at -inf)."""
    power, scale, shift = (float_attr(attrs[name]) for name in ("power", "scale", "shift"))
    base = shift + scale * widen(xs[0])
    no_value = (base < 0) & (not float(power).is_integer())
    return [round_to(np.where(no_value, np.nan, np.power(base, power)), out[0])]


def _trace(xs: list[np.ndarray], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    """Trace: the sum of x[i, i] of a 2-D matrix, as a [1] tensor."""
    x = widen(xs[0])
    if x.ndim != 2:
        raise InputError(0, lambda name: f"input {name!r} must be a 2-D matrix, got shape {list(x.shape)}")
    return [round_to(np.array([np.sum(np.diagonal(x))]), out[0])]


def _trace_shape(shapes: list[Any], values: list[Any], attrs: dict[str, Any]) -> list[tuple[int, ...]]:
    if len(shapes[0]) != 2:
        raise InputError(0, lambda name: f"input {name!r} must be a 2-D matrix, got shape {list(shapes[0])}")
    return [(1,)]


def _same(shapes: list[Any], values: list[Any], attrs: dict[str, Any]) -> list[tuple[int, ...]]:
    return [tuple(shapes[0])]


def _broadcast(shapes: list[Any], values: list[Any], attrs: dict[str, Any]) -> list[tuple[int, ...]]:
    return [tuple(np.broadcast_shapes(*[s for s in shapes if s is not None]))]


def _clip_shape(shapes: list[Any], values: list[Any], attrs: dict[str, Any]) -> list[tuple[int, ...]]:
    """ClipByValue's output has the shape of its first input; the two bounds must broadcast to it."""
    x = tuple(shapes[0])
    for index, shape in enumerate(shapes[1:], start=1):
        try:
            fits = np.broadcast_shapes(x, tuple(shape)) == x
        except ValueError:
            fits = False
        if not fits:
            raise InputError((index, 0), lambda name, x_name, shape=shape: f"input {name!r} of shape {list(shape)} "
                                                                          f"does not broadcast to {x_name}'s shape {list(x)}")
    return [x]


OPS: tuple[RefOp, ...] = (
    *(define(name, _elementwise(fn), _same) for name, fn in _MATH_FUNCTIONS.items()),
    *(define(name, _elementwise(fn), _same) for name, fn in _PREDICATES.items()),
    define("Round", _round, _same),
    define("ZerosLike", _like(0), _same),
    define("OnesLike", _like(1), _same),
    define("Fill", _fill, _fill_shape),
    define("Muls", _scaled(lambda x, v: x * v, "value"), _same),
    define("Adds", _scaled(lambda x, v: x + v, "value"), _same),
    define("Axpy", _axpy, _broadcast),
    define("ClipByValue", _clip, _clip_shape),
    define("Inv", _inv, _same),
    define("Trunc", _trunc, _same),
    define("Fills", _fills, _same),
    define("TensorMove", _tensor_move, _same),
    define("Power", _power, _same),
    define("Trace", _trace, _trace_shape),
)
