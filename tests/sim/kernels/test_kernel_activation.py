"""Activation kernels: fp16/bf16 computed in float32 and rounded once, the device formulas, limits, NaN, attributes,
output buffers and errors."""

import math

import ml_dtypes
import numpy as np
import pytest

from aclcts.core.constants import Format
from aclcts.core.dtypes import acl_data_type
from aclcts.sim.kernels import KernelError, TensorInfo, get_kernel

F16, F32, F64, I8, I32, U8 = np.float16, np.float32, np.float64, np.int8, np.int32, np.uint8
BF16 = np.dtype(ml_dtypes.bfloat16)
INF, NAN = math.inf, math.nan
ALL_F16 = np.arange(1 << 16, dtype=np.uint16).view(F16)
ALL_BF16 = np.arange(1 << 16, dtype=np.uint16).view(BF16)
#: op -> attributes other than the defaults, for the ops whose fp16/bf16 path is checked against their fp32 path.
FLOAT_OPS = {"Gelu": {}, "FastGelu": {}, "Swish": {"scale": 1.5}, "Mish": {}, "LeakyRelu": {"negative_slope": 0.1},
             "Elu": {"alpha": 0.5, "scale": 2.0, "input_scale": 1.5}, "Selu": {}, "Celu": {"alpha2": 0.5},
             "Relu6": {}, "HardSigmoid": {}, "HardSwish": {}, "Softplus": {}, "Softsign": {}, "LogSigmoid": {},
             "SoftShrink": {"lambd": 0.3}, "HardShrink": {"lambd": 0.3}}


def same(actual, expected):
    """Equal element by element, NaN matching NaN and the sign of zero counted."""
    a, e = np.asarray(actual, F64), np.asarray(expected, F64)
    return a.shape == e.shape and bool(np.all(((a == e) & (np.signbit(a) == np.signbit(e))) | (np.isnan(a) & np.isnan(e))))


def one(run, op, x, attrs=None):
    """The kernel's only output for x, in x's dtype and shape."""
    x = np.asarray(x)
    (y,) = run(op, [x], [(x.dtype, x.shape)], attrs)
    return y


@pytest.mark.parametrize("op", sorted(FLOAT_OPS))
def test_every_float16_input_is_computed_in_float32_and_rounded_once(run, op):
    y = one(run, op, ALL_F16, FLOAT_OPS[op])
    assert y.dtype == F16
    with np.errstate(over="ignore"):
        assert same(y, one(run, op, ALL_F16.astype(F32), FLOAT_OPS[op]).astype(F16))


@pytest.mark.parametrize("op", sorted(set(FLOAT_OPS) - {"Celu"}))
def test_every_bfloat16_input_is_computed_in_float32_and_rounded_once(run, op):
    y = one(run, op, ALL_BF16, FLOAT_OPS[op])
    assert y.dtype == BF16
    with np.errstate(over="ignore", invalid="ignore"):
        assert same(y.astype(F32), one(run, op, ALL_BF16.astype(F32), FLOAT_OPS[op]).astype(BF16).astype(F32))


def test_float16_gelu_differs_from_computing_in_float16(run):
    # each step in fp16 (x^3, the sum, exp, 1 + e) rounds 5 times; one fp32 evaluation rounds once
    x = ALL_F16[np.isfinite(ALL_F16) & (np.abs(ALL_F16.astype(F32)) < 8)]
    y = one(run, "Gelu", x)
    with np.errstate(all="ignore"):
        u = (x + F16(0.044715) * x * x * x) * F16(-2 * math.sqrt(2 / math.pi))
        stepwise = x / (F16(1) + np.exp(u))
    assert np.count_nonzero(y != stepwise) > 100


def test_float32_formulas_are_the_device_formulas(run):
    x = np.array([0.7, -1.3, 2.9, -4.4], F32)
    with np.errstate(all="ignore"):
        u = (x * x * x * F32(0.044715) + x) * F32(-2 * math.sqrt(2 / math.pi))
        assert np.array_equal(one(run, "Gelu", x), x / (F32(1) + np.exp(u)))
        fast = x / (F32(1) + np.exp(np.abs(x) * F32(-1.702))) * np.exp(np.minimum(x, F32(0)) * F32(1.702))
        assert np.array_equal(one(run, "FastGelu", x), fast)
        # Elu's exp(x) - 1 as vexp then vadds, not expm1: -1e-5 keeps float32's cancellation
        tiny = np.array([-1e-5], F32)
        assert one(run, "Elu", tiny)[0] == np.exp(tiny[0]) - F32(1) != np.expm1(tiny[0])


