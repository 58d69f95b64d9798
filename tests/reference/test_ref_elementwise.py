"""Element-wise references on small hand-computed examples (values, dtypes, NaN, signed zero, wrap)."""

import ml_dtypes
import numpy as np
import pytest

from aclcts.reference import reference

F16, F32, I32 = np.float16, np.float32, np.int32


def run(op, inputs, out, attrs=None):
    """Run a reference op and return its only output."""
    (y,) = reference(op).compute([np.asarray(x) for x in inputs], attrs or {}, [out])
    return y


def test_add_rounds_once_to_the_output_dtype():
    y = run("Add", [np.array([2048], F16), np.array([1], F16)], F16)
    assert y.dtype == F16 and y.tolist() == [2048.0]
    y = run("Add", [np.array([2048], F16), np.array([3], F16)], F16)
    assert y.tolist() == [2052.0]


def test_integer_add_sub_mul_wrap():
    big = np.array([2**31 - 1], I32)
    assert run("Add", [big, np.array([1], I32)], I32).tolist() == [-2**31]
    assert run("Sub", [np.array([-2**31], I32), np.array([1], I32)], I32).tolist() == [2**31 - 1]
    assert run("Mul", [np.array([65536], I32), np.array([65536], I32)], I32).tolist() == [0]


def test_broadcasting_and_shape():
    y = run("Mul", [np.array([[1], [2]], F32), np.array([10, 20, 30], F32)], F32)
    assert y.tolist() == [[10, 20, 30], [20, 40, 60]]
    assert reference("Mul").shape([(2, 1), (3,)], [], {}) == [(2, 3)]
    with pytest.raises(ValueError, match="Mul:"):
        reference("Mul").shape([(2,), (3,)], [], {})


def test_real_div_float_ieee():
    y = run("RealDiv", [np.array([1, -1, 0, 7], F32), np.array([0, 0, 0, 2], F32)], F32)
    assert y[0] == np.inf and y[1] == -np.inf and np.isnan(y[2]) and y[3] == 3.5


def test_real_div_integer_truncates_and_saturates():
    y = run("RealDiv", [np.array([7, -7, 5, -5, 0], I32), np.array([2, 2, 0, 0, 0], I32)], I32)
    assert y.tolist() == [3, -3, 2**31 - 1, -2**31, 0]


def test_maximum_minimum_propagate_nan_and_order_signed_zeros():
    a = np.array([np.nan, 1.0, -0.0, 0.0, 3.0])
    b = np.array([1.0, np.nan, 0.0, -0.0, 2.0])
    mx = run("Maximum", [a, b], np.float64)
    mn = run("Minimum", [a, b], np.float64)
    assert np.isnan(mx[:2]).all() and np.isnan(mn[:2]).all()
    assert not np.signbit(mx[2]) and not np.signbit(mx[3])
    assert np.signbit(mn[2]) and np.signbit(mn[3])
    assert (mx[4], mn[4]) == (3.0, 2.0)


def test_pow_float_and_integer():
    assert run("Pow", [np.array([2.0, np.nan, 1.0]), np.array([0.5, 0.0, np.nan])], np.float64).tolist() == \
        [2**0.5, 1.0, 1.0]
    y = run("Pow", [np.array([3, 1, -1, -1, 2, 0], I32), np.array([3, -5, -3, -2, -1, -1], I32)], I32)
    assert y.tolist() == [27, 1, -1, 1, 0, 2**31 - 1]
    assert run("Pow", [np.array([2], I32), np.array([32], I32)], I32).tolist() == [0]


def test_comparisons_and_logical_and():
    a = np.array([1.0, np.nan, -0.0])
    b = np.array([2.0, np.nan, 0.0])
    assert run("Equal", [a, b], np.bool_).tolist() == [False, False, True]
    assert run("Less", [a, b], np.bool_).tolist() == [True, False, False]
    assert run("Greater", [b, a], np.bool_).tolist() == [True, False, False]
    assert run("LogicalAnd", [np.array([True, True, False]), np.array([True, False, False])], np.bool_).tolist() == \
        [True, False, False]


def test_abs_neg_integer_edges_and_signed_zero():
    assert run("Abs", [np.array([-5, -2**31], I32)], I32).tolist() == [5, -2**31]
    assert run("Neg", [np.array([-2**31, 3], I32)], I32).tolist() == [-2**31, -3]
    assert np.signbit(run("Neg", [np.array([0.0], F32)], F32)[0])


def test_exp_and_log_with_base_scale_shift():
    assert run("Exp", [np.array([0.0, 1.0])], np.float64).tolist() == [1.0, np.e]
    assert run("Exp", [np.array([1.0])], np.float64, {"base": 2.0, "scale": 3.0, "shift": 1.0}).tolist() == [16.0]
    assert run("Log", [np.array([8.0])], np.float64, {"base": 2.0}).tolist() == [3.0]
    assert run("Log", [np.array([1.0])], np.float64, {"scale": 2.0, "shift": -1.0}).tolist() == [0.0]
    y = run("Log", [np.array([0.0, -1.0])], np.float64)
    assert y[0] == -np.inf and np.isnan(y[1])
    with pytest.raises(ValueError, match="Exp: attribute base=0.0"):
        run("Exp", [np.array([1.0])], np.float64, {"base": 0.0})


def test_sqrt_rsqrt_square_reciprocal():
    assert run("Sqrt", [np.array([4.0, -0.0])], np.float64).tolist() == [2.0, -0.0]
    assert np.isnan(run("Sqrt", [np.array([-1.0])], np.float64)[0])
    assert run("Rsqrt", [np.array([4.0, 0.0])], np.float64).tolist() == [0.5, np.inf]
    assert run("Square", [np.array([3, 65536], I32)], I32).tolist() == [9, 0]
    assert run("Reciprocal", [np.array([4.0, -0.0], F32)], F32).tolist() == [0.25, -np.inf]
    assert run("Reciprocal", [np.array([1, 2, -1, 0], I32)], I32).tolist() == [1, 0, -1, 2**31 - 1]


def test_bfloat16_inputs_compute_in_float64():
    y = run("Add", [np.array([1.0], ml_dtypes.bfloat16), np.array([2**-8], ml_dtypes.bfloat16)], ml_dtypes.bfloat16)
    assert float(y[0]) == 1.0   # exact sum 1 + 2**-8 is a tie, rounds to the even 1.0


def test_add_n_sums_all_inputs_once_and_checks_n():
    xs = [np.array([2048], F16), np.array([1], F16), np.array([1], F16)]
    assert reference("AddN").compute(xs, {"N": 3}, [F16])[0].tolist() == [2050.0]   # not (2048+1)+1 = 2048
    with pytest.raises(ValueError, match="AddN: attribute N=2 but 3 inputs"):
        reference("AddN").compute(xs, {"N": 2}, [F16])


def test_integer_real_div_truncates_at_the_int64_minimum():
    x1 = np.array([-(2**63), -(2**63), -7, 7], np.int64)
    x2 = np.array([2, -(2**63), 2, -2], np.int64)
    assert run("RealDiv", [x1, x2], np.int64).tolist() == [-(2**62), 1, -3, -3]
