"""Prototypes of the unary math family: trigonometric, hyperbolic, error-function, rounding, predicate, fill, scale.

Sources: mindspore-ai/graphengine 910/third_party/fwkacllib/inc/op_proto/inc/ elewise_calculation_ops.h, math_ops.h
(Erf, Erfc, IsFinite, IsInf, IsNan) and pad_ops.h (Fill). Type groups as metadef's TensorType: UnaryDataType =
complex128, complex64, double, float, float16, bf16 (complex32 left out: the suite has no such dtype);
FloatingDataType = double, float, float16; NumberType and BasicType = every real and complex type (their quantized
types left out). Fill's value also takes string (left out). Inv, Trunc, Fills, TensorMove and Power come from CANN's
own headers (dengguojie/vue-element-admin@7d77ce32d ops/built-in/op_proto/inc/, each record names its file).
"""

from __future__ import annotations

from aclcts.core.prototypes.dtypes import BOOL, COMPLEX, FLOAT64, FLOATS, INTS, REALS
from aclcts.core.prototypes.spec import Attr, Prototype, Sample, op

POLICY = "elementwise"
SHAPE_RULE = "same"

_ELEWISE = "graphengine op_proto/inc/elewise_calculation_ops.h"
_MATH = "graphengine op_proto/inc/math_ops.h"
_PAD = "graphengine op_proto/inc/pad_ops.h"
_CANN = "dengguojie/vue-element-admin@7d77ce32d ops/built-in/op_proto/inc"

UNARY_DATA = FLOATS + FLOAT64 + COMPLEX
FLOATING = FLOATS + FLOAT64
INT32_64 = ("int32", "int64")
NUMBERS = REALS + COMPLEX
BASIC = REALS + COMPLEX + BOOL


#: Just outside [-1, 1] (exact in float16): where asin, acos and atanh leave their domain.
_PAST_ONE = (1.0009765625, -1.0009765625)
#: Halfway between two integers: where rounding half to even and half away from zero differ.
_HALVES = (2.5, -2.5, 1.5)


def _unary(op_type: str, types: tuple[str, ...], source: str = _ELEWISE, specials: tuple[float, ...] = ()) -> Prototype:
    """x -> y of one type constraint, no attributes; specials: the function's own special points."""
    return op(op_type, "x:T", "y:T", {"T": types}, source=f"{source} REG_OP({op_type})", specials=specials)


def _predicate(op_type: str) -> Prototype:
    """x (a float) -> y (bool)."""
    return op(op_type, "x:T", "y:B", {"T": FLOATING, "B": BOOL}, source=f"{_MATH} REG_OP({op_type})")


