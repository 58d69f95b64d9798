"""Elementwise binaries and AddN: hand-computed results, broadcasting, fp16 per-op rounding, integer wrap, errors."""

import ml_dtypes
import numpy as np
import pytest

from aclcts.sim.kernels import KernelError

F16, F32, I32 = np.float16, np.float32, np.int32


@pytest.mark.parametrize(
    ("op_type", "a", "b", "expected"),
    [
        ("Add", [1.5, -2.0], [0.25, 2.0], [1.75, 0.0]),
        ("Sub", [1.5, -2.0], [0.25, 2.0], [1.25, -4.0]),
        ("Mul", [1.5, -2.0], [0.25, 2.0], [0.375, -4.0]),
        ("RealDiv", [1.5, -2.0], [0.25, 8.0], [6.0, -0.25]),
        ("Maximum", [1.5, -2.0], [0.25, 2.0], [1.5, 2.0]),
        ("Minimum", [1.5, -2.0], [0.25, 2.0], [0.25, -2.0]),
        ("Pow", [2.0, 9.0], [3.0, 0.5], [8.0, 3.0]),
    ],
)
def test_float32_binary_ops_on_exact_values(run, op_type, a, b, expected):
    (y,) = run(op_type, [np.array(a, F32), np.array(b, F32)], [(F32, (2,))])
    assert y.dtype == F32
    assert y.tolist() == expected


@pytest.mark.parametrize(
    ("op_type", "expected"),
    [("Equal", [False, True, False]), ("Less", [True, False, False]), ("Greater", [False, False, True])],
)
def test_comparisons_give_bool(run, op_type, expected):
    a, b = np.array([1, 2, 3], I32), np.array([2, 2, 2], I32)
    (y,) = run(op_type, [a, b], [(np.bool_, (3,))])
    assert y.dtype == np.bool_
    assert y.tolist() == expected


def test_logical_and(run):
    a, b = np.array([True, True, False, False]), np.array([True, False, True, False])
    (y,) = run("LogicalAnd", [a, b], [(np.bool_, (4,))])
    assert y.tolist() == [True, False, False, False]


def test_broadcasting_follows_numpy_rules(run):
    a = np.array([[1], [2], [3]], I32)  # [3, 1]
    b = np.array([10, 20], I32)  # [2]
    (y,) = run("Add", [a, b], [(I32, (3, 2))])
    assert y.tolist() == [[11, 21], [12, 22], [13, 23]]


def test_int32_add_wraps_around(run):
    (y,) = run("Add", [np.array([2**31 - 1, -(2**31)], I32), np.array([1, -1], I32)], [(I32, (2,))])
    assert y.tolist() == [-(2**31), 2**31 - 1]


def test_int8_mul_wraps_around(run):
    (y,) = run("Mul", [np.array([100, -128], np.int8), np.array([3, -1], np.int8)], [(np.int8, (2,))])
    assert y.tolist() == [44, -128]  # 300 - 256; -128 * -1 = 128 wraps to -128


def test_integer_realdiv_truncates_toward_zero(run):
    (y,) = run("RealDiv", [np.array([7, -7, 7, 5], I32), np.array([2, 2, -2, 0], I32)], [(I32, (4,))])
    assert y.tolist() == [3, -3, -3, 0]


def test_integer_pow_with_negative_exponent(run):
    (y,) = run("Pow", [np.array([2, -1, 1, 3], I32), np.array([-1, -3, -5, 3], I32)], [(I32, (4,))])
    assert y.tolist() == [0, -1, 1, 27]


def test_bool_add_is_logical_or(run):
    (y,) = run("Add", [np.array([True, False, False]), np.array([True, True, False])], [(np.bool_, (3,))])
    assert y.tolist() == [True, True, False]


def test_fp16_add_rounds_ties_to_even(run):
    # 2048 + 1 = 2049 lies halfway between the fp16 neighbours 2048 and 2050: the even one (2048) wins;
    # 2050 + 1 = 2051 lies between 2050 and 2052: 2052 has the even significand.
    (y,) = run("Add", [np.array([2048, 2050], F16), np.array([1, 1], F16)], [(F16, (2,))])
    assert y.tolist() == [2048.0, 2052.0]


def test_bf16_mul_rounds_to_bf16(run):
    bf16 = ml_dtypes.bfloat16
    # (1 + 2^-7) * (1 + 2^-7) = 1 + 2^-6 + 2^-14; bf16 keeps 7 fraction bits, so 2^-14 is dropped.
    x = np.array([1 + 2**-7], bf16)
    (y,) = run("Mul", [x, x], [(bf16, (1,))])
    assert y.dtype == np.dtype(bf16)
    assert float(y[0]) == 1 + 2**-6


def test_addn_accumulates_fp16_in_fp32_and_rounds_once(run):
    # In fp32: 2048 + 1 + 1 = 2050, exact in fp16. Rounding after each addition would give 2048 (two ties to even).
    xs = [np.array([2048], F16), np.array([1], F16), np.array([1], F16)]
    (y,) = run("AddN", xs, [(F16, (1,))], {"N": 3})
    assert y.tolist() == [2050.0]


def test_addn_int32_sum_and_wrap(run):
    xs = [np.array([1, 2**31 - 1], I32), np.array([2, 1], I32), np.array([3, 0], I32)]
    (y,) = run("AddN", xs, [(I32, (2,))], {"N": 3})
    assert y.tolist() == [6, -(2**31)]


