"""Conv2D: hand-computed convolutions (NCHW/NHWC, padding, stride, dilation, groups), fp32 accumulation, errors."""

import numpy as np
import pytest

from aclcts.sim.kernels import KernelError

F16, F32, I8, I32 = np.float16, np.float32, np.int8, np.int32
NCHW = {"strides": [1, 1, 1, 1], "pads": [0, 0, 0, 0], "data_format": "NCHW"}


def image():
    return np.arange(1, 10, dtype=F32).reshape(1, 1, 3, 3)  # [[1, 2, 3], [4, 5, 6], [7, 8, 9]]


def test_conv2d_2x2_ones_filter(run):
    (y,) = run("Conv2D", [image(), np.ones((1, 1, 2, 2), F32), None, None], [(F32, (1, 1, 2, 2))], NCHW)
    assert y.tolist() == [[[[12, 16], [24, 28]]]]


def test_conv2d_padding_and_stride(run):
    attrs = dict(NCHW, pads=[1, 1, 1, 1], strides=[1, 1, 2, 2])
    (y,) = run("Conv2D", [image(), np.ones((1, 1, 3, 3), F32), None, None], [(F32, (1, 1, 2, 2))], attrs)
    # windows centred on the corners of the zero-padded image
    assert y.tolist() == [[[[12, 16], [24, 28]]]]


def test_conv2d_dilation(run):
    attrs = dict(NCHW, dilations=[1, 1, 2, 2])
    (y,) = run("Conv2D", [image(), np.ones((1, 1, 2, 2), F32), None, None], [(F32, (1, 1, 1, 1))], attrs)
    assert y.tolist() == [[[[1 + 3 + 7 + 9]]]]


def test_conv2d_nhwc_matches_nchw(run):
    x = image().transpose(0, 2, 3, 1)
    attrs = {"strides": [1, 1, 1, 1], "pads": [0, 0, 0, 0]}  # data_format defaults to NHWC
    (y,) = run("Conv2D", [x, np.ones((1, 1, 2, 2), F32), None, None], [(F32, (1, 2, 2, 1))], attrs)
    assert y[..., 0].tolist() == [[[12, 16], [24, 28]]]


def test_conv2d_groups_and_bias(run):
    x = np.stack([image()[0, 0], 10 * image()[0, 0]])[None]  # [1, 2, 3, 3]
    w = np.ones((2, 1, 3, 3), F32)
    (y,) = run("Conv2D", [x, w, np.array([1, -1], F32), None], [(F32, (1, 2, 1, 1))], dict(NCHW, groups=2))
    assert y.tolist() == [[[[46]], [[449]]]]


def test_conv2d_fp16_accumulates_in_fp32(run):
    # 1x1 filter over 3 channels holding 2048, 1, 1: fp32 sum 2050 (an fp16 value); fp16 accumulation gives 2048.
    x = np.array([2048, 1, 1], F16).reshape(1, 3, 1, 1)
    (y,) = run("Conv2D", [x, np.ones((1, 3, 1, 1), F16), None, None], [(F16, (1, 1, 1, 1))], NCHW)
    assert y.tolist() == [[[[2050.0]]]]


def test_conv2d_int8_gives_int32(run):
    x = np.full((1, 2, 1, 1), 127, I8)
    (y,) = run("Conv2D", [x, np.full((1, 2, 1, 1), 127, I8), None, None], [(I32, (1, 1, 1, 1))], NCHW)
    assert y.tolist() == [[[[2 * 127 * 127]]]]


def test_conv2d_filter_channels_must_match(run):
    with pytest.raises(KernelError, match=r"Conv2D: input 'filter' \[1, 2, 2, 2\] has 2 channels per group, expected 1"):
        run("Conv2D", [image(), np.ones((1, 2, 2, 2), F32), None, None], [(F32, (1, 1, 2, 2))], NCHW)


