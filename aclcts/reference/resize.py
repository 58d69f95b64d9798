"""Resize references: TensorFlow's resize of NHWC images (ResizeNearestNeighborV2, ResizeBilinearV2, their D twins
whose size is an attribute) and its gradients, and TensorFlow's AdjustSaturation, in float64.

Source coordinate of output index i: scale = (in - 1) / (out - 1) with align_corners (and out > 1), else in / out;
nearest takes floor((i + 0.5) * scale) with half_pixel_centers, round-half-away(i * scale) with align_corners, else
floor(i * scale), clamped to in - 1; bilinear reads (i + 0.5) * scale - 0.5 with half_pixel_centers, else i * scale,
and interpolates between its floor and ceil clamped to [0, in - 1]. Written per output coordinate with Python floats.
A gradient is the transpose of its forward resize: each incoming gradient is added, times the weight the forward
resize gave a source pixel, into that pixel.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from aclcts.reference.base import InputError, RefOp, define, needed_value
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


def _nearest_d(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    return _nearest([xs[0], attrs["size"]], attrs, out)


def _bilinear_d(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    return _bilinear([xs[0], attrs["size"]], attrs, out)


def _nearest_grad(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    grads = widen(xs[0])
    (height, width), corners, half = _size(xs[1]), bool(attrs["align_corners"]), bool(attrs["half_pixel_centers"])
    y = np.zeros((grads.shape[0], height, width, grads.shape[3]), dtype=grads.dtype)
    rows = nearest_sources(height, grads.shape[1], corners, half)
    cols = nearest_sources(width, grads.shape[2], corners, half)
    for i, row in enumerate(rows):
        for j, col in enumerate(cols):
            y[:, row, col] += grads[:, i, j]
    return [round_to(y, out[0])]


def _bilinear_grad(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    grads = widen(xs[0]).astype(np.float64)
    _, height, width, _ = np.shape(xs[1])
    corners, half = bool(attrs["align_corners"]), bool(attrs["half_pixel_centers"])
    y = np.zeros((grads.shape[0], height, width, grads.shape[3]))
    for i, (top, bottom, dy) in enumerate(bilinear_weights(height, grads.shape[1], corners, half)):
        for j, (left, right, dx) in enumerate(bilinear_weights(width, grads.shape[2], corners, half)):
            g = grads[:, i, j]
            y[:, top, left] += g * (1 - dy) * (1 - dx)
            y[:, top, right] += g * (1 - dy) * dx
            y[:, bottom, left] += g * dy * (1 - dx)
            y[:, bottom, right] += g * dy * dx
    return [round_to(y, out[0])]


def _adjust_saturation(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    # Hue and value fixed, every channel's distance below the maximum is proportional to the chroma (HSV's
    # max - min), so scaling the saturation scales those distances.
    images = widen(xs[0]).astype(np.float64)
    scale = float(np.asarray(xs[1]).reshape(-1)[0])
    if images.ndim < 3 or images.shape[-1] != 3:
        raise InputError(0, lambda name: f"{name} must have at least 3 dims, the last 3 (RGB), got "
                                         f"{list(images.shape)}")
    value = images.max(axis=-1, keepdims=True)
    chroma = value - images.min(axis=-1, keepdims=True)
    saturation = np.where(value > 0, chroma / np.where(value > 0, value, 1), 0.0)
    scaled = np.clip(saturation * scale, 0.0, 1.0)
    ratio = np.where(saturation > 0, scaled / np.where(saturation > 0, saturation, 1), 0.0)
    return [round_to(value - (value - images) * ratio, out[0])]


def _image_shape(shape: Any, index: int) -> tuple[int, ...]:
    if len(shape) != 4:
        raise InputError(index, lambda name: f"{name} must be a 4-D NHWC tensor, got shape {list(shape)}")
    return tuple(shape)


def _d_shape(shapes: list[Any], values: list[Any], attrs: dict[str, Any]) -> list[tuple[int, ...]]:
    x = _image_shape(shapes[0], 0)
    oh, ow = _size(attrs["size"])
    return [(x[0], oh, ow, x[3])]


def _nearest_grad_shape(shapes: list[Any], values: list[Any], attrs: dict[str, Any]) -> list[tuple[int, ...]]:
    grads = _image_shape(shapes[0], 0)
    height, width = _size(needed_value(values, 1))
    return [(grads[0], height, width, grads[3])]


def _bilinear_grad_shape(shapes: list[Any], values: list[Any], attrs: dict[str, Any]) -> list[tuple[int, ...]]:
    grads, image = _image_shape(shapes[0], 0), _image_shape(shapes[1], 1)
    if (grads[0], grads[3]) != (image[0], image[3]):
        raise InputError((0, 1), lambda first, second: f"{first} and {second} must share batch and channels, got "
                                                       f"{list(grads)} and {list(image)}")
    return [image]


def _shape(shapes: list[Any], values: list[Any], attrs: dict[str, Any]) -> list[tuple[int, ...]]:
    x = shapes[0]
    if len(x) != 4:
        raise ValueError(f"x must be a 4-D NHWC image, got shape {x}")
    oh, ow = _size(needed_value(values, 1))
    return [(x[0], oh, ow, x[3])]


OPS: tuple[RefOp, ...] = (
    define("ResizeNearestNeighborV2", _nearest, _shape),
    define("ResizeBilinearV2", _bilinear, _shape),
    define("ResizeNearestNeighborV2D", _nearest_d, _d_shape),
    define("ResizeBilinearV2D", _bilinear_d, _d_shape),
    define("ResizeNearestNeighborV2Grad", _nearest_grad, _nearest_grad_shape),
    define("ResizeBilinearV2Grad", _bilinear_grad, _bilinear_grad_shape),
    define("AdjustSaturation", _adjust_saturation, lambda shapes, values, attrs: [tuple(shapes[0])]),
)
