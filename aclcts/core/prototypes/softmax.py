"""Prototypes of the softmax family: SoftmaxV2 and LogSoftmaxV2, and their gradients SoftmaxGrad, LogSoftmaxGrad and
SoftmaxGradExt.

The gradients carry no `gradient_of`: their forward ops mix a whole slice along the axes, so the elementwise
finite-difference check (dy * f'(x)) does not apply to them.
"""

from __future__ import annotations

from aclcts.core.prototypes.dtypes import FLOAT64, FLOATS
from aclcts.core.prototypes.spec import Attr, Axes, Prototype, Sample, op

POLICY = "nn"
_CANN = "dengguojie/vue-element-admin@7d77ce32d ops/built-in/"
_NN_NORM = f"{_CANN}op_proto/inc/nn_norm_ops.h"
_HALF_FLOAT = ("float16", "float32")
#: Where a softmax output is drawn: probabilities.
_PROBABILITY = Sample(0.0, 1.0, "softmax outputs: probabilities")
#: Where an incoming gradient is drawn: both signs, so that a kernel flipping the sign of the result shows.
_DY = Sample(-2.0, 2.0, "incoming gradients of both signs")
SHAPE_RULE = "same"

PROTOTYPES: tuple[Prototype, ...] = (
    op("SoftmaxV2", "x:T", "y:U", {"T": FLOATS + FLOAT64, "U": FLOATS + FLOAT64},
       attrs=(Attr("axes", "list_int", (-1,), domain=Axes("x", many=True)), Attr("half_to_float", "bool", False)),
       source="hicann/ops-nn activation/softmax_v2/op_graph/softmax_v2_proto.h REG_OP(SoftmaxV2): INPUT x "
              "(double, float16, bfloat16, float), OUTPUT y (same types; float32 for a float16 x with half_to_float), "
              "ATTR(axes, ListInt, {-1}), ATTR(half_to_float, Bool, false); axes as in mindspore-ai/graphengine "
              "third_party/fwkacllib/inc/ops/nn_norm_ops.h",
       # CANN's op info (dengguojie/vue-element-admin@7d77ce32d ops/built-in/tbe/impl/softmax_v2.py op_select_format,
       # dynamicFormat.flag=true) offers these for x and y on Ascend910, each for some shapes (docs/formats.md)
       formats=dict.fromkeys(("x", "y"), ("NC1HWC0", "NDC1HWC0", "FRACTAL_NZ"))),
    op("LogSoftmaxV2", "logits:T", "logsoftmax:T", {"T": FLOATS + FLOAT64},
       attrs=(Attr("axes", "list_int", (-1,), domain=Axes("logits", many=True)),),
       source="hicann/ops-nn activation/log_softmax_v2/op_graph/log_softmax_v2_proto.h REG_OP(LogSoftmaxV2): INPUT "
              "logits (double, float16, bfloat16, float), OUTPUT logsoftmax (same type), ATTR(axes, ListInt, {-1})"),
    op("SoftmaxGrad", "softmax:T, grad_softmax:T", "grad_x:T", {"T": _HALF_FLOAT},
       attrs=(Attr("axes", "list_int", (-1,), domain=Axes("softmax", many=True)),),
       source=f"{_NN_NORM} REG_OP(SoftmaxGrad) (TensorFlow SoftmaxGrad): grad_x = (grad_softmax - sum(grad_softmax * "
              "softmax, axes)) * softmax; the header also lists int32, int8 and uint8, left out: "
              f"{_CANN}tbe/impl/softmax_grad.py supports float16 and float32 only",
       samples={"softmax": _PROBABILITY, "grad_softmax": _DY},
       # softmax_grad.py op_select_format offers these with ND for all three tensors
       formats=dict.fromkeys(("softmax", "grad_softmax", "grad_x"), ("NC1HWC0", "NDC1HWC0", "FRACTAL_NZ"))),
    op("LogSoftmaxGrad", "grad:T, x:T", "y:T", {"T": _HALF_FLOAT},
       attrs=(Attr("axis", "list_int", (-1,), domain=Axes("x", many=True)),),
       source=f"{_NN_NORM} REG_OP(LogSoftmaxGrad) (TensorFlow LogSoftmaxGrad): y = grad - exp(x) * sum(grad, axis), "
              f"x the output of LogSoftmax ({_CANN}tbe/impl/log_softmax_grad.py: dy - exp(x) * sum(dy))",
       samples={"grad": _DY, "x": Sample(-6.0, 0.0, "log-softmax outputs: not positive")}),
    op("SoftmaxGradExt", "grad:T, x1:T, x2:T", "y:T", {"T": _HALF_FLOAT},
       attrs=(Attr("axes", "int", 1), Attr("keep_dims", "bool", False)),
       source=f"{_NN_NORM} REG_OP(SoftmaxGradExt): ATTR(axes, Int, 1); y = (grad - sum(grad * x1, axes)) * x1 * x2, "
              "the sum broadcast back as NumPy does (right-aligned when keep_dims is false) "
              f"({_CANN}tbe/impl/softmax_grad_ext.py)",
       samples={"grad": _DY, "x1": _PROBABILITY},
       # the kernel rounds grad * x1 to float16 before its sum, as softmax_grad_ext.py does: at "large" values the
       # difference grad - sum cancels those roundings' errors into many ulps of the result
       profiles=("subnormal",),
       sample_shapes=(((4, 4, 8), (4, 4, 8), (4, 4, 8)), ((6, 6), (6, 6), (6, 6)))),
)
