"""Image resizes: ResizeNearestNeighborV2 and ResizeBilinearV2 (TensorFlow's) of NHWC images to the `size` input, their
D twins (size an attribute) and gradients; AdjustSaturation through TensorFlow's HSV round trip in float32.

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
from aclcts.sim.kernels.shapes import UNKNOWN, inferred, like_input

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


def _image(call: OpCall, x: Any, index: int = 0) -> None:
    if len(x.shape) != 4:
        raise call.fail(f"input {call.quoted(index)} must be a 4-D NHWC image, got shape {list(x.shape)}")


def _nearest_image(x: np.ndarray, size: tuple[int, int], corners: bool, half: bool) -> np.ndarray:
    """x resized to size by copying the nearest source pixel."""
    rows = _nearest_index(x.shape[1], size[0], corners, half)
    cols = _nearest_index(x.shape[2], size[1], corners, half)
    return x[:, rows][:, :, cols]


def _bilinear_image(x: np.ndarray, size: tuple[int, int], corners: bool, half: bool) -> np.ndarray:
    """x resized to size by bilinear interpolation in float32."""
    image = x.astype(F32)
    top, bottom, dy = _linear(x.shape[1], size[0], corners, half)
    left, right, dx = _linear(x.shape[2], size[1], corners, half)
    dx = dx[None, None, :, None]
    with np.errstate(all="ignore"):
        upper = image[:, top][:, :, left] + (image[:, top][:, :, right] - image[:, top][:, :, left]) * dx
        lower = image[:, bottom][:, :, left] + (image[:, bottom][:, :, right] - image[:, bottom][:, :, left]) * dx
        return upper + (lower - upper) * dy[None, :, None, None]


def _modes(call: OpCall) -> tuple[bool, bool]:
    return call.attr_bool("align_corners"), call.attr_bool("half_pixel_centers")


def _nearest(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list[TensorInfo]) -> list[np.ndarray]:
    call = OpCall("ResizeNearestNeighborV2", inputs, attrs)
    call.require_inputs()
    x = call.input(0)
    call.require_dtype(0, x.dtype)
    _image(call, x)
    size = _size(call, call.input(1))
    out = Outputs(call, outputs)
    out.require_input_dtype(0, 0, x.dtype)
    return [out.emit(0, _nearest_image(x, size, *_modes(call)))]


def _bilinear(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list[TensorInfo]) -> list[np.ndarray]:
    call = OpCall("ResizeBilinearV2", inputs, attrs)
    call.require_inputs()
    x = call.input(0)
    call.require_dtype(0, x.dtype)
    _image(call, x)
    size = _size(call, call.input(1))
    out = Outputs(call, outputs)
    y_dtype = numpy_dtype(call.attr_dtype("dtype", sorted(call.output_types(0))))
    out.require_dtype(0, y_dtype, "given by attr 'dtype'")
    return [out.emit(0, _bilinear_image(x, size, *_modes(call)).astype(y_dtype))]


def _size_attr(call: OpCall) -> tuple[int, int]:
    size = call.attr_list_int("size", required=True)
    if len(size) != 2 or min(size) <= 0:
        raise call.fail(f"attr 'size' must hold two positive values, got {size}")
    return size[0], size[1]


def _resized_d(op_type: str, bilinear: bool) -> Any:
    def compute(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list[TensorInfo]) -> list[np.ndarray]:
        call = OpCall(op_type, inputs, attrs)
        call.require_inputs()
        x = call.input(0)
        call.require_dtype(0, x.dtype)
        _image(call, x)
        size = _size_attr(call)
        out = Outputs(call, outputs)
        if bilinear:
            out.require_dtype(0, np.dtype(F32), "float32, the only type of y")
            return [out.emit(0, _bilinear_image(x, size, *_modes(call)))]
        out.require_input_dtype(0, 0, x.dtype)
        return [out.emit(0, _nearest_image(x, size, *_modes(call)))]
    return compute


def _infer_d(op_type: str, bilinear: bool) -> Any:
    def infer(inputs: list[TensorInfo], values: list[np.ndarray | None], attrs: dict[str, Any]) -> list[InferredShape]:
        call = OpCall(op_type, inputs, attrs)
        call.require_inputs()
        x = call.input(0)
        _image(call, x)
        oh, ow = _size_attr(call)
        return [inferred(call.output_types(0)[0] if bilinear else x.dtype, (x.shape[0], oh, ow, x.shape[3]))]
    return infer


def _nearest_grad(inputs: list[np.ndarray | None], attrs: dict[str, Any],
                  outputs: list[TensorInfo]) -> list[np.ndarray]:
    call = OpCall("ResizeNearestNeighborV2Grad", inputs, attrs)
    call.require_inputs()
    grads = call.input(0)
    call.require_dtype(0, grads.dtype)
    _image(call, grads)
    height, width = _size(call, call.input(1))
    out = Outputs(call, outputs)
    out.require_input_dtype(0, 0, grads.dtype)
    corners, half = _modes(call)
    rows = _nearest_index(height, grads.shape[1], corners, half)
    cols = _nearest_index(width, grads.shape[2], corners, half)
    wide = grads.astype(F32) if grads.dtype == np.float16 else grads
    y = np.zeros((grads.shape[0], height, width, grads.shape[3]), dtype=wide.dtype)
    with np.errstate(all="ignore"):
        for i, row in enumerate(rows):
            np.add.at(y, (slice(None), row, cols), wide[:, i])
    return [out.emit(0, y.astype(grads.dtype))]


def _bilinear_grad(inputs: list[np.ndarray | None], attrs: dict[str, Any],
                   outputs: list[TensorInfo]) -> list[np.ndarray]:
    call = OpCall("ResizeBilinearV2Grad", inputs, attrs)
    call.require_inputs()
    grads, image = call.input(0), call.input(1)
    call.require_dtype(0, grads.dtype)
    call.require_dtype(1, image.dtype)
    _image(call, grads)
    _image(call, image, 1)
    out = Outputs(call, outputs)
    out.require_input_dtype(0, 0, grads.dtype)
    corners, half = _modes(call)
    top, bottom, dy = _linear(image.shape[1], grads.shape[1], corners, half)
    left, right, dx = _linear(image.shape[2], grads.shape[2], corners, half)
    y = np.zeros((grads.shape[0], image.shape[1], image.shape[2], grads.shape[3]), dtype=F32)
    one = F32(1)
    with np.errstate(all="ignore"):
        for i in range(grads.shape[1]):
            row = grads[:, i].astype(F32)
            for source, weight in ((top[i], one - dy[i]), (bottom[i], dy[i])):
                np.add.at(y, (slice(None), source, left), row * (weight * (one - dx))[None, :, None])
                np.add.at(y, (slice(None), source, right), row * (weight * dx)[None, :, None])
    return [out.emit(0, y)]


def _to_hsv(rgb: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Hue in [0, 6), saturation and value of float32 RGB pixels (TensorFlow's rgb_to_hsv, hue in sixths)."""
    r, g, b = rgb[..., 0], rgb[..., 1], rgb[..., 2]
    value = np.maximum(np.maximum(r, g), b)
    chroma = value - np.minimum(np.minimum(r, g), b)
    safe = np.where(chroma > 0, chroma, F32(1))
    hue = np.where(value == r, (g - b) / safe, np.where(value == g, F32(2) + (b - r) / safe, F32(4) + (r - g) / safe))
    hue = np.where(chroma > 0, np.where(hue < 0, hue + F32(6), hue), F32(0))
    saturation = np.where(value > 0, chroma / np.where(value > 0, value, F32(1)), F32(0))
    return hue.astype(F32), saturation.astype(F32), value


