"""LogSoftmaxV2 reference against hand-computed values: axes, large logits, -inf entries, all-equal rows."""

import math

import ml_dtypes
import numpy as np
import pytest

from aclcts.reference import reference

F16, F32 = np.float16, np.float32


def run(x, out, attrs=None):
    """The reference's single output for logits x."""
    (y,) = reference("LogSoftmaxV2").compute([np.asarray(x)], attrs or {}, [out])
    return y


def test_two_logits_one_apart_on_the_default_last_axis():
    # log(e^1 / (e^0 + e^1)) = -log(1 + e^-1); the other is 1 less
    y = run(np.array([[1.0, 0.0], [0.0, 0.0]]), np.float64)
    top = -math.log1p(math.exp(-1.0))
    assert y.reshape(-1).tolist() == pytest.approx([top, top - 1.0, math.log(0.5), math.log(0.5)], rel=1e-15)


def test_all_equal_row_gives_minus_log_of_its_length():
    y = run(np.full((1, 4), 7.0, F32), F32)
    assert y.dtype == F32 and y.tolist() == [[F32(-math.log(4.0))] * 4]


def test_large_logits_do_not_overflow():
    # exp(1e4) overflows every float type; the result depends only on differences
    y = run(np.array([1.0e4, 1.0e4 - 1.0], F32), np.float64)
    top = -math.log1p(math.exp(-1.0))
    assert y.tolist() == pytest.approx([top, top - 1.0], rel=1e-12)


def test_float16_logits_where_exp_overflows_float16():
    y = run(np.array([11.0, 11.0, 12.0], F16), F16)
    # exp(12) > 65504, yet log-softmax is finite: 12 - log(2 e^11 + e^12) = -log(1 + 2/e)
    third = -math.log(1.0 + 2.0 / math.e)
    assert y.tolist() == [F16(third - 1.0), F16(third - 1.0), F16(third)]


def test_minus_inf_logit_gives_minus_inf_and_the_rest_ignore_it():
    y = run(np.array([-np.inf, 0.0, 0.0], F32), F32)
    assert y.tolist() == [-np.inf, F32(math.log(0.5)), F32(math.log(0.5))]


def test_a_row_of_only_minus_inf_or_holding_nan_gives_nan():
    y = run(np.array([[-np.inf, -np.inf], [np.nan, 1.0]]), np.float64)
    assert np.isnan(y).all()


def test_over_a_chosen_axis_and_over_two_axes():
    x = np.array([[0.0, 5.0], [0.0, 5.0]])
    assert run(x, np.float64, {"axes": [0]}).tolist() == [[math.log(0.5)] * 2] * 2
    assert run(np.zeros((2, 2)), np.float64, {"axes": [0, 1]}).tolist() == [[math.log(0.25)] * 2] * 2


def test_bfloat16_is_rounded_once_from_float64():
    y = run(np.array([0.0, 0.0, 0.0], ml_dtypes.bfloat16), ml_dtypes.bfloat16)
    assert y.dtype == ml_dtypes.bfloat16 and y.astype(F32).tolist() == [float(ml_dtypes.bfloat16(-math.log(3)))] * 3


def test_unknown_attribute_and_bad_axis_are_rejected():
    with pytest.raises(ValueError, match=r"LogSoftmaxV2: unknown attribute\(s\) \['half_to_float'\]"):
        run(np.zeros(2), np.float64, {"half_to_float": True})
    with pytest.raises(ValueError, match=r"LogSoftmaxV2: axes 2 out of range for rank 1"):
        run(np.zeros(2), np.float64, {"axes": [2]})
