"""Prototypes of the softmax family: SoftmaxV2 and LogSoftmaxV2."""

from __future__ import annotations

from aclcts.core.prototypes.dtypes import FLOAT64, FLOATS
from aclcts.core.prototypes.spec import Attr, Axes, Prototype, op

POLICY = "nn"
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
)
