"""Prototype of Conv2D.

Source: mindspore-ai/graphengine 910 op_proto/inc/nn_calculation_ops.h REG_OP(Conv2D). x and filter share one
dtype; bias shares y's (float16/bfloat16/float32 with a float output, int8 x with an int32 bias and output); the
header also allows a bfloat16 bias in the current specification.
"""

from __future__ import annotations

from aclcts.core.prototypes.spec import Attr, Prototype, op

POLICY = "conv"
SHAPE_RULE = "each"

PROTOTYPES: tuple[Prototype, ...] = (
    op("Conv2D", "x:T, filter:T, bias?:Y, offset_w?:W", "y:Y",
       {"T": ("float16", "float32", "int8", "bfloat16"), "Y": ("float16", "float32", "int32", "bfloat16"),
        "W": ("int8",)},
       (Attr("strides", "list_int"), Attr("pads", "list_int"), Attr("dilations", "list_int", (1, 1, 1, 1)),
        Attr("groups", "int", 1), Attr("data_format", "str", "NHWC"), Attr("offset_x", "int", 0)),
       source="graphengine 910 op_proto/inc/nn_calculation_ops.h REG_OP(Conv2D); the same inputs and attributes in "
              "the current CANN operator specification"),
)
