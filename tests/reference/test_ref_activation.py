"""Activation references on hand-computed values: formulas at chosen points, limits at +-inf, NaN, float32 attributes."""

import math

import ml_dtypes
import numpy as np
import pytest

from aclcts.reference import reference

F16, F32, F64, I8, I32, U8 = np.float16, np.float32, np.float64, np.int8, np.int32, np.uint8
BF16 = np.dtype(ml_dtypes.bfloat16)
INF, NAN = math.inf, math.nan
SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)


def run(op, inputs, out=F64, attrs=None):
    """Run a reference op and return its only output."""
    (y,) = reference(op).compute([np.asarray(x) for x in inputs], attrs or {}, [np.dtype(out)])
    return y


def same(actual, expected):
    """Equal element by element, NaN matching NaN and the sign of zero counted."""
    a, e = np.asarray(actual, F64), np.asarray(expected, F64)
    return a.shape == e.shape and bool(np.all(((a == e) & (np.signbit(a) == np.signbit(e))) | (np.isnan(a) & np.isnan(e))))


def close(actual, expected, rtol=1e-13):
    """Relative agreement, NaN matching NaN."""
    return bool(np.allclose(actual, expected, rtol=rtol, atol=0, equal_nan=True))


def tanh_gelu(x):
    """0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), by math on one value."""
    return 0.5 * x * (1.0 + math.tanh(SQRT_2_OVER_PI * (x + 0.044715 * x ** 3)))


def test_gelu_is_the_tanh_form_not_the_erf_form():
    x = np.array([1.0, -1.0, 2.5, -0.5], F64)
    y = run("Gelu", [x])
    assert close(y, [tanh_gelu(v) for v in x])
    # Gelu(1): tanh form 0.8411919906, exact x * Phi(x) 0.8413447461 (Hendrycks and Gimpel 2016)
    assert abs(y[0] - 0.8411919906) < 1e-9 and abs(y[0] - 0.5 * math.erfc(-1 / math.sqrt(2))) > 1e-4


def test_gelu_left_tail_keeps_its_relative_precision_and_limits():
    # Gelu(-10) = -10 / (1 + e^(2u)), u = sqrt(2/pi) * 54.715: about -1.1e-37, lost to 1 + tanh(u) = 0 in float64
    u = SQRT_2_OVER_PI * (10 + 0.044715 * 1000)
    y = run("Gelu", [np.array([-10.0, INF, -INF, NAN, -0.0, -1e200], F64)])
    assert close(y[0], -10 / (1 + math.exp(2 * u)), rtol=1e-12) and y[0] < 0
    assert same(y[1:], [INF, -0.0, NAN, -0.0, -0.0])


def test_fast_gelu_is_x_times_sigmoid_of_1702_x():
    x = np.array([1.0, -1.0, 3.0, -20.0], F64)
    # the prototype's form: x / (1 + e^(-1.702|x|)) * e^(0.851 (x - |x|))
    expected = [v / (1 + math.exp(-1.702 * abs(v))) * math.exp(0.851 * (v - abs(v))) for v in x]
    assert close(run("FastGelu", [x]), expected, rtol=1e-12)
    assert same(run("FastGelu", [np.array([INF, -INF, NAN], F64)]), [INF, -0.0, NAN])


def test_swish_scale_and_limits():
    assert close(run("Swish", [np.array([2.0], F64)], attrs={"scale": 0.5}), [2 / (1 + math.exp(-1))])
    assert same(run("Swish", [np.array([3.0, -INF, INF], F64)], attrs={"scale": 0.0}), [1.5, -INF, INF])
    assert same(run("Swish", [np.array([-INF, INF, NAN], F64)]), [-0.0, INF, NAN])
    assert same(run("Swish", [np.array([-INF, INF], F64)], attrs={"scale": -1.0}), [-INF, 0.0])
    # scale is a REG_OP Float: 0.1 is float32(0.1) = 0.100000001490116...
    s = float(np.float32(0.1))
    assert run("Swish", [np.array([5.0], F64)], attrs={"scale": 0.1})[0] == pytest.approx(5 / (1 + math.exp(-5 * s)),
                                                                                          rel=1e-15)


