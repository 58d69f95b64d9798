"""Records of the elementwise gradient ops: the backward ops of the activations and of the unary math functions.

Source: dengguojie/vue-element-admin@7d77ce32d ops/built-in/op_proto/inc/nonlinear_fuc_ops.h and
elewise_calculation_ops.h (CANN's prototype headers), each REG_OP named in its record. Every op here is elementwise:
its inputs share one dtype and one shape (or broadcast, for the four ops whose TBE implementation broadcasts) and its
output has both. The operand a gradient op takes differs per op and
is named in each record's note and its `gradient_of`: some take the forward op's input x (ReluGrad's features, AsinGrad's
y, despite its name), some its output y (SigmoidGrad, TanhGrad, SqrtGrad, RsqrtGrad, ReciprocalGrad, InvGrad's x,
AcoshGrad, AsinhGrad, EluGrad, SeluGrad), and the order of the inputs differs per op.
FloatingDataType = double, float, float16 (with bfloat16 as in the activation records); UnaryDataType = those and
complex64/complex128; RealNumberType = every real type. Left out of the type lists, each said in its record: integer
types where the header lists them but no document says how the float result returns to the integer type (AsinGrad,
InvGrad, RsqrtGrad, SeluGrad), and complex where the forward op's derivative is not defined by a document here
(AsinGrad). MaximumGrad, MinimumGrad and PReluGrad differentiate forward ops of two inputs and give one output per
input.
"""

from __future__ import annotations

from aclcts.core.prototypes.dtypes import FLOAT64, FLOATS, REALS, UNARY
from aclcts.core.prototypes.spec import Attr, GradientOf, Prototype, Sample, op

POLICY = "nn"
SHAPE_RULE = "same"
#: The shape rule of the ops whose TBE implementation broadcasts its two inputs (relu_grad.py, leaky_relu_grad.py,
#: log_sigmoid_grad.py, softplus_v2_grad.py): NumPy broadcasting.
_BROADCAST = "broadcast"

_REPO = "dengguojie/vue-element-admin@7d77ce32d ops/built-in/op_proto/inc"
_NL = f"{_REPO}/nonlinear_fuc_ops.h"
_ELEWISE = f"{_REPO}/elewise_calculation_ops.h"
FP16_FP32 = ("float16", "float32")
FLOATING = FLOATS + FLOAT64
#: Where an incoming gradient is drawn: both signs, so that a kernel flipping the sign of the result shows.
_DY = Sample(-2.0, 2.0, "incoming gradients of both signs")


def _grad(op_type: str, header: str, inputs: tuple[str, str] | tuple[str, str, str], output: str,
          types: tuple[str, ...], note: str, gradient_of: GradientOf | None, attrs: tuple[Attr, ...] = (),
          samples: dict[str, Sample] | None = None, sample_attrs: dict[str, object] | None = None,
          formats: dict[str, tuple[str, ...]] | None = None, shape_rule: str = "") -> Prototype:
    """A gradient op: inputs -> output, all of one type constraint; the input gradient_of names dy is drawn from _DY
    unless samples say otherwise."""
    dy = gradient_of.dy if gradient_of else inputs[0]
    drawn = {dy: _DY, **(samples or {})}
    return op(op_type, ", ".join(f"{name}:T" for name in inputs), f"{output}:T", {"T": types}, attrs=attrs,
              source=f"{header} REG_OP({op_type}): {note}", samples=drawn, sample_attrs=sample_attrs,
              gradient_of=gradient_of, formats=formats, shape_rule=shape_rule)


def _range(low: float, high: float, why: str) -> Sample:
    return Sample(low, high, why)


_LAMBD = (Attr("lambd", "float", 0.5),)
#: TanhGrad's y, dy and z may be NC1HWC0 or FRACTAL_NZ: CANN's op info (dengguojie/vue-element-admin@7d77ce32d
#: ops/built-in/tbe/op_info_cfg/ai_core/ascend910/aic-ascend910-ops-info.ini [TanhGrad]) pairs them with float16 and
#: float32 (docs/formats.md).
_TANH_GRAD_FORMATS = dict.fromkeys(("y", "dy", "z"), ("NC1HWC0", "FRACTAL_NZ"))

