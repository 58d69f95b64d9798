"""Records of the matrix-structure ops: DiagPart (the diagonal of a [D1..Dk, D1..Dk] tensor), MatrixBandPart (a
band of each innermost matrix kept, the rest zeroed), MatrixDiagPartD (MatrixDiagPart with CANN's assist mask) and
TensorFlow's diagonal-band ops MatrixDiagPartV3, MatrixDiagV3 and MatrixSetDiagV2 (diagonals k[0]..k[1], the shorter
ones padded as align says; V2 aligns both sides LEFT). Their output shapes depend on k (and num_rows, num_cols), so
their cases are files (cases/matrix_structure/).

Source: CANN's prototypes, dengguojie/vue-element-admin@7d77ce32d ops/built-in/op_proto/inc/ matrix_calculation_ops.h
(DiagPart), array_ops.h (MatrixBandPart); the results are TensorFlow's DiagPart and MatrixBandPart.
"""

from __future__ import annotations

from aclcts.core.prototypes.dtypes import BASIC, BOOL, COMPLEX, FLOAT64, INDEX
from aclcts.core.prototypes.spec import Attr, OneOf, Prototype, Sample, op

POLICY = "movement"
SHAPE_RULE = "each"

_CANN = "dengguojie/vue-element-admin@7d77ce32d ops/built-in/op_proto/inc/"
_DIAG_PART = ("float32", "float16", "int32", "int64") + FLOAT64 + COMPLEX
_BAND = ("int8", "uint8", "int16", "uint16", "int32", "int64", "float16", "float32") + FLOAT64 + BOOL + COMPLEX

#: How the diagonals shorter than the longest are padded: superdiagonals first, subdiagonals second (TensorFlow's).
_ALIGN = Attr("align", "str", "RIGHT_LEFT", domain=OneOf(("RIGHT_LEFT", "LEFT_RIGHT", "LEFT_LEFT", "RIGHT_RIGHT")))

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
    # The assist is CANN's mask of the main diagonal (ones on it, zeros off it): matrix_diag_part_d.py multiplies x by
    # it and sums along the longer of the two innermost dims, TensorFlow's MatrixDiagPart when the mask is the identity.
    # x positive and no value profiles, as DiagPartD (aclcts/core/prototypes/const_folded.py).
    op("MatrixDiagPartD", "x:T, assist:T", "y:T", {"T": BASIC},
       source=f"{_CANN}matrix_calculation_ops.h REG_OP(MatrixDiagPartD); TensorFlow MatrixDiagPart, y = sum of x * "
              "assist along the longer innermost dim (ops/built-in/tbe/impl/matrix_diag_part_d.py)",
       policy="reduction", profiles=(),
       samples={"x": Sample(0, 2, "positive values"), "assist": Sample(0, 1, "the mask's 0 and 1, and between")},
       sample_shapes=(((2, 4, 4), (2, 4, 4)), ((3, 5), (3, 5)), ((2, 6, 3), (2, 6, 3)))),
    op("MatrixDiagPartV3", "x:T, k:K, padding_value:T", "y:T", {"T": BASIC, "K": ("int32",)}, (_ALIGN,),
       source=f"{_CANN}matrix_calculation_ops.h REG_OP(MatrixDiagPartV3); TensorFlow MatrixDiagPartV3"),
    op("MatrixDiagV3", "x:T, k:K, num_rows:K, num_cols:K, padding_value:T", "y:T", {"T": BASIC, "K": ("int32",)},
       (_ALIGN,),
       source=f"{_CANN}matrix_calculation_ops.h REG_OP(MatrixDiagV3); TensorFlow MatrixDiagV3"),
    op("MatrixSetDiagV2", "input:T, diagonal:T, k:K", "output:T", {"T": BASIC, "K": ("int32",)},
       source=f"{_CANN}matrix_calculation_ops.h REG_OP(MatrixSetDiagV2); TensorFlow MatrixSetDiagV2 (MatrixSetDiagV3 "
              "with align LEFT_LEFT)"),
)
