"""Prototypes of the comparison, logic and bit family, and Select.

Sources: mindspore-ai/graphengine 910/third_party/fwkacllib/inc/op_proto/inc/ elewise_calculation_ops.h
(LessEqual, GreaterEqual, NotEqual: RealNumberType in, bool out; LogicalOr, LogicalNot: bool; BitwiseAnd, BitwiseOr,
BitwiseXor, Invert: IntegerDataType), bitwise_ops.h (LeftShift, RightShift: inputs x, y, output z, the eight integer
types) and selection_ops.h (Select: condition bool, x1, x2 and y of BasicType, bool or string; its quantized types
and string are left out). RealNumberType's quantized types are left out as well. SelectV2, TensorEqual and CompareAndBitpack
come from CANN's own headers (named in their records).
"""

from __future__ import annotations

from aclcts.core.prototypes.dtypes import BASIC, BOOL, COMPLEX, INTS, REALS
from aclcts.core.prototypes.spec import Prototype, Sample, op

POLICY = "compare"
SHAPE_RULE = "broadcast"

_ELEWISE = "graphengine op_proto/inc/elewise_calculation_ops.h"
_BITWISE = "graphengine op_proto/inc/bitwise_ops.h"
_SELECTION = "graphengine op_proto/inc/selection_ops.h"
_CANN = "dengguojie/vue-element-admin@7d77ce32d ops/built-in/op_proto"


def _compare(op_type: str) -> Prototype:
    """x1, x2 (one real type) -> y (bool)."""
    return op(op_type, "x1:T, x2:T", "y:B", {"T": REALS, "B": BOOL}, source=f"{_ELEWISE} REG_OP({op_type})")


def _bitwise(op_type: str) -> Prototype:
    """x1, x2 -> y, one integer type."""
    return op(op_type, "x1:T, x2:T", "y:T", {"T": INTS}, source=f"{_ELEWISE} REG_OP({op_type})")


def _shift(op_type: str) -> Prototype:
    """x, y -> z, one integer type (the shift count y has the type of x)."""
    return op(op_type, "x:T, y:T", "z:T", {"T": INTS}, source=f"{_BITWISE} REG_OP({op_type})")


PROTOTYPES: tuple[Prototype, ...] = (
    _compare("LessEqual"),
    _compare("GreaterEqual"),
    _compare("NotEqual"),
    op("LogicalOr", "x1:B, x2:B", "y:B", {"B": BOOL}, source=f"{_ELEWISE} REG_OP(LogicalOr)"),
    op("LogicalNot", "x:B", "y:B", {"B": BOOL}, source=f"{_ELEWISE} REG_OP(LogicalNot)"),
    _bitwise("BitwiseAnd"),
    _bitwise("BitwiseOr"),
    _bitwise("BitwiseXor"),
    op("Invert", "x:T", "y:T", {"T": INTS}, source=f"{_ELEWISE} REG_OP(Invert): bitwise NOT"),
    _shift("LeftShift"),
    _shift("RightShift"),
    op("Select", "condition:B, x1:T, x2:T", "y:T", {"B": BOOL, "T": REALS + COMPLEX + BOOL},
       source=f"{_SELECTION} REG_OP(Select): y = condition ? x1 : x2", shape_rule="same"),
    op("SelectV2", "condition:B, then:T, else:T", "result:T", {"B": BOOL, "T": BASIC},
       source=f"{_CANN}/inc/selection_ops.h REG_OP(SelectV2): result = condition ? then : else, the three broadcast "
              "together (TensorFlow SelectV2); BasicType"),
    op("TensorEqual", "input_x:T, input_y:T", "output_z:B",
       {"T": ("float16", "float32", "float64", "int64", "int32", "int8", "uint8"), "B": BOOL},
       source=f"{_CANN}/inc/elewise_calculation_ops.h REG_OP(TensorEqual): one bool, whether the two tensors are "
              "equal in shape and in every element (PyTorch equal); the output has shape [1] and the inputs one "
              "element count (TensorEqualInferShape, elewise_calculation_ops.cc)",
       shape_rule="same", sample_shapes=(((16, 32), (16, 32)), ((3, 4), (4, 3)), ((5,), (5,)))),
    op("CompareAndBitpack", "x:T, threshold:T", "y:U",
       {"T": ("float32", "float16", "float64", "int8", "int16", "int32", "int64", "bool"), "U": ("uint8",)},
       source=f"{_CANN}/inc/math_ops.h REG_OP(CompareAndBitpack): x > threshold, each 8 results along the innermost "
              "dim packed into one uint8, the first as the most significant bit (TensorFlow CompareAndBitpack; a "
              "bool x is packed as it is); the innermost dim must be divisible by 8, threshold a scalar",
       samples={"threshold": Sample(-2, 2, "inside x's range, so that both bits occur")},
       sample_shapes=(((4, 16), ()), ((2, 3, 8), ())), shape_rule="given"),
)
