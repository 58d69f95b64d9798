"""Prototypes of the reductions: ReduceSum, ReduceMax, ReduceMean, ReduceMin, ReduceProd, ReduceAll, ReduceAny,
ReduceLogSumExp (axes as an input) and their D forms (axes as an attribute).

Sources: hicann/ops-math math/reduce_*/op_graph/reduce_*_proto.h (ATTR noop_with_empty_axes where the case files cite
it; ReduceAll's float inputs, ReduceAny's float32 input) and mindspore-ai/graphengine 910 op_proto/inc/reduce_ops.h
(NumberType x, IndexNumberType axes; the D forms).
"""

from __future__ import annotations

from aclcts.core.prototypes.dtypes import BOOL, FLOATS, INDEX, NUMBERS
from aclcts.core.prototypes.spec import Attr, Axes, Prototype, op

POLICY = "reduction"
SHAPE_RULE = "each"

_OPS_MATH = "hicann/ops-math math/{}/op_graph/{}_proto.h"
_GE = "graphengine 910 op_proto/inc/reduce_ops.h"
_KEEP = Attr("keep_dims", "bool", False)


def _reduce(op_type: str, folder: str, types: tuple[str, ...] = NUMBERS, noop: bool | None = True) -> Prototype:
    """x, axes -> y; keep_dims and (unless noop is None) noop_with_empty_axes with default noop."""
    extra = () if noop is None else (Attr("noop_with_empty_axes", "bool", noop),)
    return op(op_type, "x:T, axes:I", "y:T", {"T": types, "I": INDEX}, (_KEEP, *extra),
              source=f"{_OPS_MATH.format(folder, folder)} REG_OP({op_type})")


def _logical(op_type: str, folder: str, types: tuple[str, ...]) -> Prototype:
    """x, axes -> y bool; keep_dims."""
    return op(op_type, "x:T, axes:I", "y:B", {"T": types, "I": INDEX, "B": BOOL}, (_KEEP,),
              source=f"{_OPS_MATH.format(folder, folder)} REG_OP({op_type})")


def _reduce_d(op_type: str, types: tuple[str, ...], *extra: Attr) -> Prototype:
    """x -> y with REQUIRED_ATTR(axes, ListInt)."""
    return op(op_type, "x:T", "y:T", {"T": types}, (Attr("axes", "list_int", domain=Axes("x", many=True)), _KEEP, *extra),
              source=f"{_GE} REG_OP({op_type})", sample_shapes=(((2, 3, 4),), ((5,),)), sample_attrs={"axes": [-1]})


PROTOTYPES: tuple[Prototype, ...] = (
    _reduce("ReduceSum", "reduce_sum"),
    _reduce("ReduceMax", "reduce_max"),
    _reduce("ReduceMean", "reduce_mean"),
    _reduce_d("ReduceSumD", FLOATS),
    _reduce_d("ReduceMaxD", FLOATS + ("int8", "uint8", "int32")),
    _reduce_d("ReduceMeanD", FLOATS, Attr("noop_with_empty_axes", "bool", False)),
    _reduce("ReduceMin", "reduce_min"),
    _reduce("ReduceProd", "reduce_prod"),
    _reduce("ReduceLogSumExp", "reduce_log_sum_exp", FLOATS, noop=False),
    _logical("ReduceAll", "reduce_all", BOOL + FLOATS),
    _logical("ReduceAny", "reduce_any", BOOL + ("float32",)),
    _reduce_d("ReduceMinD", FLOATS + ("int8", "uint8", "int32")),
    _reduce_d("ReduceProdD", FLOATS + ("int8", "uint8", "int32")),
    _reduce_d("ReduceAllD", BOOL),
    _reduce_d("ReduceAnyD", BOOL),
)
