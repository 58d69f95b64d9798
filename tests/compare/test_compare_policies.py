"""Every policy at, just inside and just outside its bounds
(docs/precision-policy.md#3-policies-and-their-case-file-spellings)."""

import numpy as np
import pytest

from aclcts.judge.compare import compare
from aclcts.judge.policies import AllClose, DualThousandth, Exact, Mare, Ratio, Ulp, V2

F32 = np.float32


def with_errors(n: int, errors: dict[int, float], base: float = 1.0, dtype=np.float64):
    """Return (actual, expected): n copies of base, with actual[i] = value for each i in errors."""
    g = np.full(n, base, dtype=dtype)
    a = g.copy()
    for i, v in errors.items():
        a[i] = v
    return a, g


# --------------------------------------------------------------------------------------------- exact

def test_exact_passes_identical_bits_and_fails_on_signed_zero():
    assert compare(np.array([1.5, 0.0], F32), np.array([1.5, 0.0], F32), Exact()).passed
    assert not compare(np.array([0.0], F32), np.array([-0.0], F32), Exact()).passed


def test_exact_is_nan_payload_insensitive():
    quiet = np.array([0x7FC00000], np.uint32).view(F32)
    other = np.array([0xFFC00123], np.uint32).view(F32)
    assert compare(quiet, other, Exact()).passed


def test_exact_sees_integers_beyond_float64_precision():
    big = np.array([2**62 + 1], np.int64)
    assert compare(big, big.copy(), Exact()).passed
    assert not compare(big, big + 1, Exact()).passed


def test_exact_compares_against_expected_rounded_to_actual_dtype():
    expected = np.array([2049.0])  # float64 golden; fp16 rounds it to 2048
    assert compare(np.array([2048], np.float16), expected, Exact()).passed
    assert not compare(np.array([2050], np.float16), expected, Exact()).passed


# ----------------------------------------------------------------------------------------------- ulp

def test_ulp_bound_inclusive():
    one = F32(1.0)
    two_up = np.nextafter(np.nextafter(one, F32(2)), F32(2))
    assert compare(np.array([two_up]), np.array([one]), Ulp(2)).passed
    assert not compare(np.array([two_up]), np.array([one]), Ulp(1)).passed


def test_ulp_across_zero_counts_both_sides():
    tiny = np.array([np.finfo(F32).smallest_subnormal], F32)
    assert compare(tiny, -tiny, Ulp(2)).passed
    assert not compare(tiny, -tiny, Ulp(1)).passed


# ------------------------------------------------------------------------------------------ allclose

def test_allclose_bound_is_inclusive():
    policy = AllClose(rtol=0.5, atol=0.25)  # bound at g = 1 is exactly 0.75
    assert compare(np.array([1.75]), np.array([1.0]), policy).passed
    assert not compare(np.array([1.75 + 2**-40]), np.array([1.0]), policy).passed


# ---------------------------------------------------------------------------------- ratio (msopst)

def test_ratio_zero_golden_absolute_threshold():
    g = np.zeros(10, F32)
    assert compare(np.full(10, 0.009, F32), g, Ratio(0.01, 0.05)).passed
    assert not compare(np.full(10, 0.011, F32), g, Ratio(0.01, 0.05)).passed


def test_ratio_small_difference_is_never_an_error_even_on_large_values():
    # d < t gives r = d, whatever the magnitude
    c = compare(np.array([1000.009], F32), np.array([1000.0], F32), Ratio(0.01, 0.0))
    assert c.passed and c.mismatch_ratio == 0


def test_ratio_difference_equal_to_t_takes_the_relative_branch():
    # d == t is not "d < t": r = 0.5 / 0.25 = 2 > t, an error (r = d would not be)
    assert not compare(np.array([0.25], F32), np.array([-0.25], F32), Ratio(0.5, 0.0)).passed


def test_ratio_floor_two_pow_minus_14_over_t():
    # t = 2**-15 -> floor 0.5: r = d / 0.5 for values near 0.25
    t = 2.0**-15
    g = np.array([0.25], F32)
    at_bound = np.array([0.25 + 2**-14], F32)              # r == t exactly: not an error
    beyond = np.array([0.25 + 2**-14 + 2**-22], F32)       # r > t: an error
    inside = np.array([0.25 + 2**-15], F32)                # would be an error without the floor
    assert compare(inside, g, Ratio(t, 0.0)).passed
    assert compare(at_bound, g, Ratio(t, 0.0)).passed
    assert not compare(beyond, g, Ratio(t, 0.0)).passed


def test_ratio_share_of_error_elements():
    # a = 1.05 against 1: d >= t, r = 0.05 / 1.05 = 0.048 > t but below the 0.1 cap
    five = with_errors(100, {i: 1.05 for i in range(5)}, dtype=F32)
    six = with_errors(100, {i: 1.05 for i in range(6)}, dtype=F32)
    assert compare(*five, Ratio(0.01, 0.05)).passed
    assert not compare(*six, Ratio(0.01, 0.05)).passed


def test_ratio_hard_cap_of_point_one():
    just_below = with_errors(100, {0: 1.11}, dtype=F32)   # r = 0.11 / 1.11 = 0.099
    above = with_errors(100, {0: 1.2}, dtype=F32)         # r = 0.2 / 1.2 = 0.167
    assert compare(*just_below, Ratio(0.01, 0.05)).passed
    assert not compare(*above, Ratio(0.01, 0.05)).passed


