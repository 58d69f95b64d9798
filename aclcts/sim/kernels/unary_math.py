"""Unary math kernels: trigonometric, hyperbolic, Erf/Erfc, Log1p/Expm1, rounding, Sign, predicates, fills, Muls/Adds,
Axpy and ClipByValue.

Prototypes: aclcts.core.prototypes.unary_math (graphengine op_proto elewise_calculation_ops.h, math_ops.h, pad_ops.h).
The kernels accept their records' dtypes but the integer variants of Tan/Asin/Acos and complex outside
COMPLEX_FORMULAS (declared with registry.not_simulated).
Device numerics:
- the COMPLEX_FORMULAS ops on complex64/complex128 evaluate in the complex type itself (NumPy's complex loops, the
  principal branches of C99 Annex G);
- transcendental ops on fp16/bf16 widen to float32, evaluate there and round once to the storage type; fp32 and fp64
  evaluate in their own type. Erf and Erfc are evaluated by this module's own series and continued fraction in
  float64 and rounded once (the device's fp32 polynomial is at least as far from the exact value).
- Floor, Ceil, Rint, Round (half to even), Sign, the predicates, ZerosLike, OnesLike, Fill and ClipByValue are
  exact. Round with decimals d != 0 scales by 10^d in float64, so that neither the product nor the quotient is rounded
  before the half-to-even step; how the device scales is UNCONFIRMED.
- Muls/Adds/Axpy take the Float attribute as float32; floats compute in float32 (fp64 in fp64) and round once;
  integers apply the attribute truncated toward zero to their own type and wrap.
- Inv is Reciprocal's formula (TBE inv.py: vdiv(1, x)); Trunc is floor(max(x, 0)) + ceil(min(x, 0)) (trunc.py);
  Fills writes the attribute in x's type (int8 through float16, fills.py); TensorMove copies.
- Trace sums the diagonal in float32 in the vector unit's order (numerics.vector_sum) and gives a [1] tensor.
- Power follows power.py: scale * x + shift rounded to the storage type after each step; power 1, 2 and 3 as that
  many products in the storage type; otherwise base ^ power in float32 for a positive base (power.py's
  exp(power * log(base)), taken as one float32 pow: as for Exp and Log with an affine argument, the composite's error
  of up to |power log(base)| float32 steps is outside the elementwise policy), the same of |base| times (-1)^power
  for a negative base and an integer power, 0 for a zero base and power > 0, and the
  kernel's "nan" value elsewhere (vrec(0): NaN here, UNCONFIRMED on hardware); power * scale == 0 gives 1 for power
  0, else the constant shift ^ power.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from aclcts.core.dtypes import acl_data_type
from aclcts.sim.kernels.base import InferredShape, TensorInfo
from aclcts.sim.kernels.call import OpCall, Outputs
from aclcts.sim.kernels import pointwise
from aclcts.sim.kernels.numerics import (BOOL, COMPLEX, EXACT_FLOATS, FLOAT32, FLOAT64, OWN_TYPES,
                                         compute_dtype, rounder, vector_sum, widen)
from aclcts.sim.kernels.registry import builtin, not_simulated
from aclcts.sim.kernels.shapes import UNKNOWN, UNKNOWN_RANK, broadcast, inferred, unknown_rank

Infer = Callable[[list[TensorInfo], list[np.ndarray | None], dict[str, Any]], list[InferredShape]]
FloatFn = Callable[[np.ndarray, np.ndarray], np.ndarray]

#: The dtypes the records allow that the simulator does not implement: complex, and for the float formulas
#: (_FLOAT_UNARY) the integer types Tan, Asin and Acos take (and complex outside COMPLEX_FORMULAS).
NOT_SIMULATED = COMPLEX

#: |x| up to which erf is summed as its Taylor series; beyond it erfc comes from its continued fraction.
ERF_SERIES_LIMIT = 2.0
_ERF_SERIES_TERMS = 34
_ERFC_FRACTION_DEPTH = 40
_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)


def _ufunc(ufunc: np.ufunc) -> FloatFn:
    """A NumPy ufunc written into y."""
    return lambda x, y: ufunc(x, out=y)


def _erf_series(x: np.ndarray) -> np.ndarray:
    """erf(x) = 2/sqrt(pi) * sum (-1)^n x^(2n+1) / (n! (2n+1)), for |x| <= ERF_SERIES_LIMIT (float64)."""
    x2 = x * x
    term = x.copy()
    total = x.copy()
    scratch = np.empty_like(x)
    for n in range(1, _ERF_SERIES_TERMS):
        term *= -x2
        term /= n
        total += np.divide(term, 2 * n + 1, out=scratch)
    total *= _TWO_OVER_SQRT_PI
    return total


def _erfc_fraction(a: np.ndarray) -> np.ndarray:
    """erfc(a) for a >= ERF_SERIES_LIMIT: exp(-a^2)/sqrt(pi) / (a + (1/2)/(a + 1/(a + (3/2)/(a + ...)))) (float64)."""
    tail = np.zeros_like(a)
    for k in range(_ERFC_FRACTION_DEPTH, 0, -1):
        np.add(a, tail, out=tail)
        np.divide(k / 2.0, tail, out=tail)
    return np.exp(-a * a) / math.sqrt(math.pi) / (a + tail)


def erf_erfc(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(erf(x), erfc(x)) in float64 for a float64 array: series near 0, continued fraction in the tails."""
    erf, erfc = np.full_like(x, np.nan), np.full_like(x, np.nan)
    a = np.abs(x)
    near = a <= ERF_SERIES_LIMIT
    series = np.copysign(_erf_series(x[near]), x[near])
    erf[near], erfc[near] = series, 1.0 - series
    far = a > ERF_SERIES_LIMIT
    tail = _erfc_fraction(a[far])
    positive = ~np.signbit(x[far])
    erf[far] = np.where(positive, 1.0 - tail, tail - 1.0)
    erfc[far] = np.where(positive, tail, 2.0 - tail)
    return erf, erfc


