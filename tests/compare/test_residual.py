"""A linear solve that fails its policy is judged by its backward error (aclcts.judge.residual): a backward-stable
solve of an ill-conditioned triangular system passes, and solves that are wrong fail however the policy judged them."""

from pathlib import Path

import numpy as np
import pytest

from aclcts.cases import load_cases
from aclcts.drive import executor
from aclcts.judge.compare import compare
from aclcts.judge.decorator import judge
from aclcts.judge.residual import RESIDUAL_THRESHOLD, backward_error
from aclcts.reference import reference

ORDER, COLUMNS = 32, 4


def forward_substitution(lower: np.ndarray, rhs: np.ndarray, dtype: type) -> np.ndarray:
    """X solving lower X = rhs (batched) row by row, every step rounded to dtype: a backward-stable solve."""
    a, b = lower.astype(dtype), rhs.astype(dtype)
    x = np.zeros_like(b)
    with np.errstate(all="ignore"):  # float16 steps overflow on these systems' huge elements
        for i in range(a.shape[-2]):
            x[..., i, :] = (b[..., i, :] - np.einsum("...k,...kj->...j", a[..., i, :i], x[..., :i, :])) \
                / a[..., i, i:i + 1]
    return x


@pytest.fixture(scope="module")
def system() -> tuple[np.ndarray, np.ndarray]:
    """The first of 512 systems drawn as CANN's MatrixTriangularSolve case draws them (lower triangles and rhs uniform
    in [0, 1]) whose float32 solve fails the ratio policy: ill-conditioned (a condition number growing like 2^n), so
    its small solution elements lose their digits to cancellation against its huge ones."""
    rng = np.random.default_rng(20261207)
    matrices = np.tril(rng.random((512, ORDER, ORDER))).astype(np.float32)
    rhs = rng.random((512, ORDER, COLUMNS)).astype(np.float32)
    solved = forward_substitution(matrices, rhs, np.float32)
    exact = np.linalg.solve(matrices.astype(np.float64), rhs.astype(np.float64)).astype(np.float32)
    failing = [i for i in range(len(rhs)) if not compare(solved[i], exact[i], "ratio").passed]
    assert failing, "no system of 512 is ill-conditioned enough for float32 to fail the ratio policy"
    return matrices[failing[0]], rhs[failing[0]]


def ratio(system, solution) -> float:
    return backward_error("MatrixTriangularSolve", list(system), {"lower": True}, solution)


def test_a_backward_stable_solve_far_from_the_exact_solution_has_a_small_ratio(system):
    assert ratio(system, forward_substitution(*system, np.float32)) < 3


@pytest.mark.parametrize("wrong", ["upper-triangle", "float16-steps", "one-element-1%-off", "transposed"])
def test_a_wrong_solve_has_a_ratio_over_the_threshold(system, wrong):
    matrix, rhs = system
    solution = forward_substitution(matrix, rhs, np.float32)
    if wrong == "upper-triangle":
        solution = np.linalg.solve(np.triu(matrix.T).astype(np.float64), rhs).astype(np.float32)
    elif wrong == "float16-steps":
        solution = forward_substitution(matrix, rhs, np.float16).astype(np.float32)
    elif wrong == "one-element-1%-off":
        solution[ORDER // 2, 1] *= np.float32(1.01)
    else:
        solution = np.linalg.solve(matrix.T.astype(np.float64), rhs).astype(np.float32)
    assert ratio(system, solution) > RESIDUAL_THRESHOLD


def judged(tmp_path: Path, system, solution) -> list[str]:
    """judge's failures for solution as the output of a MatrixTriangularSolve case over system."""
    (tmp_path / "solve.yaml").write_text(f"op: MatrixTriangularSolve\ndtypes: [float32]\n"
                                         f"shapes: [[[{ORDER}, {ORDER}], [{ORDER}, {COLUMNS}]]]\n", encoding="utf-8")
    case = next(case for case in load_cases([str(tmp_path / "solve.yaml")]) if not case.profile)
    assert reference(case.reference).compute(list(system), {}, ["float32"])[0].shape == solution.shape
    return judge(case, [list(system)], [executor.Outputs([solution], [np.zeros(solution.shape, bool)])])


def test_the_judge_passes_a_stable_solve_its_policy_fails(tmp_path, system):
    assert judged(tmp_path, system, forward_substitution(*system, np.float32)) == []


def test_the_judge_fails_a_wrong_solve_and_names_the_ratio(tmp_path, system):
    matrix, rhs = system
    wrong = np.linalg.solve(matrix.T.astype(np.float64), rhs).astype(np.float32)
    (failure,) = judged(tmp_path, system, wrong)
    assert f" and the backward error ratio {RESIDUAL_THRESHOLD:g}: " in failure
    assert np.isfinite(ratio(system, wrong)) and f"backward error ratio {ratio(system, wrong):.4g}" in failure


def test_a_banded_solve_is_judged_on_the_matrix_its_bands_fill():
    """BandedTriangularSolve, lower, 2 bands: the diagonal and the first subdiagonal (right-aligned) of a 6 x 6."""
    rng = np.random.default_rng(7)
    bands = rng.uniform(1, 2, (2, 6))
    rhs = rng.uniform(-1, 1, (6, 3))
    dense = np.diag(bands[0]) + np.diag(bands[1, 1:], -1)
    solution = np.linalg.solve(dense, rhs)
    assert backward_error("BandedTriangularSolve", [bands, rhs], {"lower": True}, solution) < 3
    assert backward_error("BandedTriangularSolve", [bands, rhs], {"lower": True},
                          np.linalg.solve(dense.T, rhs)) > RESIDUAL_THRESHOLD
