"""Unary math references on hand-computed values: identities, domain edges, half-to-even rounding, fills and scales."""

import math

import ml_dtypes
import numpy as np
import pytest

from aclcts.reference import reference

F16, F32, F64, I16, I32, I64 = np.float16, np.float32, np.float64, np.int16, np.int32, np.int64
BF16 = np.dtype(ml_dtypes.bfloat16)
INF, NAN = math.inf, math.nan


def run(op, inputs, out, attrs=None):
    """Run a reference op and return its only output."""
    (y,) = reference(op).compute([np.asarray(x) for x in inputs], attrs or {}, [np.dtype(out)])
    return y


def same(actual, expected):
    """Equal element by element, NaN matching NaN and the sign of zero counted."""
    a, e = np.asarray(actual, F64), np.asarray(expected, F64)
    return a.shape == e.shape and bool(np.all(((a == e) & (np.signbit(a) == np.signbit(e))) | (np.isnan(a) & np.isnan(e))))


@pytest.mark.parametrize(("op", "x", "expected"), [
    ("Sin", [0.0, -0.0, math.pi / 6, INF, NAN], [0.0, -0.0, 0.5, NAN, NAN]),
    ("Cos", [0.0, math.pi / 3, -INF], [1.0, 0.5, NAN]),
    ("Tan", [0.0, math.pi / 4, -math.pi / 4], [0.0, 1.0, -1.0]),
    ("Asin", [0.5, 1.0, -1.0, 1.5, -0.0], [math.pi / 6, math.pi / 2, -math.pi / 2, NAN, -0.0]),
    ("Acos", [0.5, 1.0, -1.0, -1.5], [math.pi / 3, 0.0, math.pi, NAN]),
    ("Atan", [1.0, INF, -INF], [math.pi / 4, math.pi / 2, -math.pi / 2]),
    ("Sinh", [math.log(2.0), -INF], [0.75, -INF]),
    ("Cosh", [math.log(2.0), -INF], [1.25, INF]),
    ("Asinh", [0.75, -0.0], [math.log(2.0), -0.0]),
    ("Acosh", [1.25, 1.0, 0.5], [math.log(2.0), 0.0, NAN]),
    ("Atanh", [0.6, 1.0, -1.0, 1.5, -0.0], [math.log(2.0), INF, -INF, NAN, -0.0]),
    ("Log1p", [1.0, -1.0, -1.5, -0.0], [math.log(2.0), -INF, NAN, -0.0]),
    ("Expm1", [math.log(3.0), -INF, -0.0], [2.0, -1.0, -0.0]),
])
def test_transcendental_identities_and_domain_edges(op, x, expected):
    y = run(op, [np.array(x, F64)], F64)
    assert np.allclose(y, expected, rtol=1e-15, atol=1e-15, equal_nan=True)
    numbers = ~np.isnan(y)
    assert np.array_equal(np.signbit(y[numbers]), np.signbit(np.array(expected)[numbers]))


def test_erf_and_erfc_against_tabulated_values():
    # Abramowitz & Stegun table 7.1: erf(0.5) = 0.5204998778, erf(1) = 0.8427007929, erf(2) = 0.9953222650
    y = run("Erf", [np.array([0.5, 1.0, 2.0, -1.0, INF, -INF, -0.0], F64)], F64)
    assert np.allclose(y[:4], [0.5204998778, 0.8427007929, 0.9953222650, -0.8427007929], atol=1e-10)
    assert same(y[4:], [1.0, -1.0, -0.0])
    # erfc(3) = 2.209049699858544e-05 and erfc(10) = 2.088487583762545e-45, small without cancellation
    y = run("Erfc", [np.array([3.0, 10.0, -INF, INF, NAN], F64)], F64)
    assert np.allclose(y[:2], [2.209049699858544e-05, 2.088487583762545e-45], rtol=1e-12, atol=0)
    assert same(y[2:], [2.0, 0.0, NAN])


def test_small_arguments_keep_their_precision_in_float16():
    # log1p(x) and expm1(x) are x to first order; a naive log(1 + x) in fp16 gives 0 for x = 2^-12
    x = np.array([2.0**-12], F16)
    assert run("Log1p", [x], F16).tolist() == [float(np.float16(math.log1p(2.0**-12)))] != [0.0]
    assert run("Expm1", [x], F16).tolist() == [float(np.float16(math.expm1(2.0**-12)))]


@pytest.mark.parametrize("op", ["Rint", "Round"])
def test_halves_round_to_even_and_zero_keeps_its_sign(op):
    x = np.array([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 0.49, -0.3, 3.7, INF, -INF, NAN], F32)
    y = run(op, [x], F32)
    assert same(y, [0.0, 2.0, 2.0, -0.0, -2.0, -2.0, 0.0, -0.0, 4.0, INF, -INF, NAN])


def test_floor_and_ceil_keep_signed_zero_and_non_finite_values():
    x = np.array([-0.5, 0.5, -0.0, 2.0, INF, NAN], F16)
    assert same(run("Floor", [x], F16), [-1.0, 0.0, -0.0, 2.0, INF, NAN])
    assert same(run("Ceil", [x], F16), [-0.0, 1.0, -0.0, 2.0, INF, NAN])


