"""Unary math kernels: fp16/bf16 computed in float32 and rounded once, Erf's series, exact rounding, fills, scales."""

import math

import ml_dtypes
import numpy as np
import pytest

from aclcts.sim.kernels import KernelError
from aclcts.sim.kernels.unary_math import ERF_SERIES_LIMIT, erf_erfc

F16, F32, F64, I16, I32, I64 = np.float16, np.float32, np.float64, np.int16, np.int32, np.int64
BF16 = np.dtype(ml_dtypes.bfloat16)
INF, NAN = math.inf, math.nan
ALL_F16 = np.arange(1 << 16, dtype=np.uint16).view(F16)
TRANSCENDENTAL = {"Sin": np.sin, "Cos": np.cos, "Tan": np.tan, "Asin": np.arcsin, "Acos": np.arccos,
                  "Atan": np.arctan, "Sinh": np.sinh, "Cosh": np.cosh, "Asinh": np.arcsinh, "Acosh": np.arccosh,
                  "Atanh": np.arctanh, "Log1p": np.log1p, "Expm1": np.expm1}


def same(actual, expected):
    """Equal element by element, NaN matching NaN and the sign of zero counted."""
    a, e = np.asarray(actual, F64), np.asarray(expected, F64)
    return a.shape == e.shape and bool(np.all(((a == e) & (np.signbit(a) == np.signbit(e))) | (np.isnan(a) & np.isnan(e))))


@pytest.mark.parametrize("op", sorted(TRANSCENDENTAL))
def test_every_float16_input_is_computed_in_float32_and_rounded_once(run, op):
    fn = TRANSCENDENTAL[op]
    (y,) = run(op, [ALL_F16], [(F16, ALL_F16.shape)])
    with np.errstate(all="ignore"):
        expected = fn(ALL_F16.astype(F32)).astype(F16)
    assert y.dtype == F16 and same(y, expected)


def test_float16_differs_from_computing_in_float16(run):
    # sinh(x) = (e^x - e^-x) / 2 with each step in fp16 loses the small difference; one fp32 evaluation keeps it.
    x = np.array([0.01], F16)
    (y,) = run("Sinh", [x], [(F16, (1,))])
    assert y[0] == F16(math.sinh(float(x[0])))
    stepwise = (F16(math.exp(float(x[0]))) - F16(math.exp(-float(x[0])))) / F16(2)
    assert y[0] != stepwise


def test_bfloat16_is_computed_in_float32_and_rounded_once(run):
    x = np.linspace(-3, 3, 301).astype(BF16)
    (y,) = run("Atan", [x], [(BF16, x.shape)])
    assert y.dtype == BF16
    assert np.array_equal(y.astype(F32), np.arctan(x.astype(F32)).astype(BF16).astype(F32))


def test_float32_and_float64_evaluate_in_their_own_type(run):
    x = np.array([0.3, 1.7, -2.2], F32)
    (y,) = run("Expm1", [x], [(F32, (3,))])
    assert np.array_equal(y, np.expm1(x))
    (y,) = run("Cos", [x.astype(F64)], [(F64, (3,))])
    assert np.array_equal(y, np.cos(x.astype(F64)))


def test_erf_series_and_continued_fraction_agree_with_math_erf():
    # within 1e-12 relative in float64 (the worst is about 2e-13 near |x| = 2), far inside float32's rounding of 6e-8
    x = np.concatenate([np.linspace(-8, 8, 1601), [ERF_SERIES_LIMIT, -ERF_SERIES_LIMIT, 1e-300, -0.0]])
    erf, erfc = erf_erfc(x)
    assert np.allclose(erf, [math.erf(v) for v in x], rtol=1e-12, atol=1e-300)
    assert np.allclose(erfc, [math.erfc(v) for v in x], rtol=1e-12, atol=1e-300)
    assert np.signbit(erf[-1])


