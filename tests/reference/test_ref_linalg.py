"""Linear-algebra references against hand-computed values: determinants with their sign, TensorFlow's sign 0 and
log |det| -inf for a singular matrix, and the triangular solve's lower/adjoint reading."""

import numpy as np
import pytest

from aclcts.reference import reference


def test_determinant_and_its_log_by_hand():
    x = np.array([[[0.0, 2.0], [3.0, 0.0]], [[1.0, 2.0], [2.0, 4.0]]])
    (det,) = reference("MatrixDeterminant").compute([x], {}, [np.float64])
    sign, log_abs = reference("LogMatrixDeterminant").compute([x], {}, [np.float64, np.float64])
    np.testing.assert_allclose(det, [-6.0, 0.0], atol=1e-15)
    np.testing.assert_array_equal(sign, [-1.0, 0.0])
    np.testing.assert_allclose(log_abs, [np.log(6.0), -np.inf])


@pytest.mark.parametrize(("lower", "adjoint", "expected"), [
    (True, False, [[1.0], [0.5]]),     # [[2, 0], [2, 4]] y = [2, 4]
    (False, False, [[0.5], [1.0]]),    # [[2, 1], [0, 4]] y = [2, 4]
    (True, True, [[0.0], [1.0]]),      # [[2, 2], [0, 4]] y = [2, 4]
])
def test_triangular_solve_by_hand(lower, adjoint, expected):
    matrix = np.array([[2.0, 1.0], [2.0, 4.0]])
    (y,) = reference("MatrixTriangularSolve").compute([matrix, np.array([[2.0], [4.0]])],
                                                      {"lower": lower, "adjoint": adjoint}, [np.float64])
    np.testing.assert_allclose(y, expected)


def test_rhs_of_the_wrong_order_is_refused():
    with pytest.raises(ValueError, match="rhs"):
        reference("MatrixTriangularSolve").compute([np.eye(3), np.ones((4, 2))], {}, [np.float64])


def test_banded_solve_follows_tensorflows_band_layout():
    """tf.linalg.banded_triangular_solve's example: bands [[2, 3, 4], [1, 2, 3]] (lower, the subdiagonal right-aligned,
    its first entry ignored) and rhs ones give [0.5, 0, 0.25]."""
    bands = np.array([[2.0, 3.0, 4.0], [10000.0, 2.0, 3.0]])
    (y,) = reference("BandedTriangularSolve").compute([bands, np.ones((3, 1))], {"lower": True, "adjoint": False},
                                                      [np.float64])
    np.testing.assert_allclose(y, [[0.5], [0.0], [0.25]])


@pytest.mark.parametrize(("p", "expected"), [(2.0, [5.0, 5.0, 0.0]), (1.0, [7.0, 7.0, 0.0]), (0.0, [2.0, 2.0, 0.0]),
                                             (np.inf, [4.0, 4.0, 0.0])])
def test_pdist_pairs_rows_in_row_major_order(p, expected):
    x = np.array([[0.0, 0.0], [3.0, 4.0], [3.0, 4.0]])
    (y,) = reference("Pdist").compute([x], {"p": p}, [np.float64])
    np.testing.assert_allclose(y, expected)
