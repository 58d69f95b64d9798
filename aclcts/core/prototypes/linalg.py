"""Records of the linear-algebra family: MatrixDeterminant, LogMatrixDeterminant (sign and log |det| of each innermost
square matrix), MatrixTriangularSolve and BandedTriangularSolve (the solution of a triangular system per batch, the
matrix given whole or as its bands), and Pdist (the p-norm distances between the rows of a matrix, PyTorch's pdist).

Source: CANN's prototypes, dengguojie/vue-element-admin@7d77ce32d ops/built-in/op_proto/inc/linalg_ops.h; the ops
mirror TensorFlow's MatrixDeterminant, LogMatrixDeterminant, MatrixTriangularSolve and BandedTriangularSolve
(tf.raw_ops, tf.linalg.banded_triangular_solve for the band layout), which CANN runs as
AI CPU kernels (no TBE implementation). The values are drawn so the matrices are well conditioned: a float32 result
then agrees with the float64 one to the policy's tolerance whatever order of elimination a kernel takes.
"""

from __future__ import annotations

from aclcts.core.prototypes.dtypes import COMPLEX
from aclcts.core.prototypes.spec import Attr, OneOf, Prototype, Sample, op

POLICY = "matmul"
SHAPE_RULE = "each"

_LINALG = "dengguojie/vue-element-admin@7d77ce32d ops/built-in/op_proto/inc/linalg_ops.h"
#: TensorType({DT_FLOAT, DT_DOUBLE, DT_COMPLEX64, DT_COMPLEX128}) of the REG_OPs.
LINALG_TYPES = ("float32", "float64") + COMPLEX
_ENTRIES = Sample(-1, 1, "entries of unit size: det of a 4 x 4 matrix stays near 1")
#: A triangle with its diagonal at least as large as the rest of a row keeps the substitution's growth small.
_TRIANGLE = Sample(1, 2, "entries in [1, 2]: no diagonal near 0, no growth in the substitution")
_SQUARE_SHAPES = (((3, 3),), ((2, 4, 4),))

PROTOTYPES: tuple[Prototype, ...] = (
    op("MatrixDeterminant", "x:T", "y:T", {"T": LINALG_TYPES}, samples={"x": _ENTRIES}, sample_shapes=_SQUARE_SHAPES,
       profiles=(), source=f"{_LINALG} REG_OP(MatrixDeterminant): y[...] = det(x[..., :, :]) (TensorFlow "
                           "MatrixDeterminant)"),
    op("LogMatrixDeterminant", "x:T", "sign:T, y:T", {"T": LINALG_TYPES}, samples={"x": _ENTRIES},
       sample_shapes=_SQUARE_SHAPES, profiles=(),
       source=f"{_LINALG} REG_OP(LogMatrixDeterminant): sign * exp(y) = det(x[..., :, :]), y = log |det| (TensorFlow "
              "LogMatrixDeterminant: sign 0 and y -inf for a singular matrix)"),
    op("MatrixTriangularSolve", "matrix:T, rhs:T", "y:T", {"T": LINALG_TYPES},
       (Attr("lower", "bool", True), Attr("adjoint", "bool", False)),
       samples={"matrix": _TRIANGLE, "rhs": _ENTRIES}, sample_shapes=(((4, 4), (4, 3)), ((2, 3, 3), (2, 3, 2))),
       profiles=(),
       source=f"{_LINALG} REG_OP(MatrixTriangularSolve): y solves T y = rhs (T^H y = rhs with adjoint), T the lower "
              "(lower) or upper triangle of matrix, the other triangle ignored (TensorFlow MatrixTriangularSolve)"),
    op("BandedTriangularSolve", "bands:T, rhs:T", "output:T", {"T": ("float32", "float64", "float16") + COMPLEX},
       (Attr("lower", "bool", True), Attr("adjoint", "bool", False)),
       samples={"bands": _TRIANGLE, "rhs": _ENTRIES}, sample_shapes=(((2, 4), (4, 3)), ((2, 3, 5), (2, 5, 2))),
       profiles=(),
       source=f"{_LINALG} REG_OP(BandedTriangularSolve): as MatrixTriangularSolve with the [..., M, M] matrix given "
              "by its K bands [..., K, M] (TensorFlow BandedTriangularSolve, tf.linalg.banded_triangular_solve: "
              "lower: bands[d] the d-th subdiagonal, right-aligned; upper: bands[K-1-d] the d-th superdiagonal, "
              "left-aligned)"),
    op("Pdist", "x:T", "y:T", {"T": ("float32", "float16")},
       (Attr("p", "float", 2.0, domain=OneOf((0.0, 1.0, 2.0, 3.0)), specials=(0.0,)),), policy="reduction",
       samples={"x": _ENTRIES}, sample_shapes=(((5, 7),), ((2, 16),)), profiles=(),
       source="dengguojie/vue-element-admin@7d77ce32d ops/built-in/op_proto/inc/math_ops.h REG_OP(Pdist): y[k] = "
              "||x[i] - x[j]||_p for the rows i < j of the [N, M] x in row-major pair order, N (N - 1) / 2 values "
              "(PyTorch torch.nn.functional.pdist; p = 0 counts the differing entries)"),
)
