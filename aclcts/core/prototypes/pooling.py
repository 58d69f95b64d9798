"""Prototypes of the pooling ops: MaxPool, AvgPool (TensorFlow's) and AdaptiveAvgPool2d (PyTorch's).

Sources: hicann/ops-nn common/inc/op_graph/op_nn_proto_extend.h (MaxPool, AvgPool: ksize and strides are 4 values in
data_format order, padding "SAME" or "VALID") and pooling/adaptive_avg_pool2d/op_graph/adaptive_avg_pool2d_proto.h.
MaxPool's qint8 is left out (the suite has no quantized types).
MaxPoolV3 and AvgPoolV2 (Caffe-style windows: padding_mode, explicit pads, ceil_mode, global_pooling) and the
gradients are CANN's snapshot's nn_pooling_ops.h (dengguojie/vue-element-admin@7d77ce32d
ops/built-in/op_proto/inc/nn_pooling_ops.h); their NC1HWC0 storage is the AI Core op info's
(ops/built-in/tbe/op_info_cfg/ai_core/ascend910/aic-ascend910-ops-info.ini).
"""

from __future__ import annotations

from aclcts.core.prototypes.dtypes import FLOAT64, FLOATS, REALS
from aclcts.core.prototypes.spec import Attr, OneOf, Prototype, op

POLICY = "nn"
SHAPE_RULE = "each"

_EXTEND = "hicann/ops-nn common/inc/op_graph/op_nn_proto_extend.h"
_WINDOW = (Attr("ksize", "list_int"), Attr("strides", "list_int"), Attr("padding", "str", domain=OneOf(("SAME", "VALID"))),
           Attr("data_format", "str", "NHWC"))

#: A gradient's window: the padding without a domain, since its inputs' shapes follow the padding (no generated case
#: may change it alone).
_GRAD_WINDOW = _WINDOW[:2] + (Attr("padding", "str"), _WINDOW[3])
_POOLING_H = "dengguojie/vue-element-admin@7d77ce32d ops/built-in/op_proto/inc/nn_pooling_ops.h"
_CAFFE = (Attr("ksize", "list_int"), Attr("strides", "list_int"),
          Attr("padding_mode", "str", "CALCULATED", domain=OneOf(("SAME", "VALID", "CALCULATED"))),
          Attr("pads", "list_int", (0, 0, 0, 0)), Attr("data_format", "str", "NCHW"),
          Attr("global_pooling", "bool", False), Attr("ceil_mode", "bool", False))
#: A 3x3 window, stride 2, one padded row/column each side, the last window taken by the ceiling (7 -> 4 outputs).
_CAFFE_SAMPLE = {"ksize": (1, 1, 3, 3), "strides": (1, 1, 2, 2), "pads": (1, 1, 1, 1), "ceil_mode": True}
_NC1HWC0 = dict.fromkeys(("x", "y"), ("NC1HWC0",))

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
    op("MaxPoolV3", "x:T", "y:T", {"T": ("float16", "float32", "float64", "int32", "int64", "uint8", "int16", "int8",
                                         "uint16")},
       _CAFFE, source=f"{_POOLING_H} REG_OP(MaxPoolV3) (qint8 left out)", policy="movement", formats=_NC1HWC0,
       sample_shapes=(((2, 3, 7, 6),), ((1, 2, 5, 5),)), sample_attrs=_CAFFE_SAMPLE),
    op("AvgPoolV2", "x:T", "y:T", {"T": ("float16", "float32", "float64")},
       _CAFFE + (Attr("exclusive", "bool", True),), source=f"{_POOLING_H} REG_OP(AvgPoolV2)", formats=_NC1HWC0,
       sample_shapes=(((2, 3, 7, 6),), ((1, 2, 5, 5),)), sample_attrs={**_CAFFE_SAMPLE, "exclusive": False},
       # a window sum near the float32 maximum overflows the fp32 accumulator, as on a device (AvgPool's case file)
       profiles=("subnormal", "tiny")),
    # Gradients (TensorFlow's AvgPoolGrad / MaxPoolGrad); their case files give orig_input_shape as a constant and
    # draw x1 and x2 from a few values, so that windows hold elements equal to orig_output.
    op("AvgPoolGrad", "orig_input_shape:I, input_grad:T", "out_grad:T",
       {"I": ("int32",), "T": ("float16", "float32", "float64")}, _GRAD_WINDOW,
       source=f"{_POOLING_H} REG_OP(AvgPoolGrad); tf.raw_ops.AvgPoolGrad", shape_rule="given",
       formats=dict.fromkeys(("input_grad", "out_grad"), ("NC1HWC0",)),
       sample_attrs={"ksize": (1, 3, 3, 1), "strides": (1, 2, 2, 1), "padding": "SAME"}),
    op("AdaptiveAvgPool2dGrad", "input_grad:T", "output_grad:T", {"T": ("float32", "float16")},
       (Attr("orig_input_shape", "list_int"),), source=f"{_POOLING_H} REG_OP(AdaptiveAvgPool2dGrad); PyTorch's "
       "adaptive_avg_pool2d backward", shape_rule="given", sample_shapes=(((2, 3, 3, 2),),),
       sample_attrs={"orig_input_shape": (2, 3, 7, 5)}),
    op("MaxPoolGrad", "x1:T, x2:T, grad:T", "y:T", {"T": REALS}, _GRAD_WINDOW,
       shape_rule="given", source=f"{_POOLING_H} REG_OP(MaxPoolGrad); tf.raw_ops.MaxPoolGrad", policy="nn",
       formats=dict.fromkeys(("x1", "x2", "grad", "y"), ("NC1HWC0",)),
       sample_attrs={"ksize": (1, 3, 3, 1), "strides": (1, 2, 2, 1), "padding": "SAME"}),
)
