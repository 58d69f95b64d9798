"""Hand checks of stored golden edge cases (issue 26): the values a person works out, independent of the reference."""

import math
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from aclcts.judge import golden

REPO_GOLDEN = Path(__file__).resolve().parents[2] / "golden"
F32, F16, BF16 = np.float32, np.float16, np.dtype(ml_dtypes.bfloat16)
T = 2.0  # powers of two below are written T ** -149 and so on


def expected(name: str, output: str = "y") -> np.ndarray:
    """The stored expected output of one golden case."""
    return golden.load_expected(REPO_GOLDEN, name)[f"expected_{output}"]


def bits(values, dtype) -> bytes:
    """The bytes of values in dtype, so that zeros compare with their sign."""
    return np.array(values, dtype=np.float64).astype(dtype).tobytes()


def test_float32_subnormal_sums_and_products():
    assert expected("add_float32_subnormals").tobytes() == bits(
        [T ** -148, T ** -149, T ** -126, T ** -126 - T ** -149, 0.0, T ** -149, 1.0], F32)
    assert expected("mul_float32_subnormals").tobytes() == bits(
        [T ** -149, T ** -130, T ** -119, 3 * T ** -149, T ** -127, -0.0, T ** -148], F32)


def test_bfloat16_subnormals_round_to_nearest_even():
    assert expected("mul_bfloat16_subnormals").tobytes() == bits(
        [T ** -133, T ** -130, T ** -132, T ** -127, 0.0, -(T ** -120)], BF16)
    assert expected("cast_float32_to_bfloat16_subnormals").tobytes() == bits(
        [T ** -133, T ** -132, 0.0, T ** -133, T ** -126, -(T ** -130), 0.0, 1.0], BF16)


def test_int8_dot_products_beyond_2_24():
    # row (-128 x 1087, 1) with itself: 16384 * 1087 + 1; with (127 x 1087, -128): -16256 * 1087 - 128 ...
    top = [16384 * 1087 + 1, -16256 * 1087 - 128, 16256 * 1087 - 127, -16129 * 1087 + 16256]
    assert expected("matmulv2_int8_dot_products_beyond_2_24").reshape(-1).tolist() == top
    assert expected("batchmatmulv2_int8_dot_products_beyond_2_24").reshape(-1).tolist() == [top[0], top[3]]
    assert all(abs(v) > 2 ** 24 and v % 2 for v in (top[0], top[2], top[3]))


def wrap32(value: int) -> int:
    """value in int32 two's complement."""
    return (value + 2 ** 31) % 2 ** 32 - 2 ** 31


def test_int32_accumulator_results_near_2_31_wrap():
    bias = [2129800000, -2129900001]
    dots = [16384 * 1087 + 1, -16256 * 1087 - 128, 16256 * 1087 - 127, -16129 * 1087 + 16256]
    sums = [dots[0] + bias[0], dots[1] + bias[1], dots[2] + bias[0], dots[3] + bias[1]]
    assert expected("matmulv2_int8_int32_bias_wraps_near_2_31").reshape(-1).tolist() == [wrap32(s) for s in sums]
    products = [46341 ** 2 + 3, 46341 * 46340 - 1, 46340 * 46341 + 21, 46340 ** 2 - 7, -46341 ** 2 + 3,
                -46341 * 46340 - 1]
    assert expected("matmul_int32_products_near_2_31").reshape(-1).tolist() == [wrap32(p) for p in products]


def test_softmax_rows_by_hand():
    y = expected("softmax_v2_float32_large_logits").astype(np.float64).reshape(5, 4)
    e = [1.0, math.exp(-1), math.exp(-2)]
    assert y[0, :3].tolist() == pytest.approx([v / sum(e) for v in e], rel=1e-6) and y[0, 3] == 0.0
    assert y[1, :2].tolist() == [0.5, 0.5]
    assert y[2].tolist() == pytest.approx([0.0, 1 / (1 + math.e), math.e / (1 + math.e), 0.0], rel=1e-6)
    assert y[3].tolist() == [0.25] * 4


def test_log_softmax_rows_by_hand():
    y = expected("log_softmax_v2_float16_large_logits", "logsoftmax").astype(np.float64).reshape(5, 4)
    top = -math.log(1.0 + 2.0 / math.e + math.exp(-2.0))  # the row 11, 11, 10, 12 shifted by its maximum 12
    assert y[0].tolist() == [F16(top - 1.0), F16(top - 1.0), F16(top - 2.0), F16(top)]
    assert y[1, 1:].tolist() == [-32.0, -60000.0, -math.inf]
    assert y[3].tolist() == [F16(-math.log(4.0))] * 4


def test_cast_float_to_int_boundaries_truncate_saturate_and_zero_nan():
    assert expected("cast_float32_to_int8_boundaries").tolist() == [
        127, 127, -128, -128, 127, -128, 0, 0, 2, -2, 1, 0, 127, -128, 127, -128]
    assert expected("cast_float32_to_int64_boundaries").tolist() == [
        2 ** 63 - 2 ** 39, 2 ** 63 - 1, -2 ** 63, -2 ** 63, 2, -2, 0, 2 ** 63 - 1, -2 ** 63]
    assert expected("cast_float16_to_int16_boundaries").tolist() == [
        32752, 32767, -32768, -32768, 32767, 32767, -32768, 0, 2, 0]


def test_cast_int_to_int_keeps_the_low_bits():
    assert expected("cast_int32_to_int8_wraps").tolist() == [127, -128, -128, 127, -1, 0, 0, 127, 1]
    assert expected("cast_int64_to_int32_wraps").tolist() == [2 ** 31 - 1, -2 ** 31, -2 ** 31, 2 ** 31 - 1, 5, 0,
                                                               -1024]
