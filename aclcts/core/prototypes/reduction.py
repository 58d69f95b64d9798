"""Prototypes of the reductions: ReduceSum, ReduceMax, ReduceMean (axes as an input) and their D forms (axes as
an attribute).

Sources: hicann/ops-math math/reduce_{sum,max,mean}/op_graph/reduce_*_proto.h (ATTR noop_with_empty_axes, Bool,
true on all three, as the case files cite) and mindspore-ai/graphengine 910 op_proto/inc/reduce_ops.h (NumberType
x, IndexNumberType axes; the D forms).
"""

from __future__ import annotations

from aclcts.core.prototypes.dtypes import FLOATS, INDEX, NUMBERS
from aclcts.core.prototypes.spec import Attr, Prototype, op

_OPS_MATH = "hicann/ops-math math/{}/op_graph/{}_proto.h"
_GE = "graphengine 910 op_proto/inc/reduce_ops.h"
_KEEP = Attr("keep_dims", "bool", False)


def _reduce(op_type: str, folder: str) -> Prototype:
    """x, axes -> y; keep_dims and noop_with_empty_axes."""
    return op(op_type, "x:T, axes:I", "y:T", {"T": NUMBERS, "I": INDEX},
              (_KEEP, Attr("noop_with_empty_axes", "bool", True)),
              source=f"{_OPS_MATH.format(folder, folder)} REG_OP({op_type})")


def _reduce_d(op_type: str, types: tuple[str, ...], *extra: Attr) -> Prototype:
    """x -> y with REQUIRED_ATTR(axes, ListInt)."""
    return op(op_type, "x:T", "y:T", {"T": types}, (Attr("axes", "list_int"), _KEEP, *extra),
              source=f"{_GE} REG_OP({op_type})")


PROTOTYPES: tuple[Prototype, ...] = (
    _reduce("ReduceSum", "reduce_sum"),
    _reduce("ReduceMax", "reduce_max"),
    _reduce("ReduceMean", "reduce_mean"),
    _reduce_d("ReduceSumD", FLOATS),
    _reduce_d("ReduceMaxD", FLOATS + ("int8", "uint8", "int32")),
    _reduce_d("ReduceMeanD", FLOATS, Attr("noop_with_empty_axes", "bool", False)),
)
