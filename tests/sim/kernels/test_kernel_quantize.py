"""Quantization kernels: AscendQuant's float16 steps, rounding modes and saturation, AscendDequant's deq_scale
layouts, the FakeQuant ops' nudged range and gradient sums, and bad inputs refused in one line."""

from __future__ import annotations

import numpy as np
import pytest

from aclcts.sim import seams
from aclcts.sim.faults import quantize as faults
from aclcts.sim.kernels import KernelError

F16, F32, I8 = np.float16, np.float32, np.int8
TIES = np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 127.5, -128.5, 1000.0], F16)


@pytest.mark.parametrize(("mode", "expected"), [
    ("Round", [-2, -2, 0, 0, 2, 2, 127, -128, 127]),
    ("Floor", [-3, -2, -1, 0, 1, 2, 127, -128, 127]),
    ("Ceil", [-2, -1, 0, 1, 2, 3, 127, -128, 127]),
    ("Trunc", [-2, -1, 0, 0, 1, 2, 127, -128, 127]),
])
def test_ascend_quant_round_modes_and_saturation(run, mode, expected):
    (y,) = run("AscendQuant", [TIES], [(I8, TIES.shape)], {"scale": 1.0, "offset": 0.0, "round_mode": mode})
    assert y.dtype == I8 and y.tolist() == expected


def test_ascend_quant_computes_in_float16(run):
    # float32 604.7 is float16 604.5; minus 540 gives the tie 64.5, rounded to even
    (y,) = run("AscendQuant", [np.array([604.7], F32)], [(I8, (1,))], {"scale": 1.0, "offset": -540.0})
    assert y.tolist() == [64]
    # sqrt_mode applies the scale twice: 6 * 0.5 * 0.5 = 1.5 -> 2
    (y,) = run("AscendQuant", [np.array([6.0], F16)], [(I8, (1,))], {"scale": 0.5, "offset": 0.0, "sqrt_mode": True})
    assert y.tolist() == [2]


def test_ascend_quant_half_up_fault_moves_even_ties_only(run):
    seams.install({"quantize round to nearest": [faults.half_up]})
    try:
        (y,) = run("AscendQuant", [TIES], [(I8, TIES.shape)], {"scale": 1.0, "offset": 0.0})
    finally:
        seams.install({})
    assert y.tolist() == [-2, -1, 0, 1, 2, 3, 127, -128, 127]


def test_ascend_quant_refuses_an_unknown_round_mode_and_int4(run):
    with pytest.raises(KernelError, match="round_mode' must be one of Round, Floor, Ceil, Trunc"):
        run("AscendQuant", [TIES], [(I8, TIES.shape)], {"scale": 1.0, "offset": 0.0, "round_mode": "Nearest"})
    with pytest.raises(KernelError, match="dst_type' 29 is not simulated"):
        run("AscendQuant", [TIES], [(I8, TIES.shape)], {"scale": 1.0, "offset": 0.0, "dst_type": 29})


def test_ascend_dequant_float16_and_uint64_scales(run):
    x = np.array([[-8, 12]], np.int32)
    (y,) = run("AscendDequant", [x, np.array([[0.5]], F16)], [(F16, (1, 2))], {"dtype": 1, "relu_flag": True})
    assert y.tolist() == [[0.0, 6.0]]
    packed = np.array([0.25], F32).view(np.uint32).astype(np.uint64) | np.uint64(1 << 46)
    (y,) = run("AscendDequant", [x, packed], [(F32, (1, 2))])
    assert y.tolist() == [[-2.0, 3.0]]
    with pytest.raises(KernelError, match="sqrt_mode' must be false with a uint64"):
        run("AscendDequant", [x, packed], [(F32, (1, 2))], {"sqrt_mode": True})
    with pytest.raises(KernelError, match="output 'y' has dtype float32, expected float16"):
        run("AscendDequant", [x, np.array([[0.5]], F16)], [(F32, (1, 2))], {"dtype": 1})
    with pytest.raises(KernelError, match=r"'deq_scale' \[3\] must broadcast to 'x' \[1, 2\]"):
        run("AscendDequant", [x, np.ones(3, F16)], [(F16, (1, 2))], {"dtype": 1})


def test_fake_quant_vars_per_channel_and_gradient_sums(run):
    x = np.array([[-9.0, 0.3], [0.3, 9.0]], F32)
    low, high = np.array([-1.0, -2.0], F32), np.array([1.0, 2.0], F32)
    (y,) = run("FakeQuantWithMinMaxVarsPerChannel", [x, low, high], [(F32, (2, 2))], {"num_bits": 2})
    # both channels: zero point 1.5 nudged to 2; channel 0 step 2/3, levels -4/3 .. 2/3; channel 1 step 4/3,
    # levels -8/3 .. 4/3
    np.testing.assert_allclose(y, [[-4 / 3, 0.0], [0.0, 4 / 3]], rtol=1e-6)
    gradients = np.array([[1.0, 2.0], [4.0, 8.0]], F32)
    wrt_x, wrt_min, wrt_max = run("FakeQuantWithMinMaxVarsPerChannelGradient", [gradients, x, low, high],
                                  [(F32, (2, 2)), (F32, (2,)), (F32, (2,))])
    assert wrt_x.tolist() == [[0.0, 2.0], [4.0, 0.0]] and wrt_min.tolist() == [1.0, 0.0]
    assert wrt_max.tolist() == [0.0, 8.0]


def test_fake_quant_refuses_a_bad_range_shape_and_num_bits(run):
    x = np.zeros((2, 3), F32)
    with pytest.raises(KernelError, match=r"input 'min' must hold shape \[3\] \(the last dim of x\), got shape \[2\]"):
        run("FakeQuantWithMinMaxVarsPerChannel", [x, np.zeros(2, F32), np.ones(2, F32)], [(F32, (2, 3))])
    with pytest.raises(KernelError, match=r"input 'max' must hold one value, got shape \[2\]"):
        run("FakeQuantWithMinMaxVars", [x, np.zeros(1, F32), np.ones(2, F32)], [(F32, (2, 3))])
    with pytest.raises(KernelError, match=r"num_bits' must be in \[2, 16\], got 17"):
        run("FakeQuantWithMinMaxArgs", [x], [(F32, (2, 3))], {"num_bits": 17})
