"""Resize kernels: float32 coordinates and interpolation, the dtype attribute, shape checks."""

from __future__ import annotations

import numpy as np
import pytest

from aclcts.sim.kernels import KernelError

F16, F32 = np.float16, np.float32
SIZE = np.array([1, 3], np.int32)


def test_bilinear_interpolates_in_float32_and_gives_float32(run):
    x = np.array([0, 10], F16).reshape(1, 1, 2, 1)
    (y,) = run("ResizeBilinearV2", [x, SIZE], [(F32, (1, 1, 3, 1))], {"align_corners": True})
    assert y.reshape(-1).tolist() == [0.0, 5.0, 10.0]
    with pytest.raises(KernelError, match="given by attr .dtype."):
        run("ResizeBilinearV2", [x, SIZE], [(F16, (1, 1, 3, 1))])


def test_nearest_copies_values_exactly(run):
    x = np.array([[1.5, -0.0]], F16).reshape(1, 1, 2, 1)
    (y,) = run("ResizeNearestNeighborV2", [x, np.array([1, 4], np.int32)], [(F16, (1, 1, 4, 1))])
    assert y.reshape(-1).tolist() == [1.5, 1.5, -0.0, -0.0] and np.signbit(y.reshape(-1)[3])


def test_a_non_image_input_is_refused(run):
    with pytest.raises(KernelError, match="4-D NHWC"):
        run("ResizeNearestNeighborV2", [np.ones((2, 2), F32), SIZE], [(F32, (1, 3))])
