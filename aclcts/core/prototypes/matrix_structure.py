"""Records of the matrix-structure ops: DiagPart (the diagonal of a [D1..Dk, D1..Dk] tensor) and MatrixBandPart (a
band of each innermost matrix kept, the rest zeroed).

Source: CANN's prototypes, dengguojie/vue-element-admin@7d77ce32d ops/built-in/op_proto/inc/ matrix_calculation_ops.h
(DiagPart), array_ops.h (MatrixBandPart); the results are TensorFlow's DiagPart and MatrixBandPart.
"""

from __future__ import annotations

from aclcts.core.prototypes.dtypes import BOOL, COMPLEX, FLOAT64, INDEX
from aclcts.core.prototypes.spec import Prototype, Sample, op

POLICY = "movement"
SHAPE_RULE = "each"

_CANN = "dengguojie/vue-element-admin@7d77ce32d ops/built-in/op_proto/inc/"
_DIAG_PART = ("float32", "float16", "int32", "int64") + FLOAT64 + COMPLEX
_BAND = ("int8", "uint8", "int16", "uint16", "int32", "int64", "float16", "float32") + FLOAT64 + BOOL + COMPLEX

PROTOTYPES: tuple[Prototype, ...] = (
    op("DiagPart", "x:T", "y:T", {"T": _DIAG_PART},
       source=f"{_CANN}matrix_calculation_ops.h REG_OP(DiagPart); TensorFlow DiagPart", shape_rule="square",
       sample_shapes=(((4, 4),), ((2, 3, 2, 3),))),
    op("MatrixBandPart", "x:T, num_lower:I, num_upper:I", "y:T", {"T": _BAND, "I": INDEX},
       source=f"{_CANN}array_ops.h REG_OP(MatrixBandPart); TensorFlow MatrixBandPart (a negative count keeps the "
              "whole triangle)",
       samples={"num_lower": Sample(-1, 3, "a whole triangle (-1) or a band of 0 to 3"),
                "num_upper": Sample(-1, 3, "a whole triangle (-1) or a band of 0 to 3")},
       sample_shapes=(((5, 5), (), ()), ((2, 4, 6), (), ()))),
)
