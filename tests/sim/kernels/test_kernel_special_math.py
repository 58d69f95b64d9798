"""Special-function kernels (CANN's Cephes rational approximations in float32) against the float64 references, which
sum series and invert erfc instead; and the branch points the kernels take from the TBE implementations."""

import math

import numpy as np
import pytest

from aclcts.reference import reference

F16, F32 = np.float16, np.float32


def ref(op, x, dtype):
    (y,) = reference(op).compute([x], {}, [dtype])
    return y


@pytest.mark.parametrize(("op", "low", "high"), [
    ("Erfinv", -0.99, 0.99), ("Ndtri", 0.001, 0.999), ("Dawsn", -12.0, 12.0), ("Expint", 0.05, 85.0),
    ("FresnelCos", -12.0, 12.0), ("FresnelSin", -12.0, 12.0), ("Spence", 0.0, 50.0),
])
def test_float32_kernel_is_within_v2_of_the_reference(run, op, low, high):
    x = np.random.default_rng(7).uniform(low, high, 4096).astype(F32)
    (y,) = run(op, [x], [(F32, x.shape)])
    assert y.dtype == F32
    np.testing.assert_allclose(y, ref(op, x.astype(np.float64), np.float64), rtol=2.0 ** -10, atol=2.0 ** -16)


@pytest.mark.parametrize("op", ["Erfinv", "Ndtri", "FresnelCos", "FresnelSin", "Spence"])
def test_float16_is_computed_in_float32_and_rounded_once(run, op):
    x = np.linspace(0.05, 0.95, 181).astype(F16)
    (y,) = run(op, [x], [(F16, x.shape)])
    wide = run(op, [x.astype(F32)], [(F32, x.shape)])[0]
    np.testing.assert_array_equal(y, wide.astype(F16))


def test_spence_is_nan_below_zero_and_exact_at_its_fixed_points(run):
    x = np.array([-2.0, -1e-30, 0.0, 1.0], F32)
    (y,) = run("Spence", [x], [(F32, x.shape)])
    np.testing.assert_array_equal(y, np.array([np.nan, np.nan, F32(math.pi ** 2 / 6), 0.0], F32))


def test_fresnel_kernels_are_one_half_beyond_36974(run):
    x = np.array([-4.0e4, 4.0e4], F32)
    for op in ("FresnelCos", "FresnelSin"):
        (y,) = run(op, [x], [(F32, x.shape)])
        np.testing.assert_array_equal(y, np.array([-0.5, 0.5], F32))


def test_erfinv_refines_with_the_rough_erf_so_it_is_not_correctly_rounded(run):
    """Two Newton steps on A&S 7.1.25 (error 2.5e-5) leave erfinv.py's result ~3e-5 relative from the exact value."""
    x = np.array([0.5], F32)
    (y,) = run("Erfinv", [x], [(F32, x.shape)])
    assert 1e-5 < abs(float(y[0]) - 0.4769362762044699) / 0.4769362762044699 < 1e-4
