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
