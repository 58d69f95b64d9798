"""Comparison, logic, bit and Select kernels: IEEE comparisons on fp16/bf16, bit ops in the integer type, clamped
shift counts, arithmetic right shifts, Select's condition shapes and bit-exact copies, errors and infer_shape."""

import ml_dtypes
import numpy as np
import pytest

from aclcts.sim.kernels import KernelError

F16, F32, I8, I32, I64, U8, U32 = np.float16, np.float32, np.int8, np.int32, np.int64, np.uint8, np.uint32
BF16 = ml_dtypes.bfloat16
B = np.bool_


@pytest.mark.parametrize("dtype", [F16, BF16, F32])
@pytest.mark.parametrize(("op", "expected"), [
    ("LessEqual", [True, True, False, False, False, True]),
    ("GreaterEqual", [True, False, True, False, False, True]),
    ("NotEqual", [False, True, True, True, True, False]),
])
def test_comparisons_nan_and_signed_zero(run, op, expected, dtype):
    a = np.array([1, 1, 2, np.nan, 1, -0.0], dtype)
    b = np.array([1, 2, 1, 1, np.nan, 0.0], dtype)
    (y,) = run(op, [a, b], [(B, (6,))])
    assert y.dtype == B and y.tolist() == expected


def test_comparison_of_int64_neighbours_is_exact(run):
    (y,) = run("LessEqual", [np.array([2**62 + 1], I64), np.array([2**62], I64)], [(B, (1,))])
    assert y.tolist() == [False]


def test_comparison_broadcasts(run):
    (y,) = run("GreaterEqual", [np.array([[1], [3]], I32), np.array([1, 2, 3], I32)], [(B, (2, 3))])
    assert y.tolist() == [[True, False, False], [True, True, True]]


def test_logical_or_and_not(run):
    a, b = np.array([False, False, True, True]), np.array([False, True, False, True])
    assert run("LogicalOr", [a, b], [(B, (4,))])[0].tolist() == [False, True, True, True]
    assert run("LogicalNot", [a], [(B, (4,))])[0].tolist() == [True, True, False, False]


def test_bitwise_ops_and_invert(run):
    a, b = np.array([-1, 12, -128], I8), np.array([85, 10, 127], I8)
    assert run("BitwiseAnd", [a, b], [(I8, (3,))])[0].tolist() == [85, 8, 0]
    assert run("BitwiseOr", [a, b], [(I8, (3,))])[0].tolist() == [-1, 14, -1]
    assert run("BitwiseXor", [a, b], [(I8, (3,))])[0].tolist() == [-86, 6, -1]
    assert run("Invert", [np.array([0, 255], U8)], [(U8, (2,))])[0].tolist() == [255, 0]


def test_left_shift_clamps_counts_and_drops_bits(run):
    x, y = np.array([1, 1, 3, 5], I8), np.array([7, 100, 7, -2], I8)
    (z,) = run("LeftShift", [x, y], [(I8, (4,))])
    assert z.tolist() == [-128, -128, -128, 5]


def test_right_shift_arithmetic_for_signed_logical_for_unsigned(run):
    (z,) = run("RightShift", [np.array([-128, -1, -7], I8), np.array([7, 100, 1], I8)], [(I8, (3,))])
    assert z.tolist() == [-1, -1, -4]
    (z,) = run("RightShift", [np.array([2**31, 2**32 - 1], U32), np.array([31, 4000], U32)], [(U32, (2,))])
    assert z.tolist() == [1, 1]


def test_shift_names_its_inputs_x_and_y(run):
    with pytest.raises(KernelError, match="RightShift: input 'y' has dtype int8, expected int32"):
        run("RightShift", [np.array([1], I32), np.array([1], I8)], [(I32, (1,))])


def test_select_conditions(run):
    x1, x2 = np.arange(6, dtype=F32).reshape(2, 3), -np.arange(1, 7, dtype=F32).reshape(2, 3)
    full = np.array([[True, False, True], [False, True, False]])
    assert run("Select", [full, x1, x2], [(F32, (2, 3))])[0].tolist() == [[0, -2, 2], [-4, 4, -6]]
    assert run("Select", [np.array(True), x1, x2], [(F32, (2, 3))])[0].tolist() == x1.tolist()
    assert run("Select", [np.array([False, True]), x1, x2], [(F32, (2, 3))])[0].tolist() == [[-1, -2, -3], [3, 4, 5]]


def test_select_copies_bits(run):
    x1 = np.array([-0.0, 1.0], F16)
    x2 = np.array([0x7E01, 0x0001], np.uint16).view(F16)
    (y,) = run("Select", [np.array([True, False]), x1, x2], [(F16, (2,))])
    assert y.view(np.uint16).tolist() == [0x8000, 0x0001]
    (y,) = run("Select", [np.array([False, True]), x1, x2], [(F16, (2,))])
    assert y.view(np.uint16).tolist() == [0x7E01, 0x3C00]


def test_select_errors(run):
    x = np.zeros((4, 3), F32)
    with pytest.raises(KernelError, match="Select: input 'condition' has shape \\[3\\]"):
        run("Select", [np.array([True, False, True]), x, x], [(F32, (4, 3))])
    with pytest.raises(KernelError, match="must have the same shape"):
        run("Select", [np.array(True), x, np.zeros((4, 1), F32)], [(F32, (4, 3))])
    with pytest.raises(KernelError, match="input 'condition' has dtype int32, expected one of: bool"):
        run("Select", [np.ones((4, 3), I32), x, x], [(F32, (4, 3))])


def test_errors_name_the_op(run):
    with pytest.raises(KernelError, match="BitwiseAnd: input 'x1' has dtype float32"):
        run("BitwiseAnd", [np.zeros(1, F32), np.zeros(1, F32)], [(F32, (1,))])
    with pytest.raises(KernelError, match="LessEqual: output 'y' has dtype int32, expected bool"):
        run("LessEqual", [np.zeros(1, F32), np.zeros(1, F32)], [(I32, (1,))])
    with pytest.raises(KernelError, match="LogicalOr: input 'x1' has dtype int8"):
        run("LogicalOr", [np.zeros(1, I8), np.zeros(1, I8)], [(B, (1,))])


def test_infer_shape(infer):
    (shape,) = infer("NotEqual", [(F32, (-1, 1)), (F32, (5,))])
    assert shape.shape == (-1, 5)
    (shape,) = infer("Select", [(B, (-1,)), (F32, (-1, 3)), (F32, (4, -1))])
    assert shape.shape == (4, 3)
    (shape,) = infer("LeftShift", [(I32, (2, 3)), (I32, ())])
    assert shape.shape == (2, 3)


def test_every_int8_shift_against_python_shifts(run):
    x, y = (v.reshape(-1) for v in np.meshgrid(np.arange(-128, 128), np.arange(-128, 128)))
    (left,) = run("LeftShift", [x.astype(I8), y.astype(I8)], [(I8, x.shape)])
    (right,) = run("RightShift", [x.astype(I8), y.astype(I8)], [(I8, x.shape)])
    counts = [min(max(int(c), 0), 7) for c in y]
    assert left.tolist() == [((int(v) << c) + 128) % 256 - 128 for v, c in zip(x, counts)]
    assert right.tolist() == [int(v) >> c for v, c in zip(x, counts)]


def test_every_uint8_right_shift_is_logical(run):
    x, y = (v.reshape(-1) for v in np.meshgrid(np.arange(256), np.arange(256)))
    (z,) = run("RightShift", [x.astype(U8), y.astype(U8)], [(U8, x.shape)])
    assert z.tolist() == [int(v) >> min(int(c), 7) for v, c in zip(x, y)]
