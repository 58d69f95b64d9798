"""Binary math references against hand-computed values: division and remainder sign rules, division by zero, integer
wrap at INT_MIN / -1, Atan2 quadrants, Xlogy/Xdivy at x1 == 0, rounding once to fp16."""

import math

import ml_dtypes
import numpy as np
import pytest

from aclcts.reference import reference

F16, F32, F64, I8, I32, I64, U8 = np.float16, np.float32, np.float64, np.int8, np.int32, np.int64, np.uint8
BF16 = ml_dtypes.bfloat16


def run(op, a, b, dtype, out=None):
    """The reference's only output for two inputs of one dtype."""
    (y,) = reference(op).compute([np.array(a, dtype), np.array(b, dtype)], {}, [out or dtype])
    return y


SIGNS_A, SIGNS_B = [7, -7, 7, -7], [2, 2, -2, -2]


@pytest.mark.parametrize(("op", "expected"), [
    ("FloorDiv", [3, -4, -4, 3]),
    ("TruncateDiv", [3, -3, -3, 3]),
    ("Div", [3, -3, -3, 3]),
    ("FloorMod", [1, 1, -1, -1]),
    ("Mod", [1, -1, 1, -1]),
    ("TruncateMod", [1, -1, 1, -1]),
])
@pytest.mark.parametrize("dtype", [I32, I64])
def test_integer_division_and_remainder_sign_rules(op, expected, dtype):
    assert run(op, SIGNS_A, SIGNS_B, dtype).tolist() == expected


@pytest.mark.parametrize(("op", "expected"), [
    ("FloorDiv", [3, -4, -4, 3]),
    ("TruncateDiv", [3, -3, -3, 3]),
    ("FloorMod", [1, 1, -1, -1]),
    ("Mod", [1, -1, 1, -1]),
])
@pytest.mark.parametrize("dtype", [F16, F32, F64, BF16])
def test_float_division_and_remainder_sign_rules(op, expected, dtype):
    y = run(op, SIGNS_A, SIGNS_B, dtype)
    assert y.dtype == np.dtype(dtype) and y.astype(F64).tolist() == expected


def test_quotient_identity_holds_for_floor_and_truncate_pairs():
    a, b = np.arange(-20, 21, dtype=I32), np.array([-7, -3, 5, 6], I32)[:, None]
    for div, mod in (("FloorDiv", "FloorMod"), ("TruncateDiv", "TruncateMod")):
        q = reference(div).compute([a, b], {}, [I32])[0]
        r = reference(mod).compute([a, b], {}, [I32])[0]
        assert (q * b + r == a).all()
        assert (np.abs(r) < np.abs(b)).all()


@pytest.mark.parametrize(("dtype", "low"), [(I8, -128), (I32, -2**31), (I64, -2**63)])
def test_int_min_divided_by_minus_one_wraps_to_int_min(dtype, low):
    for op in ("Div", "FloorDiv", "TruncateDiv"):
        assert run(op, [low], [-1], dtype).tolist() == [low]
    for op in ("FloorMod", "Mod", "TruncateMod"):
        assert run(op, [low], [-1], dtype).tolist() == [0]


def test_floor_mod_integer_by_zero_returns_x1_as_the_prototype_states():
    assert run("FloorMod", [5, -5, 0], [0, 0, 0], I32).tolist() == [5, -5, 0]


def test_div_no_nan_is_zero_wherever_the_divisor_is_zero():
    y = run("DivNoNan", [1, np.nan, np.inf, 0, 6], [0, -0.0, 0, 0, -4], F32)
    assert y.tolist() == [0, 0, 0, 0, -1.5]
    assert run("DivNoNan", [7, -128, 9], [0, 0, -2], I8).tolist() == [0, 0, -4]


def test_float_division_by_zero_is_ieee():
    y = run("Div", [1, -1, 0], [0, 0, 0], F32)
    assert y[0] == np.inf and y[1] == -np.inf and np.isnan(y[2])
    y = run("FloorDiv", [1, -1, 0, 1], [0, 0, 0, -0.0], F32)
    assert y[0] == np.inf and y[1] == -np.inf and np.isnan(y[2]) and y[3] == -np.inf
    for op in ("FloorMod", "Mod", "TruncateMod"):
        assert np.isnan(run(op, [1, -1, 0], [0, 0, -0.0], F32)).all()


