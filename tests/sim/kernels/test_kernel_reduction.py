"""ReduceSum / ReduceMax / ReduceMean: fp32 accumulation in the fixed tree order, attributes, inference."""

import numpy as np
import pytest

from aclcts.sim.kernels import KernelError

F16, F32, I32 = np.float16, np.float32, np.int32


def axes(*values):
    return np.array(values, I32)


def test_reduce_sum_over_one_axis(run):
    x = np.array([[1, 2, 3], [4, 5, 6]], F32)
    (y,) = run("ReduceSum", [x, axes(1)], [(F32, (2,))])
    assert y.tolist() == [6, 15]
    (y,) = run("ReduceSum", [x, axes(-2)], [(F32, (1, 3))], {"keep_dims": True})
    assert y.tolist() == [[5, 7, 9]]


def test_reduce_sum_fp16_accumulates_in_fp32(run):
    # fp16 accumulation would stay at 2048 (each +1 ties back to 2048); fp32 gives 2052, an fp16 value.
    x = np.array([2048, 1, 1, 1, 1], F16)
    (y,) = run("ReduceSum", [x, axes(0)], [(F16, ())])
    assert y.tolist() == 2052.0


def test_reduce_sum_uses_the_pairwise_tree_order(run):
    # Tree: (2^24 + 1) + (1 + 1) = 2^24 + 2 (2^24 + 1 ties to 2^24). Left-to-right would give 2^24.
    x = np.array([2**24, 1, 1, 1], F32)
    (y,) = run("ReduceSum", [x, axes(0)], [(F32, ())])
    assert y.tolist() == 2**24 + 2


def test_reduce_sum_adds_each_lane_in_order_before_the_tree(run):
    # Lane 0 holds 2^24 and 1 (2^24 + 1 ties back to 2^24), lane 1 holds 1: 2^24 + 1 again ties to 2^24. A tree
    # over all 128 elements would add the two 1s first and reach 2^24 + 2.
    x = np.zeros(128, F32)
    x[0], x[64], x[65] = 2**24, 1, 1
    (y,) = run("ReduceSum", [x, axes(0)], [(F32, ())])
    assert y.tolist() == 2**24


def test_reduce_sum_int32_wraps(run):
    (y,) = run("ReduceSum", [np.array([2**31 - 1, 1, 5], I32), axes(0)], [(I32, ())])
    assert y.tolist() == -(2**31) + 5


def test_reduce_mean(run):
    (y,) = run("ReduceMean", [np.array([[1, 2], [4, 8]], F16), axes(0, 1)], [(F16, ())])
    assert y.tolist() == 3.75
    (y,) = run("ReduceMean", [np.array([-3, 0, 1, 1], I32), axes(0)], [(I32, ())])
    assert y.tolist() == -0  # -1 / 4 truncates toward zero
    (y,) = run("ReduceMean", [np.array([-3, 0], I32), axes(0)], [(I32, ())])
    assert y.tolist() == -1  # -1.5 truncates to -1


def test_reduce_max_and_nan(run):
    (y,) = run("ReduceMax", [np.array([[1, 9], [7, 3]], I32), axes(1)], [(I32, (2,))])
    assert y.tolist() == [9, 7]
    (y,) = run("ReduceMax", [np.array([1.0, np.nan, 3.0], F32), axes(0)], [(F32, ())])
    assert np.isnan(y)


def test_empty_axes_do_nothing_by_default_and_reduce_all_otherwise(run):
    x = np.array([[1, 2], [3, 4]], F32)
    (y,) = run("ReduceSum", [x, np.zeros(0, I32)], [(F32, (2, 2))])
    assert y.tolist() == [[1, 2], [3, 4]]
    (y,) = run("ReduceSum", [x, np.zeros(0, I32)], [(F32, ())], {"noop_with_empty_axes": False})
    assert y.tolist() == 10


def test_empty_axes_of_ops_without_the_noop_attribute(run):
    """ReduceAll/ReduceAny (no noop_with_empty_axes in their records) reduce nothing over empty axes; a D form without
    the attribute (ReduceSumD) reduces everything."""
    x = np.array([[True, False], [True, True]])
    for op in ("ReduceAll", "ReduceAny"):
        (y,) = run(op, [x, np.zeros(0, I32)], [(np.bool_, (2, 2))])
        assert y.tolist() == x.tolist()
    (y,) = run("ReduceSumD", [np.array([[1, 2], [3, 4]], F32)], [(F32, ())], {"axes": []})
    assert y.tolist() == 10


def test_axis_out_of_range_is_rejected(run):
    with pytest.raises(KernelError, match=r"ReduceSum: axes value 2 is out of range for a rank-2 input"):
        run("ReduceSum", [np.zeros((2, 2), F32), axes(2)], [(F32, (2,))])


