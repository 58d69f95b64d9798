"""Reduction and MatMul/BatchMatMul/GEMM references: values, shapes and input errors."""

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
    ("ReduceMin", [1], False, [0.0, 3.0]),
    ("ReduceMin", [0, 1], True, [[0.0]]),
    ("ReduceProd", [1], False, [0.0, 60.0]),
    ("ReduceProd", [0], False, [0.0, 4.0, 10.0]),
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


def test_batch_matmul_adds_its_optional_bias():
    x1 = np.ones((2, 1, 3), F32)
    x2 = np.arange(6, dtype=F32).reshape(1, 3, 2)
    (y,) = run("BatchMatMul", [x1, x2, np.array([0.5, -0.5], F32)], [F32])
    assert y.tolist() == [[[6.5, 8.5]], [[6.5, 8.5]]]
    with pytest.raises(ValueError, match=r"bias \(3,\) does not broadcast to the result \(2, 1, 2\)"):
        reference("BatchMatMul").shape([(2, 1, 3), (1, 3, 2), (3,)], [], {})


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


def test_reduce_all_and_any_read_non_zero_and_nan_as_true_and_give_bool():
    x = np.array([[1.0, np.nan, -2.0], [0.0, 0.0, 3.0], [0.0, 0.0, 0.0]], F32)
    (every,) = run("ReduceAll", [x, np.array([1], I32)], [np.bool_])
    (some,) = run("ReduceAny", [x, np.array([1], I32)], [np.bool_])
    assert every.tolist() == [True, False, False] and some.tolist() == [True, True, False]


def test_reduce_all_and_any_of_an_empty_axis_and_of_empty_axes():
    empty = np.zeros((2, 0), np.bool_)
    assert run("ReduceAll", [empty, np.array([1], I32)], [np.bool_])[0].tolist() == [True, True]
    assert run("ReduceAny", [empty, np.array([1], I32)], [np.bool_])[0].tolist() == [False, False]
    x = np.array([True, False])
    assert run("ReduceAll", [x, np.zeros(0, I32)], [np.bool_])[0].tolist() == [True, False]  # no reduction


def test_reduce_log_sum_exp_stays_finite_for_large_logits():
    # log(e^1000 + e^1000) = 1000 + ln 2; log(e^0 + e^ln3) = ln 4
    x = np.array([[1000.0, 1000.0], [0.0, np.log(3.0)]])
    (y,) = run("ReduceLogSumExp", [x, np.array([-1], I32)], [np.float64])
    np.testing.assert_allclose(y, [1000.0 + np.log(2.0), np.log(4.0)], rtol=1e-15)
    (y,) = run("ReduceLogSumExp", [np.array([-np.inf, -np.inf]), np.zeros(0, I32)], [np.float64])
    assert y.tolist() == -np.inf  # empty axes reduce everything by default


def test_reduce_prod_integers_wrap_and_the_d_form_takes_axes_as_an_attribute():
    (y,) = run("ReduceProdD", [np.array([[2**16, 2**16], [3, 5]], I32)], [I32], {"axes": [1]})
    assert y.tolist() == [0, 15]
    (y,) = run("ReduceMinD", [np.array([[4, -1], [2, 7]], np.int8)], [np.int8], {"axes": [0], "keep_dims": True})
    assert y.tolist() == [[2, -1]]


def test_matmul_v2_adds_the_bias_and_refuses_quantization_offsets():
    x1 = np.array([[1, 2], [3, 4]], np.int8)
    x2 = np.array([[1, 0], [0, 1]], np.int8)
    (y,) = run("MatMulV2", [x1, x2, np.array([10, -10], I32), None], [I32])
    assert y.tolist() == [[11, -8], [13, -6]]
    with pytest.raises(ValueError, match="offset"):
        run("MatMulV2", [x1, x2, None, None], [I32], {"offset_x": 3})


def test_batch_matmul_v2_broadcasts_batches_and_adds_the_bias():
    x1 = np.ones((2, 1, 3), F32)
    x2 = np.arange(6, dtype=F32).reshape(1, 3, 2)
    (y,) = run("BatchMatMulV2", [x1, x2, np.array([0.5, -0.5], F32), None], [F32])
    assert y.tolist() == [[[6.5, 8.5]], [[6.5, 8.5]]]


def test_reduce_std_gives_the_bessel_corrected_deviation_and_the_mean():
    x = np.array([[1, 3], [2, 6]], F32)
    std, mean = run("ReduceStd", [x], [F32, F32], {"dim": [1]})
    assert std.tolist() == pytest.approx([2 ** 0.5, 8 ** 0.5]) and mean.tolist() == [2.0, 4.0]
    std, _ = run("ReduceStd", [x], [F32, F32], {"dim": [], "unbiased": False, "keepdim": True})
    assert std.shape == (1, 1) and std[0, 0] == pytest.approx(3.5 ** 0.5)  # every axis: mean 3, squares 4+0+1+9 over 4


def test_std_with_a_given_mean_inverts_and_squares_as_asked():
    x, mean = np.array([[1, 3]], F32), np.array([[2, 2]], F32)
    assert run("ReduceStdWithMean", [x, mean], [F32], {"dim": [1]})[0].tolist() == pytest.approx([2 ** 0.5])
    assert run("ReduceStdWithMean", [x, mean], [F32], {"dim": [1], "invert": True, "epsilon": 2.0})[0].tolist() == \
        pytest.approx([0.5])
    assert run("ReduceStdV2Update", [x, mean], [F32], {"dim": [1], "unbiased": False})[0].tolist() == [1.0]
    assert run("ReduceMeanWithCount", [x, np.array([[2, 2]], F32), np.array([[4, 4]], F32)], [F32],
               {"axes": [1]})[0].tolist() == [2.0]


def test_lp_norms_and_their_parts():
    x = np.array([[3, -4, 0]], F32)
    assert run("LpNorm", [x], [F32], {"axes": [1]})[0].tolist() == [5.0]
    assert run("LpNorm", [x], [F32], {"p": 0})[0].tolist() == 2.0
    assert run("LpNorm", [x], [F32], {"p": 2147483647})[0].tolist() == 4.0
    assert run("LpNorm", [x], [F32], {"p": -2147483648, "epsilon": 0.5})[0].tolist() == 0.5  # min |x| 0, floored
    assert run("LpNormReduce", [x], [F32], {"p": 3})[0].tolist() == 91.0
    assert run("LpNormUpdate", [np.array([8.0, 0.0, -1.0], F32)], [F32], {"p": 3})[0][:2].tolist() == \
        pytest.approx([2.0, 1e-12])
    assert np.isnan(run("LpNormUpdate", [np.array([-np.inf], F32)], [F32], {"p": 3})[0][0])
    assert run("LpNormUpdate", [np.array([0.0], F16)], [F16], {})[0].tolist() == [np.float16(1e-7)]
