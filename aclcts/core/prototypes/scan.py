"""Prototypes of the scans: Cumsum, Cumprod (axis an input) and CumsumD, CumprodD, CumulativeLogsumexpD (axis an
attribute).

Sources: hicann/ops-math math/cumsum/op_graph/cumsum_proto.h, common/inc/op_graph/op_math_proto_extend.h (Cumprod) and
mindspore-ai/graphengine 910 op_proto/inc/selection_ops.h (the D forms); CumulativeLogsumexpD from
dengguojie/vue-element-admin@7d77ce32d ops/built-in/op_proto/inc/selection_ops.h, TensorFlow's CumulativeLogsumexp. Complex types are left out (the suite runs
none).
"""

from __future__ import annotations

from aclcts.core.prototypes.dtypes import FLOAT64, FLOATS, INDEX, INTS, REALS
from aclcts.core.prototypes.spec import Attr, Axes, Prototype, op

POLICY = "reduction"
SHAPE_RULE = "each"

_FLAGS = (Attr("exclusive", "bool", False), Attr("reverse", "bool", False))
_AXIS = Attr("axis", "int", domain=Axes("x"))
_CUMSUM_D = ("float32", "int32", "uint8", "int8", "float16")

PROTOTYPES: tuple[Prototype, ...] = (
    op("Cumsum", "x:T, axis:I", "y:T", {"T": FLOATS + FLOAT64 + INTS, "I": INDEX}, _FLAGS,
       source="hicann/ops-math math/cumsum/op_graph/cumsum_proto.h REG_OP(Cumsum)"),
    op("Cumprod", "x:T, axis:I", "y:T", {"T": REALS, "I": INDEX}, _FLAGS,
       source="hicann/ops-math common/inc/op_graph/op_math_proto_extend.h REG_OP(Cumprod)"),
    op("CumsumD", "x:T", "y:T", {"T": _CUMSUM_D}, (_AXIS, *_FLAGS),
       source="graphengine 910 op_proto/inc/selection_ops.h REG_OP(CumsumD)"),
    op("CumprodD", "x:T", "y:T", {"T": REALS}, (_AXIS, *_FLAGS),
       source="graphengine 910 op_proto/inc/selection_ops.h REG_OP(CumprodD)"),
    op("CumulativeLogsumexpD", "x:T", "y:T", {"T": ("double", "float32", "float16")}, (_AXIS, *_FLAGS),
       source="dengguojie/vue-element-admin@7d77ce32d ops/built-in/op_proto/inc/selection_ops.h "
              "REG_OP(CumulativeLogsumexpD); TensorFlow CumulativeLogsumexp",
       sample_shapes=(((4, 6),), ((3, 5, 2),)), sample_attrs={"axis": 1, "exclusive": True}),
)
