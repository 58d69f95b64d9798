"""Prototypes of the reductions: ReduceSum, ReduceMax, ReduceMean, ReduceMin, ReduceProd, ReduceAll, ReduceAny,
ReduceLogSumExp (axes as an input) and their D forms (axes as an attribute).

Sources: hicann/ops-math math/reduce_*/op_graph/reduce_*_proto.h (ATTR noop_with_empty_axes where the case files cite
it; ReduceAll's float inputs, ReduceAny's float32 input) and mindspore-ai/graphengine 910 op_proto/inc/reduce_ops.h
(NumberType x, IndexNumberType axes; the D forms).
"""

from __future__ import annotations

from aclcts.core.prototypes.dtypes import BOOL, FLOATS, INDEX, NUMBERS
from aclcts.core.prototypes.spec import Attr, Axes, Prototype, Sample, op

POLICY = "reduction"
SHAPE_RULE = "each"

_OPS_MATH = "hicann/ops-math math/{}/op_graph/{}_proto.h"
_GE = "graphengine 910 op_proto/inc/reduce_ops.h"
_KEEP = Attr("keep_dims", "bool", False)
#: CANN's operator snapshot the statistics and norm records cite (op_proto/inc/ of ops/built-in/).
_CANN = "dengguojie/vue-element-admin@7d77ce32d ops/built-in/op_proto/inc/"
_HALF_FLOAT = ("float16", "float32")
_UNBIASED = Attr("unbiased", "bool", True)
_KEEPDIM = Attr("keepdim", "bool", False)
_P = Attr("p", "int", 2)
_EPSILON = Attr("epsilon", "float", 1e-12)


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
    op("ReduceStd", "x:T", "y1:T, y2:T", {"T": _HALF_FLOAT}, (Attr("dim", "list_int", []), _UNBIASED, _KEEPDIM),
       source=f"{_CANN}reduce_ops.h REG_OP(ReduceStd) (PyTorch std_mean: y1 the standard deviation, y2 the mean)"),
    op("ReduceStdWithMean", "x:T, mean:T", "y:T", {"T": _HALF_FLOAT},
       (Attr("dim", "list_int", []), _UNBIASED, _KEEPDIM, Attr("invert", "bool", False), Attr("epsilon", "float", 0.001)),
       source=f"{_CANN}reduce_ops.h REG_OP(ReduceStdWithMean); y is the standard deviation about mean (1 / sqrt(var + "
              "epsilon) with invert), as tbe/impl/reduce_std_with_mean.py computes it", shape_rule="given"),
    op("ReduceStdV2Update", "x:T, mean:T", "output_var:T", {"T": _HALF_FLOAT},
       (Attr("dim", "list_int"), Attr("if_std", "bool", False), _UNBIASED, _KEEPDIM),
       source=f"{_CANN}reduce_ops.h REG_OP(ReduceStdV2Update) (PyTorch var_mean / std_mean about a given mean)",
       sample_attrs={"dim": [-1]}, shape_rule="given"),
    op("ReduceMeanWithCount", "x:T, count:T, count_sum:T", "y:T", {"T": _HALF_FLOAT},
       (Attr("axes", "list_int"), _KEEP), source=f"{_CANN}reduce_ops.h REG_OP(ReduceMeanWithCount): the sum over axes "
                                                 "of x * count / count_sum",
       samples={"count": Sample(1, 8, "counts of elements"), "count_sum": Sample(8, 64, "a total count, positive")},
       sample_attrs={"axes": [0]}, shape_rule="given"),
    op("LpNorm", "x:T", "y:T", {"T": _HALF_FLOAT}, (_P, Attr("axes", "list_int", []), _KEEPDIM, _EPSILON),
       source=f"{_CANN}math_ops.h REG_OP(LpNorm) (PyTorch norm; at least epsilon, 1e-7 for float16)"),
    op("LpNormReduce", "x:T", "y:T", {"T": _HALF_FLOAT}, (_P, Attr("axes", "list_int", []), _KEEPDIM, _EPSILON),
       source=f"{_CANN}math_ops.h REG_OP(LpNormReduce): the sum of |x|^p over axes, LpNorm without its root"),
    op("LpNormUpdate", "x:T", "y:T", {"T": _HALF_FLOAT}, (_P, _EPSILON),
       source=f"{_CANN}math_ops.h REG_OP(LpNormUpdate): x^(1/p), at least epsilon (1e-7 for float16), LpNorm's root",
       samples={"x": Sample(0, 10, "a sum of |x|^p: not negative")}),
    op("ReduceLogSum", "x:T, axes:I", "y:T", {"T": _HALF_FLOAT, "I": INDEX}, (_KEEP,),
       source=f"{_CANN}reduce_ops.h REG_OP(ReduceLogSum) (ONNX ReduceLogSum: log(sum(x)) over axes); x NumberType in "
              "the header, float16 and float32 in the op info and tbe/impl/dynamic/reduce_log_sum.py",
       samples={"x": Sample(0.5, 10.0, "positive sums: log of 0 is -inf, of a negative sum NaN")}),
    op("SquareSumV1", "x:T", "y:T", {"T": _HALF_FLOAT}, (Attr("axis", "list_int", domain=Axes("x", many=True)), _KEEP),
       source=f"{_CANN}elewise_calculation_ops.h REG_OP(SquareSumV1): the sum of x^2 over axis "
              "(tbe/impl/square_sum_v1.py)", sample_shapes=(((2, 3, 4),), ((5,),)), sample_attrs={"axis": [-1]}),
    op("SquareSumAll", "x1:T, x2:T", "y1:T, y2:T", {"T": ("float32",)},
       source=f"{_CANN}elewise_calculation_ops.h REG_OP(SquareSumAll): y1 the sum of x1^2 and y2 the sum of x2^2 over "
              "every element, scalars (op_proto/elewise_calculation_ops.cc SquareSumALlInferShape)", shape_rule="same"),
    op("ReduceMeanVariance", "x:T", "mean:U, variance:U", {"T": _HALF_FLOAT, "U": ("float32",)},
       (Attr("axes", "list_int", []), Attr("keep_dims", "bool", True)),
       source=f"{_CANN}reduce_ops.h REG_OP(ReduceMeanVariance): mean = the mean of x and variance = the mean of x^2 "
              "(\"square sum reduced x\") over axes, every axis when empty (tbe/impl/reduce_mean_variance.py); the header "
              "lists float16 outputs too, every op info entry (ascend310p) gives float",
       # the ascend310p op info pairs NDC1HWC0 (and NDHWC, ND) with every dtype of x, mean and variance
       formats=dict.fromkeys(("x", "mean", "variance"), ("NDC1HWC0",))),
    op("Renorm", "x:T", "y:T", {"T": _HALF_FLOAT}, (Attr("p", "float"), Attr("dim", "int"), Attr("maxnorm", "float")),
       source=f"{_CANN}nn_norm_ops.h REG_OP(Renorm) (PyTorch renorm): y is the factor each sub-tensor along dim is "
              "scaled by, min(norm, maxnorm) / (norm + 1e-7) with norm the p-norm of the sub-tensor, of x's shape with "
              "every other dim 1 (op_proto/nn_norm_ops.cc RenormInferShape, tbe/impl/renorm.py); x BasicType in the "
              "header, float16 and float32 in the op info",
       sample_attrs={"p": 2.0, "dim": 0, "maxnorm": 3.0}, shape_rule="given"),
    op("L2NormalizeGrad", "x:T, y:T, dy:T", "dx:T", {"T": _HALF_FLOAT},
       (Attr("dim", "list_int", []), Attr("eps", "float", 0.0001)),
       source=f"{_CANN}nn_batch_norm_ops.h REG_OP(L2NormalizeGrad) (PyTorch normalize's L2 gradient): dx = (dy - y * "
              "sum(dy * y, dim)) / max(||x||, eps), the norm and the sum over dim (tbe/impl/l2_normalize_grad.py); "
              "an empty dim is read as every axis",
       samples={"dy": Sample(-2.0, 2.0, "incoming gradients of both signs")}, sample_attrs={"dim": [1]},
       # at "large" values dy - y * sum(dy * y) cancels the float32 sum's rounding into many ulps of dx
       profiles=("subnormal",), shape_rule="same", policy="nn"),
)
