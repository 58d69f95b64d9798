"""Special-function references against published values (DLMF, Abramowitz and Stegun tables) in float64 and their
values at the domain's edges (TensorFlow's special functions)."""

import math

import numpy as np
import pytest

from aclcts.reference import reference


def ref64(op, values):
    """The reference's output for float64 inputs."""
    (y,) = reference(op).compute([np.array(values, np.float64)], {}, [np.float64])
    return y


@pytest.mark.parametrize(("op", "x", "expected"), [
    ("Erfinv", 0.5, 0.4769362762044699),          # erf(0.4769362762044699) = 0.5
    ("Erfinv", -0.9, -1.1630871536766743),
    ("Erfinv", 1e-30, 0.886226925452758e-30),     # sqrt(pi)/2 x near 0
    ("Ndtri", 0.975, 1.959963984540054),          # the two-sided 95 % quantile
    ("Ndtri", 1e-10, -6.361340902404056),
    ("Dawsn", 1.0, 0.5380795069127684),           # A&S table 7.5
    ("Dawsn", -4.0, -0.1293480012360051),
    ("Dawsn", 100.0, 0.005 * (1 + 5e-5 + 7.5e-9 + 1.875e-12)),   # 1/(2x) sum (2n-1)!! / (2x^2)^n
    ("Expint", 1.0, 1.8951178163559368),          # A&S table 5.1
    ("Expint", 10.0, 2492.228976241877),
    ("FresnelCos", 1.0, 0.7798934003768228),      # A&S table 7.7
    ("FresnelCos", 10.0, 0.4998986942055157),
    ("FresnelSin", 1.0, 0.4382591473903548),
    ("Spence", 0.5, math.pi ** 2 / 12 - math.log(2) ** 2 / 2),   # Li2(1/2), DLMF 25.12.? special value
    ("Spence", 2.0, -math.pi ** 2 / 12),          # Li2(-1)
    ("Spence", 0.0, math.pi ** 2 / 6),            # Li2(1)
    ("Spence", 1.0, 0.0),
])
def test_reference_matches_published_values(op, x, expected):
    assert ref64(op, [x])[0] == pytest.approx(expected, rel=1e-12, abs=1e-300)


@pytest.mark.parametrize(("op", "x", "expected"), [
    ("Erfinv", [1.0, -1.0, 1.5], [math.inf, -math.inf, math.nan]),
    ("Ndtri", [0.0, 1.0, -0.5], [-math.inf, math.inf, math.nan]),
    ("Expint", [0.0, -1.0, math.inf], [-math.inf, math.nan, math.inf]),
    ("Spence", [-0.5, math.inf], [math.nan, -math.inf]),
    ("Dawsn", [math.inf, -math.inf, math.nan], [0.0, -0.0, math.nan]),
    ("FresnelCos", [math.inf, -math.inf, math.nan], [0.5, -0.5, math.nan]),
])
def test_reference_edges_follow_tensorflow(op, x, expected):
    np.testing.assert_array_equal(ref64(op, x), np.array(expected))
