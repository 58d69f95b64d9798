"""SparseTensorDenseMatMul kernel: entries added in order, float16 in float32, bounds and shape checks."""

from __future__ import annotations

import numpy as np
import pytest

from aclcts.sim.kernels import KernelError

I64, F16, F32, I32 = np.int64, np.float16, np.float32, np.int32
SHAPE = np.array([2, 3], I64)


def test_repeated_entries_add_up_and_adjoint_b_reads_x2_transposed(run):
    indices = np.array([[0, 1], [1, 0], [1, 0]], I64)
    values = np.array([2, 3, 4], F32)
    b = np.array([[1, -1], [0.5, 2], [10, 0]], F32)
    (y,) = run("SparseTensorDenseMatMul", [indices, values, SHAPE, b], [(F32, (2, 2))])
    assert y.tolist() == [[1.0, 4.0], [7.0, -7.0]]
    (y,) = run("SparseTensorDenseMatMul", [indices, values, SHAPE, np.ascontiguousarray(b.T)], [(F32, (2, 2))],
               {"adjoint_b": True})
    assert y.tolist() == [[1.0, 4.0], [7.0, -7.0]]


def test_float16_sums_in_float32_and_rounds_once(run):
    # 2048 + 1 + 1 + 1 + 1: float16 steps would stay at 2048 (each +1 ties back); float32 gives 2052.
    indices = np.array([[0, 0]] * 5, I64)
    values = np.array([2048, 1, 1, 1, 1], F16)
    (y,) = run("SparseTensorDenseMatMul", [indices, values, np.array([1, 1], I64), np.ones((1, 1), F16)],
               [(F16, (1, 1))])
    assert y.tolist() == [[2052.0]]


def test_int32_products_wrap(run):
    indices = np.array([[0, 0], [0, 0]], I64)
    values = np.array([2**30, 2**30], I32)
    (y,) = run("SparseTensorDenseMatMul", [indices, values, np.array([1, 1], I64), np.full((1, 1), 2, I32)],
               [(I32, (1, 1))])
    assert y.tolist() == [[0]]  # 2^31 + 2^31 wraps to 0


@pytest.mark.parametrize("indices, shape, b, match", [
    ([[2, 0]], [2, 3], (3, 2), "lies outside x1_shape"),
    ([[0, -1]], [2, 3], (3, 2), "lies outside x1_shape"),
    ([[0, 0]], [2, 3], (4, 2), "inner dimensions differ"),
    ([[0, 0]], [2, 3, 1], (3, 2), "two non-negative dims"),
])
def test_bad_entries_or_shapes_fail_the_execution(run, indices, shape, b, match):
    with pytest.raises(KernelError, match=match):
        run("SparseTensorDenseMatMul", [np.array(indices, I64), np.ones(1, F32), np.array(shape, I64),
                                        np.ones(b, F32)], [(F32, (2, 2))])
