"""Comparison, logic, bit and Select references against hand-computed values: NaN and signed zero in comparisons,
two's complement bit patterns, shift counts beyond the width (clamped) and negative, Select's condition shapes."""


import numpy as np
import pytest

from aclcts.core.prototypes import prototype
from aclcts.reference import reference

F16, F32, F64, I8, I32, I64, U8, U16, U64 = (np.float16, np.float32, np.float64, np.int8, np.int32, np.int64, np.uint8,
                                             np.uint16, np.uint64)


def run(op, inputs, out):
    """The reference's only output."""
    (y,) = reference(op).compute([np.asarray(x) for x in inputs], {}, [out])
    return y


NAN = np.nan


@pytest.mark.parametrize(("op", "expected"), [
    ("LessEqual", [True, True, False, False, False, False, True]),
    ("GreaterEqual", [True, False, True, False, False, False, True]),
    ("NotEqual", [False, True, True, True, True, True, False]),
])
def test_comparisons_with_ties_nan_and_signed_zero(op, expected):
    a = np.array([1, 1, 2, NAN, 1, NAN, -0.0], F16)
    b = np.array([1, 2, 1, 1, NAN, NAN, 0.0], F16)
    y = run(op, [a, b], np.bool_)
    assert y.dtype == np.bool_ and y.tolist() == expected


def test_comparisons_of_64_bit_integers_are_exact():
    a, b = np.array([2**63 - 1, -2**63], I64), np.array([2**63 - 2, -2**63 + 1], I64)
    assert run("LessEqual", [a, b], np.bool_).tolist() == [False, True]
    big = np.array([2**64 - 1], U64)
    assert run("GreaterEqual", [big, np.array([2**64 - 2], U64)], np.bool_).tolist() == [True]
    assert run("NotEqual", [big, np.array([2**64 - 2], U64)], np.bool_).tolist() == [True]


def test_logical_or_and_not_truth_tables():
    a, b = np.array([False, False, True, True]), np.array([False, True, False, True])
    assert run("LogicalOr", [a, b], np.bool_).tolist() == [False, True, True, True]
    assert run("LogicalNot", [a], np.bool_).tolist() == [True, True, False, False]


def test_bitwise_ops_on_twos_complement_patterns():
    a, b = np.array([-1, 12, -128], I8), np.array([85, 10, 127], I8)
    assert run("BitwiseAnd", [a, b], I8).tolist() == [85, 8, 0]
    assert run("BitwiseOr", [a, b], I8).tolist() == [-1, 14, -1]
    assert run("BitwiseXor", [a, b], I8).tolist() == [-86, 6, -1]
    assert run("BitwiseXor", [np.array([0xF0F0], U16), np.array([0xFFFF], U16)], U16).tolist() == [0x0F0F]


def test_invert_flips_every_bit():
    assert run("Invert", [np.array([0, -1, 5, -128], I8)], I8).tolist() == [-1, 0, -6, 127]
    assert run("Invert", [np.array([0, 255, 15], U8)], U8).tolist() == [255, 0, 240]
    assert run("Invert", [np.array([0], U64)], U64).tolist() == [2**64 - 1]


@pytest.mark.parametrize("dtype", [I8, np.dtype(np.int64), U8, U64])
def test_bit_ops_of_rank_0_tensors_give_rank_0_results(dtype):
    x = np.array(-6 if np.dtype(dtype).kind == "i" else 6, dtype)
    assert run("Invert", [x], dtype).shape == ()
    assert run("Invert", [x], dtype) == ~x
    assert run("BitwiseAnd", [x, np.array(3, dtype)], dtype) == (x & 3)


def test_left_shift_drops_bits_and_clamps_the_count():
    x, y = np.array([1, 1, 1, 3, 5, -1], I8), np.array([3, 7, 100, 7, -2, 8], I8)
    assert run("LeftShift", [x, y], I8).tolist() == [8, -128, -128, -128, 5, -128]
    assert run("LeftShift", [np.array([1], I32), np.array([31], I32)], I32).tolist() == [-2**31]


