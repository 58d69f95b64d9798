"""Prototypes of the binary math family: division and remainder variants, Atan2, SquaredDifference, Xlogy, Xdivy.

Source: mindspore-ai/graphengine 910/third_party/fwkacllib/inc/op_proto/inc/elewise_calculation_ops.h (every op
here: inputs x1, x2 of one type, output y of that type, no attributes). FloatingDataType = double, float,
float16. complex32 (Div) is left out: the suite has no such dtype. Lerp, Xlog1py, Addcdiv, Addcmul, AxpyV2, IsClose,
ApproximateEqual, MaskedScale and FusedMulAddN come from CANN's own elewise_calculation_ops.h
(dengguojie/vue-element-admin@7d77ce32d ops/built-in/op_proto/inc/); where its type lists name complex (Xlog1py) or
NumberType (ApproximateEqual) the record keeps the types CANN's op info lists
(ops/built-in/tbe/op_info_cfg/ai_core/<soc>/aic-<soc>-ops-info.ini).
"""

from __future__ import annotations

import math

from aclcts.core.prototypes.dtypes import COMPLEX, FLOAT64, FLOATS
from aclcts.core.prototypes.spec import Attr, Prototype, Sample, op

POLICY = "elementwise"
SHAPE_RULE = "broadcast"