def test_addn_attr_n_must_match_the_inputs(run):
    with pytest.raises(KernelError, match=r"AddN: attr 'N' is 2, but 3 dynamic inputs 'x' were given"):
        run("AddN", [np.zeros(1, F32)] * 3, [(F32, (1,))], {"N": 2})


def test_mismatched_input_dtypes_are_rejected(run):
    with pytest.raises(KernelError, match=r"Sub: input 'x2' has dtype int32, expected float32 \(the dtype of 'x1'\)"):
        run("Sub", [np.zeros(2, F32), np.zeros(2, I32)], [(F32, (2,))])


def test_unsupported_dtype_is_rejected_with_the_prototype_types(run):
    with pytest.raises(KernelError, match=r"LogicalAnd: input 'x1' has dtype int32, expected one of: bool"):
        run("LogicalAnd", [np.zeros(2, I32), np.zeros(2, I32)], [(np.bool_, (2,))])


def test_incompatible_shapes_are_rejected(run):
    with pytest.raises(KernelError, match=r"Mul: inputs cannot be broadcast together: 'x1' \[2, 3\], 'x2' \[4\]"):
        run("Mul", [np.zeros((2, 3), F32), np.zeros(4, F32)], [(F32, (2, 3))])


def test_wrong_output_dtype_is_rejected(run):
    with pytest.raises(KernelError, match=r"Add: output 'y' has dtype float32, expected float16 \(same as input 'x1'\)"):
        run("Add", [np.zeros(2, F16), np.zeros(2, F16)], [(F32, (2,))])


def test_an_output_shape_too_small_for_the_result_is_rejected(run):
    with pytest.raises(KernelError, match=r"Add: output 'y' was given shape \[1\], but the inputs give \[2\]"):
        run("Add", [np.zeros(2, F32), np.zeros(2, F32)], [(F32, (1,))])


def test_a_maximum_output_shape_gets_the_real_result_shape(run):
    # dynamic models pass the caller's maximum shape; the runtime writes the real dims back
    (y,) = run("Add", [np.ones((2, 3), F32), np.ones((2, 3), F32)], [(F32, (4, 3))])
    assert y.shape == (2, 3) and y.tolist() == [[2, 2, 2], [2, 2, 2]]


def test_comparison_output_must_be_bool(run):
    with pytest.raises(KernelError, match=r"Less: output 'y' has dtype float32, expected bool"):
        run("Less", [np.zeros(2, F32), np.zeros(2, F32)], [(F32, (2,))])


def test_missing_input_is_reported(run):
    with pytest.raises(KernelError, match=r"Add: input 1 'x2' is required but was not given"):
        run("Add", [np.zeros(2, F32), None], [(F32, (2,))])


def test_binary_infer_shape_broadcasts_and_keeps_unknown_dims(infer):
    (out,) = infer("Add", [(F16, (4, 1, 3)), (F16, (5, 1))])
    assert (out.dtype, out.shape, out.shape_range) == (1, (4, 5, 3), ((4, 4), (5, 5), (3, 3)))
    (out,) = infer("Mul", [(F32, (-1, 3)), (F32, (1, 3))])
    assert out.shape == (-1, 3) and out.shape_range == ((0, -1), (3, 3))
    (out,) = infer("Greater", [(F32, (2,)), (F32, (2,))])
    assert out.dtype == 12  # ACL_BOOL


def test_addn_infer_shape(infer):
    (out,) = infer("AddN", [(I32, (2, 3))] * 2, attrs={"N": 2})
    assert out.shape == (2, 3) and out.dtype == 3


def test_addn_infer_shape_takes_a_known_dim_of_any_input(infer):
    """CANN's AddN case test_AddN_0001 (x0 [5], x1 [-1], x2 [5]) infers y [5], as AddNInferShape does."""
    (out,) = infer("AddN", [(F16, (5,)), (F16, (-1,)), (F16, (5,))], attrs={"N": 3})
    assert out.shape == (5,)
    (out,) = infer("AddN", [(F16, (-1, 3)), (F16, (-2,)), (F16, (4, -1))], attrs={"N": 3})
    assert out.shape == (4, 3)
    (out,) = infer("AddN", [(F16, (-1,)), (F16, (-1,))], attrs={"N": 2})
    assert out.shape == (-1,) and out.shape_range == ((0, -1),)
    (out,) = infer("AddN", [(F16, (-2,))] * 2, attrs={"N": 2})
    assert out.shape == (-2,)


def test_addn_infer_shape_refuses_known_dims_that_differ(infer):
    with pytest.raises(KernelError, match=r"AddN: input 'x\[2\]' has shape \[4, 2\], which does not match \[4, 3\]"):
        infer("AddN", [(F16, (-1, 3)), (F16, (4, -1)), (F16, (4, 2))], attrs={"N": 3})
    with pytest.raises(KernelError, match=r"AddN: input 'x\[1\]' has shape \[3\], which does not match \[3, -1\]"):
        infer("AddN", [(F16, (3, -1)), (F16, (3,))], attrs={"N": 2})


def test_integer_pow_at_the_extremes_of_the_exponent(run):
    x1 = np.array([2, -1, -1, 0, 0, 3], np.int32)
    x2 = np.array([-(2**31), -(2**31), -3, -1, 0, 2], np.int32)
    (y,) = run("Pow", [x1, x2], [(np.int32, (6,))])
    assert y.tolist() == [0, 1, -1, 2**31 - 1, 1, 9]  # 0 ** -1 saturates like an integer division by zero
