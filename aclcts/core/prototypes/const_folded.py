"""Records of the const-folded `*D` twins of ops other families hold: GatherV2D, FillD and OneHotD (the twin's
const index input as an attribute), Gather (GatherV2 along axis batch_dims, TensorFlow's Gather), and the twins that take an assist input CANN's graph fills in their place:
RangeD and LinSpaceD (the positions 0..n-1), DiagD and DiagPartD (the identity tensor).

Source: CANN's prototypes, dengguojie/vue-element-admin@7d77ce32d ops/built-in/op_proto/inc/ selection_ops.h
(GatherV2D, OneHotD, RangeD), pad_ops.h (FillD, DiagD), random_ops.h (LinSpaceD), matrix_calculation_ops.h
(DiagPartD); the results are those of the TensorFlow op each twin mirrors, with the assist as the formula of CANN's
TBE implementation (ops/built-in/tbe/impl/<op>.py) uses it, so any assist gives a defined result.
"""

from __future__ import annotations

from aclcts.core.prototypes.dtypes import BASIC, INDEX
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
    # TensorFlow's Gather: GatherV2 along axis batch_dims (0 without batch dims).
    op("Gather", "x:T, indices:I", "y:T", {"T": BASIC, "I": INDEX},
       (Attr("validate_indices", "bool", True), Attr("batch_dims", "int", 0)),
       source=f"{_CANN}selection_ops.h REG_OP(Gather); TensorFlow Gather (GatherV2 with axis batch_dims)"),
    # The assist twins. x of RangeD and assist of LinSpaceD hold the positions i of the output (CANN's graph writes
    # 0..n-1): y = start + x * delta (range_d.py; int32 takes the attributes' integer parts) and y = start + assist *
    # (stop - start) / (num - 1) (lin_space_d.py), TensorFlow's Range and LinSpace at the positions.
    op("RangeD", "x:T", "y:T", {"T": ("float32", "int32")},
       (Attr("start", "float"), Attr("limit", "float"), Attr("delta", "float")),
       source=f"{_CANN}selection_ops.h REG_OP(RangeD); TensorFlow Range at the positions x "
              "(ops/built-in/tbe/impl/range_d.py)",
       policy="elementwise", samples={"x": Sample(0, 31, "positions 0..n-1 of the range")},
       sample_shapes=(((16,),), ((5,),)), sample_attrs={"start": -2.0, "limit": 30.0, "delta": 2.0}),
    op("LinSpaceD", "assist:T, start:T, stop:T, num:I", "output:T", {"T": ("float32",), "I": INDEX},
       source=f"{_CANN}random_ops.h REG_OP(LinSpaceD); TensorFlow LinSpace at the positions assist "
              "(ops/built-in/tbe/impl/lin_space_d.py)",
       policy="elementwise",
       samples={"assist": Sample(0, 15, "positions 0..n-1"), "start": Sample(-4, 4, "any start"),
                "stop": Sample(-4, 4, "any stop"), "num": Sample(2, 16, "num >= 2: num - 1 divides")},
       sample_shapes=(((16,), (1,), (1,), (1,)), ((7,), (), (), ()))),
    # The assist of DiagD and DiagPartD is CANN's identity tensor [D1..Dk, D1..Dk]: DiagD broadcasts x against it
    # (x's dims on the trailing half) and multiplies (diag_d.py); DiagPartD multiplies and sums the trailing half
    # (diag_part_d.py). With the identity they are TensorFlow's Diag and DiagPart.
    op("DiagD", "x:T, assist:T", "y:T", {"T": ("float16", "float32", "int32")},
       source=f"{_CANN}pad_ops.h REG_OP(DiagD); TensorFlow Diag, y = x * assist (ops/built-in/tbe/impl/diag_d.py)",
       policy="elementwise", samples={"assist": Sample(0, 1, "the identity's 0 and 1, and between")},
       sample_shapes=(((4,), (4, 4)), ((2, 3), (2, 3, 2, 3)))),
    op("DiagPartD", "x:T, assist:T", "y:T", {"T": ("float32", "float16", "int32")},
       source=f"{_CANN}matrix_calculation_ops.h REG_OP(DiagPartD); TensorFlow DiagPart, y = sum of x * assist over "
              "the trailing half (ops/built-in/tbe/impl/diag_part_d.py)",
       # x positive: the products are rounded to x's type before the sum (diag_part_d.py), so a cancelling sum of
       # them is legitimately far from the exact one; no value profiles: they draw the assist outside its 0/1 mask
       # (large products overflow float16, and int32's sum runs through float32, inexact past 2^24).
       policy="reduction", profiles=(),
       samples={"x": Sample(0, 2, "positive values"), "assist": Sample(0, 1, "the identity's 0 and 1, and between")},
       sample_shapes=(((4, 4), (4, 4)), ((2, 3, 2, 3), (2, 3, 2, 3)))),
)