_ELEWISE = "graphengine op_proto/inc/elewise_calculation_ops.h"
_CANN = "dengguojie/vue-element-admin@7d77ce32d ops/built-in/op_proto/inc/elewise_calculation_ops.h"
_FP16_FP32 = ("float16", "float32")
#: The shape rule of the ops broadcasting three or four inputs: a dynamic case runs at its given runtime shapes (the
#: broadcast rule draws broadcastable shapes for two inputs only).
_MANY = "given"
#: Where CANN's TBE kernel and the documented (PyTorch) semantics part: infinities compared by |x1 - x2| (NaN).
_INFINITIES = (math.inf, -math.inf)

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
    op("Lerp", "start:T, end:T, weight:T", "y:T", {"T": _FP16_FP32},
       shape_rule=_MANY,
       source=f"{_CANN} REG_OP(Lerp): y = start + weight * (end - start) (PyTorch lerp)",
       samples={"weight": Sample(0, 1, "between the two ends, as lerp is used")}),
    op("Xlog1py", "x:T, y:T", "z:T", {"T": FLOATING},
       source=f"{_CANN} REG_OP(Xlog1py): z = x * log1p(y), 0 where x == 0 (TensorFlow Xlog1py); complex64/128 are "
              "in the header, not in the op info",
       samples={"y": Sample(-0.9, 10, "log1p's domain")}),
    op("Addcdiv", "input_data:T, x1:T, x2:T, value:V", "y:T",
       # V in the header's order but float64 first: the default cases draw value in the first type of V
       {"T": ("float16", "float32", "float64", "int64"), "V": ("float64", "float16", "float32", "int32", "int64")},
       shape_rule=_MANY,
       source=f"{_CANN} REG_OP(Addcdiv): y = input_data + value * x1 / x2 (PyTorch addcdiv); value a scalar tensor",
       samples={"x2": Sample(0.5, 4, "a divisor away from 0")},
       sample_shapes=(((2, 3), (2, 3), (2, 3), (1,)), ((4, 1, 5), (1, 3, 5), (4, 3, 1), (1,)))),
    op("Addcmul", "input_data:T, x1:T, x2:T, value:T", "y:T",
       {"T": ("float16", "float32", "int8", "int32", "uint8", "float64", "int64")},
       shape_rule=_MANY,
       source=f"{_CANN} REG_OP(Addcmul): y = input_data + value * x1 * x2 (PyTorch addcmul); value a scalar tensor",
       sample_shapes=(((2, 3), (2, 3), (2, 3), (1,)), ((4, 1, 5), (1, 3, 5), (4, 3, 1), (1,)))),
    op("AxpyV2", "x1:T, x2:T, alpha:T", "y:T", {"T": ("float16", "float32", "int32")},
       shape_rule=_MANY,
       source=f"{_CANN} REG_OP(AxpyV2): y = x2 * alpha + x1; alpha a scalar tensor; int32 not simulated (CANN's "
              "axpy_v2.py computes it in float32, the header states no integer rule)",
       sample_shapes=(((2, 3), (2, 3), (1,)), ((4, 1, 5), (1, 3, 5), (1,)))),
    op("IsClose", "x1:T, x2:T", "y:B", {"T": ("float16", "float32", "int32"), "B": ("bool",)},
       (Attr("rtol", "float", 1e-05), Attr("atol", "float", 1e-08), Attr("equal_nan", "bool", False)),
       policy="compare", open_points=_INFINITIES,
       source=f"{_CANN} REG_OP(IsClose): |x1 - x2| <= atol + rtol * |x2| (PyTorch isclose), NaN close to NaN only "
              "with equal_nan; ATTR(rtol, Float, 1e-05), ATTR(atol, Float, 1e-08), ATTR(equal_nan, Bool, false); "
              "equal infinities (close in PyTorch) left open: CANN's TBE is_close.py compares |inf - inf| = NaN",
       samples={"x2": Sample(-1, 1, "near x1, so that both answers occur")},
       sample_attrs={"rtol": 0.1, "atol": 0.05}),
    op("ApproximateEqual", "x1:T, x2:T", "y:B", {"T": _FP16_FP32, "B": ("bool",)}, (Attr("tolerance", "float", 1e-5),),
       policy="compare",
       source=f"{_CANN} REG_OP(ApproximateEqual): |x1 - x2| < tolerance (TensorFlow ApproximateEqual); "
              "ATTR(tolerance, Float, 1e-5); NumberType in the header, float16/float32 in the op info",
       samples={"x2": Sample(-1, 1, "near x1, so that both answers occur")},
       sample_attrs={"tolerance": 0.3}),
    op("MaskedScale", "x:T, mask:M", "y:T", {"T": _FP16_FP32, "M": ("int8", "float16", "float32")},
       (Attr("value", "float"),),
       source=f"{_CANN} REG_OP(MaskedScale): y = x * mask * value, mask of x's shape; REQUIRED_ATTR(value, Float)",
       samples={"mask": Sample(0, 1, "a dropout mask of zeros and ones")}, sample_attrs={"value": 1.25},
       shape_rule="same"),
    op("FusedMulAddN", "x1:T, x2:T, x3:T", "y:T", {"T": ("float32", "float16", "int32", "int16")},
       source=f"{_CANN} REG_OP(FusedMulAddN): y = x1 * x3 + x2, x3 one value broadcast "
              "(ops/built-in/tbe/impl/fused_mul_add_n.py)",
       sample_shapes=(((2, 3), (2, 3), (1,)), ((4, 1, 5), (4, 1, 5), (1,))), shape_rule="given"),
    op("Dot", "input_x:T, input_y:T", "output:T", {"T": ("float32", "float16", "uint8", "int8", "int32")},
       source=f"{_CANN} REG_OP(Dot): the inner product of two 1-D tensors of one length; the output has shape [1] "
              "(DotInferShape, ops/built-in/op_proto/elewise_calculation_ops.cc)",
       sample_shapes=(((32,), (32,)), ((7,), (7,))), shape_rule="given"),
    op("AddMatMatElements", "c:T, a:T, b:T, beta:T, alpha:T", "c:T", {"T": ("float32", "float16")},
       shape_rule=_MANY,
       source=f"{_CANN} REG_OP(AddMatMatElements): c = c * beta + alpha * a * b (TensorFlow AddMatMatElements); "
              "beta and alpha scalar tensors, a and b broadcast to c (ops/built-in/tbe/impl/add_mat_mat_elements.py)",
       sample_shapes=(((2, 3), (2, 3), (2, 3), (1,), (1,)), ((4, 5), (4, 1), (1, 5), (1,), (1,)))),
    op("Cross", "x1:T, x2:T", "y:T", {"T": ("float16", "float32", "int32", "int8", "uint8", "int16")},
       (Attr("dim", "int", -65530),), shape_rule="same",
       source="dengguojie/vue-element-admin@7d77ce32d ops/built-in/op_proto/inc/math_ops.h REG_OP(Cross): the cross "
              "product of x1 and x2 along dim, whose size is 3 (PyTorch cross); ATTR(dim, Int, -65530), the default "
              "meaning the first dim of size 3; x1 and x2 of one shape (ops/built-in/tbe/impl/cross.py)",
       samples={name: Sample(-10, 10, "small, so that integer products stay in range") for name in ("x1", "x2")},
       # a difference of two products: at large values both overflow and inf - inf is NaN, which the float64
       # reference does not see; the integer and float profiles differ, so unit is the one all dtypes share
       profiles=("unit",),
       sample_shapes=(((4, 3), (4, 3)), ((2, 3, 5), (2, 3, 5)))),
    op("ClipByNormNoDivSum", "x:T, greater_zeros:T, select_ones:T, maximum_ones:T", "y:T", {"T": _FP16_FP32},
       shape_rule=_MANY,
       source=f"{_CANN} REG_OP(ClipByNormNoDivSum): the fused select, maximum, greater and sqrt of TensorFlow's "
              "clip_by_norm: y = max(sqrt(x) where x > greater_zeros else x, maximum_ones), select_ones taking x's "
              "place under the sqrt where x <= greater_zeros (ops/built-in/tbe/impl/clip_by_norm_no_div_sum.py); the "
              "four broadcast together",
       samples={"x": Sample(-4, 16, "sums of squares, and values at or below the threshold"),
                "greater_zeros": Sample(0, 0, "the threshold 0 of clip_by_norm"),
                "select_ones": Sample(1, 1, "the 1 of clip_by_norm"),
                "maximum_ones": Sample(0.5, 3, "a clip norm on both sides of sqrt(x)")},
       sample_shapes=(((8, 16), (8, 16), (8, 16), (8, 16)), ((4, 5), (1,), (1,), (4, 1)))),
    op("Ger", "x1:T, x2:T", "y:T", {"T": _FP16_FP32},
       source="dengguojie/vue-element-admin@7d77ce32d ops/built-in/op_proto/inc/linalg_ops.h REG_OP(Ger): the outer "
              "product y[i, j] = x1[i] * x2[j] of two 1-D tensors (PyTorch ger)",
       sample_shapes=(((5,), (7,)), ((1,), (3,))), shape_rule="given"),
)

