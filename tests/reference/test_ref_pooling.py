"""Pooling references against windows worked out by hand."""

from __future__ import annotations

import numpy as np

from aclcts.reference import reference

F64 = np.float64
#: One channel, a 3 x 3 image 1..9 in NHWC.
X = np.arange(1.0, 10.0).reshape(1, 3, 3, 1)


def run(op, x, attrs):
    return reference(op).compute([x], attrs, [F64])[0]


def window(k, s, padding, fmt="NHWC"):
    if fmt == "NHWC":
        return {"ksize": [1, k, k, 1], "strides": [1, s, s, 1], "padding": padding, "data_format": fmt}
    return {"ksize": [1, 1, k, k], "strides": [1, 1, s, s], "padding": padding, "data_format": fmt}


def test_max_pool_valid_and_same():
    assert run("MaxPool", X, window(2, 1, "VALID"))[0, :, :, 0].tolist() == [[5, 6], [8, 9]]
    # SAME, k 2, stride 2: 2 outputs per axis, padding 1 after: windows [0,2) and [2,3)
    assert run("MaxPool", X, window(2, 2, "SAME"))[0, :, :, 0].tolist() == [[5, 6], [8, 9]]


def test_avg_pool_same_divides_by_the_elements_inside_the_input():
    # k 3, stride 1, SAME: the corner window covers 1, 2, 4, 5 -> 3; the centre all nine -> 5
    y = run("AvgPool", X, window(3, 1, "SAME"))[0, :, :, 0]
    assert y[0, 0] == 3.0 and y[1, 1] == 5.0 and y[2, 2] == 7.0


def test_avg_pool_nchw():
    y = run("AvgPool", X.reshape(1, 1, 3, 3), window(2, 1, "VALID", "NCHW"))
    assert y[0, 0].tolist() == [[3.0, 4.0], [6.0, 7.0]]


def test_adaptive_avg_pool_cells_overlap_when_sizes_do_not_divide():
    # 3 rows to 2: cells [0, 2) and [1, 3)
    y = reference("AdaptiveAvgPool2d").compute([X.reshape(1, 3, 3)], {"output_size": [2, 1]}, [F64])[0]
    assert y[0, :, 0].tolist() == [3.5, 6.5]


def caffe(k, s, pads, **extra):
    """MaxPoolV3/AvgPoolV2 attributes (NCHW, CALCULATED unless extra says otherwise)."""
    return {"ksize": [1, 1, k, k], "strides": [1, 1, s, s], "padding_mode": "CALCULATED", "pads": pads,
            "data_format": "NCHW", "global_pooling": False, "ceil_mode": False, **extra}


def test_max_pool_v3_ceil_mode_keeps_the_partial_last_window():
    x = X.reshape(1, 1, 3, 3)
    assert run("MaxPoolV3", x, caffe(2, 2, [0, 0, 0, 0]))[0, 0].tolist() == [[5]]
    assert run("MaxPoolV3", x, caffe(2, 2, [0, 0, 0, 0], ceil_mode=True))[0, 0].tolist() == [[5, 6], [8, 9]]
    assert run("MaxPoolV3", x, caffe(2, 2, [0, 0, 0, 0], global_pooling=True))[0, 0].tolist() == [[9]]


def test_avg_pool_v2_exclusive_divides_by_inside_elements_and_inclusive_by_the_padded_window():
    x = X.reshape(1, 1, 3, 3)
    inside = run("AvgPoolV2", x, caffe(3, 1, [1, 1, 1, 1], exclusive=True))[0, 0]
    padded = run("AvgPoolV2", x, caffe(3, 1, [1, 1, 1, 1], exclusive=False))[0, 0]
    assert inside[0, 0] == 3.0 and padded[0, 0] == 12.0 / 9 and padded[1, 1] == 5.0
    # ceil_mode's extra window hangs past the given padding: only the padded input's part counts (PyTorch)
    tail = run("AvgPoolV2", x, caffe(2, 2, [0, 0, 0, 0], ceil_mode=True, exclusive=False))[0, 0]
    assert tail.tolist() == [[3.0, 4.5], [7.5, 9.0]]


def avg_pool_grad(shape, dy, attrs):
    return reference("AvgPoolGrad").compute([np.array(shape, np.int32), dy], attrs, [F64])[0]


def test_avg_pool_grad_is_the_adjoint_of_avg_pool():
    rng = np.random.default_rng(3)
    for k, s, padding in ((3, 2, "SAME"), (2, 2, "VALID"), (3, 1, "SAME"), (2, 3, "VALID")):
        x = rng.standard_normal((2, 7, 6, 3))
        y = run("AvgPool", x, window(k, s, padding))
        dy = rng.standard_normal(y.shape)
        assert np.isclose(np.sum(y * dy), np.sum(x * avg_pool_grad(x.shape, dy, window(k, s, padding))))


def test_max_pool_grad_is_the_slope_of_max_pool_where_the_maximum_is_unique():
    rng = np.random.default_rng(4)
    x = rng.permutation(2 * 6 * 5 * 2).reshape(2, 6, 5, 2).astype(F64)
    attrs = window(3, 2, "SAME")
    y = run("MaxPool", x, attrs)
    dy = rng.standard_normal(y.shape)
    dx = reference("MaxPoolGrad").compute([x, y, dy], attrs, [F64])[0]
    direction = rng.standard_normal(x.shape)
    slope = np.sum((run("MaxPool", x + 1e-6 * direction, attrs) - y) * dy) / 1e-6
    assert np.isclose(slope, np.sum(direction * dx))


def test_max_pool_grad_gives_each_gradient_to_the_first_element_equal_to_orig_output():
    x = np.array([[2.0, 7.0], [7.0, 1.0]]).reshape(1, 2, 2, 1)
    y = np.full((1, 1, 1, 1), 7.0)
    dx = reference("MaxPoolGrad").compute([x, y, np.full((1, 1, 1, 1), 3.0)], window(2, 2, "VALID"), [F64])[0]
    assert dx[0, :, :, 0].tolist() == [[0.0, 3.0], [0.0, 0.0]]
    none = reference("MaxPoolGrad").compute([x, np.full((1, 1, 1, 1), 4.0), np.ones((1, 1, 1, 1))],
                                            window(2, 2, "VALID"), [F64])[0]
    assert not none.any()


def test_adaptive_avg_pool2d_grad_is_the_adjoint_of_adaptive_avg_pool2d():
    rng = np.random.default_rng(9)
    x = rng.standard_normal((2, 3, 7, 5))
    y = reference("AdaptiveAvgPool2d").compute([x], {"output_size": [3, 2]}, [F64])[0]
    dy = rng.standard_normal(y.shape)
    dx = reference("AdaptiveAvgPool2dGrad").compute([dy], {"orig_input_shape": [2, 3, 7, 5]}, [F64])[0]
    assert np.isclose(np.sum(y * dy), np.sum(x * dx))
