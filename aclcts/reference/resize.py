"""ResizeNearestNeighborV2 and ResizeBilinearV2 references: TensorFlow's resize of NHWC images, in float64.

Source coordinate of output index i: scale = (in - 1) / (out - 1) with align_corners (and out > 1), else in / out;
nearest takes floor((i + 0.5) * scale) with half_pixel_centers, round-half-away(i * scale) with align_corners, else
floor(i * scale), clamped to in - 1; bilinear reads (i + 0.5) * scale - 0.5 with half_pixel_centers, else i * scale,
and interpolates between its floor and ceil clamped to [0, in - 1]. Written per output coordinate with Python floats.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from aclcts.reference.base import RefOp, define, needed_value
from aclcts.reference.numeric import round_to, widen


def _scale(size: int, out: int, align_corners: bool) -> float:
    return (size - 1) / (out - 1) if align_corners and out > 1 else size / out


def nearest_sources(size: int, out: int, align_corners: bool, half_pixel: bool) -> list[int]:
    """The input index each output index copies."""
    scale = _scale(size, out, align_corners)
    result = []
    for i in range(out):
        if half_pixel:
            source = math.floor((i + 0.5) * scale)
        elif align_corners:
            source = math.floor(i * scale + 0.5)
        else:
            source = math.floor(i * scale)
        result.append(min(max(source, 0), size - 1))
    return result


def bilinear_weights(size: int, out: int, align_corners: bool, half_pixel: bool) -> list[tuple[int, int, float]]:
    """(lower index, upper index, weight of the upper one) for each output index."""
    scale = _scale(size, out, align_corners)
    result = []
    for i in range(out):
        source = (i + 0.5) * scale - 0.5 if half_pixel else i * scale
        low = math.floor(source)
        result.append((min(max(low, 0), size - 1), min(max(math.ceil(source), 0), size - 1), source - low))
    return result


def _size(values: Any) -> tuple[int, int]:
    dims = [int(v) for v in np.asarray(values).reshape(-1)]
    if len(dims) != 2 or min(dims) <= 0:
        raise ValueError(f"size must hold two positive values, got {dims}")
    return dims[0], dims[1]


def _nearest(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    x = widen(xs[0])
    (oh, ow), corners, half = _size(xs[1]), bool(attrs["align_corners"]), bool(attrs["half_pixel_centers"])
    rows = nearest_sources(x.shape[1], oh, corners, half)
    cols = nearest_sources(x.shape[2], ow, corners, half)
    return [round_to(x[:, rows][:, :, cols], out[0])]


def _bilinear(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    x = widen(xs[0]).astype(np.float64)
    (oh, ow), corners, half = _size(xs[1]), bool(attrs["align_corners"]), bool(attrs["half_pixel_centers"])
    y = np.empty((x.shape[0], oh, ow, x.shape[3]))
    for i, (top, bottom, dy) in enumerate(bilinear_weights(x.shape[1], oh, corners, half)):
        for j, (left, right, dx) in enumerate(bilinear_weights(x.shape[2], ow, corners, half)):
            upper = x[:, top, left] + (x[:, top, right] - x[:, top, left]) * dx
            lower = x[:, bottom, left] + (x[:, bottom, right] - x[:, bottom, left]) * dx
            y[:, i, j] = upper + (lower - upper) * dy
    return [round_to(y, out[0])]


def _shape(shapes: list[Any], values: list[Any], attrs: dict[str, Any]) -> list[tuple[int, ...]]:
    x = shapes[0]
    if len(x) != 4:
        raise ValueError(f"x must be a 4-D NHWC image, got shape {x}")
    oh, ow = _size(needed_value(values, 1))
    return [(x[0], oh, ow, x[3])]


OPS: tuple[RefOp, ...] = (
    define("ResizeNearestNeighborV2", _nearest, _shape),
    define("ResizeBilinearV2", _bilinear, _shape),
)
