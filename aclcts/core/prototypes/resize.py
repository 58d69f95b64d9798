"""Prototypes of the image resizes: ResizeNearestNeighborV2 and ResizeBilinearV2 (TensorFlow's, NHWC images).

Sources: hicann/ops-nn common/inc/op_graph/op_nn_proto_extend.h REG_OP(ResizeNearestNeighborV2) and mindspore-ai/
graphengine 910 op_proto/inc/image_ops.h REG_OP(ResizeBilinearV2), whose y is float32 by its dtype attribute (DT_FLOAT)
while the header also lists uint8 and float16.
"""

from __future__ import annotations

from aclcts.core.prototypes.spec import Attr, Prototype, op

POLICY = "movement"
SHAPE_RULE = "each"

_CORNERS = (Attr("align_corners", "bool", False), Attr("half_pixel_centers", "bool", False))
_IMAGE = ("int8", "uint8", "int16", "uint16", "int32", "int64", "float16", "float32", "float64")

PROTOTYPES: tuple[Prototype, ...] = (
    op("ResizeNearestNeighborV2", "x:T, size:S", "y:T", {"T": _IMAGE + ("bfloat16",), "S": ("int32",)},
       (*_CORNERS, Attr("scales", "list_float", [0.0, 0.0])),
       source="hicann/ops-nn common/inc/op_graph/op_nn_proto_extend.h REG_OP(ResizeNearestNeighborV2)"),
    op("ResizeBilinearV2", "x:T, size:S", "y:Y", {"T": _IMAGE, "S": ("int32",), "Y": ("uint8", "float32", "float16")},
       (*_CORNERS, Attr("dtype", "type", 0)),
       source="graphengine 910 op_proto/inc/image_ops.h REG_OP(ResizeBilinearV2)", policy="nn"),
)
