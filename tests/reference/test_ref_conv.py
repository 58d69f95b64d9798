"""Conv2D reference (NCHW): padding, strides, bias, dilation, groups, and what it refuses."""

import numpy as np
import pytest

from aclcts.reference import reference

F32 = np.float32

def run(op, inputs, outs, attrs=None):
    """Run a reference op and return its outputs."""
    return reference(op).compute([None if x is None else np.asarray(x) for x in inputs], attrs or {}, outs)


def test_conv2d_padding_stride_bias():
    x = np.arange(16, dtype=F32).reshape(1, 1, 4, 4)
    w = np.ones((1, 1, 2, 2), F32)
    attrs = {"strides": [1, 1, 2, 2], "pads": [0, 0, 0, 0], "data_format": "NCHW"}
    (y,) = run("Conv2D", [x, w, np.array([1], F32)], [F32], attrs)
    assert y.tolist() == [[[[11, 19], [43, 51]]]]
    padded = {**attrs, "strides": [1, 1, 1, 1], "pads": [1, 0, 1, 0]}
    (p,) = run("Conv2D", [np.ones((1, 1, 2, 2), F32), w], [F32], padded)
    assert p.tolist() == [[[[1, 2], [2, 4]]]]


def test_conv2d_dilation_and_groups():
    x = np.arange(2 * 9, dtype=F32).reshape(1, 2, 3, 3)
    w = np.zeros((2, 1, 2, 2), F32)
    w[:, 0, 0, 0] = 1
    w[:, 0, 1, 1] = 1
    attrs = {"strides": [1, 1, 1, 1], "pads": [0, 0, 0, 0], "dilations": [1, 1, 2, 2], "groups": 2,
             "data_format": "NCHW"}
    (y,) = run("Conv2D", [x, w], [F32], attrs)
    assert y.tolist() == [[[[0 + 8]], [[9 + 17]]]]
    assert reference("Conv2D").shape([(1, 2, 3, 3), (2, 1, 2, 2)], [], attrs) == [(1, 2, 1, 1)]


def test_conv2d_rejects_unmodelled_layouts_and_bad_groups():
    nchw = {"strides": [1, 1, 1, 1], "pads": [0, 0, 0, 0]}
    with pytest.raises(ValueError, match="Conv2D: data_format='NHWC'"):
        run("Conv2D", [np.ones((1, 1, 2, 2)), np.ones((1, 1, 1, 1))], [F32], nchw)
    with pytest.raises(ValueError, match="Conv2D: groups=2"):
        run("Conv2D", [np.ones((1, 3, 2, 2)), np.ones((2, 1, 1, 1))], [F32],
            {**nchw, "data_format": "NCHW", "groups": 2})
    with pytest.raises(ValueError, match="required attribute"):
        run("Conv2D", [np.ones((1, 1, 2, 2)), np.ones((1, 1, 1, 1))], [F32], {"data_format": "NCHW"})
