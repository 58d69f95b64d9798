"""Pooling kernels: SAME padding never wins a maximum or joins an average, attribute checks."""

from __future__ import annotations

import numpy as np
import pytest

from aclcts.sim.kernels import KernelError

F16, F32 = np.float16, np.float32
SAME_3 = {"ksize": [1, 3, 3, 1], "strides": [1, 1, 1, 1], "padding": "SAME"}


def test_max_pool_padding_never_wins_over_negative_values(run):
    x = -np.arange(1, 10, dtype=F32).reshape(1, 3, 3, 1)
    (y,) = run("MaxPool", [x], [(F32, (1, 3, 3, 1))], SAME_3)
    assert y[0, 0, 0, 0] == -1.0 and y[0, 2, 2, 0] == -5.0


def test_avg_pool_same_counts_only_inside_elements_and_sums_float16_in_float32(run):
    x = np.full((1, 3, 3, 1), 60000, F16)  # a float16 sum of four would overflow
    (y,) = run("AvgPool", [x], [(F16, (1, 3, 3, 1))], SAME_3)
    assert (y == 60000).all()


@pytest.mark.parametrize("attrs, match", [
    ({"ksize": [2, 2, 2, 1], "strides": [1, 1, 1, 1], "padding": "VALID"}, "1 on N and C"),
    ({"ksize": [1, 2, 2, 1], "strides": [1, 1, 1, 1], "padding": "FULL"}, "SAME or VALID"),
    ({"ksize": [1, 2, 2, 1], "strides": [1, 1, 1, 1], "padding": "VALID", "data_format": "NCDHW"}, "NHWC or NCHW"),
])
def test_bad_windows_are_refused(run, attrs, match):
    with pytest.raises(KernelError, match=match):
        run("MaxPool", [np.ones((1, 3, 3, 1), F32)], [(F32, (1, 2, 2, 1))], attrs)


def test_adaptive_avg_pool_to_one_cell_is_the_mean(run):
    x = np.arange(12, dtype=F32).reshape(1, 3, 4)
    (y,) = run("AdaptiveAvgPool2d", [x], [(F32, (1, 1, 1))], {"output_size": [1, 1]})
    assert y.tolist() == [[[5.5]]]


@pytest.mark.parametrize("op", ["AvgPool", "MaxPool"])
@pytest.mark.parametrize("padding", ["VALID", "SAME"])
def test_infer_shape_keeps_unknown_spatial_dims_unknown(infer, op, padding):
    """CANN's AvgPool test_avg_pool_005: x [-1, 7, -1, -1] NCHW, ksize 2, VALID; an output dim of 0 is wrong for an
    input that may be 120 high."""
    attrs = {"ksize": [1, 1, 2, 2], "strides": [1, 1, 1, 1], "padding": padding, "data_format": "NCHW"}
    (shape,) = infer(op, [(F16, (-1, 7, -1, 5))], attrs=attrs)
    assert shape.shape == (-1, 7, -1, 4 if padding == "VALID" else 5)
    low, high = shape.shape_range[2]
    assert low <= 1 and (high < 0 or high >= 120)


def test_avg_pool_grad_spreads_each_gradient_over_its_window_by_the_inside_count(run):
    attrs = {"ksize": [1, 2, 2, 1], "strides": [1, 2, 2, 1], "padding": "SAME"}
    dy = np.array([6.0, 4.0, 2.0, 1.0], F32).reshape(1, 2, 2, 1)
    (dx,) = run("AvgPoolGrad", [np.array([1, 3, 3, 1], np.int32), dy], [(F32, (1, 3, 3, 1))], attrs)
    assert dx[0, :, :, 0].tolist() == [[1.5, 1.5, 2.0], [1.5, 1.5, 2.0], [1.0, 1.0, 1.0]]


def test_max_pool_grad_adds_overlapping_windows_gradients_at_their_shared_maximum(run):
    x = np.array([[1.0, 2.0, 1.0], [0.0, 9.0, 0.0], [1.0, 2.0, 1.0]], F32).reshape(1, 3, 3, 1)
    attrs = {"ksize": [1, 2, 2, 1], "strides": [1, 1, 1, 1], "padding": "VALID"}
    y = np.full((1, 2, 2, 1), 9.0, F32)
    dy = np.array([1.0, 2.0, 3.0, 4.0], F32).reshape(1, 2, 2, 1)
    (dx,) = run("MaxPoolGrad", [x, y, dy], [(F32, x.shape)], attrs)
    assert dx[0, :, :, 0].tolist() == [[0, 0, 0], [0, 10, 0], [0, 0, 0]]


def test_max_pool_v3_and_avg_pool_v2_ceil_mode_and_padding_count(run):
    x = np.arange(1, 10, dtype=F32).reshape(1, 1, 3, 3)
    attrs = {"ksize": [1, 1, 2, 2], "strides": [1, 1, 2, 2], "pads": [0, 0, 0, 0], "ceil_mode": True}
    (y,) = run("MaxPoolV3", [x], [(F32, (1, 1, 2, 2))], attrs)
    assert y[0, 0].tolist() == [[5, 6], [8, 9]]
    (mean,) = run("AvgPoolV2", [x], [(F32, (1, 1, 3, 3))], {"ksize": [1, 1, 3, 3], "strides": [1, 1, 1, 1],
                                                            "pads": [1, 1, 1, 1], "exclusive": False})
    assert mean[0, 0, 0, 0] == np.float32(12 / 9) and mean[0, 0, 1, 1] == 5.0


def test_adaptive_avg_pool2d_grad_spreads_over_overlapping_cells(run):
    # 3 inputs into 2 cells: [0, 2) and [1, 3); the middle element belongs to both
    dy = np.array([[2.0, 4.0]], F32).reshape(1, 1, 1, 2)
    (dx,) = run("AdaptiveAvgPool2dGrad", [dy], [(F32, (1, 1, 1, 3))], {"orig_input_shape": [1, 1, 1, 3]})
    assert dx[0, 0, 0].tolist() == [1.0, 3.0, 2.0]