@pytest.mark.parametrize(("op", "attrs", "x", "expected"), [
    ("Gelu", {}, [INF, -INF, NAN, -3e38, 3e38], [INF, -0.0, NAN, -0.0, 3e38]),
    ("FastGelu", {}, [INF, -INF, NAN], [INF, -0.0, NAN]),
    ("Swish", {}, [INF, -INF, NAN], [INF, -0.0, NAN]),
    ("Swish", {"scale": -1.0}, [INF, -INF], [0.0, -INF]),
    ("Swish", {"scale": 0.0}, [INF, -3.0], [INF, -1.5]),
    ("Mish", {}, [INF, -INF, NAN, 3e38], [INF, -0.0, NAN, 3e38]),
    ("LeakyRelu", {}, [-INF, INF, NAN, -2.0], [-0.0, INF, NAN, -0.0]),
    ("Elu", {}, [-INF, INF, NAN], [-1.0, INF, NAN]),
    ("Celu", {}, [-INF, INF, NAN], [-1.0, INF, NAN]),
    ("Relu6", {}, [-INF, INF, NAN, -0.0], [0.0, 6.0, NAN, 0.0]),
    ("HardSigmoid", {}, [-INF, INF, NAN], [0.0, 1.0, NAN]),
    ("HardSwish", {}, [-INF, INF, NAN, 3e38], [-0.0, INF, NAN, 3e38]),
    ("Softplus", {}, [-INF, INF, NAN, 3e38, -3e38], [0.0, INF, NAN, 3e38, 0.0]),
    ("Softsign", {}, [-INF, INF, NAN, -0.0], [-1.0, 1.0, NAN, -0.0]),
    ("LogSigmoid", {}, [-INF, INF, NAN, -3e38], [-INF, -0.0, NAN, -3e38]),
    ("SoftShrink", {}, [-INF, INF, NAN, 0.25], [-INF, INF, NAN, 0.0]),
    ("HardShrink", {}, [-INF, INF, NAN, -0.5], [-INF, INF, NAN, 0.0]),
])
def test_limits_at_infinity_nan_and_no_overflow_near_the_maximum(run, op, attrs, x, expected):
    assert same(one(run, op, np.array(x, F32), attrs), np.array(expected, F32))


def test_float_attributes_are_taken_as_float32(run):
    assert one(run, "LeakyRelu", np.array([-3.0], F64), {"negative_slope": 0.1})[0] == -3.0 * float(np.float32(0.1))
    # fp16 0.2998 lies below float32(0.3) = 0.30000001 (compared in float32, not against lambd rounded to fp16)
    x = np.array([0.2998, 0.3003], F16)
    assert one(run, "HardShrink", x, {"lambd": 0.3}).tolist() == [0.0, float(x[1])]
    lam = np.float32(0.3)
    x = np.array([lam, np.nextafter(lam, F32(1))], F32)
    assert one(run, "HardShrink", x, {"lambd": 0.3}).tolist() == [0.0, float(x[1])]


def test_relu6_integers_are_exact_in_their_type(run):
    y = one(run, "Relu6", np.array([-128, -1, 0, 5, 6, 7, 127], I8))
    assert y.dtype == I8 and y.tolist() == [0, 0, 0, 5, 6, 6, 6]
    assert one(run, "Relu6", np.array([0, 6, 255], U8)).tolist() == [0, 6, 6]
    big = np.array([-(2 ** 31), 2 ** 31 - 1], I32)
    assert one(run, "Relu6", big).tolist() == [0, 6]


def test_prelu_per_channel_and_one_weight_products_rounded_once(run):
    x = np.array([[[-1.0, 2.0], [-3.0, 4.0], [-5.0, -6.0]]], F16)
    (y,) = run("PRelu", [x, np.array([0.5, 0.25, 3.0], F16)], [(F16, x.shape)])
    assert y.tolist() == [[[-0.5, 2.0], [-0.75, 4.0], [-15.0, -18.0]]]
    (y,) = run("PRelu", [x, np.array([0.5], F16)], [(F16, x.shape)])
    assert y[0, 2].tolist() == [-2.5, -3.0]
    # bf16 x and weight: the float32 product is exact, then rounded once to bf16
    xb, wb = np.array([[-1.0078125, 1.0]], BF16), np.array([1.0078125, 2.0], BF16)
    (y,) = run("PRelu", [xb, wb], [(BF16, xb.shape)])
    assert y[0, 0] == np.float32(-1.0078125 * 1.0078125).astype(BF16)


