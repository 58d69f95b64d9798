"""Prototype of Cast: y's dtype is the dst_type attribute.

Source: mindspore-ai/graphengine 910 op_proto/inc/elewise_calculation_ops.h REG_OP(Cast) (REQUIRED_ATTR dst_type,
Int); ATTR truncate (Bool, false) as the official sample op_list.json sets it (older headers). Quantized types,
uint1 and complex32 are left out.
"""

from __future__ import annotations

from aclcts.core.prototypes.dtypes import BOOL, COMPLEX, FLOAT64, FLOATS, INTS
from aclcts.core.prototypes.spec import Attr, Prototype, op

POLICY = "cast"
SHAPE_RULE = "same"

_ANY = BOOL + FLOATS + FLOAT64 + INTS + COMPLEX

PROTOTYPES: tuple[Prototype, ...] = (
    op("Cast", "x:T", "y:D", {"T": _ANY, "D": _ANY}, (Attr("dst_type", "int"), Attr("truncate", "bool", False)),
       source="graphengine 910 op_proto/inc/elewise_calculation_ops.h REG_OP(Cast); hicann/ops-math "
              "math/cast/op_graph/cast_proto.h, the current prototype, has no truncate", dtype_from={"y": "dst_type"}),
)
