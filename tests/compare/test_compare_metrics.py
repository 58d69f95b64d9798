"""Metrics against hand-computed values, the uniform NaN/inf rules, worst(), dtypes and bad input."""

import json
import math

import ml_dtypes
import numpy as np
import pytest

from aclcts.judge.compare import compare
from aclcts.judge.policies import AllClose, Exact


def test_metrics_match_hand_computation():
    a = np.array([1.0, 2.0, 4.0])
    g = np.array([1.0, 2.5, 3.0])
    c = compare(a, g, AllClose(rtol=0.0, atol=0.0))
    assert c.n == 3
    assert c.max_abs == 1.0
    assert c.max_rel == pytest.approx(1 / 3)
    assert c.mare == pytest.approx(1 / (3 + 1e-7))
    assert c.mere == pytest.approx((0.5 / (2.5 + 1e-7) + 1 / (3 + 1e-7)) / 3)
    assert c.rmse == pytest.approx(math.sqrt(1.25 / 3))
    assert c.max_ulp == 2**51            # 3.0 -> 4.0 in steps of 2**-51
    assert c.mismatch_ratio == pytest.approx(2 / 3)
    assert not c.passed


def test_relative_error_against_zero_is_infinite():
    c = compare(np.array([1e-3, 0.0]), np.array([0.0, 0.0]), AllClose(rtol=0.0, atol=1.0))
    assert c.passed and c.max_rel == math.inf and c.mare == pytest.approx(1e-3 / 1e-7)


def test_worst_lists_largest_errors_first_and_skips_equal_elements():
    a = np.array([[1.0, 5.0], [2.0, 2.0]])
    g = np.array([[1.0, 4.0], [2.0, 4.0]])
    c = compare(a, g, Exact())
    assert c.worst() == [((1, 1), 2.0, 4.0, 2.0, 0.5), ((0, 1), 5.0, 4.0, 1.0, 0.25)]
    assert c.worst(k=1) == [((1, 1), 2.0, 4.0, 2.0, 0.5)]


def test_same_position_nan_is_equal_and_matching_inf_is_equal():
    a = np.array([np.nan, np.inf, -np.inf, 1.0], np.float32)
    g = np.array([np.nan, np.inf, -np.inf, 1.0], np.float32)
    c = compare(a, g, Exact())
    assert c.passed and c.n_nan_mismatch == 0 and c.n_inf_mismatch == 0 and c.max_abs == 0


def test_nan_and_inf_mismatches_fail_under_any_tolerance():
    a = np.array([np.nan, 1.0, np.inf, -np.inf, np.inf])
    g = np.array([1.0, np.nan, np.inf, np.inf, 5.0])
    c = compare(a, g, AllClose(rtol=1e9, atol=1e9))
    assert not c.passed
    assert (c.n_nan_mismatch, c.n_inf_mismatch) == (2, 2)
    assert c.mismatch_ratio == pytest.approx(4 / 5)
    assert [row[0] for row in c.worst()] == [(0,), (1,), (3,), (4,)]
    assert c.worst()[0][3] == math.inf


def test_empty_tensors_pass_with_zero_metrics():
    c = compare(np.zeros((0, 3), np.float16), np.zeros((0, 3), np.float16), "v2")
    assert c.passed and c.n == 0 and c.max_abs == 0 and c.mismatch_ratio == 0 and c.worst() == []


@pytest.mark.parametrize("policy", ["exact", "ulp:0", "allclose:0,0", "ratio", "dual_thousandth", "mare", "v2"])
@pytest.mark.parametrize("dtype", [np.float16, ml_dtypes.bfloat16, np.float32])
def test_identical_outputs_pass_every_policy_with_zero_metrics(dtype, policy):
    g = np.array([[-3.5, 0.0, 1e-3], [7.25, -0.0, 2.0]], dtype)
    c = compare(g.copy(), g, policy)
    metrics = (c.max_abs, c.max_rel, c.max_ulp, c.mismatch_ratio, c.mare, c.mere, c.rmse)
    assert c.passed and metrics == (0, 0, 0, 0, 0, 0, 0) and c.worst() == []
    assert not c.relative_errors().any()


def test_signed_zeros_are_equal_values_but_not_identical_outputs():
    c = compare(np.array([0.0, 1.0], np.float32), np.array([-0.0, 1.0], np.float32), "exact")
    assert not c.passed and c.mismatch_ratio == 0.5 and c.max_abs == 0 and c.max_ulp == 0


def test_integer_and_bool_metrics():
    c = compare(np.array([1, 5], np.int32), np.array([1, 7], np.int32), Exact())
    assert (c.max_abs, c.max_ulp, c.passed) == (2.0, 2, False)
    b = compare(np.array([True, False]), np.array([True, True]), Exact())
    assert (b.max_abs, b.max_ulp, b.mismatch_ratio) == (1.0, 1, 0.5)
    u = compare(np.array([2**64 - 1], np.uint64), np.array([0], np.uint64), Exact())
    assert u.max_ulp == 2**64 - 1


@pytest.mark.parametrize("dtype", [np.float16, ml_dtypes.bfloat16, np.float32, np.float64,
                                   ml_dtypes.float8_e4m3fn, ml_dtypes.float8_e5m2])
def test_every_float_dtype_counts_one_ulp_to_the_next_value(dtype):
    g = np.array([1.0, 2.0], dtype)
    a = (g.view(np.dtype(f"u{g.dtype.itemsize}")) + 1).view(dtype)
    c = compare(a, g, Exact())
    assert c.max_ulp == 1 and not c.passed


def test_complex_compares_real_and_imaginary_parts():
    a = np.array([1 + 2j, 3 + 4j], np.complex64)
    g = np.array([1 + 2j, 3 + 5j], np.complex64)
    c = compare(a, g, Exact())
    assert c.shape == (2, 2) and c.worst() == [((1, 1), 4.0, 5.0, 1.0, 0.2)]


def test_shape_mismatch_is_a_clear_error():
    with pytest.raises(ValueError, match=r"actual shape \(2,\) differs from expected shape \(3,\)"):
        compare(np.zeros(2), np.zeros(3), Exact())


def test_as_dict_is_json_serialisable_and_carries_the_policy():
    c = compare(np.array([1.0, 2.0]), np.array([1.0, 3.0]), "allclose:rtol=0,atol=0.5")
    d = json.loads(json.dumps(c.as_dict()))
    assert d["policy"] == "allclose" and d["params"] == {"rtol": 0.0, "atol": 0.5}
    assert d["passed"] is False and d["worst"] == [[[1], 2.0, 3.0, 1.0, 1 / 3]]


def test_worst_values_are_plain_python_for_narrow_dtypes():
    c = compare(np.array([1, 2], ml_dtypes.bfloat16), np.array([1, 3], ml_dtypes.bfloat16), Exact())
    assert json.loads(json.dumps(c.as_dict()))["worst"] == [[[1], 2.0, 3.0, 1.0, 1 / 3]]
    assert type(c.worst()[0][1]) is float