def test_output_buffer_is_written_in_place(run):
    x = np.linspace(-4, 4, 12, dtype=F16).reshape(3, 4)
    dest = np.full((3, 4), NAN, F16)
    info = TensorInfo(acl_data_type(np.dtype(F16)), (3, 4), int(Format.ACL_FORMAT_ND), dest)
    (y,) = get_kernel("Mish").compute([x], {}, [info])
    assert y is dest and same(dest, one(run, "Mish", x))


def test_hard_sigmoid_int32_is_computed_in_float32_and_truncated(run):
    # alpha * 3 + 0.5 is 1 - 3e-8 exactly, which float32 rounds to 1 (a tie, to even): the device's 1, not 0.
    y = one(run, "HardSigmoid", np.array([-7, 0, 2, 3, 6, 2**31 - 1], I32))
    assert y.dtype == I32 and y.tolist() == [0, 0, 0, 1, 1, 1]
    assert one(run, "HardSigmoid", np.array([3, 5], I32), {"alpha": 0.166}).tolist() == [0, 1]


@pytest.mark.parametrize(("op", "inputs", "out", "attrs", "message"), [
    ("Gelu", [np.ones(2, F64)], F64, {}, "Gelu: input 'x' has dtype double, expected one of: float16, float32, bfloat16"),
    ("Celu", [np.ones(2, BF16)], BF16, {}, "Celu: input 'x' has dtype bfloat16, expected one of: float16, float32"),
    ("Swish", [np.ones(2, F32)], F16, {}, "Swish: output 'y' has dtype float16, expected float32"),
    ("Celu", [np.ones(2, F32)], F32, {"alpha2": 0.0}, "Celu: attr 'alpha2' is 0, expected a nonzero divisor"),
    ("SoftShrink", [np.ones(2, F32)], F32, {"lambd": -0.5}, "SoftShrink: attr 'lambd' is -0.5, expected a value >= 0"),
    ("HardSigmoid", [np.ones(2, I8)], I8, {}, "HardSigmoid: input 'input_x' has dtype int8"),
    ("HardSigmoid", [np.ones(2, I32)], F32, {}, "HardSigmoid: output 'output_y' has dtype float32, expected int32"),
    ("LeakyRelu", [np.ones(2, F32)], F32, {"negative_slope": "0.1"}, "LeakyRelu: attr 'negative_slope' must be a float"),
    ("PRelu", [np.ones((2, 3), F32), np.ones(2, F32)], F32, {}, "PRelu: input 'weight' has shape \\[2\\], expected one "
                                                                "value or one per channel"),
    ("PRelu", [np.ones((2, 3), F32), np.ones(3, F16)], F32, {}, "PRelu: input 'weight' has dtype float16, expected "
                                                                "float32"),
])
def test_errors_name_the_op_and_what_was_expected(run, op, inputs, out, attrs, message):
    with pytest.raises(KernelError, match=message):
        run(op, inputs, [(out, inputs[0].shape)], attrs)


def test_infer_shape_keeps_the_input_shape_and_checks_prelu_weight(infer):
    (shape,) = infer("HardShrink", [(F16, (-1, 4))])
    assert shape.shape == (-1, 4)
    (shape,) = infer("PRelu", [(F32, (2, 3, 5)), (F32, (3,))])
    assert shape.shape == (2, 3, 5)
    (shape,) = infer("PRelu", [(F32, (2, -1)), (F32, (3,))])
    assert shape.shape == (2, -1)
    with pytest.raises(KernelError, match="PRelu: input 'weight' has shape \\[4\\]"):
        infer("PRelu", [(F32, (2, 3)), (F32, (4,))])


def test_empty_and_scalar_inputs(run):
    for op, attrs in FLOAT_OPS.items():
        assert one(run, op, np.zeros((0, 4), F16), attrs).shape == (0, 4)
        y = one(run, op, np.array(-2.0, F32), attrs)
        assert y.shape == () and y.dtype == F32