def test_mish_values_and_saturation():
    y = run("Mish", [np.array([1.0, -1.0, 100.0, -INF, INF, NAN], F64)])
    assert close(y[:2], [math.tanh(math.log1p(math.e)), -math.tanh(math.log1p(1 / math.e))], rtol=1e-14)
    assert same(y[2:], [100.0, -0.0, INF, NAN])
    # far left, x tanh(ln(1 + e^x)) is x e^x (1 + ...): Mish(-50) = -50 e^-50 within 1e-13
    assert close(run("Mish", [np.array([-50.0], F64)]), [-50 * math.exp(-50)], rtol=1e-13)


def test_leaky_relu_slopes_and_float32_attribute():
    x = np.array([-2.0, -0.0, 0.0, 3.0, -INF, NAN], F64)
    assert same(run("LeakyRelu", [x], attrs={"negative_slope": 0.25}), [-0.5, -0.0, 0.0, 3.0, -INF, NAN])
    assert same(run("LeakyRelu", [x]), [-0.0, -0.0, 0.0, 3.0, -0.0, NAN])
    assert same(run("LeakyRelu", [x[:1]], attrs={"negative_slope": 0.1}), [-2 * float(np.float32(0.1))])


def test_elu_family():
    y = run("Elu", [np.array([-1.0, 2.0, -INF, -1e-300, NAN], F64)])
    assert close(y[:2], [math.exp(-1) - 1, 2.0]) and same(y[2:], [-1.0, -1e-300, NAN])
    y = run("Elu", [np.array([-1.0, 3.0], F64)], attrs={"alpha": 0.5, "scale": 2.0, "input_scale": 1.5})
    assert close(y, [2 * 0.5 * (math.exp(-1.5) - 1), 6.0])
    # Selu: scale 1.0507009873554805, alpha 1.6732632423543772 (Klambauer et al. 2017, eq. 14)
    y = run("Selu", [np.array([1.0, -1.0, -INF], F64)])
    assert close(y, [1.0507009873554805, 1.0507009873554805 * 1.6732632423543772 * (math.exp(-1) - 1),
                     -1.0507009873554805 * 1.6732632423543772])
    y = run("Celu", [np.array([-1.0, 2.0, 0.0, -INF], F64)], attrs={"alpha1": 2.0, "alpha2": 0.5, "alpha3": 1.5})
    assert close(y, [2 * (math.exp(-2) - 1), 3.0, 0.0, -2.0])
    with pytest.raises(ValueError, match="Celu: attribute alpha2 is 0"):
        run("Celu", [np.array([1.0])], attrs={"alpha2": 0.0})


def test_relu6_floats_and_integers():
    assert same(run("Relu6", [np.array([-1.0, -0.0, 2.5, 6.0, 7.0, INF, -INF, NAN], F32)], F32),
                [0.0, 0.0, 2.5, 6.0, 6.0, 6.0, 0.0, NAN])
    y = run("Relu6", [np.array([-128, -1, 0, 5, 6, 7, 127], I8)], I8)
    assert y.dtype == I8 and y.tolist() == [0, 0, 0, 5, 6, 6, 6]
    assert run("Relu6", [np.array([0, 6, 255], U8)], U8).tolist() == [0, 6, 6]


def test_hard_sigmoid_uses_the_float32_default_alpha():
    a = float(np.float32(0.16666666))
    y = run("HardSigmoid", [np.array([1.0, 3.0, 4.0, -4.0, NAN], F64)])
    assert close(y[:2], [a + 0.5, 3 * a + 0.5]) and y[1] < 1.0
    assert same(y[2:], [1.0, 0.0, NAN])


def test_hard_sigmoid_int32_rounds_as_the_float32_kernel_and_truncates():
    y = run("HardSigmoid", [np.array([-7, 0, 2, 3, 6, 2**31 - 1], I32)], I32)
    assert y.dtype == I32 and y.tolist() == [0, 0, 0, 1, 1, 1]
    assert run("HardSigmoid", [np.array([3, 5], I32)], I32, {"alpha": 0.166}).tolist() == [0, 1]


