"""Records of the activation family: Relu, Sigmoid, Tanh, Gelu, FastGelu, Swish, Mish, the ReLU and ELU variants,
PRelu, Softplus, Softsign, LogSigmoid, the shrink functions, and BNLL, CeluV2, FastGeluV2, SoftplusV2, ThresholdV2D,
ThresholdV2 and Shrink from CANN's own headers.

Source: mindspore-ai/graphengine 910/third_party/fwkacllib/inc/op_proto/inc/nonlinear_fuc_ops.h (the 910 op_proto
headers, newer than third_party/fwkacllib/inc/ops/, which lacks bfloat16 and Elu's scale/input_scale).
FloatingDataType = double, float, float16; RealNumberType = every real type (Relu6). Left out of the type lists,
each said in its source: the quantized types and Selu's int8/int32 (how the float result returns to an integer type
is not documented). HardSigmoid takes int32 to int32: its header lists int32 for input_x only, but CANN's op info
pairs int32 with int32 (canndev 7d77ce32d ops/built-in/tbe/op_info_cfg/ai_core/<soc>/aic-<soc>-ops-info.ini
[HardSigmoid]), its shape inference copies x's type to y, and its TBE kernel (ops/built-in/tbe/impl/hard_sigmoid.py)
computes in float32 and casts the result back.
"""

from __future__ import annotations

import math

from aclcts.core.prototypes.dtypes import FLOAT64, FLOATS, REALS, UNARY
from aclcts.core.prototypes.spec import Attr, Prototype, Sample, op

_NL = "graphengine op_proto/inc/nonlinear_fuc_ops.h"
_NL_910 = "graphengine 910 op_proto/inc/nonlinear_fuc_ops.h"
_NL_CANN = "dengguojie/vue-element-admin@7d77ce32d ops/built-in/op_proto/inc/nonlinear_fuc_ops.h"
_TBE = "dengguojie/vue-element-admin@7d77ce32d ops/built-in/tbe/impl"
POLICY = "nn"
SHAPE_RULE = "same"
FLOATING_BF16 = FLOATS + FLOAT64
FP16_FP32 = ("float16", "float32")
#: TensorType::FloatingDataType of CANN's headers: double, float, float16.
FLOATING = ("float16", "float32", "float64")
#: Where the documented formula is inf / inf or inf * 0 (a sign or a 0/1 mask of an infinite input): left open.
_INFINITIES = (math.inf, -math.inf)


def _unary(op_type: str, types: tuple[str, ...], note: str = "", attrs: tuple[Attr, ...] = (),
           names: tuple[str, str] = ("x", "y")) -> Prototype:
    """names[0] -> names[1] of one type constraint."""
    source = f"{_NL} REG_OP({op_type})" + (f": {note}" if note else "")
    return op(op_type, f"{names[0]}:T", f"{names[1]}:T", {"T": types}, attrs=attrs, source=source)


_SHRINK = ("input_x", "output_y")

