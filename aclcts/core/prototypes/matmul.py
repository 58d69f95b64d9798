"""Prototypes of the matrix products: MatMul, MatMulV2, BatchMatMul, BatchMatMulV2 and GEMM.

Sources: mindspore-ai/graphengine 910 op_proto/inc/matrix_calculation_ops.h and hicann/ops-nn
matmul/{mat_mul_v3,batch_mat_mul_v3}/op_graph/*_proto_extend.h. x1 and x2 share one dtype; y may differ (float16
or bfloat16 in, float32 out), as the headers allow each its own TensorType. GEMM's c, alpha and beta share y's
dtype (the aclblasGemmEx triples: int8 a/b with int32 or float32 c). int4 is left out (the suite has no int4).
MatMul also takes `offset_x` (int, default 0): the IR header leaves it out, but CANN's MatMul kernel signature has it
(canndev ops/built-in/tbe/impl/mat_mul.py `mat_mul(..., offset_x=0, ...)`) and CANN's own MatMul system tests set it.
It is MatMulV2's int8 offset of x1; MatMul takes no int8 input and `mat_mul_compute` never reads it, so it does not
change MatMul's result.
"""

from __future__ import annotations

from aclcts.core.prototypes.spec import Attr, Prototype, op

POLICY = "matmul"
SHAPE_RULE = "matmul"

_GE = "graphengine 910 op_proto/inc/matrix_calculation_ops.h"
_OUT = ("float32", "float16", "int32", "bfloat16")
_IN_V2 = _OUT + ("int8",)
#: BatchMatMul's optional bias: every SoC's op info declares it and the TBE kernel adds it, though the IR header of
#: the same snapshot lists two inputs only (CANN's own BatchMatMul system tests pass one).
_CANNDEV_BMM = ("canndev ops/built-in/tbe/op_info_cfg/ai_core/<soc>/aic-<soc>-ops-info.ini [BatchMatMul] "
                "input2.name=bias, paramType=optional; ops/built-in/tbe/impl/batch_matmul.py batch_matmul(..., bias=None)")


#: FRACTAL_NZ operands and result, as CANN's MatMul and GEMM system tests (ops/built-in/tests/st) store them; GEMM's
#: tests also store an int8 b in FRACTAL_Z made from its 2-D shape (docs/formats.md).
_NZ = ("FRACTAL_NZ",)
_NZ_OR_Z = ("FRACTAL_NZ", "FRACTAL_Z")


def _transpose(a: str, b: str) -> tuple[Attr, Attr]:
    return Attr(a, "bool", False), Attr(b, "bool", False)


PROTOTYPES: tuple[Prototype, ...] = (
    op("MatMul", "x1:T, x2:T, bias?:Y", "y:Y", {"T": _OUT, "Y": _OUT},
       (*_transpose("transpose_x1", "transpose_x2"), Attr("offset_x", "int", 0)),
       source=f"hicann/ops-nn matmul/mat_mul_v3/op_graph/mat_mul_proto_extend.h REG_OP(MatMul); {_GE}; offset_x: "
              f"canndev ops/built-in/tbe/impl/mat_mul.py mat_mul",
       formats={"x1": _NZ, "x2": _NZ, "y": _NZ}),
    op("MatMulV2", "x1:T, x2:T, bias?:Y, offset_w?:W", "y:Y", {"T": _IN_V2, "Y": _OUT, "W": ("int8",)},
       (*_transpose("transpose_x1", "transpose_x2"), Attr("offset_x", "int", 0)),
       source=f"{_GE} REG_OP(MatMulV2)"),
    op("BatchMatMul", "x1:T, x2:T, bias?:Y", "y:Y", {"T": _OUT, "Y": _OUT}, _transpose("adj_x1", "adj_x2"),
       source=f"hicann/ops-nn matmul/batch_mat_mul_v3/op_graph/batch_mat_mul_proto_extend.h REG_OP(BatchMatMul); "
              f"{_GE}; bias: {_CANNDEV_BMM}"),
    op("BatchMatMulV2", "x1:T, x2:T, bias?:Y, offset_w?:W", "y:Y", {"T": _IN_V2, "Y": _OUT, "W": ("int8",)},
       (*_transpose("adj_x1", "adj_x2"), Attr("offset_x", "int", 0)), source=f"{_GE} REG_OP(BatchMatMulV2)"),
    op("GEMM", "a:T, b:T, c:Y, alpha:Y, beta:Y", "y:Y",
       {"T": ("float32", "float16", "int8", "int32"), "Y": ("float32", "float16", "int8", "int32")},
       _transpose("transpose_a", "transpose_b"), source=f"{_GE} REG_OP(GEMM)",
       formats={"a": _NZ, "b": _NZ_OR_Z, "c": _NZ, "y": _NZ}),
)
