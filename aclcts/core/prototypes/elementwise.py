"""Prototypes of the element-wise arithmetic, unary and comparison ops the suite has had from the start.

Source: mindspore-ai/graphengine 910/third_party/fwkacllib/inc/op_proto/inc/elewise_calculation_ops.h (REG_OP of
each op) and, for Add (which also takes bool and bfloat16), hicann/ops-math math/add/op_graph/add_proto.h; with
bfloat16 where the current CANN operator specification adds it (the case files' `source:` lines).
Left out: DT_STRING, DT_VARIANT, complex32 and the quantized types (the suite has no such dtype). Mul and Pow
promote x1 and x2 to y (DATATYPE T3 Promote) in the header; here x1, x2 and y share one dtype, as every kernel
and case of the suite computes them.
"""

from __future__ import annotations

from aclcts.core.prototypes.dtypes import BOOL, COMPLEX, FLOAT64, FLOATS, NUMBERS, REALS, UNARY
from aclcts.core.prototypes.spec import Attr, Prototype, op

POLICY = "elementwise"
SHAPE_RULE = "broadcast"

_SRC = "graphengine 910 op_proto/inc/elewise_calculation_ops.h"
_CANN = "dengguojie/vue-element-admin@7d77ce32d ops/built-in/op_proto/inc"
_ADD = ("bool", "float32", "int32", "int64", "float16", "bfloat16", "int16", "int8", "uint8", "double") + COMPLEX
_ARITH = FLOATS + FLOAT64 + ("uint8", "int8", "uint16", "int16", "int32", "int64") + COMPLEX
_MINMAX = FLOATS + FLOAT64 + ("int32", "int64")
_EQUAL = FLOATS + FLOAT64 + ("int8", "int16", "int32", "int64", "uint8") + COMPLEX + BOOL
_LOG_ATTRS = (Attr("base", "float", -1.0), Attr("scale", "float", 1.0), Attr("shift", "float", 0.0))


#: The private format CANN's own Add system tests (ops/built-in/tests/st/Add) store x1, x2 and y in.
_ADD_FORMATS = ("NC1HWC0",)
#: Mul's x1, x2 and y may be FRACTAL_NZ: CANN's op info (dengguojie/vue-element-admin@7d77ce32d
#: ops/built-in/tbe/impl/mul.py op_select_format, dynamicFormat.flag=true in the SoCs' aic-<soc>-ops-info.ini) offers
#: it when the last two dims match, or one input is a scalar (docs/formats.md).
_MUL_FORMATS = ("FRACTAL_NZ",)


def _binary(op_type: str, types: tuple[str, ...], formats: tuple[str, ...] = ()) -> Prototype:
    """x1, x2 -> y, all of one dtype (each may be stored in one of formats)."""
    return op(op_type, "x1:T, x2:T", "y:T", {"T": types}, source=f"{_SRC} REG_OP({op_type})",
              formats=dict.fromkeys(("x1", "x2", "y"), formats) if formats else None)


def _unary(op_type: str, types: tuple[str, ...], attrs: tuple[Attr, ...] = ()) -> Prototype:
    """x -> y of one dtype."""
    return op(op_type, "x:T", "y:T", {"T": types}, attrs, source=f"{_SRC} REG_OP({op_type})")


def _compare(op_type: str, types: tuple[str, ...]) -> Prototype:
    """x1, x2 of one dtype -> y bool."""
    return op(op_type, "x1:T, x2:T", "y:B", {"T": types, "B": BOOL}, source=f"{_SRC} REG_OP({op_type})",
              policy="compare")


#: How Caffe's Bias and Scale lay their operand along x (the REG_OP comments' constraints).
_CAFFE_AXES = ("num_axes dims from blob (-1: all the rest, 0: one value), or as many as the operand has when not "
               "from blob, each of x's size")


def _caffe_attrs(from_blob: str) -> tuple[Attr, ...]:
    """axis, num_axes and the from-blob flag of Caffe's Bias and Scale."""
    return (Attr("axis", "int", 1), Attr("num_axes", "int", 1), Attr(from_blob, "bool", True))


