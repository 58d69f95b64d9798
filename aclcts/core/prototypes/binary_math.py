"""Prototypes of the binary math family: division and remainder variants, Atan2, SquaredDifference, Xlogy, Xdivy.

Source: mindspore-ai/graphengine 910/third_party/fwkacllib/inc/op_proto/inc/elewise_calculation_ops.h (every op
here: inputs x1, x2 of one type, output y of that type, no attributes). FloatingDataType = double, float,
float16. complex32 (Div) is left out: the suite has no such dtype.
"""

from __future__ import annotations

from aclcts.core.prototypes.dtypes import COMPLEX, FLOAT64, FLOATS
from aclcts.core.prototypes.spec import Prototype, Sample, op

POLICY = "elementwise"
SHAPE_RULE = "broadcast"

_ELEWISE = "graphengine op_proto/inc/elewise_calculation_ops.h"

FLOATING = FLOATS + FLOAT64

#: Div's x1, x2 and y may be FRACTAL_NZ: CANN's op info (dengguojie/vue-element-admin@7d77ce32d
#: ops/built-in/tbe/impl/div.py op_select_format, dynamicFormat.flag=true in the SoCs' ops-info.ini) offers it when
#: the last two dims match, or one input is a scalar (docs/formats.md).
_DIV_FORMATS = ("FRACTAL_NZ",)


def _binary(op_type: str, types: tuple[str, ...], note: str = "", formats: tuple[str, ...] = ()) -> Prototype:
    """x1, x2 -> y, all of one type constraint, no attributes (each tensor may be stored in one of formats)."""
    source = f"{_ELEWISE} REG_OP({op_type})" + (f": {note}" if note else "")
    return op(op_type, "x1:T, x2:T", "y:T", {"T": types}, source=source,
              formats=dict.fromkeys(("x1", "x2", "y"), formats) if formats else None)


_DIV = FLOATING + ("int8", "uint8", "int32", "int64", "uint16", "int16") + COMPLEX
_FLOOR_DIV = FLOATING + ("int8", "int32", "uint8", "int64", "int16", "uint16") + COMPLEX

PROTOTYPES: tuple[Prototype, ...] = (
    _binary("Atan2", FLOATING, "arctangent of x1/x2 respecting the signs of both"),
    _binary("Div", _DIV, "x1/x2, compatible with TensorFlow Div", _DIV_FORMATS),
    _binary("DivNoNan", FLOATING + ("uint8", "int8", "int32"), "0 where x2 is 0, else Div"),
    _binary("FloorDiv", _FLOOR_DIV, "x1/x2 rounded toward the most negative integer"),
    _binary("FloorMod", FLOATING + ("int32", "int64"),
            "floor(x1/x2) * x2 + mod(x1, x2) = x1; integer division by zero on NPU returns x1"),
    _binary("Mod", FLOATING + ("int32", "int8", "uint8", "int64"),
            "remainder with the sign of x1 (TensorFlow Mod); x2 does not support 0"),
    _binary("TruncateDiv", FLOATING + ("int8", "uint8", "int32", "uint16", "int16", "int64") + COMPLEX,
            "x1/x2 rounded toward zero"),
    _binary("TruncateMod", FLOATING + ("int64", "int32"),
            "remainder of the truncating division; x2 does not support 0"),
    _binary("SquaredDifference", FLOATING + ("int32", "int64") + COMPLEX, "(x1 - x2)(x1 - x2)"),
    _binary("Xlogy", FLOATING + COMPLEX, "x1 * log(x2), compatible with TensorFlow Xlogy"),
    _binary("Xdivy", FLOATING + COMPLEX, "x1 / x2, 0 where x1 is 0"),
    op("MulNoNan", "x1:T, x2:T", "y:T", {"T": ("float16", "float32", "int32", "bfloat16")},
       source="CANN ops-math mul_no_nan_proto.h REG_OP(MulNoNan): y = 0 where x2 == 0 (-0 too), even if x1 is NaN or "
              "inf, else x1 * x2; NumPy broadcasting; fp16/bf16 computed in fp32",
       samples={name: Sample(-10, 10, "zeros of x2 against NaN and inf of x1", special=0.6) for name in ("x1", "x2")}),
)