def test_erf_and_erfc_special_values_and_float32_rounding(run):
    x = np.array([0.0, -0.0, INF, -INF, NAN, 0.5, 3.0, 9.0], F32)
    (y,) = run("Erf", [x], [(F32, x.shape)])
    assert same(y[:5], [0.0, -0.0, 1.0, -1.0, NAN])
    assert y[5] == F32(math.erf(0.5))
    (y,) = run("Erfc", [x], [(F32, x.shape)])
    assert same(y[:5], [1.0, 1.0, 0.0, 2.0, NAN])
    assert y[6] == F32(math.erfc(3.0)) and y[7] == F32(math.erfc(9.0)) > 0


@pytest.mark.parametrize("dtype", [F16, BF16, F32, F64])
@pytest.mark.parametrize("op", ["Rint", "Round"])
def test_halves_round_to_even(run, op, dtype):
    x = np.array([0.5, 1.5, 2.5, -0.5, -2.5, 3.5, -0.2, INF, NAN], dtype)
    (y,) = run(op, [x], [(dtype, x.shape)])
    assert same(y.astype(F64), [0.0, 2.0, 2.0, -0.0, -2.0, 4.0, -0.0, INF, NAN])


def test_round_decimals(run):
    (y,) = run("Round", [np.array([0.125, 0.375, 1e38, -INF], F32)], [(F32, (4,))], {"decimals": 2})
    assert same(y, [F32(0.12), F32(0.38), F32(1e38), -INF])
    (y,) = run("Round", [np.array([25, 35, -15, -2**31], I32)], [(I32, (4,))], {"decimals": -1})
    assert y.tolist() == [20, 40, -20, -2**31 + 2**32 - 2]  # -2147483650 wraps in int32
    (y,) = run("Round", [np.array([7], I64)], [(I64, (1,))], {"decimals": 3})
    assert y.tolist() == [7]


def test_floor_ceil_sign(run):
    x = np.array([-0.5, 0.5, -0.0, INF, NAN], BF16)
    (y,) = run("Floor", [x], [(BF16, x.shape)])
    assert same(y.astype(F64), [-1.0, 0.0, -0.0, INF, NAN])
    (y,) = run("Ceil", [x], [(BF16, x.shape)])
    assert same(y.astype(F64), [-0.0, 1.0, -0.0, INF, NAN])
    (y,) = run("Sign", [np.array([-3.0, -0.0, 2.0, NAN], F16)], [(F16, (4,))])
    assert same(y, [-1.0, 0.0, 1.0, NAN])
    (y,) = run("Sign", [np.array([-9, 0, 4], I64)], [(I64, (3,))])
    assert y.tolist() == [-1, 0, 1]


def test_predicates_give_bool(run):
    x = np.array([1.0, INF, -INF, NAN, 0.0], BF16)
    results = {op: run(op, [x], [(np.bool_, x.shape)])[0].tolist() for op in ("IsFinite", "IsInf", "IsNan")}
    assert results == {"IsFinite": [True, False, False, False, True], "IsInf": [False, True, True, False, False],
                       "IsNan": [False, False, False, True, False]}
    with pytest.raises(KernelError, match="IsNan: output 'y' has dtype float16, expected bool"):
        run("IsNan", [x.astype(F16)], [(F16, x.shape)])


def test_zeros_like_ones_like_fill(run, infer):
    x = np.array([[NAN, 1.0]], F32)
    assert run("ZerosLike", [x], [(F32, (1, 2))])[0].tolist() == [[0.0, 0.0]]
    assert run("OnesLike", [np.array([True, False])], [(np.bool_, (2,))])[0].tolist() == [True, True]
    (y,) = run("Fill", [np.array([2, 3], I32), np.array(-0.0, F16)], [(F16, (2, 3))])
    assert y.shape == (2, 3) and bool(np.all(np.signbit(y)))
    (shape,) = infer("Fill", [(I64, (2,)), (F32, ())], [np.array([4, 5], I64), None])
    assert shape.shape == (4, 5)
    (shape,) = infer("Fill", [(I64, (3,)), (F32, ())])
    assert shape.shape == (-1, -1, -1)
    with pytest.raises(KernelError, match="Fill: input 'value' must hold exactly one element"):
        run("Fill", [np.array([2], I32), np.array([1.0, 2.0], F32)], [(F32, (2,))])


