"""Prototypes of the data-movement ops: Transpose, Reshape, ConcatD, SplitD, Slice and Tile, Split (SplitD's split_dim
as an input), and the const-folded twins TransposeD, SliceD and TileD (the twin's index input as a list attribute) and
TileWithAxis (Tile along one axis, its multiple an attribute), and SliceLastDim (x[..., start:end:stride]).

Sources: mindspore-ai/graphengine 910 op_proto/inc/ transformation_ops.h (Transpose), array_ops.h (Reshape),
split_combination_ops.h (ConcatD, SplitD; bool as the current CANN operator specification's concat_d_proto.h
lists it), selection_ops.h (Slice, Tile); the twins from CANN's prototypes (dengguojie/vue-element-admin@7d77ce32d
ops/built-in/op_proto/inc/ transformation_ops.h TransposeD, selection_ops.h SliceD and TileD,
split_combination_ops.h Split). TensorType::ALL (Reshape) is taken as every dtype the suite has.
"""

from __future__ import annotations

from aclcts.core.prototypes.dtypes import BASIC, BOOL, FLOATS, INDEX, INTS
from aclcts.core.prototypes.spec import Attr, Axes, Prototype, op

POLICY = "movement"
SHAPE_RULE = "each"

_GE = "graphengine 910 op_proto/inc/"
_SPLIT = FLOATS + INTS + BOOL
_CANN = "dengguojie/vue-element-admin@7d77ce32d ops/built-in/op_proto/inc/"


PROTOTYPES: tuple[Prototype, ...] = (
    op("Transpose", "x:T, perm:I", "y:T", {"T": BASIC, "I": INDEX},
       source=f"{_GE}transformation_ops.h REG_OP(Transpose)"),
    op("Reshape", "x:T, shape:I", "y:T", {"T": BASIC, "I": INDEX},
       (Attr("axis", "int", 0), Attr("num_axes", "int", -1)), source=f"{_GE}array_ops.h REG_OP(Reshape)", policy="shape"),
    op("ConcatD", "x*:T", "y:T", {"T": _SPLIT}, (Attr("concat_dim", "int", domain=Axes("x")), Attr("N", "int", 1, counts="x")),
       source=f"{_GE}split_combination_ops.h REG_OP(ConcatD); concat_d_proto.h of the current specification", shape_rule="concat"),
    op("SplitD", "x:T", "y*:T", {"T": _SPLIT}, (Attr("split_dim", "int", domain=Axes("x")), Attr("num_split", "int")),
       source=f"{_GE}split_combination_ops.h REG_OP(SplitD)"),
    op("Slice", "x:T, offsets:I, size:I", "y:T", {"T": BASIC, "I": INDEX},
       source=f"{_GE}selection_ops.h REG_OP(Slice)",
       # CANN's op info (dengguojie/vue-element-admin@7d77ce32d ops/built-in/tbe/impl/dynamic/slice.py
       # op_select_format, dynamicFormat.flag=true) offers these for x and y with constant, block-aligned offsets
       formats=dict.fromkeys(("x", "y"), ("NC1HWC0", "NDC1HWC0", "FRACTAL_Z", "FRACTAL_Z_3D", "FRACTAL_NZ"))),
    op("Tile", "x:T, multiples:I", "y:T", {"T": BASIC, "I": INDEX}, source=f"{_GE}selection_ops.h REG_OP(Tile)"),
    op("Split", "split_dim:D, x:T", "y*:T", {"D": ("int32",), "T": BASIC}, (Attr("num_split", "int"),),
       source=f"{_CANN}split_combination_ops.h REG_OP(Split); TensorFlow Split (SplitD with split_dim an input)"),
    op("TransposeD", "x:T", "y:T", {"T": INTS + ("float16", "float32")}, (Attr("perm", "list_int"),),
       source=f"{_CANN}transformation_ops.h REG_OP(TransposeD); TensorFlow Transpose",
       sample_shapes=(((2, 3, 4),), ((4, 1, 5),)), sample_attrs={"perm": [2, 0, 1]}),
    op("SliceD", "x:T", "y:T", {"T": BASIC}, (Attr("offsets", "list_int"), Attr("size", "list_int")),
       source=f"{_CANN}selection_ops.h REG_OP(SliceD); TensorFlow Slice",
       sample_shapes=(((4, 6, 5),), ((3, 8, 2),)), sample_attrs={"offsets": [1, 2, 0], "size": [2, -1, 2]}),
    # CANN's tile_d.py raises x's rank with leading 1s to the length of multiples; its op_select_format
    # (ops/built-in/tbe/impl/dynamic/tile_d.py) offers bool and uint8 and its check int8 besides the header's three.
    op("TileD", "x:T", "y:T", {"T": ("float32", "float16", "int32", "int8", "uint8", "bool")},
       (Attr("multiples", "list_int"),),
       source=f"{_CANN}selection_ops.h REG_OP(TileD); TensorFlow Tile; int8, uint8 and bool and a multiples longer "
              "than x's rank from ops/built-in/tbe/impl/dynamic/tile_d.py",
       sample_shapes=(((2, 3, 4),), ((3, 1),)), sample_attrs={"multiples": [2, 1, 3]}),
    # Caffe's Tile layer: x repeated tiles times along axis (ops/built-in/tbe/impl/tile_with_axis.py broadcasts x to
    # y's shape); the header's int64 and uint64 are kept though tile_with_axis.py's check list leaves them out.
    op("TileWithAxis", "x:T", "y:T", {"T": ("float16", "float32", "int64", "int32", "int16", "int8", "uint64",
                                            "uint32", "uint16", "uint8")},
       (Attr("axis", "int", 1, domain=Axes("x")), Attr("tiles", "int")),
       source=f"{_CANN}selection_ops.h REG_OP(TileWithAxis); TensorFlow Tile with multiples 1 but tiles at axis",
       sample_shapes=(((2, 3, 4),), ((5, 2),)), sample_attrs={"tiles": 3}),
    op("SliceLastDim", "x:T", "y:T", {"T": ("float16", "float32", "double", "int8", "int16", "int32", "int64")},
       (Attr("start", "int"), Attr("end", "int"), Attr("stride", "int", 1)),
       source=f"{_CANN}selection_ops.h REG_OP(SliceLastDim): a[..., begin:end:stride]",
       sample_shapes=(((3, 10),), ((2, 3, 7),)), sample_attrs={"start": 1, "end": 6, "stride": 2}),
)