def _to_rgb(hue: np.ndarray, saturation: np.ndarray, value: np.ndarray) -> np.ndarray:
    """RGB pixels of HSV ones (hue in [0, 6)), TensorFlow's hsv_to_rgb by sectors of the hue."""
    chroma = value * saturation
    x = chroma * (F32(1) - np.abs(np.mod(hue, F32(2)) - F32(1)))
    low = value - chroma
    sector = np.clip(np.floor(hue).astype(np.int64), 0, 5)
    zero = np.zeros_like(chroma)
    table = np.stack([np.stack(c, axis=-1) for c in ((chroma, x, zero), (x, chroma, zero), (zero, chroma, x),
                                                     (zero, x, chroma), (x, zero, chroma), (chroma, zero, x))])
    picked = np.take_along_axis(table, sector[None, ..., None], axis=0)[0]
    return picked + low[..., None]


def _adjust_saturation(inputs: list[np.ndarray | None], attrs: dict[str, Any],
                       outputs: list[TensorInfo]) -> list[np.ndarray]:
    call = OpCall("AdjustSaturation", inputs, attrs)
    call.require_inputs()
    images, scale = call.input(0), call.input(1)
    call.require_dtype(0, images.dtype)
    call.require_dtype(1, scale.dtype)
    if images.ndim < 3 or images.shape[-1] != 3:
        raise call.fail(f"input {call.quoted(0)} must have at least 3 dims, the last 3 (RGB), got "
                        f"{list(images.shape)}")
    if scale.size != 1:
        raise call.fail(f"input {call.quoted(1)} must hold one value, got shape {list(scale.shape)}")
    out = Outputs(call, outputs)
    out.require_input_dtype(0, 0, images.dtype)
    with np.errstate(all="ignore"):
        hue, saturation, value = _to_hsv(images.astype(F32))
        saturation = np.clip(saturation * F32(scale.reshape(-1)[0]), F32(0), F32(1))
        y = _to_rgb(hue, saturation, value)
    return [out.emit(0, y.astype(images.dtype))]


def _nearest_grad_infer(inputs: list[TensorInfo], values: list[np.ndarray | None],
                        attrs: dict[str, Any]) -> list[InferredShape]:
    call = OpCall("ResizeNearestNeighborV2Grad", inputs, attrs)
    call.require_inputs()
    grads = call.input(0)
    _image(call, grads)
    value = values[1] if len(values) > 1 else None
    height, width = _size(call, value) if value is not None else (UNKNOWN, UNKNOWN)
    return [inferred(grads.dtype, (grads.shape[0], height, width, grads.shape[3]))]


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
builtin("ResizeNearestNeighborV2D", _resized_d("ResizeNearestNeighborV2D", False),
        _infer_d("ResizeNearestNeighborV2D", False))
builtin("ResizeBilinearV2D", _resized_d("ResizeBilinearV2D", True), _infer_d("ResizeBilinearV2D", True))
builtin("ResizeNearestNeighborV2Grad", _nearest_grad, _nearest_grad_infer)
builtin("ResizeBilinearV2Grad", _bilinear_grad, like_input("ResizeBilinearV2Grad", 1))
builtin("AdjustSaturation", _adjust_saturation, like_input("AdjustSaturation"))
