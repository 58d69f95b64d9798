"""One-input kernels built from a float formula and an integer formula: Abs, Neg, Exp, Log, Sqrt, Rsqrt, Square,
Reciprocal (registered by the elementwise family), Inv (by unary_math: TBE inv.py divides 1 by x, an integer x in
float32 converted back by truncation with saturation, so 1 / 0 is the type's maximum) and Relu, Sigmoid, Tanh (by the activation family).

The records give the dtypes; Exp: y = base^(scale*x + shift), Log: y = log_base(scale*x + shift), base -1 meaning e.
Complex (complex64/complex128, where the record allows it) is computed in its own type by NumPy's complex loops
for the COMPLEX_FORMS ops; the others declare it not simulated (unsimulated).
Composite formulas round to the storage type after each primitive op (numerics.py):
Sigmoid = 1 / (1 + exp(-x)) rounds after neg, exp, add and reciprocal; Rsqrt = 1 / sqrt(x) after sqrt and
reciprocal. Exp/Log with non-default base/scale/shift evaluate the whole affine-plus-transcendental formula in
fp32 and round once: the vector units widen fp16/bf16 for exp and ln, and rounding the argument to fp16 first
would turn its rounding error into a relative error of up to 2^-11·|scale·x + shift| in the result, far outside
what the CANN precision standard allows for Exp.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from aclcts.sim.kernels.base import InferredShape, TensorInfo
from aclcts.sim.kernels.call import OpCall, Outputs
from aclcts.sim.kernels.numerics import COMPLEX, EXACT_FLOATS, FLOAT32, Rounder, is_float, rounder, saturating_int, widen
from aclcts.sim.kernels.shapes import inferred

FloatFn = Callable[[OpCall, np.ndarray, Rounder], np.ndarray]
RawFn = Callable[[np.ndarray], np.ndarray]


def _scaled_shifted(call: OpCall, x: np.ndarray) -> tuple[np.ndarray, float, type]:
    """Exp's and Log's argument scale * x + shift in the compute dtype, their base attr and that dtype's scalar type."""
    base, scale, shift = _base_scale_shift(call)
    t = widen(x)
    one = t.dtype.type
    if scale != 1.0:
        t = t * one(scale)
    if shift != 0.0:
        t = t + one(shift)
    return t, base, one


def _exp(call: OpCall, x: np.ndarray, r: Rounder) -> np.ndarray:
    t, base, one = _scaled_shifted(call, x)
    if base != -1.0:
        t = t * one(math.log(base))
    return r(np.exp(t))


def _log(call: OpCall, x: np.ndarray, r: Rounder) -> np.ndarray:
    t, base, one = _scaled_shifted(call, x)
    y = np.log(t)
    if base != -1.0:
        y = y / one(math.log(base))
    return r(y)


def _base_scale_shift(call: OpCall) -> tuple[float, float, float]:
    base = call.attr_float("base")
    if base != -1.0 and not base > 0.0:
        raise call.fail(f"attr 'base' is {base}, expected a value > 0 or -1 (meaning e)")
    return base, call.attr_float("scale"), call.attr_float("shift")


def _sigmoid(call: OpCall, x: np.ndarray, r: Rounder) -> np.ndarray:
    one = x.dtype.type(1)
    return r(one / r(one + r(np.exp(r(-x)))))


def _integer_reciprocal(x: np.ndarray) -> np.ndarray:
    """Truncated 1/x for integers: 1 and -1 map to themselves, everything else (0 included) to 0."""
    return np.where((x == 1) | (x == -1), x, 0).astype(x.dtype)