def test_ratio_applies_the_uniform_nan_rule_unlike_msopst():
    # msopst skips NaN (docs/precision-policy.md#msopst-compare: this case passes there); the suite fails it
    c = compare(np.array([np.nan, 1, 2], F32), np.array([1, 1, 2], F32), Ratio())
    assert not c.passed and c.n_nan_mismatch == 1


# --------------------------------------------------------------------------------- dual thousandth

def test_dual_thousandth_failure_count_bound():
    policy = DualThousandth(rtol=0.001, atol=0.001, max_atol=0.1)
    one_bad = with_errors(1000, {0: 1.002})
    two_bad = with_errors(1000, {0: 1.002, 1: 1.002})
    assert compare(*one_bad, policy).passed
    assert not compare(*two_bad, policy).passed


def test_dual_thousandth_element_bound_is_strict_and_has_no_floor():
    policy = DualThousandth(rtol=0.0, atol=0.5, max_atol=1.0)
    assert compare(np.array([1.5]), np.array([1.0]), policy).passed
    assert not compare(np.array([1.5 + 2**-40]), np.array([1.0]), policy).passed
    assert not compare(np.array([1e-30]), np.array([0.0]), policy).passed


def test_dual_thousandth_max_atol_fails_a_single_element():
    policy = DualThousandth(rtol=0.01, atol=0.001, max_atol=0.125)
    assert compare(*with_errors(1000, {0: 1.125}), policy).passed
    assert not compare(*with_errors(1000, {0: 1.125 + 2**-40}), policy).passed


def test_dual_thousandth_bool_counts_differences_only():
    g = np.zeros(1000, bool)
    one, two = g.copy(), g.copy()
    one[0] = True
    two[:2] = True
    assert compare(one, g, DualThousandth()).passed
    assert not compare(two, g, DualThousandth()).passed


@pytest.mark.parametrize("dtype, params", [
    (np.float16, (0.001, 0.001, 0.1)),
    (np.float32, (0.0001, 0.0001, 0.01)),
    (np.int8, (0.001, 1.0, 1.0)),
    (np.float64, (0.001, 0.001, 0.1)),
])
def test_dual_thousandth_defaults_per_dtype(dtype, params):
    c = compare(np.ones(3, dtype), np.ones(3, dtype), DualThousandth())
    assert (c.params["rtol"], c.params["atol"], c.params["max_atol"]) == params


# ----------------------------------------------------------------------------------------- MARE/MERE

def test_mare_mean_bound():
    t = 2.0**-13
    inside = np.full(10, 1 + t), np.ones(10)        # rel = t / (1 + 1e-7) < t
    outside = np.full(10, 1 + t * (1 + 1e-5)), np.ones(10)
    assert compare(*inside, Mare(t)).passed
    assert not compare(*outside, Mare(t)).passed


def test_mare_max_bound_is_ten_t():
    t = 2.0**-13
    assert compare(*with_errors(1000, {0: 1 + 9.9 * t}), Mare(t)).passed
    assert not compare(*with_errors(1000, {0: 1 + 10.1 * t}), Mare(t)).passed


def test_mare_threshold_from_table_and_missing_row():
    c = compare(np.ones(2, np.float16), np.ones(2, np.float16), Mare())
    assert c.params["threshold"] == 2.0**-10
    with pytest.raises(ValueError, match="float64"):
        compare(np.ones(2), np.ones(2), Mare())


# -------------------------------------------------------------------------------------------- v2

def test_v2_matched_ratio_bound():
    policy = V2(rtol=0.01, atol=0.01, limit=1.0, ulp_cap=0)
    assert compare(*with_errors(100, {0: 1.03}), policy).passed            # 99 % matched
    assert not compare(*with_errors(100, {0: 1.03, 1: 1.03}), policy).passed


def test_v2_max_abs_limit():
    assert compare(*with_errors(100, {0: 1.0 + 0.0625}), V2(0.01, 0.01, 0.0625, ulp_cap=0)).passed
    assert not compare(*with_errors(100, {0: 1.0 + 0.0625 + 2**-30}), V2(0.01, 0.01, 0.0625, ulp_cap=0)).passed


def test_v2_thirty_two_ulp_cap_in_output_dtype():
    # fp16 spacing at 2048 is 2, so the cap there is max(0.1, 64) = 64
    g = np.full(100, 2048, np.float16)
    ok, bad = g.copy(), g.copy()
    ok[0], bad[0] = 2048 + 64, 2048 + 66
    assert compare(ok, g, "v2").passed
    assert not compare(bad, g, "v2").passed
    assert not compare(ok, g, V2(ulp_cap=0)).passed


def test_v2_defaults_follow_the_table():
    c = compare(np.ones(2, np.float32), np.ones(2, np.float32), "v2")
    assert (c.params["rtol"], c.params["atol"], c.params["limit"]) == (2.0**-10, 2.0**-16, 1e-2)
    with pytest.raises(ValueError, match="int32"):
        compare(np.ones(2, np.int32), np.ones(2, np.int32), "v2")
