"""SoftmaxV2: results on exact cases, the axes and half_to_float attributes, fp32 internal computation."""

import math

import numpy as np
import pytest

from aclcts.sim.kernels import KernelError

F16, F32 = np.float16, np.float32


def test_softmax_on_the_last_axis_by_default(run):
    x = np.array([[0.0, 0.0], [1.0, 1.0]], F32)
    (y,) = run("SoftmaxV2", [x], [(F32, (2, 2))])
    assert y.tolist() == [[0.5, 0.5], [0.5, 0.5]]


def test_softmax_two_to_one(run):
    # exp(ln 3) / (exp(0) + exp(ln 3)) = 3/4
    x = np.array([0.0, math.log(3.0)], F32)
    (y,) = run("SoftmaxV2", [x], [(F32, (2,))])
    assert y.tolist() == pytest.approx([0.25, 0.75], rel=1e-6)


def test_softmax_over_a_chosen_axis(run):
    x = np.array([[0.0, 5.0], [0.0, 5.0]], F32)
    (y,) = run("SoftmaxV2", [x], [(F32, (2, 2))], {"axes": [0]})
    assert y.tolist() == [[0.5, 0.5], [0.5, 0.5]]


def test_softmax_over_two_axes(run):
    (y,) = run("SoftmaxV2", [np.zeros((2, 2), F16)], [(F16, (2, 2))], {"axes": [0, 1]})
    assert y.tolist() == [[0.25, 0.25], [0.25, 0.25]]


def test_softmax_is_shift_invariant_even_for_large_values(run):
    x = np.array([1000.0, 1000.0], F32)  # exp(1000) overflows unless the maximum is subtracted first
    (y,) = run("SoftmaxV2", [x], [(F32, (2,))])
    assert y.tolist() == [0.5, 0.5]


def test_half_to_float_gives_float32_for_fp16(run):
    (y,) = run("SoftmaxV2", [np.zeros(4, F16)], [(F32, (4,))], {"half_to_float": True})
    assert y.dtype == F32 and y.tolist() == [0.25] * 4


def test_fp16_output_dtype_is_checked(run):
    with pytest.raises(KernelError, match=r"SoftmaxV2: output 'y' has dtype float32, expected float16"):
        run("SoftmaxV2", [np.zeros(4, F16)], [(F32, (4,))])


def test_axes_out_of_range(run):
    with pytest.raises(KernelError, match=r"SoftmaxV2: attr 'axes' value 3 is out of range for a rank-2 input"):
        run("SoftmaxV2", [np.zeros((2, 2), F32)], [(F32, (2, 2))], {"axes": [3]})


def test_softmax_infer_shape(infer):
    (out,) = infer("SoftmaxV2", [(F16, (2, -1))], attrs={"half_to_float": True})
    assert (out.dtype, out.shape) == (0, (2, -1))
