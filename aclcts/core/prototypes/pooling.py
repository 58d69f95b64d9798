"""Prototypes of the pooling ops: MaxPool, AvgPool (TensorFlow's) and AdaptiveAvgPool2d (PyTorch's).

Sources: hicann/ops-nn common/inc/op_graph/op_nn_proto_extend.h (MaxPool, AvgPool: ksize and strides are 4 values in
data_format order, padding "SAME" or "VALID") and pooling/adaptive_avg_pool2d/op_graph/adaptive_avg_pool2d_proto.h.
MaxPool's qint8 is left out (the suite has no quantized types).
"""

from __future__ import annotations

from aclcts.core.prototypes.dtypes import FLOAT64, FLOATS
from aclcts.core.prototypes.spec import Attr, OneOf, Prototype, op

POLICY = "nn"
SHAPE_RULE = "each"

_EXTEND = "hicann/ops-nn common/inc/op_graph/op_nn_proto_extend.h"
_WINDOW = (Attr("ksize", "list_int"), Attr("strides", "list_int"), Attr("padding", "str", domain=OneOf(("SAME", "VALID"))),
           Attr("data_format", "str", "NHWC"))

PROTOTYPES: tuple[Prototype, ...] = (
    op("MaxPool", "x:T", "y:T", {"T": ("float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8",
                                       "uint16")},
       _WINDOW, source=f"{_EXTEND} REG_OP(MaxPool)", policy="movement",
       # CANN's AI Core op info takes x and y in NC1HWC0 only (dengguojie/vue-element-admin@7d77ce32d
       # ops/built-in/tbe/op_info_cfg/ai_core/ascend910/aic-ascend910-ops-info.ini [MaxPool] input0.format)
       formats=dict.fromkeys(("x", "y"), ("NC1HWC0",))),
    op("AvgPool", "x:T", "y:T", {"T": FLOATS + FLOAT64}, _WINDOW, source=f"{_EXTEND} REG_OP(AvgPool)"),
    op("AdaptiveAvgPool2d", "x:T", "y:T", {"T": FLOATS}, (Attr("output_size", "list_int"),),
       source="hicann/ops-nn pooling/adaptive_avg_pool2d/op_graph/adaptive_avg_pool2d_proto.h REG_OP(AdaptiveAvgPool2d)"),
)
