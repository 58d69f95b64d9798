"""Binary math kernels: device numerics (fp16/bf16 computed in float32 and rounded once), IEEE specials, integer
division in the integer type (sign rules, INT_MIN / -1, division by zero), broadcasting into the output buffer, errors."""

import math

import ml_dtypes
import numpy as np
import pytest

from aclcts.core.constants import Format
from aclcts.core.dtypes import acl_data_type
from aclcts.sim.kernels import KernelError, TensorInfo, get_kernel

F16, F32, F64, I8, I32, I64 = np.float16, np.float32, np.float64, np.int8, np.int32, np.int64
BF16 = ml_dtypes.bfloat16


def one(run, op, a, b, dtype, shape=None):
    """The kernel's output for two inputs of one dtype."""
    a, b = np.array(a, dtype), np.array(b, dtype)
    (y,) = run(op, [a, b], [(dtype, shape if shape is not None else np.broadcast_shapes(a.shape, b.shape))])
    return y


def test_float16_squared_difference_is_rounded_once_from_float32(run):
    # 128 - (-0.0625) = 128.0625 is a tie in fp16 (rounds to 128, whose square is 16384); squared in float32 it is
    # 16400.0039..., which rounds once to 16400
    (y,) = run("SquaredDifference", [np.array([128.0], F16), np.array([-0.0625], F16)], [(F16, (1,))])
    assert y.dtype == F16 and y.tolist() == [16400.0]
    # 300^2 = 90000 overflows fp16 only at the final rounding
    assert np.isinf(one(run, "SquaredDifference", [300.0], [0.0], F16)).all()


def test_float16_atan2_matches_the_correctly_rounded_value(run):
    x1 = np.linspace(-4, 4, 33).astype(F16)
    x2 = np.full(33, 0.75, F16)
    y = one(run, "Atan2", x1, x2, F16)
    assert y.tolist() == np.arctan2(x1.astype(F64), x2.astype(F64)).astype(F16).tolist()


def test_atan2_signed_zeros_and_infinities(run):
    y = one(run, "Atan2", [0.0, -0.0, np.inf, -np.inf, np.nan], [-0.0, -0.0, np.inf, -np.inf, 1.0], F32)
    assert y[:4].tolist() == pytest.approx([math.pi, -math.pi, math.pi / 4, -3 * math.pi / 4], rel=1e-7)
    assert np.isnan(y[4])


@pytest.mark.parametrize(("op", "expected"), [
    ("FloorDiv", [3, -4, -4, 3]), ("TruncateDiv", [3, -3, -3, 3]),
    ("FloorMod", [1, 1, -1, -1]), ("Mod", [1, -1, 1, -1]), ("TruncateMod", [1, -1, 1, -1]),
])
@pytest.mark.parametrize("dtype", [I32, I64, F16, F32, BF16])
def test_sign_rules(run, op, expected, dtype):
    y = one(run, op, [7, -7, 7, -7], [2, 2, -2, -2], dtype)
    assert y.dtype == np.dtype(dtype) and y.astype(F64).tolist() == expected


def test_integer_div_truncates(run):
    assert one(run, "Div", [7, -7, 7, -7], [2, 2, -2, -2], I8).tolist() == [3, -3, -3, 3]
    assert one(run, "Div", [7, -7], [2, 2], F16).tolist() == [3.5, -3.5]


def test_int_min_over_minus_one_wraps(run):
    for op in ("Div", "FloorDiv", "TruncateDiv"):
        assert one(run, op, [-2**31], [-1], I32).tolist() == [-2**31]
        assert one(run, op, [-128], [-1], I8).tolist() == [-128]
    for op in ("FloorMod", "Mod", "TruncateMod"):
        assert one(run, op, [-2**63], [-1], I64).tolist() == [0]


def test_integer_division_by_zero(run):
    assert one(run, "FloorMod", [5, -5, 0], [0, 0, 0], I32).tolist() == [5, -5, 0]
    assert one(run, "Mod", [5, -5], [0, 0], I32).tolist() == [5, -5]
    assert one(run, "DivNoNan", [5, -5, 6], [0, 0, 4], I32).tolist() == [0, 0, 1]
    assert one(run, "FloorDiv", [5, -5, 0], [0, 0, 0], I8).tolist() == [127, -128, 0]
    assert one(run, "Div", [5, -5, 0], [0, 0, 0], I64).tolist() == [2**63 - 1, -2**63, 0]


def test_float_division_by_zero(run):
    y = one(run, "FloorDiv", [1, -1, 0], [0, 0, 0], F16)
    assert y[0] == np.inf and y[1] == -np.inf and np.isnan(y[2])
    assert np.isnan(one(run, "FloorMod", [1.0, np.inf], [0.0, 2.0], F32)).all()
    assert one(run, "DivNoNan", [np.nan, 1, 6], [0, -0.0, 3], BF16).astype(F32).tolist() == [0, 0, 2]


def test_floor_div_floors_the_float32_quotient(run):
    tiny = float(np.finfo(F32).smallest_subnormal)
    y = one(run, "FloorDiv", [-tiny], [5.0], F32)
    assert y[0] == 0 and np.signbit(y[0])


