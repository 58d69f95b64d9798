"""Prototype of SparseTensorDenseMatMul: a rank-2 sparse tensor in COO form times a dense matrix.

Source: mindspore-ai/graphengine 910 third_party/fwkacllib/inc/ops/sparse_ops.h REG_OP(SparseTensorDenseMatMul) and
the current CANN sparse_tensor_dense_mat_mul_proto.h (which adds int64 values): x1_values and x2 share one dtype
(the header says x2 has "the same type as x1_values"); complex64/complex128 are left out (the suite runs none).
"""

from __future__ import annotations

from aclcts.core.prototypes.dtypes import INDEX
from aclcts.core.prototypes.spec import Attr, Prototype, op

POLICY = "matmul"
SHAPE_RULE = "each"

PROTOTYPES: tuple[Prototype, ...] = (
    op("SparseTensorDenseMatMul", "x1_indices:I, x1_values:T, x1_shape:S, x2:T", "y:T",
       {"I": INDEX, "T": ("float16", "float32", "float64", "int32", "int64"), "S": ("int64",)},
       (Attr("adjoint_a", "bool", False), Attr("adjoint_b", "bool", False)),
       source="graphengine 910 third_party/fwkacllib/inc/ops/sparse_ops.h REG_OP(SparseTensorDenseMatMul)"),
)
