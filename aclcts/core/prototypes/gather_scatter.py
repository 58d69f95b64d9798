"""Prototypes of the gather, scatter and index-building ops (GatherV2 ... Bincount).

Source: mindspore-ai/graphengine 910/third_party/fwkacllib/inc/ops/ (commit cd75e149, June 2025) selection_ops.h,
matrix_calculation_ops.h, random_ops.h (LinSpace), nn_detect_ops.h (Sort), math_ops.h (Bincount). The quantized and
string types of BasicType are left out (the suite has none). The Scatter ops with a `var` input and output update var
in place (a ref input): the output var is the same tensor as the input var.
"""

from __future__ import annotations

from aclcts.core.prototypes.dtypes import BASIC, INDEX, NUMBERS, REALS
from aclcts.core.prototypes.spec import Attr, Axes, OneOf, Prototype, Sample, op

POLICY = "index"
SHAPE_RULE = "each"

_GE = "graphengine 910 third_party/fwkacllib/inc/ops/"
_SCATTER_UPDATE = ("float16", "float32", "int32", "int8", "uint8", "bfloat16", "int64")
_SCATTER_ADD = ("float16", "float32", "int32", "int8", "uint8")
_RANGE = ("float16", "float32", "int32", "double", "int64", "bfloat16")
_SORT = ("float16", "float32", "int16", "int8", "uint8", "int32", "int64", "bfloat16")
_MASKED_FILL = ("float32", "bfloat16", "float16", "int8", "int32", "int64", "bool")
_SEARCH = ("float16", "float32", "int16", "int8", "uint8", "int32", "int64")
_GATHER_ELEMENTS = ("float16", "bfloat16", "float32", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                    "uint64", "bool", "double")
#: The shape rule of the ops whose inputs index one another (indices inside the dims of the tensor they index, segment
#: ids below num_segments): their dynamic cases run at their own runtime shapes with their own value distributions.
_INDEXED = "given"
_NEGATIVE = Attr("negative_index_support", "bool", False)
_LOCKING = Attr("use_locking", "bool", False)
#: CANN's operator snapshot the newer scatter and segment records cite (op_proto/inc/ of ops/built-in/).
_CANN = "dengguojie/vue-element-admin@7d77ce32d ops/built-in/op_proto/inc/"
_SEGMENT_D = ("float32", "float16", "int32", "int16")


def _scatter_ref(op_type: str, header: str = "matrix_calculation_ops.h") -> Prototype:
    """A TensorFlow-compatible Scatter* op updating its ref input var at indices (var, indices, updates -> var)."""
    return op(op_type, "var:T, indices:I, updates:T", "var:T", {"T": _SCATTER_ADD, "I": INDEX}, (_LOCKING,),
              source=f"{_CANN}{header} REG_OP({op_type})", shape_rule=_INDEXED, policy="reduction")


def _tensor_scatter(op_type: str) -> Prototype:
    """TensorScatterMax/Min: input with updates combined in at the ND indices, as a new output."""
    return op(op_type, "input:T, indices:I, updates:T", "output:T", {"T": BASIC, "I": INDEX},
              source=f"{_CANN}matrix_calculation_ops.h REG_OP({op_type})", shape_rule=_INDEXED)


def _segment(op_type: str, types: tuple[str, ...], policy: str = "") -> Prototype:
    """UnsortedSegmentMax/Min/Prod: x, segment_ids, num_segments -> y."""
    return op(op_type, "x:T, segment_ids:I, num_segments:I2", "y:T", {"T": types, "I": INDEX, "I2": INDEX},
              source=f"{_CANN}selection_ops.h REG_OP({op_type})", shape_rule=_INDEXED, policy=policy)


def _segment_d(op_type: str, policy: str = "") -> Prototype:
    """The D forms: num_segments a required attribute, int32 segment ids."""
    return op(op_type, "x:T, segment_ids:I", "y:T", {"T": _SEGMENT_D, "I": ("int32",)},
              (Attr("num_segments", "int"),), source=f"{_CANN}selection_ops.h REG_OP({op_type})",
              shape_rule=_INDEXED, policy=policy)