def test_floor_mod_with_infinite_divisor_follows_the_sign_rule():
    y = run("FloorMod", [3, -3, 3, -3], [np.inf, np.inf, -np.inf, -np.inf], F64)
    assert y.tolist() == [3, np.inf, -np.inf, -3]
    assert run("Mod", [3, -3], [np.inf, -np.inf], F64).tolist() == [3, -3]


def test_remainder_zero_keeps_the_sign_of_x1():
    assert np.signbit(run("Mod", [-4.0, 4.0], [2.0, -2.0], F32)).tolist() == [True, False]
    assert np.signbit(run("FloorMod", [-4.0, 4.0], [2.0, -2.0], F32)).tolist() == [True, False]


def test_floor_div_floors_the_float32_quotient():
    tiny = float(np.finfo(F32).smallest_subnormal)
    y = run("FloorDiv", [-tiny, 7], [5.0, 2], F32)
    assert y[0] == 0 and np.signbit(y[0]) and y[1] == 3
    assert run("FloorDiv", [-tiny], [5.0], F64).tolist() == [-1.0]


def test_atan2_quadrants_and_signed_zeros():
    y = run("Atan2", [1, 1, -1, -1, 0.0, -0.0, 0.0, np.inf], [1, -1, 1, -1, -0.0, -0.0, 0.0, np.inf], F64)
    expected = [math.pi / 4, 3 * math.pi / 4, -math.pi / 4, -3 * math.pi / 4, math.pi, -math.pi, 0.0, math.pi / 4]
    assert y.tolist() == pytest.approx(expected, rel=1e-15)


def test_atan2_rounds_once_to_float16():
    assert run("Atan2", [1], [1], F16).tolist() == [float(F16(math.pi / 4))]


def test_squared_difference_values_and_wrap():
    assert run("SquaredDifference", [3, -2, 0], [-1, 5, 0], F32).tolist() == [16, 49, 0]
    assert run("SquaredDifference", [-2**31], [-1], I32).tolist() == [1]
    assert run("SquaredDifference", [65536], [0], I32).tolist() == [0]


def test_xlogy_and_xdivy_are_zero_where_x1_is_zero():
    y = run("Xlogy", [0, 0, -0.0, 2, 1, 3], [0, -1, np.nan, math.e, 0, -1], F64)
    assert y[:3].tolist() == [0, 0, 0] and y[3] == pytest.approx(2.0) and y[4] == -np.inf and np.isnan(y[5])
    y = run("Xdivy", [0, 0, 6, 1], [0, np.nan, 4, 0], F64)
    assert y.tolist() == [0, 0, 1.5, np.inf]


def test_integer_inputs_of_a_float_only_op_are_refused():
    with pytest.raises(ValueError, match="Atan2"):
        run("Atan2", [1], [1], I32)


def test_unsigned_division():
    assert run("FloorDiv", [250, 7], [3, 2], U8).tolist() == [83, 3]
    assert run("Mod", [250, 7], [3, 2], U8).tolist() == [1, 1]


def test_broadcast_shape():
    assert reference("FloorMod").shape([(3, 1, 4), (5, 1)], [], {}) == [(3, 5, 4)]
    with pytest.raises(ValueError, match="FloorMod"):
        reference("FloorMod").shape([(2,), (3,)], [], {})


@pytest.mark.parametrize(("op", "rule"), [
    ("FloorDiv", lambda a, b: (a // b + 128) % 256 - 128),
    ("FloorMod", lambda a, b: a % b),
    ("TruncateDiv", lambda a, b: (int(a / b) + 128) % 256 - 128),
])
def test_every_int8_pair_with_a_nonzero_divisor_against_python_arithmetic(op, rule):
    a, b = (v.reshape(-1) for v in np.meshgrid(np.arange(-128, 128), np.arange(-128, 128)))
    keep = b != 0
    a, b = a[keep], b[keep]
    assert run(op, a, b, I8).tolist() == [rule(int(p), int(q)) for p, q in zip(a, b)]
