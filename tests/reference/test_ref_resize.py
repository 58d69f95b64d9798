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