PROTOTYPES: tuple[Prototype, ...] = (
    op("Relu", "x:T", "y:T", {"T": FLOATS + FLOAT64 + ("int8", "int16", "int32", "int64", "uint8", "uint16")},
       source=f"{_NL_910} REG_OP(Relu)"),
    op("Sigmoid", "x:T", "y:T", {"T": UNARY}, source=f"{_NL_910} REG_OP(Sigmoid)"),
    op("Tanh", "x:T", "y:T", {"T": UNARY}, source=f"{_NL_910} REG_OP(Tanh)"),
    _unary("Gelu", FLOATS, "documented as x*Phi(x); the TBE implementation computes the tanh approximation "
                           "x / (1 + exp(-2*sqrt(2/pi)*(x + 0.044715*x^3)))"),
    _unary("FastGelu", FLOATS, "x / (1 + exp(-1.702|x|)) * exp(0.851 (x - |x|)), i.e. x * sigmoid(1.702 x)"),
    _unary("Swish", FLOATS, "x * sigmoid(scale * x); ATTR(scale, Float, 1.0)", (Attr("scale", "float", 1.0),)),
    _unary("Mish", FLOATS, "x * tanh(softplus(x))"),
    _unary("LeakyRelu", FLOATS + FLOAT64, "x if x > 0 else negative_slope * x; ATTR(negative_slope, Float, 0.0)",
           (Attr("negative_slope", "float", 0.0),)),
    _unary("Elu", FLOATING_BF16, "scale * (x if x > 0 else alpha * (exp(input_scale * x) - 1)); ATTR(alpha, Float, "
                                 "1.0), ATTR(scale, Float, 1.0), ATTR(input_scale, Float, 1.0)",
           (Attr("alpha", "float", 1.0), Attr("scale", "float", 1.0), Attr("input_scale", "float", 1.0))),
    _unary("Selu", FLOATS + FLOAT64, "scale * (x if x > 0 else alpha * (exp(x) - 1)) with the paper's constants; "
                                     "int8 and int32 are in the prototype, left out here"),
    _unary("Celu", FP16_FP32, "alpha3 * x if x >= 0 else alpha1 * (exp(x / alpha2) - 1); ATTR(alpha1|alpha2|alpha3, "
                              "Float, 1.0)",
           (Attr("alpha1", "float", 1.0), Attr("alpha2", "float", 1.0), Attr("alpha3", "float", 1.0))),
    _unary("Relu6", REALS, "min(max(x, 0), 6); RealNumberType"),
    _unary("HardSigmoid", FLOATS + ("int32",), "max(0, min(1, alpha * x + beta)); ATTR(alpha, Float, 0.16666666), "
                                               "ATTR(beta, Float, 0.5); int32 to int32 from canndev's op info",
           (Attr("alpha", "float", 0.16666666), Attr("beta", "float", 0.5)), _SHRINK),
    _unary("HardSwish", FLOATS, "x * min(max(x + 3, 0), 6) / 6"),
    op("PRelu", "x:T, weight:T", "y:T", {"T": FLOATS},
       source=f"{_NL} REG_OP(PRelu): x if x > 0 else weight * x; weight a scalar or 1-D tensor, one value or one "
              "per channel (dimension 1 of x)",
       # CANN's op info (dengguojie/vue-element-admin@7d77ce32d ops/built-in/tbe/impl/prelu.py op_select_format,
       # dynamicFormat.flag=true) offers these for x, weight and y, each for some shapes (docs/formats.md)
       formats=dict.fromkeys(("x", "weight", "y"), ("NC1HWC0", "NDC1HWC0", "FRACTAL_NZ")), shape_rule="given"),
    _unary("Softplus", FLOATING_BF16, "log(exp(x) + 1)"),
    _unary("Softsign", FLOATING_BF16, "x / (abs(x) + 1)"),
    _unary("LogSigmoid", FLOATS, "-ln(1 + e^(-x))"),
    _unary("SoftShrink", FLOATS, "x - lambd if x > lambd, x + lambd if x < -lambd, else 0; ATTR(lambd, Float, 0.5)",
           (Attr("lambd", "float", 0.5),), _SHRINK),
    _unary("HardShrink", FLOATS, "x if |x| > lambd else 0; ATTR(lambd, Float, 0.5)",
           (Attr("lambd", "float", 0.5),), _SHRINK),
    op("BNLL", "x:T", "y:T", {"T": FLOATING},
       source=f"{_NL_CANN} REG_OP(BNLL): y = x + log(1 + exp(-x)) if x > 0, else log(1 + exp(x)) (a softplus)"),
    op("CeluV2", "x:T", "y:T", {"T": FP16_FP32}, (Attr("alpha", "float", 1.0),),
       source=f"{_NL_CANN} REG_OP(CeluV2): max(0, x) + min(0, alpha * (exp(x / alpha) - 1)), ONNX Celu; "
              "ATTR(alpha, Float, 1.0)",
       # op.pattern=formatAgnostic in CANN's op info (aic-<soc>-ops-info.ini [CeluV2]); its own cases store x and y
       # in these (ops/built-in/tests/st/CeluV2)
       formats=dict.fromkeys(("x", "y"), ("NC1HWC0", "FRACTAL_NZ")), sample_attrs={"alpha": 1.5}),
    op("FastGeluV2", "x:T", "y:T", {"T": FP16_FP32}, open_points=_INFINITIES,
       source=f"{_NL_CANN} REG_OP(FastGeluV2): x * (sgn(x) * [(a/2) (clip(|t|, max=-b) + b)^2 + 0.5] + 0.5), "
              "sgn(x) = (x + 1e-12) / |x + 1e-12|; a/2 = -0.1444, b = -1.769 and t = 0.7071 x from "
              f"{_TBE}/fast_gelu_v2.py (the header leaves them out); sgn(+-inf) is inf / inf, left open"),
    op("SoftplusV2", "x:T", "y:T", {"T": FP16_FP32}, (Attr("beta", "float", 1.0), Attr("threshold", "float", 20.0)),
       open_points=_INFINITIES,
       source=f"{_NL_CANN} REG_OP(SoftplusV2): log(1 + exp(beta * x)) / beta, or x where beta * x > threshold; "
              f"ATTR(beta, Float, 1.0), ATTR(threshold, Float, 20.0); {_TBE}/softplus_v2.py selects by 0/1 masks "
              "(inf * 0 at +-inf), left open",
       samples={"x": Sample(-30, 30, "both sides of beta * x = threshold")},
       sample_attrs={"beta": 0.5, "threshold": 10.0}),
    op("ThresholdV2D", "x:T", "y:T", {"T": REALS}, (Attr("threshold", "float"), Attr("value", "float")),
       source=f"{_NL_CANN} REG_OP(ThresholdV2D): y = x if x > threshold else value; REQUIRED_ATTR(threshold, "
              "Float), REQUIRED_ATTR(value, Float); RealNumberType",
       samples={"x": Sample(-5, 5, "on both sides of the threshold")},
       sample_attrs={"threshold": 1.0, "value": 3.0}),
    op("ThresholdV2", "x:T, threshold:T, value?:T", "y:T", {"T": ("float16", "float32", "int8", "int32", "uint8")},
       source=f"{_NL_CANN} REG_OP(ThresholdV2): y = x if x > threshold else value, threshold and value one value "
              "each (shape [1]), value 0 when absent (PyTorch Threshold)",
       samples={"x": Sample(-5, 5, "on both sides of the threshold"), "threshold": Sample(-1, 1, "inside x's range")},
       sample_shapes=(((16, 32), (1,)), ((2, 3, 5), (1,))), shape_rule="given"),
    op("Shrink", "input_x:T", "output_y:T", {"T": FP16_FP32}, (Attr("lambd", "float", 0.5), Attr("bias", "float", 0.0)),
       source=f"{_NL_CANN} REG_OP(Shrink): x - bias if x > lambd, x + bias if x < -lambd, else 0 (ONNX Shrink); "
              "ATTR(lambd, Float, 0.5), ATTR(bias, Float, 0.0)",
       samples={"input_x": Sample(-3, 3, "inside and outside [-lambd, lambd]")},
       sample_attrs={"lambd": 1.0, "bias": 0.25}),
)