def test_right_shift_is_arithmetic_for_signed_and_logical_for_unsigned():
    x, y = np.array([-128, -1, 64, -7, 5], I8), np.array([7, 100, 1, 1, -1], I8)
    assert run("RightShift", [x, y], I8).tolist() == [-1, -1, 32, -4, 5]
    assert run("RightShift", [np.array([128, 255, 255], U8), np.array([7, 200, 3], U8)], U8).tolist() == [1, 1, 31]


INTEGERS = (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64)


def _by_python_ints(op: str, x: int, count: int, width: int, signed: bool) -> int:
    """One element of a bit op by its definition on Python ints: the pattern x mod 2**width, shifts clamped."""
    span, pattern, other = 2 ** width, x % 2 ** width, count % 2 ** width
    shift = min(max(count, 0), width - 1)
    result = {"BitwiseAnd": pattern & other, "BitwiseOr": pattern | other, "BitwiseXor": pattern ^ other,
              "Invert": span - 1 - pattern, "LeftShift": (pattern << shift) % span, "RightShift": x >> shift}[op]
    result %= span
    return result - span if signed and result >= span // 2 else result


@pytest.mark.parametrize("dtype", INTEGERS)
@pytest.mark.parametrize("op", ["BitwiseAnd", "BitwiseOr", "BitwiseXor", "Invert", "LeftShift", "RightShift"])
def test_bit_ops_match_their_definition_on_python_ints_at_the_extremes_and_every_shift_count(op, dtype):
    info, width = np.iinfo(dtype), 8 * np.dtype(dtype).itemsize
    extremes = [info.min, info.min + 1, -1 if info.min else 1, 0, 1, info.max // 2, info.max // 2 + 1, info.max - 1,
                info.max]
    counts = sorted({c for c in (-width, -1, 0, 1, width // 2, width - 1, width, width + 1, 2 * width, info.max)
                     if info.min <= c <= info.max})
    x = np.array([v for v in extremes for _ in counts], dtype)
    y = np.array(counts * len(extremes), dtype)
    got = run(op, [x] if op == "Invert" else [x, y], dtype)
    signed = info.min < 0
    assert got.dtype == dtype
    assert got.tolist() == [_by_python_ints(op, int(a), int(c), width, signed) for a, c in zip(x, y)]


def test_shift_output_is_named_z():
    assert prototype("LeftShift").output_names() == ("z",) and prototype("RightShift").input_names() == ("x", "y")


def test_select_with_full_scalar_and_row_conditions():
    x1, x2 = np.arange(6, dtype=F32).reshape(2, 3), -np.arange(6, dtype=F32).reshape(2, 3) - 1
    full = np.array([[True, False, True], [False, True, False]])
    assert run("Select", [full, x1, x2], F32).tolist() == [[0, -2, 2], [-4, 4, -6]]
    assert run("Select", [np.array(False), x1, x2], F32).tolist() == x2.tolist()
    assert run("Select", [np.array([False, True]), x1, x2], F32).tolist() == [[-1, -2, -3], [3, 4, 5]]


def test_select_copies_nan_payloads_and_signed_zeros_bit_for_bit():
    x1 = np.array([-0.0, 1.0], F32)
    x2 = np.array([1.0, 2.0], F32)
    x2[1] = np.frombuffer(np.uint32(0x7FC00123).tobytes(), F32)[0]
    y = run("Select", [np.array([True, False]), x1, x2], F32)
    assert y.view(np.uint32).tolist() == [0x80000000, 0x7FC00123]


def test_select_shapes():
    assert reference("Select").shape([(4,), (4, 3), (4, 3)], [], {}) == [(4, 3)]
    with pytest.raises(ValueError, match="Select"):
        reference("Select").shape([(3,), (4, 3), (4, 3)], [], {})
    with pytest.raises(ValueError, match="Select"):
        reference("Select").shape([(4, 3), (4, 3), (4, 1)], [], {})