def _erf(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    np.copyto(y, erf_erfc(x.astype(FLOAT64))[0], casting="unsafe")
    return y


def _erfc(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    np.copyto(y, erf_erfc(x.astype(FLOAT64))[1], casting="unsafe")
    return y


#: op type -> its computation in the compute type, written into y (every one takes fp16, bf16, fp32 and fp64).
_FLOAT_UNARY: dict[str, FloatFn] = {
    "Sin": _ufunc(np.sin), "Cos": _ufunc(np.cos), "Tan": _ufunc(np.tan), "Asin": _ufunc(np.arcsin),
    "Acos": _ufunc(np.arccos), "Atan": _ufunc(np.arctan), "Sinh": _ufunc(np.sinh), "Cosh": _ufunc(np.cosh),
    "Asinh": _ufunc(np.arcsinh), "Acosh": _ufunc(np.arccosh), "Atanh": _ufunc(np.arctanh), "Erf": _erf, "Erfc": _erfc,
    "Log1p": _ufunc(np.log1p), "Expm1": _ufunc(np.expm1), "Floor": _ufunc(np.floor), "Ceil": _ufunc(np.ceil),
    "Rint": _ufunc(np.rint),
}


#: The _FLOAT_UNARY ops that also take complex: NumPy's complex ufunc of the same name.
COMPLEX_FORMULAS = ("Sin", "Cos", "Tan", "Asin", "Acos", "Atan", "Sinh", "Cosh", "Asinh", "Acosh", "Atanh", "Log1p",
                    "Expm1")


def in_compute_type(fn: FloatFn, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """fn of x into y: straight for float32/float64 and complex, through one float32 copy rounded once into y for
    fp16/bf16."""
    if x.dtype in OWN_TYPES:
        return fn(x, y)
    wide = x.astype(FLOAT32)
    fn(wide, wide)
    np.copyto(y, wide, casting="unsafe")
    return y


def _same_shape_infer(op_type: str, dtype_of: Callable[[Any], int] | None = None) -> Infer:
    def infer_shape(inputs: list[TensorInfo], values: list[np.ndarray | None], attrs: dict[str, Any]) -> list[InferredShape]:
        call = OpCall(op_type, inputs, attrs)
        call.require_count(1)
        x = call.input(0)
        return [inferred(x.dtype if dtype_of is None else dtype_of(x), x.shape)]
    return infer_shape


Body = Callable[[OpCall, np.ndarray, np.ndarray], np.ndarray]


def unary_functions(op_type: str, body: Body, boolean: bool = False) -> tuple[Callable[..., list[np.ndarray]], Infer]:
    """The compute and infer_shape of a one-input op: dtype checks (the record's, less those declared not simulated),
    the output buffer, body(call, x, y) writing the result into y."""
    def compute(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list[TensorInfo]) -> list[np.ndarray]:
        call = OpCall(op_type, inputs, attrs)
        call.require_count(1)
        x = call.input(0)
        call.require_simulated(0, x.dtype)
        out = Outputs(call, outputs)
        if boolean:
            out.require_dtype(0, BOOL, "a predicate gives bool")
        else:
            out.require_dtype(0, x.dtype, call.same_as(0))
        with np.errstate(all="ignore"):
            return [out.emit(0, body(call, x, out.buffer(0, x.shape)))]

    return compute, _same_shape_infer(op_type, (lambda x: acl_data_type(BOOL)) if boolean else None)


def _unary_kernel(op_type: str, body: Body, boolean: bool = False,
                  unsimulated: tuple[np.dtype, ...] = NOT_SIMULATED) -> None:
    """Register a one-input op of this module (unary_functions) with the dtypes it does not simulate."""
    builtin(op_type, *unary_functions(op_type, body, boolean))
    not_simulated(op_type, 0, unsimulated)


for _name, _fn in _FLOAT_UNARY.items():
    _without_complex = () if _name in COMPLEX_FORMULAS else NOT_SIMULATED
    _unary_kernel(_name, lambda call, x, y, fn=_fn: in_compute_type(fn, x, y),
                   unsimulated=(np.dtype(np.int32), np.dtype(np.int64)) + _without_complex)


# Round, Sign ----------------------------------------------------------------------------------------------------
def _round_multiple(x: np.ndarray, step: int) -> np.ndarray:
    """Integers to the nearest multiple of step, ties to the even multiple, in x's own type."""
    quotient, remainder = np.divmod(x, x.dtype.type(step))
    odd = (quotient & 1) == 1
    up = (remainder * 2 > step) | ((remainder * 2 == step) & odd)
    return ((quotient + up) * step).astype(x.dtype)


def _round(call: OpCall, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    decimals = call.attr_int("decimals")
    if x.dtype.kind == "i":
        np.copyto(y, x if decimals >= 0 else _round_multiple(x, 10 ** -decimals))
        return y
    if decimals == 0:
        return in_compute_type(_ufunc(np.rint), x, y)
    wide = x.astype(FLOAT64)
    scale = 10.0 ** abs(decimals)
    finite = np.isfinite(wide)
    if decimals > 0:
        finite &= np.abs(wide) < 2.0 ** 52
        scaled = np.rint(wide * scale) / scale
    else:
        scaled = np.rint(wide / scale) * scale
    np.copyto(y, np.where(finite, scaled, wide), casting="unsafe")
    return y


def _sign(call: OpCall, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    if x.dtype.kind == "i":
        return np.sign(x, out=y)
    return in_compute_type(_ufunc(np.sign), x, y)


_unary_kernel("Round", _round)
_unary_kernel("Sign", _sign)
_unary_kernel("IsFinite", lambda call, x, y: np.isfinite(widen(x), out=y), boolean=True)
_unary_kernel("IsInf", lambda call, x, y: np.isinf(widen(x), out=y), boolean=True)
_unary_kernel("IsNan", lambda call, x, y: np.isnan(widen(x), out=y), boolean=True)


# ZerosLike, OnesLike, Fill ------------------------------------------------------------------------------------
def _filled(value: int) -> Body:
    def body(call: OpCall, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        y.fill(value)
        return y
    return body


_unary_kernel("ZerosLike", _filled(0))
_unary_kernel("OnesLike", _filled(1))


def _fill_dims(call: OpCall, dims: Any) -> list[int]:
    values = call.index_values(0, dims)
    if np.ndim(dims) != 1 or any(d < 0 for d in values):
        raise call.fail(f"input '{call.name(0)}' must be a 1-D list of sizes >= 0, got {values}")
    return values


def _fill_compute(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list[TensorInfo]) -> list[np.ndarray]:
    call = OpCall("Fill", inputs, attrs)
    call.require_count(2)
    shape = tuple(_fill_dims(call, call.input(0)))
    value = call.input(1)
    call.require_simulated(1, value.dtype)
    if value.size != 1:
        raise call.fail(f"input '{call.name(1)}' must hold exactly one element, got shape {list(value.shape)}")
    out = Outputs(call, outputs)
    out.require_dtype(0, value.dtype, call.same_as(1))
    y = out.buffer(0, shape)
    y.fill(value.reshape(())[()])
    return [out.emit(0, y)]


def _fill_infer(inputs: list[TensorInfo], values: list[np.ndarray | None], attrs: dict[str, Any]) -> list[InferredShape]:
    call = OpCall("Fill", inputs, attrs)
    call.require_count(2)
    dims, value = call.input(0), call.input(1)
    known = values[0] if values else None
    if known is not None:
        return [inferred(value.dtype, _fill_dims(call, known))]
    if unknown_rank(tuple(dims.shape)) or not dims.shape or dims.shape[0] < 0:
        return [inferred(value.dtype, (UNKNOWN_RANK,))]
    return [inferred(value.dtype, [UNKNOWN] * int(dims.shape[0]))]


builtin("Fill", _fill_compute, _fill_infer)
not_simulated("Fill", 1, NOT_SIMULATED)


# Muls, Adds, Axpy ------------------------------------------------------------------------------------------
def _attr_in(call: OpCall, name: str, dtype: np.dtype) -> Any:
    """A Float attribute (required by the record) as float32, applied to dtype: truncated toward zero for integer
    types."""
    value = np.float32(call.attr_float(name))
    if np.dtype(dtype).kind in "iu":
        return np.array(math.trunc(float(value)) if np.isfinite(value) else 0).astype(dtype)[()]
    return compute_dtype(dtype).type(value)


def _scalar_kernel(op_type: str, ufunc: np.ufunc) -> None:
    def body(call: OpCall, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        value = _attr_in(call, "value", x.dtype)
        if x.dtype.kind in "iu":
            return ufunc(x, value, out=y)
        return in_compute_type(lambda t, r: ufunc(t, value, out=r), x, y)

    _unary_kernel(op_type, body)


_scalar_kernel("Muls", np.multiply)
_scalar_kernel("Adds", np.add)


def _axpy_compute(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list[TensorInfo]) -> list[np.ndarray]:
    call = OpCall("Axpy", inputs, attrs)
    call.require_count(2)
    x1, x2 = call.input(0), call.input(1)
    call.require_dtype(0, x1.dtype)
    call.require_same_dtype((0, 1), [x1.dtype, x2.dtype])
    shape = broadcast(call, (0, 1), [tuple(x1.shape), tuple(x2.shape)])
    alpha = _attr_in(call, "alpha", x1.dtype)
    out = Outputs(call, outputs)
    out.require_dtype(0, x1.dtype, call.same_as(0))
    y = out.buffer(0, shape)
    with np.errstate(all="ignore"):
        if x1.dtype.kind in "iu":
            np.multiply(x2, alpha, out=y)
            np.add(y, x1, out=y)
        elif x1.dtype == FLOAT32:
            np.multiply(x2, alpha, out=y)
            np.add(y, x1, out=y)
        else:
            wide = np.multiply(widen(x2), alpha, dtype=FLOAT32)
            np.copyto(y, np.add(wide, widen(x1)), casting="unsafe")
    return [out.emit(0, y)]


def _axpy_infer(inputs: list[TensorInfo], values: list[np.ndarray | None], attrs: dict[str, Any]) -> list[InferredShape]:
    call = OpCall("Axpy", inputs, attrs)
    call.require_count(2)
    x1, x2 = call.input(0), call.input(1)
    return [inferred(x1.dtype, broadcast(call, (0, 1), [tuple(x1.shape), tuple(x2.shape)]))]


builtin("Axpy", _axpy_compute, _axpy_infer)


# ClipByValue -----------------------------------------------------------------------------------------------
def _clip_shape(call: OpCall, shapes: list[tuple[int, ...]]) -> tuple[int, ...]:
    for index, shape in enumerate(shapes[1:], start=1):
        if broadcast(call, (0, index), [shapes[0], shape]) != tuple(shapes[0]) and not unknown_rank(shapes[0]):
            raise call.fail(f"input '{call.name(index)}' has shape {list(shape)}, which does not broadcast to the "
                            f"shape of '{call.name(0)}' {list(shapes[0])}")
    return tuple(shapes[0])


def _clip_compute(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list[TensorInfo]) -> list[np.ndarray]:
    call = OpCall("ClipByValue", inputs, attrs)
    call.require_count(3)
    x, lo, hi = (call.input(i) for i in range(3))
    call.require_simulated(0, x.dtype)
    call.require_same_dtype((0, 1, 2), [x.dtype, lo.dtype, hi.dtype])
    shape = _clip_shape(call, [tuple(x.shape), tuple(lo.shape), tuple(hi.shape)])
    out = Outputs(call, outputs)
    out.require_dtype(0, x.dtype, call.same_as(0))
    y = out.buffer(0, shape)
    if x.dtype in EXACT_FLOATS or x.dtype.kind in "iu":
        np.maximum(x, lo, out=y)
        np.minimum(y, hi, out=y)
    else:
        np.copyto(y, np.minimum(np.maximum(widen(x), widen(lo)), widen(hi)), casting="unsafe")
    return [out.emit(0, y)]


def _clip_infer(inputs: list[TensorInfo], values: list[np.ndarray | None], attrs: dict[str, Any]) -> list[InferredShape]:
    call = OpCall("ClipByValue", inputs, attrs)
    call.require_count(3)
    x, lo, hi = (call.input(i) for i in range(3))
    return [inferred(x.dtype, _clip_shape(call, [tuple(x.shape), tuple(lo.shape), tuple(hi.shape)]))]


builtin("ClipByValue", _clip_compute, _clip_infer)
not_simulated("ClipByValue", 0, NOT_SIMULATED)


# Inv, Trunc, Fills, TensorMove, Power ------------------------------------------------------------------------------
builtin("Inv", *pointwise.kernel("Inv"))
not_simulated("Inv", 0, pointwise.unsimulated("Inv"))


def _trunc(call: OpCall, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    if x.dtype.kind in "iu":
        np.copyto(y, x)
        return y

    def body(t: np.ndarray, r: np.ndarray) -> np.ndarray:
        negative_part = np.ceil(np.minimum(t, t.dtype.type(0)))
        np.floor(np.maximum(t, t.dtype.type(0)), out=r)
        r += negative_part
        return r

    return in_compute_type(body, x, y)


def _fills(call: OpCall, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    value = np.float32(call.attr_float("value"))
    if x.dtype == np.int8:
        y.fill(_attr_in_value(np.float16(value), x.dtype))
    else:
        y.fill(_attr_in_value(value, x.dtype))
    return y


def _attr_in_value(value: np.floating, dtype: np.dtype) -> Any:
    """A float value as a constant of dtype: truncated toward zero for an integer type."""
    if np.dtype(dtype).kind in "iu":
        return np.array(math.trunc(float(value)) if np.isfinite(value) else 0).astype(dtype)[()]
    return np.asarray(value).astype(dtype)[()]


def _tensor_move(call: OpCall, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    np.copyto(y, x)
    return y


_unary_kernel("Trunc", _trunc, unsimulated=())
_unary_kernel("Fills", _fills, unsimulated=())
_unary_kernel("TensorMove", _tensor_move, unsimulated=())


def _power_of_positive(base: np.ndarray, power: float) -> np.ndarray:
    """base ^ power in float32 (power.py widens fp16 for vlog and vexp)."""
    return np.power(base.astype(FLOAT32), np.float32(power))


def _power(call: OpCall, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    power, scale, shift = (float(np.float32(call.attr_float(name))) for name in ("power", "scale", "shift"))
    r = rounder(x.dtype)
    one = compute_dtype(x.dtype).type
    if math.isclose(power * scale, 0.0, abs_tol=1e-9):
        constant = 1.0 if math.isclose(power, 0.0, abs_tol=1e-9) else _power_of_scalar(shift, power)
        y.fill(constant)
        return y
    base = r(r(widen(x) * one(scale)) + one(shift))
    for exponent in (1.0, 2.0, 3.0):
        if math.isclose(power, exponent, rel_tol=1e-9):
            result = base
            for _ in range(int(exponent) - 1):
                result = r(result * base)
            np.copyto(y, result, casting="unsafe")
            return y
    result = np.where(base > 0, _power_of_positive(base, power), np.float32(np.nan))
    if float(power).is_integer():
        odd_sign = np.float32(-1.0 if int(power) % 2 else 1.0)
        result = np.where(base < 0, odd_sign * _power_of_positive(np.abs(base), power), result)
    result = np.where(base == 0, np.float32(0.0 if power > 0 else np.nan), result)
    np.copyto(y, result, casting="unsafe")
    return y


def _power_of_scalar(base: float, power: float) -> float:
    """power.py's power_scalar: base ** power for a positive base or an integer power, 0 for a zero base and a
    positive power, else the kernel's "nan" value (vrec(0))."""
    if base > 0 or (base < 0 and float(power).is_integer()):
        return math.pow(base, power)
    return 0.0 if base == 0 and power > 0 else math.nan


_unary_kernel("Power", _power, unsimulated=())


def _trace_shape(call: OpCall, x: Any) -> tuple[int, ...]:
    if len(x.shape) != 2:
        raise call.fail(f"input '{call.name(0)}' must be a 2-D matrix, got shape {list(x.shape)}")
    return (1,)


def _trace_compute(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list[TensorInfo]) -> list[np.ndarray]:
    call = OpCall("Trace", inputs, attrs)
    call.require_count(1)
    x = call.input(0)
    call.require_dtype(0, x.dtype)
    shape = _trace_shape(call, x)
    out = Outputs(call, outputs)
    out.require_dtype(0, x.dtype, call.same_as(0))
    y = out.buffer(0, shape)
    with np.errstate(all="ignore"):
        np.copyto(y, vector_sum(np.diagonal(x).astype(FLOAT32), 0).reshape(1), casting="unsafe")
    return [out.emit(0, y)]


def _trace_infer(inputs: list[TensorInfo], values: list[np.ndarray | None], attrs: dict[str, Any]) -> list[InferredShape]:
    call = OpCall("Trace", inputs, attrs)
    call.require_count(1)
    x = call.input(0)
    return [inferred(x.dtype, _trace_shape(call, x))]


builtin("Trace", _trace_compute, _trace_infer)