def _extremum_grad(op_type: str, forward: str, rule: str) -> Prototype:
    """MaximumGrad or MinimumGrad: grads routed to x1 where rule holds, else to x2 (TensorFlow's _MaximumMinimumGrad),
    each summed into its input's shape where x1 and x2 broadcast."""
    return op(op_type, "grads:T, x1:T, x2:T", "y1:T, y2:T", {"T": ("float32", "float16", "int32")},
              (Attr("grad_x", "bool", True), Attr("grad_y", "bool", True)),
              source=f"{_ELEWISE} REG_OP({op_type}): y1 = grads where {rule}, else 0; y2 = grads where it does not "
                     "hold; x1 and x2 broadcast to grads' shape and each output is summed back to its input's shape "
                     "(ops/built-in/tbe/impl/fused_minimum_or_maximum_grad.py, TensorFlow's _MaximumMinimumGrad); "
                     "ATTR(grad_x|grad_y, Bool, true), at least one true",
              samples={"grads": _DY}, shape_rule="given",
              sample_shapes=(((8, 16), (8, 16), (8, 16)), ((4, 3), (4, 1), (1, 3))),
              gradient_of=GradientOf(forward, dy="grads", wrt=("x1", "x2"), domain=(-10.0, 10.0)))


PROTOTYPES: tuple[Prototype, ...] = (
    _grad("AbsGrad", _ELEWISE, ("y", "dy"), "z", FP16_FP32,
          "dy * sign(y), y the input of Abs (the TBE implementation abs_grad.py returns data_dy * sign(data_y))",
          GradientOf("Abs", dy="dy", x="y")),
    _grad("AcosGrad", _ELEWISE, ("y", "dy"), "z", FP16_FP32,
          "-dy / sqrt(1 - y^2), y the input of Acos (acos_grad.py)",
          GradientOf("Acos", dy="dy", x="y", domain=(-0.9, 0.9)),
          samples={"y": _range(-0.95, 0.95, "inside Acos's domain (-1, 1)")}),
    _grad("AcoshGrad", _ELEWISE, ("y", "dy"), "z", FP16_FP32,
          "dy / sinh(y), y the output of Acosh (acosh_grad.py; TensorFlow AcoshGrad)",
          GradientOf("Acosh", dy="dy", y="y", domain=(1.5, 6.0)),
          samples={"y": _range(0.5, 3.0, "outputs of Acosh away from 0, where the gradient has its pole")}),
    _grad("AsinGrad", _ELEWISE, ("y", "dy"), "z", FP16_FP32 + FLOAT64,
          "dy / sqrt(1 - y^2), y the input of Asin (asin_grad.py); int32, int64, complex64 and complex128 are in "
          "the prototype, left out here", GradientOf("Asin", dy="dy", x="y", domain=(-0.9, 0.9)),
          samples={"y": _range(-0.95, 0.95, "inside Asin's domain (-1, 1)")}),
    _grad("AsinhGrad", _ELEWISE, ("y", "dy"), "z", FP16_FP32,
          "dy / cosh(y), y the output of Asinh (asinh_grad.py; TensorFlow AsinhGrad)",
          GradientOf("Asinh", dy="dy", y="y")),
    _grad("AtanGrad", _ELEWISE, ("y", "dy"), "z", FP16_FP32,
          "dy / (1 + y^2), y the input of Atan (atan_grad.py)", GradientOf("Atan", dy="dy", x="y")),
    _grad("EluGrad", _NL, ("grads", "activations"), "y", FLOATING,
          "grads * (activations + 1) where activations < 0, else grads; activations the outputs of Elu with "
          "alpha 1 (TensorFlow EluGrad)", GradientOf("Elu", dy="grads", y="activations"),
          samples={"activations": _range(-1.0, 4.0, "outputs of Elu with alpha 1, at least -1")}),
    _grad("EluGradV2", _NL, ("grads", "activations"), "y", FP16_FP32,
          "grads * (activations + alpha) where activations <= 0, else grads; activations the outputs of Elu; "
          "ATTR(alpha, Float, 1.0)", GradientOf("Elu", dy="grads", y="activations", attrs=("alpha",)),
          (Attr("alpha", "float", 1.0),),
          samples={"activations": _range(-1.0, 4.0, "outputs of Elu with alpha 1, at least -1")}),
    _grad("FastGeluGrad", _NL, ("dy", "x"), "z", FP16_FP32,
          "dy * d/dx (x * sigmoid(1.702 x)), x the input of FastGelu (fast_gelu_grad.py)",
          GradientOf("FastGelu", dy="dy", x="x")),
    _grad("GeluGrad", _NL, ("dy", "x", "y"), "z", FP16_FP32,
          "dy * d/dx of Gelu's tanh form at x, the input of Gelu; y, Gelu's output, takes no part in the value "
          "(gelu_grad.py multiplies it by 0)", GradientOf("Gelu", dy="dy", x="x", y="y")),
    _grad("HardShrinkGrad", _NL, ("gradients", "features"), "backprops", FP16_FP32,
          "gradients where |features| > lambd, else 0; features the input of HardShrink; ATTR(lambd, Float, 0.5)",
          GradientOf("HardShrink", dy="gradients", x="features", attrs=("lambd",)), _LAMBD),
    _grad("HardSigmoidGrad", _NL, ("grads", "input_x"), "y", FP16_FP32,
          "grads * alpha where 0 < alpha * input_x + beta < 1, else 0; input_x the input of HardSigmoid; "
          "ATTR(alpha, Float, 0.16666666), ATTR(beta, Float, 0.5). UNCONFIRMED: hard_sigmoid_grad.py tests |x| < 3 "
          "whatever alpha and beta (the same window at the defaults)",
          GradientOf("HardSigmoid", dy="grads", x="input_x", attrs=("alpha", "beta")),
          (Attr("alpha", "float", 0.16666666), Attr("beta", "float", 0.5))),
    _grad("HardSwishGrad", _NL, ("grad", "x"), "y", FP16_FP32,
          "grad * (0 for x < -3, x / 3 + 0.5 for -3 <= x <= 3, 1 for x > 3), x the input of HardSwish "
          "(hard_swish_grad.py)", GradientOf("HardSwish", dy="grad", x="x")),
    _grad("HardtanhGrad", _NL, ("result", "grad"), "y", FP16_FP32,
          "grad where min_val < result < max_val, else 0 (PyTorch hardtanh_backward); ATTR(min_val, Float, -1.0), "
          "ATTR(max_val, Float, 1.0)", None, (Attr("min_val", "float", -1.0), Attr("max_val", "float", 1.0)),
          samples={"grad": _DY}),
    _grad("InvGrad", _ELEWISE, ("x", "grad"), "y", FP16_FP32,
          "-grad * x^2, x the output y = 1/x' of Inv (the REG_OP comment: dx = -1*dy*y*y); int32 and int8 are in "
          "the prototype, left out here", GradientOf("Reciprocal", dy="grad", y="x")),
    _grad("LeakyReluGrad", _NL, ("gradients", "features"), "backprops", FP16_FP32 + FLOAT64,
          "gradients where features > 0, else negative_slope * gradients; ATTR(negative_slope, Float, 0.0)",
          GradientOf("LeakyRelu", dy="gradients", x="features", attrs=("negative_slope",)),
          (Attr("negative_slope", "float", 0.0),), sample_attrs={"negative_slope": 0.2}, shape_rule=_BROADCAST),
    _grad("LogSigmoidGrad", _NL, ("grads", "features"), "backprops", FP16_FP32,
          "grads / (1 + e^features), features the input of LogSigmoid",
          GradientOf("LogSigmoid", dy="grads", x="features"), shape_rule=_BROADCAST),
    _grad("ReciprocalGrad", _ELEWISE, ("y", "dy"), "z", UNARY,
          "-dy * y^2 (complex: -dy * conj(y^2)), y the output of Reciprocal (TensorFlow ReciprocalGrad)",
          GradientOf("Reciprocal", dy="dy", y="y"), samples={"y": _range(-4.0, 4.0, "outputs of Reciprocal")}),
    _grad("Relu6Grad", _NL, ("gradients", "features"), "backprops", REALS,
          "gradients where 0 < features < 6, else 0; RealNumberType (TensorFlow Relu6Grad)",
          GradientOf("Relu6", dy="gradients", x="features", domain=(-3.0, 9.0)),
          samples={"features": _range(-3.0, 9.0, "both kinks of Relu6, 0 and 6, inside")}),
    _grad("ReluGrad", _NL, ("gradients", "features"), "backprops", REALS,
          "gradients where features > 0, else 0; RealNumberType (TensorFlow ReluGrad)",
          GradientOf("Relu", dy="gradients", x="features"), shape_rule=_BROADCAST),
    _grad("RsqrtGrad", _ELEWISE, ("y", "dy"), "z", UNARY,
          "-0.5 * dy * y^3 (complex: conj(y)^3), y the output of Rsqrt (TensorFlow RsqrtGrad); int32 and int8 are "
          "in the prototype, left out here", GradientOf("Rsqrt", dy="dy", y="y", domain=(0.25, 4.0)),
          samples={"y": _range(0.1, 3.0, "outputs of Rsqrt, positive")}),
    _grad("SeluGrad", _NL, ("gradients", "outputs"), "y", FLOATING,
          "gradients * (outputs + scale * alpha) where outputs < 0, else scale * gradients, with Selu's constants; "
          "outputs the outputs of Selu; the integer types of RealNumberType left out here",
          GradientOf("Selu", dy="gradients", y="outputs"),
          samples={"outputs": _range(-1.75, 4.0, "outputs of Selu, at least -scale * alpha")}),
    _grad("SigmoidGrad", _NL, ("y", "dy"), "z", UNARY,
          "dy * y * (1 - y) (complex: conj), y the output of Sigmoid (TensorFlow SigmoidGrad)",
          GradientOf("Sigmoid", dy="dy", y="y"), samples={"y": _range(0.0, 1.0, "outputs of Sigmoid")}),
    _grad("SoftShrinkGrad", _NL, ("input_grad", "input_x"), "output_y", FP16_FP32,
          "input_grad where |input_x| > lambd, else 0; input_x the input of SoftShrink; ATTR(lambd, Float, 0.5)",
          GradientOf("SoftShrink", dy="input_grad", x="input_x", attrs=("lambd",)), _LAMBD),
    _grad("SoftplusGrad", _NL, ("gradients", "features"), "backprops", FLOATING,
          "gradients / (1 + e^-features), features the input of Softplus (TensorFlow SoftplusGrad)",
          GradientOf("Softplus", dy="gradients", x="features")),
    _grad("SoftplusV2Grad", _NL, ("input_gradients", "input_features"), "output_backprops", FP16_FP32,
          "input_gradients where beta * input_features > threshold, else input_gradients * sigmoid(beta * "
          "input_features) (softplus_v2_grad.py); ATTR(beta, Float, 1.0), ATTR(threshold, Float, 20.0)", None,
          (Attr("beta", "float", 1.0), Attr("threshold", "float", 20.0)), samples={"input_gradients": _DY},
          shape_rule=_BROADCAST),
    _grad("SoftsignGrad", _NL, ("gradients", "features"), "output", FLOATING,
          "gradients / (1 + |features|)^2, features the input of Softsign (TensorFlow SoftsignGrad)",
          GradientOf("Softsign", dy="gradients", x="features")),
    _grad("SqrtGrad", _ELEWISE, ("y", "dy"), "z", UNARY,
          "dy / (2 y) (complex: conj(y)), y the output of Sqrt (TensorFlow SqrtGrad)",
          GradientOf("Sqrt", dy="dy", y="y", domain=(0.25, 4.0)),
          samples={"y": _range(0.1, 3.0, "outputs of Sqrt away from 0, where the gradient has its pole")}),
    _grad("SwishGrad", _NL, ("grad", "x", "y"), "grad_x", FP16_FP32,
          "grad * (s + scale * y * (1 - s)) with s = y / x = sigmoid(scale * x) (0.5 at x = 0), x and y the input "
          "and output of Swish (swish_grad.py); ATTR(scale, Float, 1.0)",
          GradientOf("Swish", dy="grad", x="x", y="y", attrs=("scale",)), (Attr("scale", "float", 1.0),)),
    _grad("TanhGrad", _NL, ("y", "dy"), "z", UNARY,
          "dy * (1 - y^2) (complex: conj), y the output of Tanh (TensorFlow TanhGrad)",
          GradientOf("Tanh", dy="dy", y="y", domain=(-3.0, 3.0)),
          samples={"y": _range(-1.0, 1.0, "outputs of Tanh")}, formats=_TANH_GRAD_FORMATS),
    _grad("ThresholdGradV2D", _NL, ("gradients", "features"), "backprops", ("int32", "float16", "float32", "int8",
                                                                             "uint8"),
          "gradients where features > threshold, else 0 (threshold_grad_v2_d.py); REQUIRED_ATTR(threshold, Float); "
          "the header lists int32 and float16, CANN's op info also float32, int8 and uint8 (dengguojie/vue-element-"
          "admin@7d77ce32d ops/built-in/tbe/op_info_cfg/ai_core/<soc>/aic-<soc>-ops-info.ini [ThresholdGradV2D])",
          None, (Attr("threshold", "float"),), samples={"gradients": _DY}, sample_attrs={"threshold": 0.5}),
    *(_extremum_grad(op_type, forward, rule) for op_type, forward, rule in (
        ("MaximumGrad", "Maximum", "x1 >= x2"), ("MinimumGrad", "Minimum", "x1 <= x2"))),
    op("PReluGrad", "grads:T, features:T, weights:T", "dx:T, da:T", {"T": FP16_FP32},
       source=f"{_NL} REG_OP(PReluGrad): dx = grads where features > 0, else weights * grads; da = features * grads "
              "where features <= 0, else 0, summed into weights' shape (one value, or one per channel: dim 1 of "
              "features), as PReluGradInferShape (ops/built-in/op_proto/nonlinear_fuc_ops.cc) gives da weights' "
              "shape and ops/built-in/tbe/impl/prelu_grad.py sums it (PyTorch's prelu backward)",
       samples={"grads": _DY, "features": _range(-4.0, 4.0, "both sides of the kink at 0"),
                "weights": _range(0.05, 0.5, "slopes of a leaky side")},
       sample_shapes=(((2, 4, 3, 5), (2, 4, 3, 5), (4,)), ((8, 16), (8, 16), (1,))), shape_rule="given",
       gradient_of=GradientOf("PRelu", dy="grads", wrt=("features", "weights"))),
)
