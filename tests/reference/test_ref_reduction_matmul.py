"""ReduceSum/Max/Mean and MatMul/BatchMatMul/GEMM references: values, shapes and input errors."""

import numpy as np
import pytest

from aclcts.reference import reference

F16, F32, I32 = np.float16, np.float32, np.int32
X = np.arange(6, dtype=F32).reshape(2, 3)


def run(op, inputs, outs, attrs=None):
    """Run a reference op and return its outputs."""
    return reference(op).compute([None if x is None else np.asarray(x) for x in inputs], attrs or {}, outs)


@pytest.mark.parametrize("op, axes, keep, expected", [
    ("ReduceSum", [1], False, [3.0, 12.0]),
    ("ReduceSum", [-2], True, [[3.0, 5.0, 7.0]]),
    ("ReduceSum", [0, 1], False, 15.0),
    ("ReduceMax", [1], False, [2.0, 5.0]),
    ("ReduceMean", [0], False, [1.5, 2.5, 3.5]),
])
def test_reductions(op, axes, keep, expected):
    (y,) = run(op, [X, np.array(axes, I32)], [F32], {"keep_dims": keep})
    assert y.tolist() == expected
    assert reference(op).shape([X.shape, (len(axes),)], [None, np.array(axes)], {"keep_dims": keep}) == [y.shape]


def test_empty_axes_follow_noop_with_empty_axes():
    empty = np.array([], I32)
    assert run("ReduceSum", [X, empty], [F32])[0].tolist() == X.tolist()
    assert run("ReduceSum", [X, empty], [F32], {"noop_with_empty_axes": False})[0].tolist() == 15.0


def test_reduce_sum_rounds_once():
    x = np.array([2048, 1, 1], F16)
    assert run("ReduceSum", [x, np.array([0])], [F16])[0].tolist() == 2050.0


def test_integer_reductions():
    x = np.array([2**31 - 1, 1, -7], I32)
    assert run("ReduceSum", [x[:2], np.array([0])], [I32])[0].tolist() == -2**31
    assert run("ReduceMean", [np.array([-7, 0], I32), np.array([0])], [I32])[0].tolist() == -3


def test_reduce_max_propagates_nan_and_rejects_empty():
    assert np.isnan(run("ReduceMax", [np.array([1.0, np.nan]), np.array([0])], [F32])[0])
    with pytest.raises(ValueError, match="ReduceMax: .*empty axis"):
        run("ReduceMax", [np.zeros((0, 2)), np.array([0])], [F32])


def test_reduction_axis_errors():
    with pytest.raises(ValueError, match="ReduceSum: axes 2 out of range for rank 2"):
        run("ReduceSum", [X, np.array([2])], [F32])
    with pytest.raises(ValueError, match="duplicate"):
        run("ReduceSum", [X, np.array([1, -1])], [F32])
    with pytest.raises(ValueError, match="depends on the value of input 'axes'"):
        reference("ReduceSum").shape([(2, 3), (1,)], [None, None], {})


def test_matmul_with_transposes_and_bias():
    a = np.array([[1, 2], [3, 4]], F32)
    b = np.array([[5, 6], [7, 8]], F32)
    assert run("MatMul", [a, b], [F32])[0].tolist() == [[19, 22], [43, 50]]
    assert run("MatMul", [a, b], [F32], {"transpose_x1": True})[0].tolist() == [[26, 30], [38, 44]]
    assert run("MatMul", [a, b, np.array([1, -1], F32)], [F32], {"transpose_x2": True})[0].tolist() == \
        [[18, 22], [40, 52]]
    assert reference("MatMul").shape([(3, 4), (5, 4), None], [], {"transpose_x2": True}) == [(3, 5)]


def test_matmul_fp16_accumulates_exactly_then_rounds_once():
    a = np.array([[2048, 1, 1]], F16)
    b = np.ones((3, 1), F16)
    assert run("MatMul", [a, b], [F16])[0].tolist() == [[2050.0]]
    assert run("MatMul", [a, b], [F32])[0].tolist() == [[2050.0]]


def test_matmul_shape_errors():
    with pytest.raises(ValueError, match="MatMul: inner dimensions differ"):
        run("MatMul", [np.ones((2, 3)), np.ones((2, 3))], [F32])
    with pytest.raises(ValueError, match="MatMul: input 'x1' must be 2-D"):
        run("MatMul", [np.ones(3), np.ones((3, 1))], [F32])


def test_batch_matmul_broadcasts_batches_and_adjoints():
    x1 = np.arange(8, dtype=F32).reshape(2, 2, 2)
    x2 = np.eye(2, dtype=F32)[None]
    (y,) = run("BatchMatMul", [x1, x2], [F32], {"adj_x1": True})
    assert y.tolist() == [[[0, 2], [1, 3]], [[4, 6], [5, 7]]]
    assert reference("BatchMatMul").shape([(4, 1, 2, 3), (5, 3, 6)], [], {}) == [(4, 5, 2, 6)]


def test_integer_matmul_wraps():
    a = np.array([[65536, 1]], I32)
    b = np.array([[65536], [5]], I32)
    assert run("MatMul", [a, b], [I32])[0].tolist() == [[5]]


def test_gemm_is_alpha_ab_plus_beta_c():
    a = np.array([[1, 2], [3, 4]], F16)
    b = np.eye(2, dtype=F16)
    c = np.ones((2, 2), F16)
    (y,) = run("GEMM", [a, b, c, np.array(2, F16), np.array(0.5, F16)], [F16], {"transpose_a": True})
    assert y.tolist() == [[2.5, 6.5], [4.5, 8.5]]
    with pytest.raises(ValueError, match="GEMM: input 'c' must have shape"):
        run("GEMM", [a, b, np.ones((1, 2), F16), np.array(1, F16), np.array(1, F16)], [F16])