def test_conv2d_strides_are_required(run):
    with pytest.raises(KernelError, match=r"Conv2D: required attr 'strides' was not given"):
        run("Conv2D", [image(), np.ones((1, 1, 2, 2), F32), None, None], [(F32, (1, 1, 2, 2))], {"pads": [0, 0, 0, 0]})


def test_conv2d_infer_shape(infer):
    attrs = {"strides": [1, 1, 2, 2], "pads": [1, 1, 0, 0], "dilations": [1, 1, 1, 2], "data_format": "NCHW"}
    (out,) = infer("Conv2D", [(F16, (2, 3, 7, 9)), (F16, (8, 3, 3, 3))], attrs=attrs)
    # H: (7 + 2 - 3) // 2 + 1 = 4; W: (9 + 0 - (2 * 2 + 1)) // 2 + 1 = 3
    assert (out.dtype, out.shape) == (1, (2, 8, 4, 3))
    (out,) = infer("Conv2D", [(I8, (1, 4, 4, 3)), (I8, (2, 3, 1, 1))], attrs={"strides": [1, 1, 1, 1], "pads": [0] * 4})
    assert (out.dtype, out.shape) == (3, (1, 4, 4, 2))


ADJOINT = {"strides": [1, 1, 2, 1], "pads": [1, 0, 2, 1], "dilations": [1, 1, 1, 2], "groups": 2, "data_format": "NCHW"}


def test_input_and_filter_gradients_are_the_adjoints_of_the_conv2d_kernel(run):
    """<conv(x, w), dy> = <x, dx> = <w, dw> with every product taken by the simulator's kernels."""
    rng = np.random.default_rng(8)
    x, w = rng.standard_normal((2, 4, 6, 5)).astype(F32), rng.standard_normal((6, 2, 3, 2)).astype(F32)
    (y,) = run("Conv2D", [x, w, None, None], [(F32, (2, 6, 4, 5))], ADJOINT)
    dy = rng.standard_normal(y.shape).astype(F32)
    (dx,) = run("Conv2DBackpropInput", [np.array(x.shape, I32), w, dy], [(F32, x.shape)], ADJOINT)
    (dw,) = run("Conv2DBackpropFilter", [x, np.array(w.shape, I32), dy], [(F32, w.shape)], ADJOINT)
    forward = np.sum(y.astype(np.float64) * dy)
    assert np.isclose(forward, np.sum(x * dx.astype(np.float64)), rtol=1e-5)
    assert np.isclose(forward, np.sum(w * dw.astype(np.float64)), rtol=1e-5)


def test_input_gradient_of_one_tap_lands_where_that_tap_read(run):
    w = np.zeros((1, 1, 2, 2), F32)
    w[0, 0, 0, 1] = 1.0  # the tap one column right of each window's corner
    dy = np.array([[[[1.0, 2.0], [3.0, 4.0]]]], F32)
    attrs = {"strides": [1, 1, 2, 2], "pads": [0, 0, 0, 0], "data_format": "NCHW", "input_size": [1, 1, 4, 4]}
    (dx,) = run("Conv2DBackpropInputD", [w.astype(F16), dy.astype(F16)], [(F32, (1, 1, 4, 4))], attrs)
    assert dx[0, 0].tolist() == [[0, 1, 0, 2], [0, 0, 0, 0], [0, 3, 0, 4], [0, 0, 0, 0]]


def test_backprop_input_refuses_an_out_backprop_of_the_wrong_shape(run):
    attrs = {"strides": [1, 1, 1, 1], "pads": [0, 0, 0, 0], "data_format": "NCHW", "input_size": [1, 1, 4, 4]}
    with pytest.raises(KernelError, match=r"input 'out_backprop' has shape \[1, 1, 2, 2\], expected \[1, 1, 3, 3\]"):
        run("Conv2DBackpropInputD", [np.ones((1, 1, 2, 2), F16), np.ones((1, 1, 2, 2), F16)], [(F16, (1, 1, 4, 4))],
            attrs)
