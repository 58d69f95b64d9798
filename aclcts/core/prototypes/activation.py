"""Records of the activation family: Relu, Sigmoid, Tanh, Gelu, FastGelu, Swish, Mish, the ReLU and ELU variants,
PRelu, Softplus, Softsign, LogSigmoid and the shrink functions.

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

from aclcts.core.prototypes.dtypes import FLOAT64, FLOATS, REALS, UNARY
from aclcts.core.prototypes.spec import Attr, Prototype, op

_NL = "graphengine op_proto/inc/nonlinear_fuc_ops.h"
_NL_910 = "graphengine 910 op_proto/inc/nonlinear_fuc_ops.h"
POLICY = "nn"
SHAPE_RULE = "same"
FLOATING_BF16 = FLOATS + FLOAT64
FP16_FP32 = ("float16", "float32")


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
)
