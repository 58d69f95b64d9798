"""Image resizes: ResizeNearestNeighborV2 and ResizeBilinearV2 (TensorFlow's) of NHWC images to the `size` input.

Prototypes: aclcts/core/prototypes/resize.py. Coordinates follow TensorFlow: scale = (in - 1) / (out - 1) with
align_corners (out > 1), else in / out; nearest copies floor((i + 0.5) * scale) with half_pixel_centers,
round(i * scale) with align_corners, else floor(i * scale); bilinear reads (i + 0.5) * scale - 0.5 with
half_pixel_centers, else i * scale, between its floor and ceil clamped to the image. ResizeBilinearV2's y has the
type its dtype attribute gives.
Numerics: coordinates and weights in float32; bilinear interpolates in float32 (top, bottom, then between them) and
rounds once to y's type; nearest copies values exactly.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from aclcts.core.dtypes import numpy_dtype
from aclcts.sim.kernels.base import InferredShape, TensorInfo
from aclcts.sim.kernels.call import OpCall, Outputs
from aclcts.sim.kernels.registry import builtin
from aclcts.sim.kernels.shapes import UNKNOWN, inferred

F32 = np.float32


def _size(call: OpCall, value: Any) -> tuple[int, int]:
    dims = call.index_values(1, value)
    if len(dims) != 2 or min(dims) <= 0:
        raise call.fail(f"input {call.quoted(1)} must hold two positive values, got {dims}")
    return dims[0], dims[1]


def _scale(size: int, out: int, align_corners: bool) -> np.float32:
    return F32((size - 1) / (out - 1)) if align_corners and out > 1 else F32(size) / F32(out)


def _nearest_index(size: int, out: int, align_corners: bool, half_pixel: bool) -> np.ndarray:
    i = np.arange(out, dtype=F32)
    scale = _scale(size, out, align_corners)
    if half_pixel:
        source = np.floor((i + F32(0.5)) * scale)
    elif align_corners:
        source = np.floor(i * scale + F32(0.5))
    else:
        source = np.floor(i * scale)
    return np.clip(source.astype(np.int64), 0, size - 1)


def _linear(size: int, out: int, align_corners: bool, half_pixel: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    i = np.arange(out, dtype=F32)
    scale = _scale(size, out, align_corners)
    source = (i + F32(0.5)) * scale - F32(0.5) if half_pixel else i * scale
    low = np.floor(source)
    return (np.clip(low.astype(np.int64), 0, size - 1), np.clip(np.ceil(source).astype(np.int64), 0, size - 1),
            (source - low).astype(F32))


def _image(call: OpCall, x: Any) -> None:
    if len(x.shape) != 4:
        raise call.fail(f"input {call.quoted(0)} must be a 4-D NHWC image, got shape {list(x.shape)}")


def _nearest(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list[TensorInfo]) -> list[np.ndarray]:
    call = OpCall("ResizeNearestNeighborV2", inputs, attrs)
    call.require_inputs()
    x = call.input(0)
    call.require_dtype(0, x.dtype)
    _image(call, x)
    (oh, ow), corners = _size(call, call.input(1)), call.attr_bool("align_corners")
    half = call.attr_bool("half_pixel_centers")
    out = Outputs(call, outputs)
    out.require_input_dtype(0, 0, x.dtype)
    rows = _nearest_index(x.shape[1], oh, corners, half)
    cols = _nearest_index(x.shape[2], ow, corners, half)
    return [out.emit(0, x[:, rows][:, :, cols])]


def _bilinear(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list[TensorInfo]) -> list[np.ndarray]:
    call = OpCall("ResizeBilinearV2", inputs, attrs)
    call.require_inputs()
    x = call.input(0)
    call.require_dtype(0, x.dtype)
    _image(call, x)
    (oh, ow), corners = _size(call, call.input(1)), call.attr_bool("align_corners")
    half = call.attr_bool("half_pixel_centers")
    out = Outputs(call, outputs)
    y_dtype = numpy_dtype(call.attr_dtype("dtype", sorted(call.output_types(0))))
    out.require_dtype(0, y_dtype, "given by attr 'dtype'")
    image = x.astype(F32)
    top, bottom, dy = _linear(x.shape[1], oh, corners, half)
    left, right, dx = _linear(x.shape[2], ow, corners, half)
    dx = dx[None, None, :, None]
    with np.errstate(all="ignore"):
        upper = image[:, top][:, :, left] + (image[:, top][:, :, right] - image[:, top][:, :, left]) * dx
        lower = image[:, bottom][:, :, left] + (image[:, bottom][:, :, right] - image[:, bottom][:, :, left]) * dx
        y = upper + (lower - upper) * dy[None, :, None, None]
    return [out.emit(0, y.astype(y_dtype))]


def _infer(op_type: str, bilinear: bool) -> Any:
    def infer(inputs: list[TensorInfo], values: list[np.ndarray | None], attrs: dict[str, Any]) -> list[InferredShape]:
        call = OpCall(op_type, inputs, attrs)
        call.require_inputs()
        x = call.input(0)
        _image(call, x)
        dtype = call.attr_dtype("dtype", sorted(call.output_types(0))) if bilinear else x.dtype
        value = values[1] if len(values) > 1 else None
        oh, ow = _size(call, value) if value is not None else (UNKNOWN, UNKNOWN)
        return [inferred(dtype, (x.shape[0], oh, ow, x.shape[3]))]
    return infer


builtin("ResizeNearestNeighborV2", _nearest, _infer("ResizeNearestNeighborV2", False))
builtin("ResizeBilinearV2", _bilinear, _infer("ResizeBilinearV2", True))
