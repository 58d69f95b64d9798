"""Records of the const-folded `*D` twins of ops other families hold: GatherV2D, FillD and OneHotD (the twin's
const index input as an attribute).

Source: CANN's prototypes, dengguojie/vue-element-admin@7d77ce32d ops/built-in/op_proto/inc/ selection_ops.h
(GatherV2D, OneHotD), pad_ops.h (FillD); the results are those of the TensorFlow op each twin mirrors.
"""

from __future__ import annotations

from aclcts.core.prototypes.dtypes import INDEX
from aclcts.core.prototypes.spec import Attr, Axes, Prototype, Sample, op

POLICY = "movement"
SHAPE_RULE = "each"

_CANN = "dengguojie/vue-element-admin@7d77ce32d ops/built-in/op_proto/inc/"
_GATHER = ("float32", "float16", "int32", "uint32", "int8", "uint8", "int16", "uint16", "int64", "uint64")
_FILL = ("float32", "float16", "int8", "int16", "uint16", "uint8", "int32", "int64", "uint32", "uint64", "bool",
         "double")
_ONE_HOT = ("float16", "float32", "int32", "uint8", "int8")

PROTOTYPES: tuple[Prototype, ...] = (
    op("GatherV2D", "x:T, indices:I", "y:T", {"T": _GATHER, "I": INDEX}, (Attr("axis", "int"),),
       source=f"{_CANN}selection_ops.h REG_OP(GatherV2D); TensorFlow GatherV2",
       samples={"indices": Sample(0, 3, "indices inside the gathered dim")},
       sample_shapes=(((5, 6), (3,)), ((4, 3, 2), (2, 2))), sample_attrs={"axis": 0}),
    op("FillD", "value:T", "y:T", {"T": _FILL}, (Attr("dims", "list_int"),),
       source=f"{_CANN}pad_ops.h REG_OP(FillD); TensorFlow Fill",
       sample_shapes=(((),), ((1,),)), sample_attrs={"dims": [3, 4]}),
    op("OneHotD", "x:X, on_value:T, off_value:T", "y:T", {"X": ("uint8", "int32"), "T": _ONE_HOT},
       (Attr("depth", "int"), Attr("axis", "int", -1, domain=Axes("x", extra=1))),
       source=f"{_CANN}selection_ops.h REG_OP(OneHotD); TensorFlow OneHot",
       samples={"x": Sample(0, 5, "positions inside and past depth 5")},
       sample_shapes=(((6,), (), ()), ((2, 3), (), ())), sample_attrs={"depth": 5}),
)