PROTOTYPES: tuple[Prototype, ...] = (
    _binary("Add", _ADD, _ADD_FORMATS),
    _binary("Sub", _ARITH + BOOL),
    _binary("Mul", _ARITH + BOOL, _MUL_FORMATS),
    _binary("RealDiv", _ARITH),
    _binary("Maximum", _MINMAX),
    _binary("Minimum", _MINMAX),
    _binary("Pow", FLOATS + FLOAT64 + ("int8", "int16", "int32", "int64", "uint8") + COMPLEX),
    _unary("Abs", FLOATS + FLOAT64 + ("int8", "int16", "int32", "int64")),
    _unary("Neg", FLOATS + FLOAT64 + ("int8", "int32", "int64") + COMPLEX),
    _unary("Exp", UNARY, _LOG_ATTRS),
    _unary("Log", UNARY, _LOG_ATTRS),
    _unary("Sqrt", UNARY),
    _unary("Rsqrt", UNARY),
    _unary("Square", UNARY + ("int32", "int64")),
    _unary("Reciprocal", UNARY + ("int32", "int64")),
    op("AddN", "x*:T", "y:T", {"T": NUMBERS}, (Attr("N", "int"),),
       source=f"{_SRC} REG_OP(AddN): DYNAMIC_INPUT x, REQUIRED_ATTR(N, Int)", shape_rule="same"),
    op("AccumulateNV2", "x*:T", "y:T", {"T": NUMBERS}, (Attr("N", "int"),),
       source="dengguojie/vue-element-admin@7d77ce32d ops/built-in/op_proto/inc/elewise_calculation_ops.h "
              "REG_OP(AccumulateNV2): the element-wise sum of the tensors of DYNAMIC_INPUT x (TensorFlow "
              "AccumulateNV2), REQUIRED_ATTR(N, Int); the inputs broadcast to the output's shape (ops/built-in/tbe/impl/"
              "accumulate_nv2.py)", shape_rule="given"),
    _compare("Equal", _EQUAL),
    _compare("Less", REALS),
    _compare("Greater", REALS),
    op("LogicalAnd", "x1:B, x2:B", "y:B", {"B": BOOL}, source=f"{_SRC} REG_OP(LogicalAnd)", policy="compare"),
    op("BiasAdd", "x:T, bias:T", "y:T", {"T": NUMBERS}, (Attr("data_format", "str", "NHWC"),),
       source=f"{_CANN}/elewise_calculation_ops.h REG_OP(BiasAdd): y = x + bias, bias 1-D as long as x's channel dim: "
              "the last for data_format NHWC (and NDHWC), dim 1 for NCHW (and NCDHW) (TensorFlow BiasAdd; "
              "ops/built-in/tbe/impl/bias_add.py); ATTR(data_format, String, \"NHWC\"); NumberType",
       sample_shapes=(((2, 3, 4, 5), (5,)), ((8, 16), (16,))), shape_rule="given"),
    op("BiasAddGrad", "x:T", "y:T", {"T": NUMBERS}, (Attr("data_format", "str", "NHWC"),),
       source=f"{_CANN}/nn_calculation_ops.h REG_OP(BiasAddGrad): y[c] = the sum of x over every dim but the "
              "feature dim c: the last for data_format NHWC (and NDHWC), dim 1 for NCHW (and NCDHW) (TensorFlow "
              "BiasAddGrad; ops/built-in/tbe/impl/bias_add_grad.py); ATTR(data_format, String, \"NHWC\"); NumberType",
       policy="reduction", shape_rule="same", sample_shapes=(((2, 3, 4, 5),), ((8, 16),))),
    op("Bias", "x:T, bias:T", "y:T", {"T": ("float32", "float16")}, _caffe_attrs("bias_from_blob"),
       source=f"{_CANN}/nn_norm_ops.h REG_OP(Bias): y = x + bias (Caffe Bias), bias covering x's dims from axis on: "
              f"{_CAFFE_AXES}; ATTR(axis, Int, 1), ATTR(num_axes, Int, 1), ATTR(bias_from_blob, Bool, true)",
       sample_shapes=(((2, 3, 4), (3,)), ((4, 5), (5,))), shape_rule="given"),
    op("Scale", "x:T, scale:T, bias?:T", "y:T", {"T": ("float32", "float16")}, _caffe_attrs("scale_from_blob"),
       source=f"{_CANN}/nn_norm_ops.h REG_OP(Scale): y = x * scale (+ bias when given) (Caffe Scale), scale and bias "
              f"covering x's dims from axis on: {_CAFFE_AXES}; ATTR(axis, Int, 1), ATTR(num_axes, Int, 1), "
              "ATTR(scale_from_blob, Bool, true)",
       sample_shapes=(((2, 3, 4), (3,)), ((4, 5), (5,))), shape_rule="given"),
)