def test_float16_floor_div_floors_the_float32_quotient_not_a_float16_one(run):
    # 2047 / 1.5 = 1364.67 rounds up to 1365 in fp16; the float32 quotient floors to 1364
    (y,) = run("FloorDiv", [np.array([2047.0], F16), np.array([1.5], F16)], [(F16, (1,))])
    assert y.tolist() == [1364.0]


def test_floor_mod_adds_the_divisor_and_keeps_zero_signs(run):
    y = one(run, "FloorMod", [-3.0, 3.0, -4.0, 4.0], [np.inf, -np.inf, 2.0, -2.0], F32)
    assert y[:2].tolist() == [np.inf, -np.inf] and np.signbit(y[2:]).tolist() == [True, False]


def test_xlogy_xdivy_zero_where_x1_is_zero(run):
    y = one(run, "Xlogy", [0.0, 0.0, 2.0, 1.0], [0.0, np.nan, 1.0, -1.0], F16)
    assert y[:3].tolist() == [0, 0, 0] and np.isnan(y[3])
    assert one(run, "Xdivy", [0.0, 0.0, 3.0], [0.0, np.nan, 2.0], F32).tolist() == [0, 0, 1.5]


def test_squared_difference_integer_wrap(run):
    assert one(run, "SquaredDifference", [-2**31, 65536], [-1, 0], I32).tolist() == [1, 0]


@pytest.mark.parametrize("dtype", [F32, I32])
def test_the_result_is_computed_into_the_offered_output_buffer(dtype):
    destination = np.empty((2, 3), dtype)
    info = TensorInfo(acl_data_type(np.dtype(dtype)), (2, 3), int(Format.ACL_FORMAT_ND), destination)
    a, b = np.arange(6, dtype=dtype).reshape(2, 3), np.array([4], dtype)
    (y,) = get_kernel("FloorMod").compute([a, b], {}, [info])
    assert y is destination and y.tolist() == [[0, 1, 2], [3, 0, 1]]


def test_broadcasting(run):
    y = one(run, "FloorMod", np.arange(-3, 3, dtype=I32).reshape(2, 3), [[2], [-2]], I32)
    assert y.tolist() == [[1, 0, 1], [0, -1, 0]]


def test_errors_name_the_op_and_the_expectation(run):
    with pytest.raises(KernelError, match=r"Atan2: input 'x1' has dtype int32, expected one of"):
        one(run, "Atan2", [1], [1], I32)
    with pytest.raises(KernelError, match="FloorMod: input 'x2' has dtype float32, expected float16"):
        run("FloorMod", [np.array([1], F16), np.array([1], F32)], [(F16, (1,))])
    with pytest.raises(KernelError, match="cannot be broadcast"):
        run("Div", [np.zeros(2, F32), np.zeros(3, F32)], [(F32, (3,))])
    with pytest.raises(KernelError, match="output 'y' has dtype float32, expected float16"):
        run("Xdivy", [np.zeros(2, F16), np.zeros(2, F16)], [(F32, (2,))])


def test_infer_shape_broadcasts_unknown_dims(infer):
    (shape,) = infer("TruncateMod", [(F32, (-1, 1)), (F32, (4,))])
    assert shape.shape == (-1, 4)


def _wrap8(value: int) -> int:
    """value reduced into int8's range (two's complement)."""
    return (value + 128) % 256 - 128


def _trunc_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


_INT8_RULES = {
    "FloorDiv": lambda a, b: _wrap8(a // b) if b else (127 if a > 0 else -128 if a < 0 else 0),
    "TruncateDiv": lambda a, b: _wrap8(_trunc_div(a, b)) if b else (127 if a > 0 else -128 if a < 0 else 0),
    "Div": lambda a, b: _wrap8(_trunc_div(a, b)) if b else (127 if a > 0 else -128 if a < 0 else 0),
    "DivNoNan": lambda a, b: _wrap8(_trunc_div(a, b)) if b else 0,
    "Mod": lambda a, b: a - b * _trunc_div(a, b) if b else a,
}


@pytest.mark.parametrize("op", sorted(_INT8_RULES))
def test_every_int8_pair_against_python_integer_arithmetic(run, op):
    a, b = (v.reshape(-1) for v in np.meshgrid(np.arange(-128, 128), np.arange(-128, 128)))
    (y,) = run(op, [a.astype(I8), b.astype(I8)], [(I8, a.shape)])
    rule = _INT8_RULES[op]
    assert y.tolist() == [rule(int(p), int(q)) for p, q in zip(a, b)]


def test_every_int32_sign_pair_of_floor_mod_against_python_modulo(run):
    values = np.array([-2**31, -2**31 + 1, -7, -2, -1, 0, 1, 2, 7, 2**31 - 2, 2**31 - 1], I32)
    a, b = (v.reshape(-1) for v in np.meshgrid(values, values))
    (y,) = run("FloorMod", [a, b], [(I32, a.shape)])
    assert y.tolist() == [int(p) % int(q) if q else int(p) for p, q in zip(a, b)]
