"""Prototypes of the data-movement ops: Transpose, Reshape, ConcatD, SplitD, Slice and Tile.

Sources: mindspore-ai/graphengine 910 op_proto/inc/ transformation_ops.h (Transpose), array_ops.h (Reshape),
split_combination_ops.h (ConcatD, SplitD; bool as the current CANN operator specification's concat_d_proto.h
lists it), selection_ops.h (Slice, Tile). TensorType::ALL (Reshape) is taken as every dtype the suite has.
"""

from __future__ import annotations

from aclcts.core.prototypes.dtypes import BASIC, BOOL, FLOATS, INDEX, INTS
from aclcts.core.prototypes.spec import Attr, Axes, Prototype, op

POLICY = "movement"
SHAPE_RULE = "each"

_GE = "graphengine 910 op_proto/inc/"
_SPLIT = FLOATS + INTS + BOOL


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
)
