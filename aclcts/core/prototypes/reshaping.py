"""Prototypes of the movement and shape ops added in issue 23: padding, dims, broadcast, reverse, strided slice,
concatenation, stacking, splitting, depth/space, Permute, Identity, Tril/Triu, Roll and Diag; Expand and PadV2 and the
SpaceToBatchND and BatchToSpaceND, and the
const-folded twins of issue 35 (BroadcastToD, ExpandD, PadD, PadV2D, ConcatV2D, SplitVD, StridedSliceD; SpaceToBatch and
BatchToSpace, the ND ops' 4-D NHWC forms with one block_size attribute for both spatial dims), from CANN's
prototypes (dengguojie/vue-element-admin@7d77ce32d ops/built-in/op_proto/inc/).

Source: mindspore-ai/graphengine 910 third_party/fwkacllib/inc/op_proto/inc/ pad_ops.h (Pad, PadV3, BroadcastTo, Diag),
array_ops.h (MirrorPad, ExpandDims, Squeeze, Unsqueeze, Identity), transformation_ops.h (Flatten, Unpack,
SpaceToDepth, DepthToSpace, Permute), selection_ops.h (ReverseV2, StridedSlice), split_combination_ops.h (ConcatV2,
Pack, SplitV), matrix_calculation_ops.h (Tril, Triu), nn_norm_ops.h (Roll). TensorType::BasicType and ALL are taken
as every dtype the suite has (as shape.py does); string, quantized and complex32 types are left out.
"""

from __future__ import annotations

from aclcts.core.prototypes.dtypes import BASIC, BOOL, COMPLEX, FLOAT64, FLOATS, INDEX, INTS
from aclcts.core.prototypes.spec import Attr, Axes, OneOf, Prototype, op

POLICY = "movement"
SHAPE_RULE = "each"

_GE = "graphengine 910 op_proto/inc/"
#: ExpandDims' and Identity's explicit list (string left out).
_EXPAND = FLOATS + FLOAT64 + INTS + BOOL
_MIRROR = ("int8", "uint8", "int16", "uint16", "int32", "int64") + FLOATS + FLOAT64 + BOOL + COMPLEX
_REVERSE = ("int8", "uint8", "int16", "uint16", "int32", "int64") + FLOATS + FLOAT64 + BOOL + COMPLEX
#: Flatten's header lists no bool, but CANN's op info of every SoC lists bool for x and y (canndev 7d77ce32d
#: ops/built-in/tbe/op_info_cfg/ai_core/<soc>/aic-<soc>-ops-info.ini [Flatten]): a reshape moves any type.
_FLATTEN = INTS + FLOATS + BOOL
_ROLL = FLOATS + ("int32", "uint32", "int8", "uint8", "int64")
_DIAG = ("float16", "float32", "float64", "int32", "int64") + COMPLEX
_CANN = "dengguojie/vue-element-admin@7d77ce32d ops/built-in/op_proto/inc/"
_PAD_D = ("float16", "float32", "int32")
_EXPAND_D = ("float16", "float32", "int32", "int8", "uint8", "bool")
_MOVE_D = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16", "float32")
_STRIDED_D = ("float32", "float16", "int32", "int64", "uint8", "int8", "bool")
_MASKS = tuple(Attr(name, "int", 0) for name in
               ("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask"))