def test_muls_adds_take_the_attribute_as_float32_and_round_once(run):
    # fp16 x = 3 times float32(0.1): the float32 product 0.3000000119 rounds once to fp16 0.2998
    (y,) = run("Muls", [np.array([3.0], F16)], [(F16, (1,))], {"value": 0.1})
    assert y[0] == F16(3.0 * float(F32(0.1)))
    (y,) = run("Adds", [np.array([2048.0], F16)], [(F16, (1,))], {"value": 3.0})
    assert y.tolist() == [2052.0]
    with pytest.raises(KernelError, match="Muls: required attr 'value'"):
        run("Muls", [np.array([1.0], F32)], [(F32, (1,))])


def test_integer_scales_truncate_the_attribute_and_wrap(run):
    assert run("Muls", [np.array([7, -7], I32)], [(I32, (2,))], {"value": 2.9})[0].tolist() == [14, -14]
    assert run("Muls", [np.array([20000], I16)], [(I16, (1,))], {"value": 2.0})[0].tolist() == [40000 - 65536]
    assert run("Adds", [np.array([5], I32)], [(I32, (1,))], {"value": -1.5})[0].tolist() == [4]
    y = run("Axpy", [np.array([2**31 - 1], I32), np.array([1], I32)], [(I32, (1,))], {"alpha": 1.0})[0]
    assert y.tolist() == [-2**31]


def test_axpy_broadcasts_and_checks_dtypes(run):
    (y,) = run("Axpy", [np.array([[1.0], [2.0]], F16), np.array([10.0, 20.0], F16)], [(F16, (2, 2))], {"alpha": 0.5})
    assert y.tolist() == [[6.0, 11.0], [7.0, 12.0]]
    with pytest.raises(KernelError, match="Axpy: input 'x2' has dtype float32, expected float16"):
        run("Axpy", [np.array([1.0], F16), np.array([1.0], F32)], [(F16, (1,))], {"alpha": 1.0})


def test_clip_by_value(run):
    x = np.array([-5.0, 0.5, 9.0, NAN], BF16)
    (y,) = run("ClipByValue", [x, np.array(-1.0, BF16), np.array(2.0, BF16)], [(BF16, (4,))])
    assert same(y.astype(F64), [-1.0, 0.5, 2.0, NAN])
    (y,) = run("ClipByValue", [np.array([0, 10], I32), np.array(5, I32), np.array(3, I32)], [(I32, (2,))])
    assert y.tolist() == [3, 3]
    with pytest.raises(KernelError, match="ClipByValue: inputs cannot be broadcast together: 'x' \\[3\\], 'clip_value_min' \\[2\\]"):
        run("ClipByValue", [np.ones(3, F32), np.ones(2, F32), np.ones(1, F32)], [(F32, (3,))])


@pytest.mark.parametrize(("op", "dtype", "refusal"), [
    ("Tan", I32, "which is not simulated for Tan"), ("Sign", np.complex64, "which is not simulated for Sign"),
    ("Erf", I64, "expected one of: float16"), ("Adds", I64, "expected one of: float32, int16")])
def test_dtypes_outside_the_kernel_are_refused_with_the_allowed_list(run, op, dtype, refusal):
    """A dtype outside the record is refused with the record's list; one the record allows but the simulator does
    not implement (complex, integer Tan) as not simulated."""
    with pytest.raises(KernelError, match=f"{op}: input 'x' has dtype .*, {refusal}"):
        run(op, [np.ones(2, dtype)], [(dtype, (2,))], {"value": 1.0} if op == "Adds" else {})
