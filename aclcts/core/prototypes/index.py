"""Records of the index family: the extreme-index ops (ArgMaxV2, ArgMaxD, ArgMin, ArgMinD, ArgMaxWithValue,
ArgMinWithValue), TopK, NonZero, Where and Unique, the const-folded TopKD, and DataFormatDimMap.

Sources: mindspore-ai/graphengine 910 op_proto/inc/ elewise_calculation_ops.h (ArgMaxV2; ArgMaxD, whose y is int32
only although its dtype attribute defaults to DT_INT64), selection_ops.h (TopK), array_ops.h (NonZero, Where,
Unique); hicann/ops-math math/arg_min, math/arg_max_with_value and math/arg_min_with_value op_graph/*_proto.h.
The dtype attributes (ArgMaxV2 and NonZero `dtype`, Unique `out_idx`) are not tied to the output dtype here: the
official ArgMaxV2 sample sets no dtype attribute and an int32 output. Type attributes hold aclDataType numbers
(3 int32, 9 int64).
"""

from __future__ import annotations

from aclcts.core.prototypes.dtypes import BASIC, BOOL, FLOAT64, FLOATS, INDEX, INTS, NUMBERS, REALS
from aclcts.core.prototypes.spec import Attr, Axes, OneOf, Prototype, Sample, op

_GE = "graphengine 910 op_proto/inc/"
_OPS_MATH = "hicann/ops-math math/{0}/op_graph/{0}_proto.h"
_CANN = "dengguojie/vue-element-admin@7d77ce32d ops/built-in/op_proto/inc/"
#: Formats of length 4 (DataFormatDimMap's attributes must be), for its generated cases.
_LAYOUTS = OneOf(("NHWC", "NCHW", "HWCN", "CHWN"))
_WITH_VALUE_TYPES = ("float32", "float16", "bfloat16", "int64", "int32")
POLICY = "index"
SHAPE_RULE = "each"


def _with_value(op_type: str, folder: str) -> Prototype:
    return op(op_type, "x:T", "indice:I, values:T", {"T": _WITH_VALUE_TYPES, "I": INDEX},
              (Attr("dimension", "int", domain=Axes("x")), Attr("keep_dims", "bool", False), Attr("indice_dtype", "type", 3)),
              source=f"{_OPS_MATH.format(folder)} REG_OP({op_type})")


#: sorted=false leaves the order of the k results unspecified: the generated cases run sorted ones only.
_SORTED = Attr("sorted", "bool", True, domain=OneOf((True,)))


PROTOTYPES: tuple[Prototype, ...] = (
    op("ArgMaxV2", "x:T, dimension:I", "y:I2", {"T": NUMBERS, "I": INDEX, "I2": INDEX},
       (Attr("dtype", "type", 9),), source=f"{_GE}elewise_calculation_ops.h REG_OP(ArgMaxV2): ATTR(dtype, DT_INT64)"),
    op("TopK", "x:T, k:K", "values:T, indices:K", {"T": REALS, "K": ("int32",)},
       (_SORTED, Attr("largest", "bool", True), Attr("dim", "int", -1, domain=Axes("x"))),
       source=f"{_GE}selection_ops.h REG_OP(TopK); top_k proto of the current operator specification"),
    op("NonZero", "x:T", "y:I", {"T": FLOATS + FLOAT64 + INTS + BOOL, "I": INDEX},
       (Attr("transpose", "bool", False), Attr("dtype", "type", 9)),
       source=f"{_GE}array_ops.h REG_OP(NonZero): ATTR(dtype, Type, DT_INT64)"),
    op("Where", "x:T", "y:I", {"T": BASIC, "I": ("int64",)},
       source=f"{_GE}array_ops.h REG_OP(Where); the dynamic-shape template of the ATC guide "
              "(docs/contract/single-op-json.md#examples)"),
    op("Unique", "x:T", "y:T, idx:I", {"T": ("float32", "float16", "double") + INTS[:4] + ("uint8", "uint16"),
                                       "I": INDEX},
       (Attr("out_idx", "type", 3),), source=f"{_GE}array_ops.h REG_OP(Unique): ATTR(out_idx, Type, DT_INT32)"),
    op("ArgMin", "x:T, dimension:I", "y:I2", {"T": NUMBERS, "I": INDEX, "I2": INDEX}, (Attr("dtype", "type", 9),),
       source=f"{_OPS_MATH.format('arg_min')} REG_OP(ArgMin): ATTR(dtype, Type, DT_INT64)"),
    op("ArgMaxD", "x:T", "y:I", {"T": ("float32", "float16"), "I": ("int32",)},
       (Attr("dimension", "int", domain=Axes("x")), Attr("dtype", "type", 9)),
       source="graphengine 910 op_proto/inc/elewise_calculation_ops.h REG_OP(ArgMaxD)"),
    op("ArgMinD", "x:T", "y:I", {"T": ("float32", "float16"), "I": ("int32",)},
       (Attr("dimension", "int", domain=Axes("x")), Attr("dtype", "type", 9)),
       source=f"{_CANN}elewise_calculation_ops.h REG_OP(ArgMinD); TensorFlow ArgMin",
       sample_shapes=(((4, 7),), ((3, 5, 6),)), sample_attrs={"dimension": -1}),
    # assist_seq is the float16 index table CANN's topk_d.py reads indices from (ops/built-in/tbe/impl/top_k_d.py);
    # the results follow TensorFlow's TopK whatever it holds.
    op("TopKD", "x:T, assist_seq:A", "values:T, indices:K", {"T": REALS, "A": ("float16",), "K": ("int32",)},
       (Attr("k", "int"), _SORTED, Attr("dim", "int", -1, domain=Axes("x")), Attr("largest", "bool", True)),
       source=f"{_CANN}selection_ops.h REG_OP(TopKD); TensorFlow TopKV2",
       sample_shapes=(((4, 16), (16,)), ((3, 5, 8), (8,))), sample_attrs={"k": 3}),
    op("DataFormatDimMap", "x:T", "y:T", {"T": INDEX},
       (Attr("src_format", "str", "NHWC", domain=_LAYOUTS), Attr("dst_format", "str", "NCHW", domain=_LAYOUTS)),
       source=f"{_CANN}nn_training_ops.h REG_OP(DataFormatDimMap); TensorFlow DataFormatDimMap",
       samples={"x": Sample(-4, 3, "every dim index the op takes, [-4, 4)")},
       sample_shapes=(((3, 5),), ((2, 3, 4),))),
    _with_value("ArgMaxWithValue", "arg_max_with_value"),
    _with_value("ArgMinWithValue", "arg_min_with_value"),
)