PROTOTYPES: tuple[Prototype, ...] = (
    op("GatherV2", "x:T, indices:I, axis:I2", "y:T", {"T": BASIC, "I": INDEX, "I2": INDEX},
       (Attr("batch_dims", "int", 0), Attr("is_preprocessed", "bool", False), _NEGATIVE),
       source=f"{_GE}selection_ops.h REG_OP(GatherV2)", shape_rule=_INDEXED),
    op("GatherNd", "x:T, indices:I", "y:T", {"T": BASIC, "I": INDEX}, (_NEGATIVE,),
       source=f"{_GE}selection_ops.h REG_OP(GatherNd)", shape_rule=_INDEXED),
    op("GatherElements", "x:T, index:I", "y:T", {"T": _GATHER_ELEMENTS, "I": INDEX}, (Attr("dim", "int", 0, domain=Axes("x")),),
       source=f"{_GE}selection_ops.h REG_OP(GatherElements)", shape_rule=_INDEXED),
    op("ScatterNd", "indices:I, x:T, shape:I2", "y:T", {"T": BASIC, "I": INDEX, "I2": INDEX},
       source=f"{_GE}selection_ops.h REG_OP(ScatterNd)", shape_rule=_INDEXED, policy="reduction"),
    op("ScatterNdUpdate", "var:T, indices:I, updates:T", "var:T", {"T": BASIC, "I": INDEX}, (_LOCKING,),
       source=f"{_GE}matrix_calculation_ops.h REG_OP(ScatterNdUpdate)", shape_rule=_INDEXED),
    op("ScatterUpdate", "var:T, indices:I, updates:T", "var:T", {"T": _SCATTER_UPDATE, "I": INDEX}, (_LOCKING,),
       source=f"{_GE}matrix_calculation_ops.h REG_OP(ScatterUpdate)", shape_rule=_INDEXED),
    op("ScatterAdd", "var:T, indices:I, updates:T", "var:T", {"T": _SCATTER_ADD, "I": INDEX}, (_LOCKING,),
       source=f"{_GE}matrix_calculation_ops.h REG_OP(ScatterAdd)", shape_rule=_INDEXED, policy="reduction"),
    op("ScatterElements", "data:T, indices:I, updates:T", "y:T", {"T": NUMBERS, "I": INDEX},
       (Attr("axis", "int", 0, domain=Axes("data")),
        Attr("reduction", "str", "none", domain=OneOf(("none", "add", "mul")))),
       source=f"{_GE}matrix_calculation_ops.h REG_OP(ScatterElements)", shape_rule=_INDEXED, policy="elementwise"),
    op("OneHot", "x:X, depth:D, on_value:T, off_value:T", "y:T",
       {"X": ("uint8", "int32", "int64"), "D": INDEX, "T": BASIC}, (Attr("axis", "int", -1, domain=Axes("x", extra=1)),),
       source=f"{_GE}selection_ops.h REG_OP(OneHot)",
       samples={"depth": Sample(0, 32, "the length of the new axis: a size, never negative")}),
    op("Range", "start:T, limit:T, delta:T", "y:T", {"T": _RANGE}, source=f"{_GE}selection_ops.h REG_OP(Range)", policy="elementwise"),
    op("LinSpace", "start:T, stop:T, num:I", "output:T", {"T": ("float32", "double"), "I": INDEX},
       source=f"{_GE}random_ops.h REG_OP(LinSpace)", policy="elementwise"),
    op("Sort", "x:T", "y1:T, y2:I", {"T": _SORT, "I": ("int32",)},
       (Attr("axis", "int", -1, domain=Axes("x")), Attr("descending", "bool", False), Attr("stable", "bool", False)),
       source=f"{_GE}nn_detect_ops.h REG_OP(Sort)"),
    op("TopKV2", "x:T, k:K", "values:T, indices:K", {"T": REALS, "K": ("int32",)},
       (Attr("sorted", "bool", True, domain=OneOf((True,))), Attr("dim", "int", -1, domain=Axes("x")),
        Attr("largest", "bool", True)),
       source=f"{_GE}selection_ops.h REG_OP(TopKV2)"),
    op("UnsortedSegmentSum", "x:T, segment_ids:I, num_segments:I2", "y:T", {"T": NUMBERS, "I": INDEX, "I2": INDEX},
       (Attr("is_preprocessed", "bool", False), Attr("check_ids", "bool", False)),
       source=f"{_GE}selection_ops.h REG_OP(UnsortedSegmentSum)", shape_rule=_INDEXED, policy="reduction"),
    op("MaskedFill", "x:T, mask:M, value:T", "y:T", {"T": _MASKED_FILL, "M": ("bool",)},
       source=f"{_GE}selection_ops.h REG_OP(MaskedFill)"),
    op("MaskedSelect", "x:T, mask:M", "y:T", {"T": BASIC, "M": ("bool",)},
       source=f"{_GE}selection_ops.h REG_OP(MaskedSelect)", shape_rule="same"),
    op("SearchSorted", "sorted_sequence:T, values:T, sorter?:S", "out:I", {"T": _SEARCH, "S": ("int64",), "I": INDEX},
       (Attr("dtype", "type", 9), Attr("right", "bool", False)),
       source=f"{_GE}selection_ops.h REG_OP(SearchSorted): ATTR(dtype, Type, DT_INT64)"),
    op("Bincount", "array:A, size:A, weights:T", "bins:T",
       {"A": ("int32",), "T": ("float32", "int32", "int64", "double")},
       source=f"{_GE}math_ops.h REG_OP(Bincount)", policy="reduction"),
    _scatter_ref("ScatterSub"),
    _scatter_ref("ScatterMul"),
    _scatter_ref("ScatterDiv"),
    _scatter_ref("ScatterMax"),
    _scatter_ref("ScatterMin"),
    _scatter_ref("ScatterNdAdd"),
    _scatter_ref("ScatterNdSub"),
    _tensor_scatter("TensorScatterMax"),
    _tensor_scatter("TensorScatterMin"),
    _segment("UnsortedSegmentMax", REALS),
    _segment("UnsortedSegmentMin", REALS),
    _segment("UnsortedSegmentProd", NUMBERS, "reduction"),
    _segment_d("UnsortedSegmentMaxD"),
    _segment_d("UnsortedSegmentMinD"),
    _segment_d("UnsortedSegmentProdD", "reduction"),
    op("SegmentSum", "x:T, segment_ids:I", "y:T", {"T": NUMBERS, "I": INDEX},
       source=f"{_CANN}selection_ops.h REG_OP(SegmentSum)", shape_rule=_INDEXED, policy="reduction"),
    op("Bucketize", "x:T", "y:I", {"T": ("int32", "int64", "double", "float32"), "I": ("int32",)},
       (Attr("boundaries", "list_float"),),
       source=f"{_CANN}math_ops.h REG_OP(Bucketize) (TensorFlow Bucketize: the number of boundaries <= x)",
       sample_attrs={"boundaries": [-5.0, 0.0, 0.5, 5.0]}),
    op("InTopKD", "x1:T, x2:I", "y:B", {"T": ("float32",), "I": INDEX, "B": ("bool",)}, (Attr("k", "int"),),
       source=f"{_CANN}selection_ops.h REG_OP(InTopKD) (TensorFlow InTopK: whether x1[i, x2[i]] is among the k "
              "largest of row i, ties included)",
       samples={"x2": Sample(0, 4, "class ids of the 5 columns")}, sample_shapes=(((4, 5), (4,)), ((1, 5), (1,))),
       sample_attrs={"k": 2}),
    op("InplaceIndexAdd", "var:T, indices:I, updates:T", "var:T",
       {"T": ("int16", "int32", "int8", "uint8", "float32", "float16"), "I": ("int32",)},
       (Attr("axis", "int", domain=Axes("var")),),
       source=f"{_CANN}selection_ops.h REG_OP(InplaceIndexAdd) (PyTorch index_add_: var's slice indices[i] of axis "
              "gets updates' slice i added)", shape_rule=_INDEXED, policy="reduction"),
    op("SortV2", "x:T", "y:T", {"T": ("float16", "float32", "double")},
       (Attr("axis", "int", -1, domain=OneOf((-1,))), Attr("descending", "bool", False)),
       source=f"{_CANN}array_ops.h REG_OP(SortV2): Sort's values without the indices; \"Axis should select the last "
              "dim\"", shape_rule="same"),
    op("IndexFillD", "x:T, assist1:T, assist2:T", "y:T", {"T": ("float16", "float32", "int32")},
       (Attr("dim", "int"),),
       source=f"{_CANN}selection_ops.h REG_OP(IndexFillD) (PyTorch index_fill with the index and value folded into "
              "two assist tensors of x's shape: y = x * assist1 + assist2, assist1 0 at the filled positions and 1 "
              "elsewhere, assist2 the value there and 0 elsewhere; tbe/impl/index_fill_d.py)",
       samples={"assist1": Sample(0, 1, "0 where filled, 1 elsewhere"),
                "assist2": Sample(-10, 10, "the fill value where filled")},
       sample_shapes=(((2, 3, 4),) * 3, ((5, 6),) * 3), sample_attrs={"dim": 0}, shape_rule="same",
       policy="elementwise"),
    op("HistogramFixedWidthD", "x:T, range:T", "y:I", {"T": ("float16", "float32", "int32", "int64"), "I": ("int32",)},
       (Attr("nbins", "int"), Attr("dtype", "int", 3)),
       source=f"{_CANN}math_ops.h REG_OP(HistogramFixedWidthD) (TensorFlow HistogramFixedWidth: x falls in bin "
              "floor((x - range[0]) / (range[1] - range[0]) * nbins), clipped to [0, nbins - 1]); ATTR(dtype, Int, 3) "
              "is DT_INT32, y's only type", sample_attrs={"nbins": 5}, policy="reduction"),
    op("ArgMaxGradD", "var:T, indices:I, updates:T, assist:I", "y:T",
       {"T": ("float32", "float16", "int32", "int8"), "I": ("int32",)}, (Attr("dimension", "int"),),
       source=f"{_CANN}elewise_calculation_ops.h REG_OP(ArgMaxGradD): var with updates written along dimension at the "
              "positions indices names, the positions read from assist (each element's index along dimension; "
              "tbe/impl/arg_max_grad_d.py: select(broadcast(indices) == assist, broadcast(updates), var)); indices and "
              "updates hold one element per line along dimension (var's shape without it; [1] for a 1-D var)",
       samples={"indices": Sample(0, 3, "positions along dimension 0 (size 4)"),
                "assist": Sample(0, 3, "positions along dimension 0 (size 4)")},
       sample_shapes=(((4, 5), (5,), (5,), (4, 5)), ((4, 3, 2), (3, 2), (3, 2), (4, 3, 2)), ((4,), (1,), (1,), (4,))),
       sample_attrs={"dimension": 0}, shape_rule="given"),
    op("SparseSegmentSumGrad", "grad:T, indices:I, segment_ids:I2, output_dim0:D", "output:T",
       {"T": ("bfloat16", "float16", "float32", "double"), "I": INDEX, "I2": INDEX, "D": ("int32",)},
       source=f"{_CANN}math_ops.h REG_OP(SparseSegmentSumGrad) (TensorFlow SparseSegmentSumGrad: output[indices[i]] "
              "+= grad[segment_ids[i]], output of output_dim0 rows)", shape_rule=_INDEXED, policy="reduction"),
    op("EmbeddingBag", "weight:T, indices:I, offsets?:I, per_sample_weights?:T", "y:T", {"T": ("float32",), "I": ("int32",)},
       (Attr("mode", "str", "mean", domain=OneOf(("sum", "mean", "max"))), Attr("scale_grad_by_freq", "bool", False),
        Attr("sparse", "bool", False), Attr("include_last_offset", "bool", False)),
       source=f"{_CANN}rnn.h REG_OP(EmbeddingBag) (PyTorch embedding_bag: the rows of weight that indices names, "
              "reduced per bag by mode; a 2-D indices is one bag per row, a 1-D one is cut into bags at offsets, the "
              "last bag running to the end unless include_last_offset; per_sample_weights scales each row, for "
              "\"sum\" only; an empty bag gives zeros)",
       samples={"indices": Sample(0, 9, "row numbers of weight (10 rows)")},
       # the value profiles would draw indices outside weight's rows
       sample_shapes=(((10, 3), (4, 5)), ((10, 6), (2, 3))), profiles=(), shape_rule=_INDEXED, policy="reduction"),
)