PROTOTYPES: tuple[Prototype, ...] = (
    _unary("Sin", UNARY_DATA),
    _unary("Cos", UNARY_DATA),
    _unary("Tan", UNARY_DATA + INT32_64),
    _unary("Asin", UNARY_DATA + INT32_64, specials=_PAST_ONE),
    _unary("Acos", UNARY_DATA + INT32_64, specials=_PAST_ONE),
    _unary("Atan", UNARY_DATA),
    _unary("Sinh", UNARY_DATA),
    _unary("Cosh", UNARY_DATA),
    _unary("Asinh", UNARY_DATA),
    _unary("Acosh", UNARY_DATA),
    _unary("Atanh", UNARY_DATA, specials=_PAST_ONE),
    _unary("Erf", FLOATING, _MATH),
    _unary("Erfc", FLOATING, _MATH),
    _unary("Log1p", UNARY_DATA, specials=(-1.0009765625,)),
    _unary("Expm1", UNARY_DATA),
    _unary("Floor", FLOATING),
    _unary("Ceil", FLOATING),
    op("Round", "x:T", "y:T", {"T": FLOATING + INT32_64 + COMPLEX}, attrs=(Attr("decimals", "int", 0),), specials=_HALVES,
       source=f"{_ELEWISE} REG_OP(Round): rounds half to even; ATTR(decimals, Int, 0)"),
    _unary("Rint", FLOATING, specials=_HALVES),
    _unary("Sign", FLOATING + INT32_64 + COMPLEX),
    _predicate("IsFinite"),
    _predicate("IsInf"),
    _predicate("IsNan"),
    _unary("ZerosLike", BASIC),
    _unary("OnesLike", FLOATING + INTS[:4] + ("uint8", "uint16") + ("complex128",) + BOOL),
    op("Fill", "dims:I, value:T", "y:T", {"I": INT32_64, "T": REALS + COMPLEX + BOOL},
       source=f"{_PAD} REG_OP(Fill): dims a 1-D int32/int64 tensor (the output shape), value a 0-D scalar"),
    op("Muls", "x:T", "y:T", {"T": ("float32", "int16", "int32", "int64", "float16", "bfloat16", "complex64")},
       attrs=(Attr("value", "float"),), source=f"{_ELEWISE} REG_OP(Muls): y = x * value; REQUIRED_ATTR(value, Float)"),
    op("Adds", "x:T", "y:T", {"T": ("float32", "int16", "int32", "float16", "bfloat16")},
       attrs=(Attr("value", "float"),), source=f"{_ELEWISE} REG_OP(Adds): y = x + value; REQUIRED_ATTR(value, Float)"),
    op("Axpy", "x1:T, x2:T", "y:T", {"T": ("float32", "int32", "float16", "bfloat16")},
       attrs=(Attr("alpha", "float", specials=(0.0, -1.0)),),
       source=f"{_ELEWISE} REG_OP(Axpy): y = x1 + alpha * x2 (alpha 'applies to x2'); REQUIRED_ATTR(alpha, Float)",
       # CANN's op info (dengguojie/vue-element-admin@7d77ce32d ops/built-in/tbe/impl/axpy.py op_select_format,
       # dynamicFormat.flag=true) offers FRACTAL_NZ for equal last two dims and NZ + ND broadcasts (docs/formats.md)
       formats=dict.fromkeys(("x1", "x2", "y"), ("FRACTAL_NZ",))),
    op("ClipByValue", "x:T, clip_value_min:T, clip_value_max:T", "y:T", {"T": NUMBERS},
       source=f"{_ELEWISE} REG_OP(ClipByValue): y = min(max(x, clip_value_min), clip_value_max)"),
    op("Inv", "x:T", "y:T", {"T": ("float16", "float32", "int32", "float64")},
       source=f"{_CANN}/elewise_calculation_ops.h REG_OP(Inv): y = 1 / x (TensorFlow Inv); the header's y lists float16, "
              "float32 and int32, its x also int64, double and complex; double is the AI CPU kernel's "
              "(ops/built-in/aicpu/op_info_cfg/aicpu_kernel/aicpu_kernel.ini [Inv]: x and y float16, float, double, "
              "complex64, complex128); complex left out here (no default cases draw it), int64 no kernel's output"),
    op("Trunc", "input_x:T", "output_y:T", {"T": ("float16", "float32", "int8", "int32", "uint8")}, specials=_HALVES,
       source=f"{_CANN}/math_ops.h REG_OP(Trunc): rounds toward zero (PyTorch trunc); integers unchanged"),
    op("Fills", "x:T", "y:T", {"T": ("float32", "int16", "int32", "float16", "int8")}, (Attr("value", "float"),),
       source=f"{_CANN}/elewise_calculation_ops.h REG_OP(Fills): y of x's shape and type, every element value; "
              "REQUIRED_ATTR(value, Float); int8 from CANN's op info (tbe/op_info_cfg/ai_core/<soc>/"
              "aic-<soc>-ops-info.ini [Fills]: float16, float32, int8, int32) and fills.py, which casts it via float16",
       sample_attrs={"value": 3.0}),
    op("TensorMove", "x:T", "y:T", {"T": ("float16", "float32", "int32", "int8", "uint8", "bool")},
       source=f"{_CANN}/elewise_calculation_ops.h REG_OP(TensorMove): y is a copy of x"),
    op("Power", "x:T", "y:T", {"T": ("float16", "float32")},
       (Attr("power", "float", 1.0), Attr("scale", "float", 1.0), Attr("shift", "float", 0.0)),
       source=f"{_CANN}/math_ops.h REG_OP(Power): y = (shift + scale * x) ^ power (Caffe Power); ATTR(power|scale|"
              "shift, Float, 1.0|1.0|0.0)",
       samples={"x": Sample(0.1, 4, "a positive base: a negative one to a fractional power is NaN")},
       sample_attrs={"power": 2.5, "scale": 1.5, "shift": 0.25}),
    op("Trace", "x:T", "y:T", {"T": ("float16", "float32")},
       source=f"{_CANN}/matrix_calculation_ops.h REG_OP(Trace): the sum of the diagonal of a 2-D matrix (PyTorch "
              "trace); the output has shape [1] (TraceInferShape, ops/built-in/op_proto/matrix_calculation_ops.cc)",
       sample_shapes=(((4, 4),), ((3, 5),)), shape_rule="given"),
)

