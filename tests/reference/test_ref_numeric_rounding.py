"""round_to: one rounding to nearest even, the Cast rule for float -> int, wrap-around for int -> int."""

import ml_dtypes
import numpy as np
import pytest

from aclcts.reference import round_to
from aclcts.reference.numeric import widen


@pytest.mark.parametrize("value, expected", [
    (2049.0, 2048.0),       # tie -> even mantissa
    (2051.0, 2052.0),       # tie -> even mantissa, upwards
    (2049.0001, 2050.0),    # above the tie
    (65519.99, 65504.0),    # below the overflow threshold
    (65520.0, np.inf),      # the tie at the top overflows to inf
    (-65520.0, -np.inf),
])
def test_float16_round_to_nearest_even(value, expected):
    assert round_to(np.array([value]), np.float16)[0] == expected


def test_bfloat16_rounds_once_from_float64():
    # through float32 first this would be a tie (1 + 2**-8) and round to 1.0
    x = np.array([1 + 2**-8 + 2**-30])
    assert float(round_to(x, ml_dtypes.bfloat16)[0]) == 1 + 2**-7


@pytest.mark.parametrize("dtype", [ml_dtypes.bfloat16, ml_dtypes.float8_e4m3fn, ml_dtypes.float8_e5m2],
                         ids=lambda d: np.dtype(d).name)
def test_ml_float_ties_and_near_ties_round_once_from_float64(dtype):
    # every midpoint between neighbouring finite values, and just beside it by less than float32 can hold:
    # rounding through float32 to nearest would turn the near-ties into ties and send half of them the wrong way
    bits = np.arange(1 << (8 * np.dtype(dtype).itemsize - 1), dtype=f"u{np.dtype(dtype).itemsize}")
    with np.errstate(invalid="ignore"):
        values = bits.view(dtype).astype(np.float64)
    values = values[np.isfinite(values)]
    low, high = values[:-1], values[1:]
    middle = (low + high) / 2
    nudge = middle * 2.0**-40
    assert np.array_equal(round_to(middle + nudge, dtype).astype(np.float64), high)
    assert np.array_equal(round_to(middle - nudge, dtype).astype(np.float64), low)
    even = (np.arange(low.size) % 2 == 0)  # consecutive patterns alternate the last significand bit, 0 first
    assert np.array_equal(round_to(middle, dtype).astype(np.float64), np.where(even, low, high))


def test_float8_e4m3fn_has_no_inf():
    out = round_to(np.array([464.0, 470.0, 1e6]), ml_dtypes.float8_e4m3fn).astype(np.float64)
    assert out[0] == 448.0 and np.isnan(out[1]) and np.isnan(out[2])


@pytest.mark.parametrize("dtype, values, expected", [
    (np.int32, [1.7, -1.7, np.nan, 1e10, -1e10, np.inf, -np.inf],
     [1, -1, 0, 2**31 - 1, -2**31, 2**31 - 1, -2**31]),
    (np.int8, [300.5, -300.5, 127.9, -128.9], [127, -128, 127, -128]),
    (np.uint8, [-5.0, 255.5, 256.0], [0, 255, 255]),
    (np.int64, [2.0**63, -2.0**63, 9.2e18, np.nan], [2**63 - 1, -2**63, 9200000000000000000, 0]),
    (np.uint64, [2.0**64, 1.5], [2**64 - 1, 1]),
])
def test_float_to_int_truncates_saturates_and_sends_nan_to_zero(dtype, values, expected):
    out = round_to(np.array(values), dtype)
    assert out.dtype == dtype and out.tolist() == expected


def test_int_to_int_wraps_around():
    assert round_to(np.array([2**31, 2**32 + 5], np.int64), np.int32).tolist() == [-2**31, 5]
    assert round_to(np.array([256, -1], np.int64), np.uint8).tolist() == [0, 255]


def test_to_bool_is_nonzero():
    assert round_to(np.array([0.0, -0.0, np.nan, 2.0]), np.bool_).tolist() == [False, False, True, True]


def test_complex_to_real_keeps_the_real_part():
    assert round_to(np.array([1.5 + 2j]), np.float32).tolist() == [1.5]


def test_same_dtype_keeps_nan_payload():
    x = np.array([0x7FC00123], np.uint32).view(np.float32)
    assert round_to(x, np.float32).view(np.uint32)[0] == 0x7FC00123


@pytest.mark.parametrize("dtype, wide", [
    (np.float16, np.float64), (ml_dtypes.bfloat16, np.float64), (np.int8, np.int64), (np.uint32, np.int64),
    (np.uint64, np.uint64), (np.bool_, np.bool_), (np.complex64, np.complex128),
])
def test_widen_picks_the_compute_type(dtype, wide):
    assert widen(np.zeros(2, dtype)).dtype == wide


def test_widen_rejects_strings():
    with pytest.raises(ValueError, match="no reference compute type"):
        widen(np.array(["a"]))