def test_round_decimals_scale_before_rounding_half_to_even():
    # 0.125 * 100 = 12.5 -> 12 (even) -> 0.12; 0.375 * 100 = 37.5 -> 38 -> 0.38; 25 / 10 = 2.5 -> 2 -> 20
    y = run("Round", [np.array([0.125, 0.375, -0.125], F64)], F64, {"decimals": 2})
    assert y.tolist() == [0.12, 0.38, -0.12]
    y = run("Round", [np.array([25.0, 35.0, -15.0, 14.0], F32)], F32, {"decimals": -1})
    assert y.tolist() == [20.0, 40.0, -20.0, 10.0]
    y = run("Round", [np.array([25, 35, -15, 14, 7], I32)], I32, {"decimals": -1})
    assert y.tolist() == [20, 40, -20, 10, 10]
    assert run("Round", [np.array([7, -8], I64)], I64, {"decimals": 2}).tolist() == [7, -8]
    # a float64 beyond 2^52 is already an integer: decimals > 0 leave it (x * 100 would overflow at the maximum)
    big = np.finfo(F64).max
    assert run("Round", [np.array([big], F64)], F64, {"decimals": 2}).tolist() == [big]


def test_sign_of_numbers_zeros_and_nan():
    y = run("Sign", [np.array([-3.5, 2.0, -0.0, 0.0, -INF, NAN], F32)], F32)
    assert same(y, [-1.0, 1.0, 0.0, 0.0, -1.0, NAN])
    assert run("Sign", [np.array([-2**31, 0, 7], I32)], I32).tolist() == [-1, 0, 1]


def test_predicates():
    x = np.array([0.0, -1.5, INF, -INF, NAN, 1e-45], F32)
    assert run("IsFinite", [x], np.bool_).tolist() == [True, True, False, False, False, True]
    assert run("IsInf", [x], np.bool_).tolist() == [False, False, True, True, False, False]
    assert run("IsNan", [x], np.bool_).tolist() == [False, False, False, False, True, False]


def test_zeros_like_ones_like_and_fill():
    x = np.array([[NAN, INF, -1.0]], BF16)
    assert same(run("ZerosLike", [x], BF16).astype(F32), [[0.0, 0.0, 0.0]])
    assert run("OnesLike", [np.array([5, -7], np.int8)], np.int8).tolist() == [1, 1]
    y = run("Fill", [np.array([2, 3], I32), np.array(-0.0, F16)], F16)
    assert y.shape == (2, 3) and same(y, np.full((2, 3), -0.0))
    assert reference("Fill").shape([(2,), ()], [np.array([4, 0], I64), None], {}) == [(4, 0)]
    with pytest.raises(ValueError, match="Fill: .*dims"):
        reference("Fill").shape([(2,), ()], [np.array([4, -1], I64), None], {})


def test_muls_and_adds_use_the_float32_attribute_value():
    # value 0.1 is received as float32 0.100000001490116...; 3 * that rounds to float32 0.3 + 1 ulp
    y = run("Muls", [np.array([3.0], F32)], F32, {"value": 0.1})
    assert y.tolist() == [float(np.float32(3.0 * float(np.float32(0.1))))] == [float(np.float32(0.30000001192092896))]
    assert run("Adds", [np.array([2048.0], F16)], F16, {"value": 1.0}).tolist() == [2048.0]
    assert run("Adds", [np.array([2048.0], F16)], F16, {"value": 3.0}).tolist() == [2052.0]


def test_integer_muls_adds_axpy_truncate_the_attribute_and_wrap():
    assert run("Muls", [np.array([7, -7], I32)], I32, {"value": 2.9}).tolist() == [14, -14]
    assert run("Muls", [np.array([20000], I16)], I16, {"value": 2.0}).tolist() == [40000 - 65536]
    assert run("Adds", [np.array([5], I32)], I32, {"value": -1.5}).tolist() == [4]
    assert run("Axpy", [np.array([1], I32), np.array([10], I32)], I32, {"alpha": -0.5}).tolist() == [1]


def test_axpy_is_x1_plus_alpha_times_x2_broadcasting():
    y = run("Axpy", [np.array([[1.0], [2.0]], F32), np.array([10.0, 20.0], F32)], F32, {"alpha": 0.5})
    assert y.tolist() == [[6.0, 11.0], [7.0, 12.0]]
    assert reference("Axpy").shape([(2, 1), (3,)], [], {"alpha": 1.0}) == [(2, 3)]
    with pytest.raises(ValueError, match="required attribute"):
        run("Axpy", [np.array([1.0], F32), np.array([1.0], F32)], F32)


def test_clip_by_value():
    x = np.array([-5.0, 0.5, 9.0, NAN, -0.0], F32)
    y = run("ClipByValue", [x, np.array(-1.0, F32), np.array(2.0, F32)], F32)
    assert same(y, [-1.0, 0.5, 2.0, NAN, -0.0])
    # a minimum above the maximum gives the maximum
    assert run("ClipByValue", [np.array([0, 10], I32), np.array(5, I32), np.array(3, I32)], I32).tolist() == [3, 3]
    with pytest.raises(ValueError, match="clip_value_min"):
        reference("ClipByValue").shape([(3,), (2,), ()], [], {})