def test_hard_swish_pieces():
    y = run("HardSwish", [np.array([1.0, -1.5, -3.0, 3.0, INF, -INF, NAN], F64)])
    assert close(y[:2], [4 / 6, -0.375]) and same(y[2:], [0.0, 3.0, INF, 0.0, NAN])


def test_prelu_weight_per_channel_or_one():
    x = np.array([[-1.0, 2.0], [-3.0, 4.0]], F64)
    # dimension 1 is the channel: column 0 takes 0.5, column 1 0.25
    assert same(run("PRelu", [x, np.array([0.5, 0.25])]), [[-0.5, 2.0], [-1.5, 4.0]])
    assert same(run("PRelu", [np.array([[-1.0, -2.0]]), np.array([0.5, 0.25])]), [[-0.5, -0.5]])
    assert same(run("PRelu", [x, np.array(0.25)]), [[-0.25, 2.0], [-0.75, 4.0]])
    x3 = -np.ones((2, 3, 2))
    y = run("PRelu", [x3, np.array([1.0, 2.0, 3.0])])
    assert y[1, :, 1].tolist() == [-1.0, -2.0, -3.0]
    with pytest.raises(ValueError, match="PRelu: input 'weight' of shape \\[3\\] must hold one value or one per "):
        run("PRelu", [x, np.array([1.0, 2.0, 3.0])])
    assert reference("PRelu").shape([(2, 3, 2), (3,)], [None, None], {}) == [(2, 3, 2)]


def test_softplus_softsign_log_sigmoid():
    y = run("Softplus", [np.array([0.0, 1000.0, -700.0, INF, -INF, NAN], F64)])
    assert close(y[:3], [math.log(2.0), 1000.0, math.exp(-700)]) and same(y[3:], [INF, 0.0, NAN])
    y = run("Softsign", [np.array([3.0, -1.0, -0.0, INF, -INF, NAN], F64)])
    assert same(y, [0.75, -0.5, -0.0, 1.0, -1.0, NAN])
    y = run("LogSigmoid", [np.array([0.0, -1000.0, 700.0, -INF, NAN], F64)])
    assert close(y[:3], [-math.log(2.0), -1000.0, -math.exp(-700)]) and same(y[3:], [-INF, NAN])


def test_shrink_functions_keep_nan_and_take_float32_lambd():
    x = np.array([1.0, -1.0, 0.5, -0.2, INF, NAN], F64)
    assert same(run("SoftShrink", [x]), [0.5, -0.5, 0.0, 0.0, INF, NAN])
    assert same(run("HardShrink", [x]), [1.0, -1.0, 0.0, 0.0, INF, NAN])
    lam = float(np.float32(0.3))
    assert run("SoftShrink", [np.array([1.0])], attrs={"lambd": 0.3})[0] == 1.0 - lam
    # 0.3000000001 is above 0.3 but not above float32(0.3) = 0.30000001192...
    above = float(np.nextafter(lam, 1.0))
    assert same(run("HardShrink", [np.array([0.3000000001, lam, -above])], attrs={"lambd": 0.3}), [0.0, 0.0, -above])
    with pytest.raises(ValueError, match="HardShrink: attribute lambd=-1.0: expected a value >= 0"):
        run("HardShrink", [x], attrs={"lambd": -1.0})


@pytest.mark.parametrize("out", [F16, BF16, F32])
def test_results_are_rounded_once_to_the_output_type(out):
    # Softsign(1/3) = 0.25 exactly; Gelu(1) = 0.84119199..., rounded once from float64
    y = run("Softsign", [np.array([1 / 3], F64)], out)
    assert y.dtype == np.dtype(out) and float(y[0]) == float(np.asarray(0.25, F64).astype(out))
    y = run("Gelu", [np.array([1.0], F64)], out)
    assert float(y[0]) == float(np.asarray(tanh_gelu(1.0), F64).astype(out))


def test_unknown_attribute_is_refused():
    with pytest.raises(ValueError, match="Gelu: unknown attribute\\(s\\) \\['approximate'\\]"):
        run("Gelu", [np.array([1.0])], attrs={"approximate": "none"})
