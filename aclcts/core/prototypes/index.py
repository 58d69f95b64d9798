"""Prototypes of the index ops: ArgMaxV2, TopK, NonZero, Where and Unique.

Sources: mindspore-ai/graphengine 910 op_proto/inc/ elewise_calculation_ops.h (ArgMaxV2), selection_ops.h (TopK),
array_ops.h (NonZero, Where, Unique). The dtype attributes (ArgMaxV2 and NonZero `dtype`, Unique `out_idx`) are
not tied to the output dtype here: the official ArgMaxV2 sample sets no dtype attribute and an int32 output.
"""

from __future__ import annotations

from aclcts.core.prototypes.dtypes import BASIC, BOOL, FLOAT64, FLOATS, INDEX, INTS, NUMBERS, REALS
from aclcts.core.prototypes.spec import Attr, Prototype, op

_GE = "graphengine 910 op_proto/inc/"

PROTOTYPES: tuple[Prototype, ...] = (
    op("ArgMaxV2", "x:T, dimension:I", "y:I2", {"T": NUMBERS, "I": INDEX, "I2": INDEX},
       (Attr("dtype", "type", 9),), source=f"{_GE}elewise_calculation_ops.h REG_OP(ArgMaxV2): ATTR(dtype, DT_INT64)"),
    op("TopK", "x:T, k:K", "values:T, indices:K", {"T": REALS, "K": ("int32",)},
       (Attr("sorted", "bool", True), Attr("largest", "bool", True), Attr("dim", "int", -1)),
       source=f"{_GE}selection_ops.h REG_OP(TopK)"),
    op("NonZero", "x:T", "y:I", {"T": FLOATS + FLOAT64 + INTS + BOOL, "I": INDEX},
       (Attr("transpose", "bool", False), Attr("dtype", "type", 9)),
       source=f"{_GE}array_ops.h REG_OP(NonZero): ATTR(dtype, Type, DT_INT64)"),
    op("Where", "x:T", "y:I", {"T": BASIC, "I": ("int64",)}, source=f"{_GE}array_ops.h REG_OP(Where)"),
    op("Unique", "x:T", "y:T, idx:I", {"T": ("float32", "float16", "double") + INTS[:4] + ("uint8", "uint16"),
                                       "I": INDEX},
       (Attr("out_idx", "type", 3),), source=f"{_GE}array_ops.h REG_OP(Unique): ATTR(out_idx, Type, DT_INT32)"),
)
