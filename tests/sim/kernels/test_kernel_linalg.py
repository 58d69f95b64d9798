"""Linear-algebra kernels (explicit pivoted elimination and substitution in the device dtype) against numpy.linalg
and hand-computed values: the determinant's sign from row swaps, singular matrices, triangles and adjoints."""

import numpy as np
import pytest

F32, F64, C64 = np.float32, np.float64, np.complex64


def test_determinant_counts_each_row_swap(run):
    x = np.array([[[0, 1], [1, 0]], [[2, 0], [0, 3]]], F32)
    (y,) = run("MatrixDeterminant", [x], [(F32, (2,))])
    np.testing.assert_array_equal(y, np.array([-1.0, 6.0], F32))


def test_determinant_of_a_singular_matrix_is_zero_and_its_log_minus_inf(run):
    x = np.array([[1, 2], [2, 4]], F64)
    (det,) = run("MatrixDeterminant", [x], [(F64, ())])
    sign, log_abs = run("LogMatrixDeterminant", [x], [(F64, ()), (F64, ())])
    assert det == 0 and sign == 0 and log_abs == -np.inf


@pytest.mark.parametrize("dtype", [F32, F64, C64])
def test_log_determinant_matches_numpy_slogdet(run, dtype):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((5, 4, 4)).astype(dtype)
    if dtype == C64:
        x = (x + 1j * rng.standard_normal((5, 4, 4))).astype(C64)
    sign, log_abs = run("LogMatrixDeterminant", [x], [(dtype, (5,)), (dtype, (5,))])
    want_sign, want_log = np.linalg.slogdet(x.astype(np.complex128 if dtype == C64 else F64))
    np.testing.assert_allclose(sign, want_sign, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(log_abs.real, want_log, rtol=1e-5, atol=1e-5)
    (det,) = run("MatrixDeterminant", [x], [(dtype, (5,))])
    np.testing.assert_allclose(det, want_sign * np.exp(want_log), rtol=1e-4)


@pytest.mark.parametrize(("lower", "adjoint"), [(True, False), (True, True), (False, False), (False, True)])
def test_triangular_solve_reads_only_its_triangle(run, lower, adjoint):
    rng = np.random.default_rng(5)
    matrix = rng.uniform(1, 2, (2, 4, 4)).astype(F64)
    rhs = rng.uniform(-1, 1, (2, 4, 3)).astype(F64)
    (y,) = run("MatrixTriangularSolve", [matrix, rhs], [(F64, rhs.shape)], {"lower": lower, "adjoint": adjoint})
    part = np.tril(matrix) if lower else np.triu(matrix)
    system = np.swapaxes(part, -1, -2) if adjoint else part
    np.testing.assert_allclose(system @ y, rhs, atol=1e-12)


def test_triangular_solve_with_a_wrong_rhs_order_is_one_line(run):
    with pytest.raises(Exception, match=r"must be \[\.\.\., M, K\] with M = 3"):
        run("MatrixTriangularSolve", [np.eye(3, dtype=F32), np.ones((4, 2), F32)], [(F32, (4, 2))], {})


@pytest.mark.parametrize(("lower", "adjoint"), [(True, False), (True, True), (False, False), (False, True)])
def test_banded_solve_substitutes_through_the_bands(run, lower, adjoint):
    rng = np.random.default_rng(9)
    bands = (rng.uniform(1, 2, (2, 3, 5)) + 1j * rng.uniform(0, 1, (2, 3, 5))).astype(np.complex128)
    rhs = rng.uniform(-1, 1, (2, 5, 2)).astype(np.complex128)
    (y,) = run("BandedTriangularSolve", [bands, rhs], [(np.complex128, rhs.shape)], {"lower": lower, "adjoint": adjoint})
    dense = np.zeros((2, 5, 5), np.complex128)
    for d in range(3):
        for i in range(5):
            if lower and i >= d:
                dense[:, i, i - d] = bands[:, d, i]
            if not lower and i + d < 5:
                dense[:, i, i + d] = bands[:, 2 - d, i]
    system = np.conj(np.swapaxes(dense, -1, -2)) if adjoint else dense
    np.testing.assert_allclose(system @ y, rhs, atol=1e-12)


@pytest.mark.parametrize("p", [0.0, 1.0, 2.0, 3.0])
def test_pdist_matches_the_norms_of_row_differences(run, p):
    x = np.random.default_rng(11).uniform(-1, 1, (6, 40)).astype(F32)
    x[1, :20] = x[0, :20]
    (y,) = run("Pdist", [x], [(F32, (15,))], {"p": p})
    i, j = np.triu_indices(6, k=1)
    np.testing.assert_allclose(y, np.linalg.norm(x[i].astype(F64) - x[j], ord=p, axis=-1), rtol=1e-5)


def test_pdist_of_one_row_is_empty(run):
    (y,) = run("Pdist", [np.ones((1, 4), F32)], [(F32, (0,))], {"p": 2.0})
    assert y.shape == (0,)
