"""ulp distances by integer bit patterns: signed zeros, zero crossing, powers of two, inf, every float dtype."""

import ml_dtypes
import numpy as np
import pytest

from aclcts.judge.ulp import ulp_distance, ulp_of

F32 = np.float32


def d(a, b, dtype=F32):
    """ulp distance of two scalars in dtype."""
    return int(ulp_distance(np.array([a], dtype), np.array([b], dtype))[0])


def test_signed_zeros_are_zero_apart():
    assert d(0.0, -0.0) == 0


def test_smallest_subnormals_across_zero_are_two_apart():
    tiny = float(np.finfo(F32).smallest_subnormal)
    assert d(tiny, -tiny) == 2
    assert d(tiny, 0.0) == 1 and d(-0.0, tiny) == 1


def test_power_of_two_neighbours_are_one_apart_on_both_sides():
    below = float(np.nextafter(F32(2.0), F32(0)))
    above = float(np.nextafter(F32(2.0), F32(4)))
    assert d(below, 2.0) == 1 and d(2.0, above) == 1
    assert d(below, above) == 2
    assert d(1.0, 2.0) == 2**23


def test_inf_is_one_beyond_the_largest_finite_value():
    assert d(float(np.finfo(F32).max), np.inf) == 1
    assert d(-np.inf, np.inf) == 2 * (0x7F800000)


@pytest.mark.parametrize("dtype, steps_1_to_2", [
    (np.float16, 2**10), (ml_dtypes.bfloat16, 2**7), (np.float64, 2**52),
    (ml_dtypes.float8_e4m3fn, 2**3), (ml_dtypes.float8_e5m2, 2**2),
])
def test_steps_between_one_and_two_equal_the_mantissa_count(dtype, steps_1_to_2):
    assert d(1.0, 2.0, dtype) == steps_1_to_2
    assert d(-1.0, 1.0, dtype) == 2 * int(np.array([1.0], dtype).view(f"u{np.dtype(dtype).itemsize}")[0])


def test_float64_large_neighbours_are_exact():
    x = np.array([1e300])
    assert int(ulp_distance(x, np.nextafter(x, np.inf))[0]) == 1


def test_integers_give_absolute_difference_without_overflow():
    a = np.array([np.iinfo(np.int64).max], np.int64)
    b = np.array([np.iinfo(np.int64).min], np.int64)
    assert int(ulp_distance(a, b)[0]) == 2**64 - 1


def test_nan_and_mixed_dtypes_are_rejected():
    with pytest.raises(ValueError, match="NaN"):
        ulp_distance(np.array([np.nan], F32), np.array([1.0], F32))
    with pytest.raises(ValueError, match="one dtype"):
        ulp_distance(np.array([1.0], F32), np.array([1.0]))


def test_ulp_of_is_the_spacing_above_and_below_the_top():
    assert ulp_of(1.0, np.float16) == 2.0**-10
    assert ulp_of(-3.0, np.float16) == 2.0**-9
    assert ulp_of(65504.0, np.float16) == 32.0
    assert ulp_of(448.0, ml_dtypes.float8_e4m3fn) == 32.0
    assert ulp_of(0.0, F32) == float(np.finfo(F32).smallest_subnormal)


@pytest.mark.parametrize("dtype", [np.float16, F32, np.float64], ids=lambda d: np.dtype(d).name)
def test_ulp_of_native_floats_is_the_step_to_the_next_bit_pattern(dtype):
    info = np.finfo(dtype)
    rng = np.random.default_rng(7)
    magnitudes = np.concatenate([rng.random(300) * float(info.max), 10.0 ** rng.uniform(-40, 4, 300),
                                 [float(info.smallest_subnormal), float(info.tiny), 1.0]]).astype(dtype)
    unsigned = np.dtype(f"u{np.dtype(dtype).itemsize}")
    above = (magnitudes.view(unsigned) + 1).view(dtype).astype(np.float64) - magnitudes.astype(np.float64)
    for value, step in zip(magnitudes.astype(np.float64), above):
        if np.isfinite(step):
            assert ulp_of(value, dtype) == step, value
            assert ulp_of(-value, dtype) == step, value
