"""SparseTensorDenseMatMul reference against products worked out by hand."""

from __future__ import annotations

import numpy as np
import pytest

from aclcts.reference import reference

REF = reference("SparseTensorDenseMatMul")
#: A = [[0, 2, 0], [0, 0, 0]] + a repeated entry (1, 0) holding 3 and then 4, so A = [[0, 2, 0], [7, 0, 0]].
INDICES = np.array([[0, 1], [1, 0], [1, 0]], np.int64)
VALUES = np.array([2.0, 3.0, 4.0], np.float32)
SHAPE = np.array([2, 3], np.int64)
B = np.array([[1.0, -1.0], [0.5, 2.0], [10.0, 0.0]], np.float32)


def run(indices, values, shape, b, **attrs):
    (y,) = REF.compute([indices, values, shape, b], attrs, [values.dtype])
    return y


def test_a_repeated_index_adds_its_values():
    # row 0 = 2 * B[1]; row 1 = 7 * B[0]
    assert run(INDICES, VALUES, SHAPE, B).tolist() == [[1.0, 4.0], [7.0, -7.0]]


def test_adjoint_a_multiplies_by_the_transpose():
    # A^T [3, 2] @ C [2, 2], C = [[1, 2], [3, 4]]: row 0 = 7 * C[1], row 1 = 2 * C[0], row 2 = 0
    c = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
    assert run(INDICES, VALUES, SHAPE, c, adjoint_a=True).tolist() == [[21.0, 28.0], [2.0, 4.0], [0.0, 0.0]]


def test_adjoint_b_multiplies_by_the_transpose_of_x2():
    # A [2, 3] @ B^T with B given as [2, 3]: row 0 = 2 * column 1 of B^T = 2 * B[:, 1]
    b_t = np.ascontiguousarray(B.T)
    assert run(INDICES, VALUES, SHAPE, b_t, adjoint_b=True).tolist() == [[1.0, 4.0], [7.0, -7.0]]


def test_integer_values_and_no_entries():
    ints = run(INDICES, np.array([2, 3, 4], np.int32), SHAPE, B.astype(np.int32) * 2)
    assert ints.tolist() == [[0, 8], [14, -14]] and ints.dtype == np.int32  # B as int32 * 2: [[2, -2], [0, 4], [20, 0]]
    empty = run(np.zeros((0, 2), np.int64), np.zeros(0, np.float32), SHAPE, B)
    assert empty.tolist() == [[0.0, 0.0], [0.0, 0.0]]


def test_the_output_shape_comes_from_x1_shape_and_x2():
    assert REF.shape([(3, 2), (3,), (2,), (3, 2)], [None, None, SHAPE, None], {}) == [(2, 2)]
    assert REF.shape([(3, 2), (3,), (2,), (2, 3)], [None, None, SHAPE, None], {"adjoint_a": True}) == [(3, 3)]


@pytest.mark.parametrize("indices", [[[2, 0]], [[0, 3]], [[-1, 0]]])
def test_an_index_outside_x1_shape_is_an_error(indices):
    with pytest.raises(ValueError, match="outside x1_shape"):
        run(np.array(indices, np.int64), np.ones(1, np.float32), SHAPE, B)