PROTOTYPES: tuple[Prototype, ...] = (
    op("Pad", "x:T, paddings:I", "y:T", {"T": BASIC, "I": INDEX}, source=f"{_GE}pad_ops.h REG_OP(Pad)"),
    op("PadV3", "x:T, paddings:I, constant_values?:T", "y:T", {"T": BASIC, "I": INDEX},
       (Attr("mode", "str", "constant", domain=OneOf(("constant", "reflect", "edge"))), Attr("paddings_contiguous", "bool", True)),
       source=f"{_GE}pad_ops.h REG_OP(PadV3)",
       # CANN's op info (dengguojie/vue-element-admin@7d77ce32d ops/built-in/tbe/impl/dynamic/pad_v3.py
       # op_select_format, dynamicFormat.flag=true) offers NC1HWC0 for x and y in mode constant (docs/formats.md)
       formats=dict.fromkeys(("x", "y"), ("NC1HWC0",))),
    op("MirrorPad", "x:T, paddings:I", "y:T", {"T": _MIRROR, "I": INDEX}, (Attr("mode", "str", domain=OneOf(("REFLECT", "SYMMETRIC"))),),
       source=f"{_GE}array_ops.h REG_OP(MirrorPad)"),
    op("ExpandDims", "x:T, axis:I", "y:T", {"T": _EXPAND, "I": INDEX}, source=f"{_GE}array_ops.h REG_OP(ExpandDims)"),
    op("Squeeze", "x:T", "y:T", {"T": BASIC}, (Attr("axis", "list_int", (), domain=Axes("x", many=True)),),
       source=f"{_GE}array_ops.h REG_OP(Squeeze)"),
    op("Unsqueeze", "x:T", "y:T", {"T": BASIC}, (Attr("axes", "list_int", (), domain=Axes("x", many=True, extra=1)),),
       source=f"{_GE}array_ops.h REG_OP(Unsqueeze)"),
    op("Flatten", "x:T", "y:T", {"T": _FLATTEN}, (Attr("axis", "int", 1, domain=Axes("x")),),
       source=f"{_GE}transformation_ops.h REG_OP(Flatten); bool from canndev's op info [Flatten]"),
    op("BroadcastTo", "x:T, shape:I", "y:T", {"T": BASIC, "I": INDEX}, source=f"{_GE}pad_ops.h REG_OP(BroadcastTo)"),
    op("ReverseV2", "x:T, axis:I", "y:T", {"T": _REVERSE, "I": INDEX},
       source=f"{_GE}selection_ops.h REG_OP(ReverseV2)"),
    op("StridedSlice", "x:T, begin:I, end:I, strides:I", "y:T", {"T": BASIC, "I": INDEX}, _MASKS,
       source=f"{_GE}selection_ops.h REG_OP(StridedSlice)"),
    op("ConcatV2", "x*:T, concat_dim:I", "y:T", {"T": BASIC, "I": INDEX}, (Attr("N", "int", 1, counts="x"),),
       source=f"{_GE}split_combination_ops.h REG_OP(ConcatV2)", shape_rule="concat"),
    op("Pack", "x*:T", "y:T", {"T": BASIC},
       (Attr("axis", "int", 0, domain=Axes("x", extra=1)), Attr("N", "int", 1, counts="x")),
       source=f"{_GE}split_combination_ops.h REG_OP(Pack)", shape_rule="same"),
    op("Unpack", "x:T", "y*:T", {"T": BASIC}, (Attr("num", "int"), Attr("axis", "int", 0, domain=Axes("x"))),
       source=f"{_GE}transformation_ops.h REG_OP(Unpack)"),
    op("SplitV", "x:T, size_splits:I, split_dim:D", "y*:T", {"T": BASIC, "I": INDEX, "D": INDEX},
       (Attr("num_split", "int"),),
       source=f"{_GE}split_combination_ops.h REG_OP(SplitV)"),
    op("SpaceToDepth", "x:T", "y:T", {"T": BASIC}, (Attr("block_size", "int"), Attr("data_format", "str", "NHWC")),
       source=f"{_GE}transformation_ops.h REG_OP(SpaceToDepth)"),
    op("DepthToSpace", "x:T", "y:T", {"T": BASIC},
       (Attr("block_size", "int"), Attr("mode", "str", "DCR", domain=OneOf(("DCR", "CRD"))), Attr("data_format", "str", "NHWC")),
       source=f"{_GE}transformation_ops.h REG_OP(DepthToSpace)"),
    op("Permute", "x:T", "y:T", {"T": ("float16", "float32")}, (Attr("order", "list_int", (0,)),),
       source=f"{_GE}transformation_ops.h REG_OP(Permute)"),
    op("Identity", "x:T", "y:T", {"T": _EXPAND}, source=f"{_GE}array_ops.h REG_OP(Identity)"),
    op("Tril", "x:T", "y:T", {"T": BASIC}, (Attr("diagonal", "int", 0),),
       source=f"{_GE}matrix_calculation_ops.h REG_OP(Tril)"),
    op("Triu", "x:T", "y:T", {"T": BASIC}, (Attr("diagonal", "int", 0),),
       source=f"{_GE}matrix_calculation_ops.h REG_OP(Triu)"),
    op("Roll", "x:T", "y:T", {"T": _ROLL}, (Attr("shifts", "list_int"), Attr("dims", "list_int", (), domain=Axes("x", many=True, longest=1))),
       source=f"{_GE}nn_norm_ops.h REG_OP(Roll)"),
    op("Diag", "x:T", "y:T", {"T": _DIAG}, source=f"{_GE}pad_ops.h REG_OP(Diag)"),
    op("Expand", "x:T, shape:I", "y:T", {"T": _EXPAND_D + ("int64",), "I": ("int16", "int32", "int64")},
       source=f"{_CANN}array_ops.h REG_OP(Expand); ONNX Expand (x and shape broadcast both ways)"),
    op("PadV2", "x:T, paddings:I, constant_values:T", "y:T", {"T": BASIC, "I": INDEX},
       source=f"{_CANN}pad_ops.h REG_OP(PadV2); TensorFlow PadV2"),
    # op_select_format of ops/built-in/tbe/impl/dynamic/space_to_batch_nd.py and batch_to_space_nd.py
    # (dynamicFormat.flag=true) offers NC1HWC0 from NHWC and NDC1HWC0 from NDHWC origins for x and y.
    op("SpaceToBatchND", "x:T, block_shape:I, paddings:I", "y:T", {"T": BASIC, "I": INDEX},
       source=f"{_CANN}transformation_ops.h REG_OP(SpaceToBatchND); TensorFlow SpaceToBatchND",
       formats=dict.fromkeys(("x", "y"), ("NC1HWC0", "NDC1HWC0"))),
    op("BatchToSpaceND", "x:T, block_shape:I, crops:I", "y:T", {"T": BASIC, "I": INDEX},
       source=f"{_CANN}transformation_ops.h REG_OP(BatchToSpaceND); TensorFlow BatchToSpaceND",
       formats=dict.fromkeys(("x", "y"), ("NC1HWC0", "NDC1HWC0"))),
    # The const-folded twins: the twin's index input as an attribute.
    op("BroadcastToD", "x:T", "y:T", {"T": BASIC}, (Attr("shape", "list_int"),),
       source=f"{_CANN}pad_ops.h REG_OP(BroadcastToD); TensorFlow BroadcastTo"),
    op("ExpandD", "x:T", "y:T", {"T": _EXPAND_D}, (Attr("shape", "list_int"),),
       source=f"{_CANN}array_ops.h REG_OP(ExpandD); ONNX Expand",
       sample_shapes=(((3, 1),), ((1, 4),), ((4,),)), sample_attrs={"shape": [2, 1, 4]}),
    op("PadD", "x:T", "y:T", {"T": _PAD_D}, (Attr("paddings", "list_list_int"),),
       source=f"{_CANN}pad_ops.h REG_OP(PadD); TensorFlow Pad",
       # CANN's op info (dengguojie/vue-element-admin@7d77ce32d ops/built-in/tbe/impl/pad_d.py op_select_format,
       # dynamicFormat.flag=true) offers NC1HWC0 for x and y (docs/formats.md)
       formats=dict.fromkeys(("x", "y"), ("NC1HWC0",)),
       sample_shapes=(((3, 4),), ((1, 5),)), sample_attrs={"paddings": [[1, 2], [0, 3]]}),
    op("PadV2D", "x:T, constant_values:T", "y:T", {"T": _PAD_D}, (Attr("paddings", "list_list_int"),),
       source=f"{_CANN}pad_ops.h REG_OP(PadV2D); TensorFlow PadV2",
       sample_shapes=(((3, 4), ()), ((2, 5), (1,))), sample_attrs={"paddings": [[2, 0], [1, 1]]}),
    op("ConcatV2D", "x*:T", "y:T", {"T": _MOVE_D}, (Attr("concat_dim", "int", domain=Axes("x")), Attr("N", "int", 1, counts="x")),
       source=f"{_CANN}split_combination_ops.h REG_OP(ConcatV2D); TensorFlow ConcatV2", shape_rule="concat",
       # op_select_format of ops/built-in/tbe/impl/concat_v2_d.py (dynamicFormat.flag=true)
       formats=dict.fromkeys(("x", "y"), ("NC1HWC0", "NDC1HWC0"))),
    op("SplitVD", "x:T", "y*:T", {"T": _MOVE_D},
       (Attr("size_splits", "list_int"), Attr("split_dim", "int"), Attr("num_split", "int")),
       source=f"{_CANN}split_combination_ops.h REG_OP(SplitVD); TensorFlow SplitV",
       # op_select_format of ops/built-in/tbe/impl/split_v_d.py (dynamicFormat.flag=true)
       formats=dict.fromkeys(("x", "y"), ("NC1HWC0", "NDC1HWC0", "FRACTAL_NZ"))),
    op("StridedSliceD", "x:T", "y:T", {"T": _STRIDED_D},
       (Attr("begin", "list_int"), Attr("end", "list_int"), Attr("strides", "list_int"), *_MASKS),
       source=f"{_CANN}selection_ops.h REG_OP(StridedSliceD); TensorFlow StridedSlice",
       # op_select_format of ops/built-in/tbe/impl/strided_slice_d.py (dynamicFormat.flag=true)
       formats=dict.fromkeys(("x", "y"), ("NC1HWC0", "NDC1HWC0")),
       sample_shapes=(((2, 5, 6),), ((3, 6, 4),)),
       sample_attrs={"begin": [0, 1, -2], "end": [1, 4, 0], "strides": [1, 2, -1]}),
    # TensorFlow's SpaceToBatch and BatchToSpace: SpaceToBatchND and BatchToSpaceND of a 4-D NHWC x with block_shape
    # [block_size, block_size]; op_select_format of ops/built-in/tbe/impl/space_to_batch.py and batch_to_space.py
    # offers NC1HWC0 for x and y.
    op("SpaceToBatch", "x:T, paddings:I", "y:T", {"T": BASIC, "I": INDEX}, (Attr("block_size", "int"),),
       source=f"{_CANN}transformation_ops.h REG_OP(SpaceToBatch); TensorFlow SpaceToBatch",
       formats=dict.fromkeys(("x", "y"), ("NC1HWC0",))),
    op("BatchToSpace", "x:T, crops:I", "y:T", {"T": BASIC, "I": INDEX}, (Attr("block_size", "int"),),
       source=f"{_CANN}transformation_ops.h REG_OP(BatchToSpace); TensorFlow BatchToSpace",
       formats=dict.fromkeys(("x", "y"), ("NC1HWC0",))),
)
