"""Elementwise unary ops: hand-computed results, per-op fp16 rounding in composite formulas, wrap, attributes."""

import math

import numpy as np
import pytest

from aclcts.sim.kernels import KernelError

F16, F32, I32 = np.float16, np.float32, np.int32


@pytest.mark.parametrize(
    ("op_type", "x", "expected"),
    [
        ("Abs", [-1.5, 2.0, -0.0], [1.5, 2.0, 0.0]),
        ("Neg", [-1.5, 2.0, 0.5], [1.5, -2.0, -0.5]),
        ("Sqrt", [4.0, 0.25, 9.0], [2.0, 0.5, 3.0]),
        ("Rsqrt", [4.0, 0.25, 16.0], [0.5, 2.0, 0.25]),
        ("Relu", [-1.5, 0.0, 3.0], [0.0, 0.0, 3.0]),
        ("Square", [-1.5, 3.0, 0.5], [2.25, 9.0, 0.25]),
        ("Reciprocal", [4.0, -0.5, 8.0], [0.25, -2.0, 0.125]),
        ("Exp", [0.0, 0.0, 0.0], [1.0, 1.0, 1.0]),
        ("Log", [1.0, 1.0, 1.0], [0.0, 0.0, 0.0]),
        ("Tanh", [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]),
        ("Sigmoid", [0.0, 0.0, 0.0], [0.5, 0.5, 0.5]),
    ],
)
def test_unary_ops_on_exact_values(run, op_type, x, expected):
    (y,) = run(op_type, [np.array(x, F32)], [(F32, (3,))])
    assert y.dtype == F32
    assert y.tolist() == expected


@pytest.mark.parametrize("dtype", [F16, F32])
@pytest.mark.parametrize("op_type", ["Abs", "Neg", "Exp", "Log", "Sqrt", "Tanh"])
def test_unary_ops_into_a_maximum_output_shape_give_the_real_shape(run, op_type, dtype):
    """A dynamic model's output desc at the range maximum (CANN's test_dynamic_Neg_000): the result keeps x's shape,
    neither broadcast over the larger buffer (x [1, 1]) nor refused (x [2, 3])."""
    for shape in [(1, 1), (2, 3)]:
        (y,) = run(op_type, [np.full(shape, 0.5, dtype)], [(dtype, (8, 8))])
        assert y.shape == shape


def test_sigmoid_fp16_rounds_after_each_primitive_op(run):
    # x = -7.9375: -x = 7.9375; exp(7.9375) = 2800.36 -> fp16 2800 (grid spacing 2 here);
    # 1 + 2800 = 2801 -> tie between 2800 and 2802 -> 2800 (even); 1 / 2800 -> fp16.
    (y,) = run("Sigmoid", [np.array([-7.9375], F16)], [(F16, (1,))])
    per_op = np.float16(1.0 / 2800.0)
    once = np.float16(1.0 / (1.0 + math.exp(7.9375)))
    assert per_op != once
    assert y[0] == per_op


def test_rsqrt_fp16_rounds_the_square_root_first(run):
    # x = 1 + 2^-10: sqrt(x) = 1.00048816 is below 1 + 2^-11 (half the fp16 spacing above 1) -> fp16 1.0; 1 / 1 = 1.
    # Rounding 1/sqrt(x) = 0.99951208 once would give 1 - 2^-11 instead.
    (y,) = run("Rsqrt", [np.array([1 + 2**-10], F16)], [(F16, (1,))])
    assert y.tolist() == [1.0]


def test_exp_with_base_scale_and_shift(run):
    # y = base ** (scale * x + shift) = 2 ** (3 * 1 + 1) = 16
    (y,) = run("Exp", [np.array([1.0], F32)], [(F32, (1,))], {"base": 2.0, "scale": 3.0, "shift": 1.0})
    assert y.tolist() == pytest.approx([16.0], rel=1e-6)


def test_log_with_base_scale_and_shift(run):
    # y = log_10(scale * x + shift) = log_10(10 * 10 - 0) = 2
    (y,) = run("Log", [np.array([10.0], F32)], [(F32, (1,))], {"base": 10.0, "scale": 10.0, "shift": 0.0})
    assert y.tolist() == pytest.approx([2.0], rel=1e-6)


def test_exp_rejects_a_negative_base(run):
    with pytest.raises(KernelError, match=r"Exp: attr 'base' is -2.0, expected a value > 0 or -1"):
        run("Exp", [np.array([1.0], F32)], [(F32, (1,))], {"base": -2.0})


def test_attr_of_wrong_type_is_rejected(run):
    with pytest.raises(KernelError, match=r"Log: attr 'scale' must be a float, got 'x'"):
        run("Log", [np.array([1.0], F32)], [(F32, (1,))], {"scale": "x"})


def test_integer_abs_and_neg_wrap_at_the_minimum(run):
    (a,) = run("Abs", [np.array([-(2**31), -5], I32)], [(I32, (2,))])
    (n,) = run("Neg", [np.array([-(2**31), 5], I32)], [(I32, (2,))])
    assert a.tolist() == [-(2**31), 5]
    assert n.tolist() == [-(2**31), -5]


def test_integer_square_wraps_and_reciprocal_truncates(run):
    (s,) = run("Square", [np.array([65536, -3], I32)], [(I32, (2,))])
    (r,) = run("Reciprocal", [np.array([1, -1, 2, 0], I32)], [(I32, (4,))])
    assert s.tolist() == [0, 9]  # 2^32 wraps to 0
    assert r.tolist() == [1, -1, 0, 0]


def test_float_only_ops_reject_integers(run):
    with pytest.raises(KernelError, match=r"Sqrt: input 'x' has dtype int32, expected one of: float16, float32, bfloat16"):
        run("Sqrt", [np.array([4], I32)], [(I32, (1,))])


def test_unary_infer_shape_keeps_shape_and_dtype(infer):
    (out,) = infer("Tanh", [(F16, (2, -1))])
    assert (out.dtype, out.shape, out.shape_range) == (1, (2, -1), ((2, 2), (0, -1)))


def test_exp_with_scale_and_shift_in_fp16_rounds_only_the_result(run):
    # t = 0.3 * 6.00390625 = 1.8011719 (fp32) would round to 1.80078125 in fp16; exp of the fp32 t is 6.0586 in
    # fp16 (6.06), exp of the rounded t is 6.0547 (6.055), so per-op rounding of the argument shows.
    (y,) = run("Exp", [np.array([6.00390625], F16)], [(F16, (1,))], {"scale": 0.3})
    assert y.tolist() == [6.05859375]
