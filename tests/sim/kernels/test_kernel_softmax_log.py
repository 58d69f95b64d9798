"""LogSoftmaxV2: hand-checked results, the axes attribute, max subtraction, fp32 internal computation, errors."""

import math

import ml_dtypes
import numpy as np
import pytest

from aclcts.sim.kernels import KernelError

F16, F32, BF16 = np.float16, np.float32, ml_dtypes.bfloat16


def test_default_axis_is_the_last(run):
    x = np.array([[0.0, 0.0], [0.0, math.log(3.0)]], F32)
    (y,) = run("LogSoftmaxV2", [x], [(F32, (2, 2))])
    assert y.reshape(-1).tolist() == pytest.approx([math.log(0.5)] * 2 + [math.log(0.25), math.log(0.75)], rel=1e-6)


def test_chosen_axis_and_two_axes(run):
    x = np.array([[0.0, 5.0], [0.0, 5.0]], F32)
    (y,) = run("LogSoftmaxV2", [x], [(F32, (2, 2))], {"axes": [0]})
    assert y.tolist() == [[F32(math.log(0.5))] * 2] * 2
    (z,) = run("LogSoftmaxV2", [np.zeros((2, 2), F32)], [(F32, (2, 2))], {"axes": [0, -1]})
    assert z.tolist() == [[F32(math.log(0.25))] * 2] * 2


def test_large_float32_logits_are_shifted_by_the_maximum(run):
    x = np.array([1.0e4, 1.0e4 - 1.0, 88.7, 1.0e4], F32)  # exp(1e4) and e^88.7 + e^88.7 overflow float32
    (y,) = run("LogSoftmaxV2", [x], [(F32, (4,))])
    assert np.isfinite(y).all() and y[0] == y[3] and y[1] == pytest.approx(y[0] - 1.0, abs=1e-6)


def test_float16_runs_in_float32_and_rounds_once(run):
    # exp(12) overflows float16 (65504); in float32 after the max shift the result is finite
    x = np.array([11.0, 11.0, 12.0], F16)
    (y,) = run("LogSoftmaxV2", [x], [(F16, (3,))])
    third = -math.log(1.0 + 2.0 / math.e)
    assert y.dtype == F16 and y.tolist() == [F16(third - 1.0), F16(third - 1.0), F16(third)]


def test_bfloat16_all_equal_row(run):
    (y,) = run("LogSoftmaxV2", [np.full(3, 100.0, BF16)], [(BF16, (3,))])
    assert y.dtype == BF16 and y.astype(F32).tolist() == [float(BF16(-math.log(3.0)))] * 3


def test_minus_inf_stays_minus_inf(run):
    (y,) = run("LogSoftmaxV2", [np.array([-np.inf, 0.0, 0.0], F32)], [(F32, (3,))])
    assert y.tolist() == [-np.inf, F32(math.log(0.5)), F32(math.log(0.5))]


def test_empty_input_gives_empty_output(run):
    (y,) = run("LogSoftmaxV2", [np.zeros((0, 3), F32)], [(F32, (0, 3))])
    assert y.shape == (0, 3)


def test_output_dtype_must_be_the_logits_dtype(run):
    with pytest.raises(KernelError, match=r"LogSoftmaxV2: output 'logsoftmax' has dtype float32, expected float16"):
        run("LogSoftmaxV2", [np.zeros(4, F16)], [(F32, (4,))])


def test_integer_logits_are_rejected(run):
    with pytest.raises(KernelError, match=r"LogSoftmaxV2: input 'logits' has dtype int32, expected one of"):
        run("LogSoftmaxV2", [np.zeros(4, np.int32)], [(np.int32, (4,))])


def test_axes_out_of_range(run):
    with pytest.raises(KernelError, match=r"LogSoftmaxV2: attr 'axes' value -3 is out of range for a rank-2 input"):
        run("LogSoftmaxV2", [np.zeros((2, 2), F32)], [(F32, (2, 2))], {"axes": [-3]})


def test_infer_shape_keeps_dtype_and_shape(infer):
    (out,) = infer("LogSoftmaxV2", [(F16, (2, -1))])
    assert (out.dtype, out.shape) == (1, (2, -1))
