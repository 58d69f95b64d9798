"""Prototypes of the image resizes (TensorFlow's, NHWC images): ResizeNearestNeighborV2, ResizeBilinearV2, their
const-folded twins (the size an attribute) and their gradients; and TensorFlow's AdjustSaturation of RGB images.

Sources: hicann/ops-nn common/inc/op_graph/op_nn_proto_extend.h REG_OP(ResizeNearestNeighborV2) and mindspore-ai/
graphengine 910 op_proto/inc/image_ops.h REG_OP(ResizeBilinearV2), whose y is float32 by its dtype attribute (DT_FLOAT)
while the header also lists uint8 and float16. The twins and gradients: canndev's image_ops.h
(dengguojie/vue-element-admin@7d77ce32d ops/built-in/op_proto/inc/image_ops.h); a gradient sums each incoming
gradient into the input pixels the forward resize read it from (TensorFlow's ResizeBilinearGrad and
ResizeNearestNeighborGrad), with the forward op's weights.
"""

from __future__ import annotations

from aclcts.core.prototypes.spec import Attr, Prototype, Sample, op

POLICY = "movement"
SHAPE_RULE = "each"

_CORNERS = (Attr("align_corners", "bool", False), Attr("half_pixel_centers", "bool", False))
_IMAGE = ("int8", "uint8", "int16", "uint16", "int32", "int64", "float16", "float32", "float64")
_IMAGE_OPS = "dengguojie/vue-element-admin@7d77ce32d ops/built-in/op_proto/inc/image_ops.h REG_OP({})"
#: An NHWC image resized to 5 x 3 and 3 x 7 (down and up), under the default coordinate mode.
_SIZES = {"size": [5, 3]}
_IMAGES = (((2, 4, 6, 3),),)
#: Gradients of a resize from the image's 4 x 6 to the incoming gradient's 5 x 3, or its 3 x 7.
_GRAD_SHAPES = (((2, 5, 3, 3), (2, 4, 6, 3)), ((1, 3, 7, 2), (1, 4, 6, 2)))

PROTOTYPES: tuple[Prototype, ...] = (
    op("ResizeNearestNeighborV2", "x:T, size:S", "y:T", {"T": _IMAGE + ("bfloat16",), "S": ("int32",)},
       (*_CORNERS, Attr("scales", "list_float", [0.0, 0.0])),
       source="hicann/ops-nn common/inc/op_graph/op_nn_proto_extend.h REG_OP(ResizeNearestNeighborV2)"),
    op("ResizeBilinearV2", "x:T, size:S", "y:Y", {"T": _IMAGE, "S": ("int32",), "Y": ("uint8", "float32", "float16")},
       (*_CORNERS, Attr("dtype", "type", 0)),
       source="graphengine 910 op_proto/inc/image_ops.h REG_OP(ResizeBilinearV2)", policy="nn"),
    op("ResizeNearestNeighborV2D", "x:T", "y:T", {"T": ("float16", "float32", "int32", "int8", "uint8")},
       (Attr("size", "list_int"), *_CORNERS), source=_IMAGE_OPS.format("ResizeNearestNeighborV2D"),
       sample_shapes=_IMAGES, sample_attrs=_SIZES),
    op("ResizeBilinearV2D", "x:T", "y:Y", {"T": ("float16", "float32"), "Y": ("float32",)},
       (*_CORNERS, Attr("size", "list_int")), source=_IMAGE_OPS.format("ResizeBilinearV2D"), policy="nn",
       sample_shapes=_IMAGES, sample_attrs=_SIZES),
    op("ResizeNearestNeighborV2Grad", "grads:T, size:S", "y:T",
       {"T": ("int8", "uint8", "int16", "uint16", "int32", "int64", "float16", "float32", "float64"), "S": ("int32",)},
       _CORNERS, source=f"{_IMAGE_OPS.format('ResizeNearestNeighborV2Grad')}: grads (N, H', W', C) summed into the "
                        "(N, size[0], size[1], C) pixels they were copied from; cases in cases/resize (size a "
                        "constant)", policy="nn"),
    op("ResizeBilinearV2Grad", "grads:F, original_image:T", "y:F",
       {"F": ("float32",), "T": ("float16", "float32", "float64")}, _CORNERS,
       source=f"{_IMAGE_OPS.format('ResizeBilinearV2Grad')}: grads (N, H', W', C) spread over the pixels of "
              "original_image (N, H, W, C) with the forward bilinear weights", policy="nn",
       sample_shapes=_GRAD_SHAPES),
    op("AdjustSaturation", "images:T, scale:S", "y:T", {"T": ("float16", "float32"), "S": ("float32",)},
       source=f"{_IMAGE_OPS.format('AdjustSaturation')}: tf.image.adjust_saturation: each RGB pixel (last dim 3) "
              "to HSV, its saturation times scale clamped to [0, 1], back to RGB", policy="nn",
       samples={"images": Sample(0.0, 1.0, "RGB intensities"), "scale": Sample(0.0, 3.0, "saturation factors")},
       sample_shapes=(((2, 4, 5, 3), ()),), profiles=()),
)
