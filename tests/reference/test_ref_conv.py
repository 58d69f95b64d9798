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


F64 = np.float64
GEOMETRIES = [
    ({"strides": [1, 1, 2, 2], "pads": [1, 1, 1, 1], "dilations": [1, 1, 1, 1], "groups": 1}, (1, 2, 5, 5), (4, 2, 3, 3)),
    ({"strides": [1, 1, 1, 2], "pads": [2, 0, 0, 2], "dilations": [1, 1, 2, 1], "groups": 1}, (2, 2, 5, 6), (3, 2, 3, 3)),
    ({"strides": [1, 1, 2, 1], "pads": [0, 1, 1, 0], "dilations": [1, 1, 1, 1], "groups": 2}, (1, 4, 6, 5), (6, 2, 2, 3)),
]


def conv(x, w, geometry):
    attrs = {**geometry, "data_format": "NCHW", "offset_x": 0}
    return reference("Conv2D").compute([x, w, None, None], attrs, [F64])[0]


@pytest.mark.parametrize("geometry, x_shape, w_shape", GEOMETRIES)
def test_conv2d_backprops_are_the_adjoints_of_conv2d(geometry, x_shape, w_shape):
    """<conv(x, w), dy> = <x, dx> = <w, dw>: the gradients as the transposes of the forward reference."""
    rng = np.random.default_rng(5)
    x, w = rng.standard_normal(x_shape), rng.standard_normal(w_shape)
    y = conv(x, w, geometry)
    dy = rng.standard_normal(y.shape)
    attrs = {**geometry, "data_format": "NCHW"}
    (dx,) = run("Conv2DBackpropInput", [np.array(x_shape, np.int32), w, dy], [F64], attrs)
    (dw,) = run("Conv2DBackpropFilter", [x, np.array(w_shape, np.int32), dy], [F64], attrs)
    assert np.isclose(np.sum(y * dy), np.sum(x * dx)) and np.isclose(np.sum(y * dy), np.sum(w * dw))


def test_backprops_in_nhwc_are_the_nchw_ones_transposed():
    rng = np.random.default_rng(6)
    geometry, x_shape, w_shape = GEOMETRIES[1]
    x, w = rng.standard_normal(x_shape), rng.standard_normal(w_shape)
    dy = rng.standard_normal(conv(x, w, geometry).shape)
    nchw = {**geometry, "data_format": "NCHW"}
    nhwc = {**geometry, "data_format": "NHWC", "strides": [1, 1, 2, 1], "dilations": [1, 2, 1, 1]}
    to_nhwc = (0, 2, 3, 1)
    (dx,) = run("Conv2DBackpropInputD", [w, dy], [F64], {**nchw, "input_size": list(x_shape)})
    (dx_nhwc,) = run("Conv2DBackpropInputD", [w, dy.transpose(to_nhwc)], [F64],
                     {**nhwc, "input_size": [x_shape[i] for i in to_nhwc]})
    (dw,) = run("Conv2DBackpropFilterD", [x, dy], [F64], {**nchw, "filter_size": list(w_shape)})
    (dw_nhwc,) = run("Conv2DBackpropFilterD", [x.transpose(to_nhwc), dy.transpose(to_nhwc)], [F64],
                     {**nhwc, "filter_size": list(w_shape)})
    assert np.allclose(dx_nhwc, dx.transpose(to_nhwc)) and np.allclose(dw_nhwc, dw)


def test_transposes_add_the_bias_and_deconvolution_sizes_y_from_x():
    rng = np.random.default_rng(7)
    x, w, bias = rng.standard_normal((1, 4, 3, 3)), rng.standard_normal((4, 1, 3, 3)), np.array([1.0, -2.0])
    attrs = {"strides": [1, 1, 2, 2], "pads": [1, 1, 0, 1], "dilations": [1, 1, 1, 1], "groups": 2,
             "data_format": "NCHW"}
    (y,) = run("Deconvolution", [x, w, bias, None], [F64], {**attrs, "strides": [2, 2], "offset_x": 0})
    assert y.shape == (1, 2, 5, 6)
    (grad,) = run("Conv2DBackpropInputD", [w, x], [F64], {**attrs, "input_size": [1, 2, 5, 6]})
    (transposed,) = run("Conv2DTransposeD", [x, w, bias, None], [F64], {**attrs, "input_size": [1, 2, 5, 6],
                                                                         "offset_x": 0})
    assert np.allclose(y, grad + bias.reshape(1, 2, 1, 1)) and np.allclose(transposed, y)
