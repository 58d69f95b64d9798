"""The complex128 references written from their definitions: values, identities and the principal branches."""

import math

import numpy as np
import pytest

from aclcts.reference import complex_math as cm
from aclcts.reference import reference

Z = np.array([0.5 + 0.25j, -1.5 + 2j, 3 - 0.75j, -2.25 - 1j, 1e-3 + 4j, 7 - 1e-4j])


def test_values_at_points_worked_by_hand():
    assert cm.sin(np.array([1j]))[0] == pytest.approx(1j * math.sinh(1))
    assert cm.sinh(np.array([1j * math.pi / 2]))[0] == pytest.approx(1j)
    assert cm.exp(np.array([1j * math.pi]))[0] == pytest.approx(-1, abs=1e-15)
    assert cm.square(np.array([1 + 1j]))[0] == 2j
    assert cm.div(np.array([1 + 2j]), np.array([3 - 4j]))[0] == pytest.approx((-5 + 10j) / 25)
    assert cm.rsqrt(np.array([-4 + 0j]))[0] == pytest.approx(-0.5j)


@pytest.mark.parametrize(("outer", "principal"), [(cm.square, cm.sqrt), (cm.exp, cm.log)])
def test_squaring_and_exp_undo_the_principal_sqrt_and_log(outer, principal):
    assert np.allclose(outer(principal(Z)), Z, rtol=1e-14)


def test_identities_tie_the_trigonometric_and_hyperbolic_forms_together():
    assert np.allclose(cm.sin(Z) ** 2 + cm.cos(Z) ** 2, 1, rtol=1e-12)
    assert np.allclose(cm.tan(Z) * cm.cos(Z), cm.sin(Z), rtol=1e-13)
    assert np.allclose(cm.sinh(Z), -1j * cm.sin(1j * Z), rtol=1e-14)
    assert np.allclose(cm.tanh(Z) * cm.cosh(Z), cm.sinh(Z), rtol=1e-13)
    assert np.allclose(cm.div(Z, Z[::-1]) * Z[::-1], Z, rtol=1e-14)


def test_branch_cuts_follow_the_sign_of_a_zero_imaginary_part():
    """C99 Annex G: sqrt and log are continuous from above on the negative real axis; -0 selects the lower side."""
    below, above = complex(-4, -0.0), complex(-4, 0.0)
    assert cm.sqrt(np.array([above]))[0] == 2j
    assert cm.sqrt(np.array([below]))[0] == -2j
    assert cm.log(np.array([above]))[0].imag == math.pi
    assert cm.log(np.array([below]))[0].imag == -math.pi
    assert reference("Log").compute([np.array([below])], {"base": -1.0, "scale": 1.0, "shift": 0.0},
                                    [np.dtype(np.complex128)])[0][0].imag == -math.pi


def test_tan_and_tanh_stay_finite_where_cosh_overflows():
    far = np.array([0.3 + 400j, 0.3 - 400j])
    assert cm.tan(far).tolist() == [1j, -1j]
    assert cm.tanh(-1j * far).tolist() == [1, -1]


def test_div_does_not_overflow_for_large_divisors():
    big = np.array([1e300 + 1e300j])
    assert cm.div(big, big)[0] == pytest.approx(1)