def test_axes_must_be_an_index_type(run):
    with pytest.raises(KernelError, match=r"ReduceMax: input 1 'axes' has dtype float32, expected int32 or int64"):
        run("ReduceMax", [np.zeros((2, 2), F32), np.array([0.0], F32)], [(F32, (2,))])


def test_reduce_infer_shape_with_known_axes(infer):
    (out,) = infer("ReduceSum", [(F16, (2, 3, 4)), (I32, (2,))], [None, axes(0, -1)])
    assert (out.shape, out.shape_range) == ((3,), ((3, 3),))
    (out,) = infer("ReduceMean", [(F16, (2, 3, 4)), (I32, (1,))], [None, axes(1)], {"keep_dims": True})
    assert out.shape == (2, 1, 4)


def test_reduce_infer_shape_with_unknown_axes(infer):
    (out,) = infer("ReduceMax", [(F32, (1, 3, 4)), (I32, (1,))], attrs={"keep_dims": True})
    assert out.shape == (1, -1, -1)
    assert out.shape_range == ((1, 1), (1, 3), (1, 4))
    (out,) = infer("ReduceSum", [(F32, (2, 3, 4)), (I32, (2,))])
    assert out.shape == (-1,)
    assert out.shape_range == ((2, 4),)


def test_reduce_d_forms_take_axes_as_an_attribute(run, infer):
    x = np.array([[1, 2], [3, 4]], F32)
    (y,) = run("ReduceSumD", [x], [(F32, (2,))], {"axes": [0]})
    assert y.tolist() == [4, 6]
    (y,) = run("ReduceMaxD", [x], [(F32, (2, 1))], {"axes": [-1], "keep_dims": True})
    assert y.tolist() == [[2], [4]]
    (y,) = run("ReduceMeanD", [x], [(F32, ())], {"axes": []})  # noop_with_empty_axes defaults to false here
    assert y.tolist() == 2.5
    (out,) = infer("ReduceSumD", [(F16, (2, 3, 4))], attrs={"axes": [1]})
    assert out.shape == (2, 4)
    with pytest.raises(KernelError, match=r"ReduceSumD: required attr 'axes' was not given"):
        run("ReduceSumD", [x], [(F32, ())])


def test_reduce_prod_multiplies_float16_in_float32_and_rounds_once(run):
    # 300 * 300 / 300 stays 300 in float32; a float16 step would overflow 90000 to inf.
    x = np.array([300, 300, 1 / 300], F16)
    (y,) = run("ReduceProd", [x, axes(0)], [(F16, ())])
    assert y.tolist() == pytest.approx(300, rel=2**-10)


def test_reduce_min_propagates_nan_and_reduce_all_any_give_bool(run):
    (y,) = run("ReduceMin", [np.array([[1.0, np.nan], [3.0, 2.0]], F32), axes(1)], [(F32, (2,))])
    assert np.isnan(y[0]) and y[1] == 2.0
    x = np.array([[0.0, 2.0], [0.0, 0.0]], F32)
    (every,) = run("ReduceAll", [x, axes(1)], [(np.bool_, (2,))])
    (some,) = run("ReduceAny", [x, axes(1)], [(np.bool_, (2,))])
    assert every.tolist() == [False, False] and some.tolist() == [True, False]


def test_reduce_log_sum_exp_subtracts_the_maximum_and_keeps_minus_inf_rows(run):
    x = np.array([[100.0, 100.0], [-np.inf, -np.inf]], F32)
    (y,) = run("ReduceLogSumExp", [x, axes(1)], [(F32, (2,))])
    assert y[0] == pytest.approx(100 + np.log(2), rel=1e-7) and y[1] == -np.inf


def test_reduce_all_refuses_an_integer_input(run):
    with pytest.raises(KernelError, match="expected one of"):
        run("ReduceAll", [np.array([1, 0], I32), axes(0)], [(np.bool_, ())])


def test_reduce_std_and_lp_norm_compute_in_float32_as_the_tbe_impls(run):
    x = np.array([[1, 3], [2, 6]], F16)
    std, mean = run("ReduceStd", [x], [(F16, (2,)), (F16, (2,))], {"dim": [1]})
    assert std.tolist() == [np.float16(2 ** 0.5), np.float16(8 ** 0.5)] and mean.tolist() == [2, 4]
    (y,) = run("LpNorm", [np.array([[3, -4, 0]], F32)], [(F32, (1, 1))], {"axes": [-1], "keepdim": True})
    assert y.tolist() == [[5.0]]
    (y,) = run("LpNormUpdate", [np.array([0.0, 8.0], F16)], [(F16, (2,))], {"p": 3})
    assert y.tolist() == [np.float16(1e-7), 2.0]  # the float16 floor 1e-7; exp(log(8) / 3)
    with pytest.raises(KernelError, match="required attr 'dim'"):
        run("ReduceStdV2Update", [x, x], [(F16, (2,))])