#: op type -> (float arithmetic, integer arithmetic or None for float-only ops).
FORMULAS: dict[str, tuple[FloatFn, RawFn | None]] = {
    "Abs": (lambda c, x, r: r(np.abs(x)), np.abs),
    "Neg": (lambda c, x, r: r(-x), np.negative),
    "Exp": (_exp, None),
    "Log": (_log, None),
    "Sqrt": (lambda c, x, r: r(np.sqrt(x)), None),
    "Rsqrt": (lambda c, x, r: r(x.dtype.type(1) / r(np.sqrt(x))), None),
    "Relu": (lambda c, x, r: r(np.maximum(x, x.dtype.type(0))), lambda x: np.maximum(x, x.dtype.type(0))),
    "Sigmoid": (_sigmoid, None),
    "Tanh": (lambda c, x, r: r(np.tanh(x)), None),
    "Square": (lambda c, x, r: r(x * x), lambda x: x * x),
    "Reciprocal": (lambda c, x, r: r(x.dtype.type(1) / x), _integer_reciprocal),
    "Inv": (lambda c, x, r: r(x.dtype.type(1) / x), lambda x: saturating_int(np.float32(1) / x.astype(FLOAT32), x.dtype)),
}


#: The FORMULAS ops whose float formula also runs on complex operands (in the complex type itself).
COMPLEX_FORMS = ("Neg", "Exp", "Log", "Sqrt", "Rsqrt", "Square", "Reciprocal", "Sigmoid", "Tanh")


def unsimulated(op_type: str) -> tuple[np.dtype, ...]:
    """The record dtypes of one of the FORMULAS ops that its kernel does not implement: complex unless COMPLEX_FORMS."""
    return () if op_type in COMPLEX_FORMS else COMPLEX


#: Ops whose result is one NumPy ufunc of x (in float32 for fp16/bf16, rounded once), written into the output's buffer.
_DIRECT: dict[str, np.ufunc] = {
    "Abs": np.abs, "Neg": np.negative, "Exp": np.exp, "Log": np.log, "Sqrt": np.sqrt, "Tanh": np.tanh,
}


def _direct(ufunc: np.ufunc, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """ufunc of x into y: straight for float32/float64, through one float32 copy rounded once into y for fp16/bf16."""
    if x.dtype in EXACT_FLOATS:
        return ufunc(x, out=y)
    wide = x.astype(FLOAT32)
    ufunc(wide, out=wide)
    np.copyto(y, wide, casting="unsafe")
    return y


def _has_affine(call: OpCall) -> bool:
    """Whether an Exp/Log call gives base, scale or shift other than the record's defaults."""
    if call.op_type not in ("Exp", "Log"):
        return False
    defaults = call.record.defaults()
    return _base_scale_shift(call) != (defaults["base"], defaults["scale"], defaults["shift"])


def kernel(op_type: str) -> tuple[Callable[..., list[np.ndarray]], Callable[..., list[InferredShape]]]:
    """The compute and infer_shape functions of one of the FORMULAS ops."""
    on_float, on_raw = FORMULAS[op_type]

    def compute(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list[TensorInfo]) -> list[np.ndarray]:
        call = OpCall(op_type, inputs, attrs)
        call.require_count(1)
        x = call.input(0)
        call.require_simulated(0, x.dtype)
        complex_x = x.dtype in COMPLEX
        if on_raw is None and not is_float(x.dtype) and not complex_x:
            raise call.fail(f"input '{call.name(0)}' has dtype {x.dtype}, which is not simulated for {op_type}")
        out = Outputs(call, outputs)
        out.require_dtype(0, x.dtype, call.same_as(0))
        with np.errstate(all="ignore"):
            ufunc = _DIRECT.get(op_type)
            if ufunc is not None and is_float(x.dtype) and not _has_affine(call):
                return [out.emit(0, _direct(ufunc, x, out.buffer(0, tuple(x.shape))))]
            if is_float(x.dtype) or complex_x or on_raw is None:
                y = on_float(call, widen(x), rounder(x.dtype))
            else:
                y = on_raw(x)
        return [out.emit(0, np.asarray(y).astype(x.dtype, copy=False))]

    def infer_shape(inputs: list[TensorInfo], values: list[np.ndarray | None], attrs: dict[str, Any]) -> list[InferredShape]:
        call = OpCall(op_type, inputs, attrs)
        call.require_count(1)
        x = call.input(0)
        return [inferred(x.dtype, x.shape)]

    return compute, infer_shape
