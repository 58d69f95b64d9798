"""Quantization references against values worked out by hand: AscendQuant's rounding modes, ties and saturation,
AscendDequant's deq_scale layouts, TensorFlow's nudged fake quantization and its gradients."""

from __future__ import annotations

import numpy as np
import pytest

from aclcts.reference import reference

F16, F32, I8 = np.float16, np.float32, np.int8


def run(op, inputs, outs, attrs=None):
    return reference(op).compute([np.asarray(x) for x in inputs], attrs or {}, outs)


TIES = np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 0.25, 126.5, 127.5, -128.5, 300.0], F16)


@pytest.mark.parametrize(("mode", "expected"), [
    ("Round", [-2, -2, 0, 0, 2, 2, 0, 126, 127, -128, 127]),  # ties to even, saturating
    ("Floor", [-3, -2, -1, 0, 1, 2, 0, 126, 127, -128, 127]),
    ("Ceil", [-2, -1, 0, 1, 2, 3, 1, 127, 127, -128, 127]),
    ("Trunc", [-2, -1, 0, 0, 1, 2, 0, 126, 127, -128, 127]),
])
def test_ascend_quant_rounds_by_round_mode_and_saturates(mode, expected):
    (y,) = run("AscendQuant", [TIES], [I8], {"scale": 1.0, "offset": 0.0, "round_mode": mode})
    assert y.dtype == I8 and y.tolist() == expected


def test_ascend_quant_applies_scale_twice_in_sqrt_mode_and_then_the_offset():
    # 5 * 0.5 * 0.5 + 0.25 = 1.5, a tie rounded to 2; without sqrt_mode 5 * 0.5 + 0.25 = 2.75 -> 3
    x = np.array([5.0], F32)
    assert run("AscendQuant", [x], [I8], {"scale": 0.5, "offset": 0.25, "sqrt_mode": True})[0].tolist() == [2]
    assert run("AscendQuant", [x], [I8], {"scale": 0.5, "offset": 0.25})[0].tolist() == [3]


def test_ascend_quant_sees_a_float32_input_as_float16():
    # 600.3 is 600.5 in float16 (spacing 0.5 there), a tie rounded to even 600; read as float32 it would be 600 too,
    # but 600.7 (float16 600.5) gives 600 where float32 arithmetic gives 601; scale 1/8 then brings it in range
    x = np.array([600.7], F32)
    (y,) = run("AscendQuant", [x], [I8], {"scale": 0.125, "offset": 0.0})
    assert y.tolist() == [75]  # 600.5 / 8 = 75.0625 -> 75 (float32 600.7 / 8 = 75.09 -> 75 as well)
    (y,) = run("AscendQuant", [np.array([604.7], F32)], [I8], {"scale": 1.0, "offset": -540.0})
    assert y.tolist() == [64]  # float16 604.5 - 540 = 64.5, a tie to even 64; float32 604.7 - 540 would give 65


def test_ascend_dequant_reads_the_float32_scale_from_a_uint64_low_word():
    scale = np.array([0.25], F32).view(np.uint32).astype(np.uint64) | np.uint64(0x1FF << 37)  # upper bits set
    (y,) = run("AscendDequant", [np.array([-8, 12], np.int32), scale], [F32], {"dtype": 0})
    assert y.tolist() == [-2.0, 3.0]


def test_ascend_dequant_relu_and_sqrt_mode_with_a_float16_scale():
    x, scale = np.array([[-8, 12]], np.int32), np.array([[0.5]], F16)
    assert run("AscendDequant", [x, scale], [F16], {"dtype": 1, "relu_flag": True})[0].tolist() == [[0.0, 6.0]]
    assert run("AscendDequant", [x, scale], [F16], {"dtype": 1, "sqrt_mode": True})[0].tolist() == [[-2.0, 3.0]]


def test_fake_quant_nudges_the_range_so_zero_is_a_level():
    # [-0.2, 3.55] with 4 bits: step 0.25, zero point 0.8 nudged to 1 -> levels -0.25, 0, ..., 3.5; 0.3 -> 0.25,
    # 0.375 -> 0.5 (a tie, upwards), 9 clamps to 3.5, -1 to -0.25
    x = np.array([0.3, 0.375, 9.0, -1.0, 0.0])
    (y,) = run("FakeQuantWithMinMaxArgs", [x], [np.float64], {"min": -0.2, "max": 3.55, "num_bits": 4})
    np.testing.assert_allclose(y, [0.25, 0.5, 3.5, -0.25, 0.0], atol=1e-6)


def test_fake_quant_narrow_range_leaves_out_the_lowest_level():
    # narrow_range with 2 bits: levels 1..3, two steps over [0, 2] -> step 1, zero point 1 -> levels 0, 1, 2
    (y,) = run("FakeQuantWithMinMaxVars", [np.array([0.4, 0.6, 5.0]), [0.0], [2.0]], [np.float64],
               {"num_bits": 2, "narrow_range": True})
    assert y.tolist() == [0.0, 1.0, 2.0]


def test_fake_quant_gradient_passes_inside_and_sums_outside_per_channel():
    gradients = np.array([[1.0, 2.0], [4.0, 8.0], [16.0, 32.0]])
    x = np.array([[-9.0, 0.0], [0.0, 9.0], [9.0, -9.0]])
    wrt_x, wrt_min, wrt_max = run("FakeQuantWithMinMaxVarsPerChannelGradient",
                                  [gradients, x, [-1.0, -2.0], [1.0, 2.0]], [np.float64] * 3)
    assert wrt_x.tolist() == [[0.0, 2.0], [4.0, 0.0], [0.0, 0.0]]
    assert wrt_min.tolist() == [1.0, 32.0] and wrt_max.tolist() == [16.0, 8.0]
