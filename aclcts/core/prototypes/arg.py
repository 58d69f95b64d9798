"""Prototypes of the extreme-index ops: ArgMin, ArgMaxD, ArgMaxWithValue and ArgMinWithValue.

Sources: hicann/ops-math math/arg_min, math/arg_max_with_value and math/arg_min_with_value op_graph/*_proto.h, and
mindspore-ai/graphengine 910 op_proto/inc/elewise_calculation_ops.h (ArgMaxD, whose y is int32 only although its
dtype attribute defaults to DT_INT64). Type attributes hold aclDataType numbers (3 int32, 9 int64).
"""

from __future__ import annotations

from aclcts.core.prototypes.dtypes import INDEX, NUMBERS
from aclcts.core.prototypes.spec import Attr, Prototype, op

_OPS_MATH = "hicann/ops-math math/{0}/op_graph/{0}_proto.h"
_WITH_VALUE_TYPES = ("float32", "float16", "bfloat16", "int64", "int32")


def _with_value(op_type: str, folder: str) -> Prototype:
    return op(op_type, "x:T", "indice:I, values:T", {"T": _WITH_VALUE_TYPES, "I": INDEX},
              (Attr("dimension", "int"), Attr("keep_dims", "bool", False), Attr("indice_dtype", "type", 3)),
              source=f"{_OPS_MATH.format(folder)} REG_OP({op_type})")


PROTOTYPES: tuple[Prototype, ...] = (
    op("ArgMin", "x:T, dimension:I", "y:I2", {"T": NUMBERS, "I": INDEX, "I2": INDEX}, (Attr("dtype", "type", 9),),
       source=f"{_OPS_MATH.format('arg_min')} REG_OP(ArgMin): ATTR(dtype, Type, DT_INT64)"),
    op("ArgMaxD", "x:T", "y:I", {"T": ("float32", "float16"), "I": ("int32",)},
       (Attr("dimension", "int"), Attr("dtype", "type", 9)),
       source="graphengine 910 op_proto/inc/elewise_calculation_ops.h REG_OP(ArgMaxD)"),
    _with_value("ArgMaxWithValue", "arg_max_with_value"),
    _with_value("ArgMinWithValue", "arg_min_with_value"),
)
