"""Resize references against coordinates worked out by hand (TensorFlow's three coordinate modes)."""

from __future__ import annotations

import numpy as np
import pytest

from aclcts.reference import reference
from aclcts.reference.resize import bilinear_weights, nearest_sources


@pytest.mark.parametrize("corners, half, expected", [
    (False, False, [0, 1, 2, 3, 4]),   # floor(i * 6/5)
    (True, False, [0, 1, 3, 4, 5]),    # round(i * 5/4)
    (False, True, [0, 1, 3, 4, 5]),    # floor((i + 0.5) * 6/5)
])
def test_nearest_sources(corners, half, expected):
    assert nearest_sources(6, 5, corners, half) == expected


def test_bilinear_weights_clamp_at_the_edges():
    # half-pixel, 2 -> 4: sources -0.25, 0.25, 0.75, 1.25
    assert bilinear_weights(2, 4, False, True) == [(0, 0, 0.75), (0, 1, 0.25), (0, 1, 0.75), (1, 1, 0.25)]


def test_bilinear_resize_of_a_ramp():
    x = np.array([0.0, 10.0]).reshape(1, 1, 2, 1)
    (y,) = reference("ResizeBilinearV2").compute([x, np.array([1, 3], np.int32)], {"align_corners": True}, [np.float64])
    assert y.reshape(-1).tolist() == [0.0, 5.0, 10.0]


def test_nearest_resize_copies_pixels():
    x = np.arange(4.0).reshape(1, 2, 2, 1)
    (y,) = reference("ResizeNearestNeighborV2").compute([x, np.array([4, 4], np.int32)], {}, [np.float64])
    assert y[0, :, :, 0].tolist() == [[0, 0, 1, 1], [0, 0, 1, 1], [2, 2, 3, 3], [2, 2, 3, 3]]


MODES = [(False, False), (True, False), (False, True)]


@pytest.mark.parametrize("forward, gradient", [("ResizeBilinearV2", "ResizeBilinearV2Grad"),
                                               ("ResizeNearestNeighborV2", "ResizeNearestNeighborV2Grad")])
@pytest.mark.parametrize("corners, half", MODES)
def test_a_resize_gradient_is_the_transpose_of_its_resize(forward, gradient, corners, half):
    # <resize(x), g> = <x, gradient(g)> for every x and g: the gradient is the resize's adjoint
    rng = np.random.default_rng(7)
    x, g = rng.normal(size=(2, 4, 6, 3)), rng.normal(size=(2, 5, 3, 3)).astype(np.float32)
    modes = {"align_corners": corners, "half_pixel_centers": half}
    extra = {"dtype": 0} if forward == "ResizeBilinearV2" else {}
    (y,) = reference(forward).compute([x, np.array([5, 3], np.int32)], {**modes, **extra}, [np.dtype(np.float64)])
    second = x if gradient == "ResizeBilinearV2Grad" else np.array([4, 6], np.int32)
    (dx,) = reference(gradient).compute([g, second], modes, [np.dtype(np.float64)])
    assert dx.shape == x.shape
    assert np.isclose(np.sum(y * g), np.sum(x * dx), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("op", ["ResizeBilinearV2", "ResizeNearestNeighborV2"])
def test_a_d_twin_resizes_like_its_op_with_the_size_as_an_attribute(op):
    rng = np.random.default_rng(3)
    x = rng.normal(size=(1, 4, 6, 2))
    extra = {"dtype": 0} if op == "ResizeBilinearV2" else {}
    (y,) = reference(op).compute([x, np.array([3, 7], np.int32)], extra, [np.dtype(np.float32)])
    (d,) = reference(op + "D").compute([x.astype(np.float32)], {"size": [3, 7]}, [np.dtype(np.float32)])
    assert d.shape == (1, 3, 7, 2) and np.allclose(y, d, rtol=1e-6)


@pytest.mark.parametrize("scale", [0.0, 0.5, 1.0, 2.5])
def test_adjust_saturation_matches_an_hsv_round_trip(scale):
    import colorsys

    rng = np.random.default_rng(11)
    images = rng.uniform(0.0, 1.0, size=(2, 3, 3))
    expected = np.array([[colorsys.hsv_to_rgb(h, min(max(s * scale, 0.0), 1.0), v)
                          for h, s, v in (colorsys.rgb_to_hsv(*pixel) for pixel in row)] for row in images])
    (y,) = reference("AdjustSaturation").compute([images, np.float32(scale)], {}, [np.dtype(np.float64)])
    assert np.allclose(y, expected, rtol=1e-12, atol=1e-12)
