"""Pooling references in float64, written as explicit loops over output positions.

MaxPool / AvgPool follow TensorFlow (the headers' "Compatible with the TensorFlow operator"): ksize and strides hold 4
values in data_format order (NHWC or NCHW, 1 on N and C); "VALID" keeps whole windows, "SAME" gives ceil(in / stride)
outputs with the padding split low-first, and an average divides by the window's elements inside the input only.
AdaptiveAvgPool2d follows PyTorch: output cell i covers [floor(i * in / out), ceil((i + 1) * in / out)); its gradient
AdaptiveAvgPool2dGrad spreads each incoming gradient evenly over that cell.
MaxPoolV3 / AvgPoolV2 (Caffe-style, nn_pooling_ops.h): padding_mode "VALID" and "SAME" as above, "CALCULATED" pads
[top, bottom, left, right] explicitly with floor((in + pads - k) / stride) + 1 outputs (the ceiling with ceil_mode),
global_pooling one window over the whole plane; AvgPoolV2 with exclusive=False divides by the window's elements
inside the padded input (PyTorch's count_include_pad).
AvgPoolGrad / MaxPoolGrad are TensorFlow's gradients (tf.raw_ops), written as the transposed direct sum: each output
position's incoming gradient is added back over its window, split evenly (AvgPoolGrad, by the same divisor as
AvgPool) or given whole to the window's first element (row-major) equal to orig_output x2 (MaxPoolGrad; with
x2 = MaxPool(x1), the maximum, as TensorFlow takes it; CANN's TBE impl compares x1 with x2 the same way).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from aclcts.reference.base import InputError, RefOp, define, needed_value
from aclcts.reference.numeric import round_to, widen


def _hw(data_format: str) -> tuple[int, int]:
    if data_format not in ("NHWC", "NCHW"):
        raise ValueError(f"data_format must be NHWC or NCHW, got {data_format!r}")
    return (1, 2) if data_format == "NHWC" else (2, 3)


def windows(size: int, k: int, stride: int, padding: str) -> list[tuple[int, int]]:
    """The [start, end) input range of each output position along one axis, clipped to the input."""
    if padding == "VALID":
        count = (size - k) // stride + 1 if size >= k else 0
        before = 0
    elif padding == "SAME":
        count = -(-size // stride)
        before = max((count - 1) * stride + k - size, 0) // 2
    else:
        raise ValueError(f"padding must be SAME or VALID, got {padding!r}")
    return [(max(i * stride - before, 0), min(i * stride - before + k, size)) for i in range(count)]


def pool(x: np.ndarray, ksize: list[int], strides: list[int], padding: str, data_format: str,
         reduce: Any) -> np.ndarray:
    """reduce (np.max or np.mean) over each window of the two spatial axes."""
    h, w = _hw(data_format)
    rows = windows(x.shape[h], ksize[h], strides[h], padding)
    cols = windows(x.shape[w], ksize[w], strides[w], padding)
    moved = np.moveaxis(x, (h, w), (-2, -1))
    out = np.empty(moved.shape[:-2] + (len(rows), len(cols)), dtype=np.float64 if reduce is np.mean else x.dtype)
    for i, (r0, r1) in enumerate(rows):
        for j, (c0, c1) in enumerate(cols):
            out[..., i, j] = reduce(moved[..., r0:r1, c0:c1], axis=(-2, -1))
    return np.moveaxis(out, (-2, -1), (h, w))


def adaptive_avg_pool(x: np.ndarray, output_size: list[int]) -> np.ndarray:
    """The mean of each adaptive cell over the last two axes."""
    (out_h, out_w), (in_h, in_w) = output_size, x.shape[-2:]
    out = np.empty(x.shape[:-2] + (out_h, out_w))
    for i in range(out_h):
        r0, r1 = (i * in_h) // out_h, math.ceil((i + 1) * in_h / out_h)
        for j in range(out_w):
            c0, c1 = (j * in_w) // out_w, math.ceil((j + 1) * in_w / out_w)
            out[..., i, j] = x[..., r0:r1, c0:c1].mean(axis=(-2, -1))
    return out


def padded_windows(size: int, k: int, stride: int, mode: str, pads: tuple[int, int],
                   ceil_mode: bool) -> list[tuple[int, int, int]]:
    """MaxPoolV3/AvgPoolV2's windows along one axis: (start, end) clipped to the input and the window's length inside
    the padded input."""
    before, after = pads
    if mode == "VALID":
        count, before, after = (size - k) // stride + 1, 0, 0
    elif mode == "SAME":
        count = -(-size // stride)
        total = max((count - 1) * stride + k - size, 0)
        before, after = total // 2, total - total // 2
    elif mode == "CALCULATED":
        span = size + before + after - k
        count = (-(-span // stride) if ceil_mode else span // stride) + 1
    else:
        raise ValueError(f"padding_mode must be SAME, VALID or CALCULATED, got {mode!r}")
    result = []
    for i in range(max(count, 0)):
        start = i * stride - before
        result.append((max(start, 0), min(start + k, size), min(start + k, size + after) - start))
    return result


def caffe_axes(shape: tuple[int, ...], attrs: dict[str, Any]) -> tuple[int, int, list[Any], list[Any]]:
    """MaxPoolV3/AvgPoolV2's spatial axes and the windows along each, by the attributes above."""
    h, w = _hw(str(attrs["data_format"]))
    pads = list(attrs["pads"])
    if attrs["global_pooling"]:
        mode, k_h, k_w, s_h, s_w, pads = "VALID", shape[h], shape[w], 1, 1, [0, 0, 0, 0]
    else:
        mode, k_h, k_w = str(attrs["padding_mode"]), attrs["ksize"][h], attrs["ksize"][w]
        s_h, s_w = attrs["strides"][h], attrs["strides"][w]
    ceil_mode = bool(attrs["ceil_mode"])
    rows = padded_windows(shape[h], k_h, s_h, mode, (pads[0], pads[1]), ceil_mode)
    cols = padded_windows(shape[w], k_w, s_w, mode, (pads[2], pads[3]), ceil_mode)
    return h, w, rows, cols


def caffe_pool(x: np.ndarray, attrs: dict[str, Any], maximum: bool) -> np.ndarray:
    """MaxPoolV3 (maximum) or AvgPoolV2 (the mean) of each window."""
    h, w, rows, cols = caffe_axes(x.shape, attrs)
    moved = np.moveaxis(x, (h, w), (-2, -1))
    out = np.empty(moved.shape[:-2] + (len(rows), len(cols)), dtype=x.dtype if maximum else np.float64)
    exclusive = bool(attrs.get("exclusive", True))
    for i, (r0, r1, rows_padded) in enumerate(rows):
        for j, (c0, c1, cols_padded) in enumerate(cols):
            window = moved[..., r0:r1, c0:c1]
            if maximum:
                out[..., i, j] = window.max(axis=(-2, -1))
            else:
                divisor = (r1 - r0) * (c1 - c0) if exclusive else rows_padded * cols_padded
                out[..., i, j] = window.sum(axis=(-2, -1)) / divisor
    return np.moveaxis(out, (-2, -1), (h, w))


def _caffe(maximum: bool) -> Any:
    def compute(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
        return [round_to(caffe_pool(widen(xs[0]), attrs, maximum), out[0])]
    return compute


def _caffe_shape(shapes: list[Any], values: list[Any], attrs: dict[str, Any]) -> list[tuple[int, ...]]:
    shape = list(shapes[0])
    h, w, rows, cols = caffe_axes(tuple(shape), attrs)
    shape[h], shape[w] = len(rows), len(cols)
    return [tuple(shape)]


def _pool(reduce: Any) -> Any:
    def compute(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
        y = pool(widen(xs[0]), list(attrs["ksize"]), list(attrs["strides"]), str(attrs["padding"]),
                 str(attrs["data_format"]), reduce)
        return [round_to(y, out[0])]
    return compute


def _pool_shape(shapes: list[Any], values: list[Any], attrs: dict[str, Any]) -> list[tuple[int, ...]]:
    shape = list(shapes[0])
    h, w = _hw(str(attrs["data_format"]))
    for axis in (h, w):
        shape[axis] = len(windows(shape[axis], attrs["ksize"][axis], attrs["strides"][axis], str(attrs["padding"])))
    return [tuple(shape)]


def adaptive_avg_pool_grad(dy: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """AdaptiveAvgPool2dGrad: each dy element divided evenly over its adaptive cell of the last two axes."""
    (out_h, out_w), (in_h, in_w) = dy.shape[-2:], shape[-2:]
    if tuple(dy.shape[:-2]) != tuple(shape[:-2]):
        raise ValueError(f"the incoming gradient {list(dy.shape)} and orig_input_shape {list(shape)} differ before the last two "
                         "axes")
    dx = np.zeros(tuple(shape))
    for i in range(out_h):
        r0, r1 = (i * in_h) // out_h, math.ceil((i + 1) * in_h / out_h)
        for j in range(out_w):
            c0, c1 = (j * in_w) // out_w, math.ceil((j + 1) * in_w / out_w)
            dx[..., r0:r1, c0:c1] += (dy[..., i, j] / ((r1 - r0) * (c1 - c0)))[..., None, None]
    return dx


def _adaptive(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    return [round_to(adaptive_avg_pool(widen(xs[0]), list(attrs["output_size"])), out[0])]


def _adaptive_shape(shapes: list[Any], values: list[Any], attrs: dict[str, Any]) -> list[tuple[int, ...]]:
    return [tuple(shapes[0][:-2]) + tuple(int(d) for d in attrs["output_size"])]


def _tf_axes(shape: tuple[int, ...], attrs: dict[str, Any]) -> tuple[int, int, list[Any], list[Any]]:
    """A TensorFlow pool's spatial axes and the windows along each."""
    h, w = _hw(str(attrs["data_format"]))
    ksize, strides, padding = list(attrs["ksize"]), list(attrs["strides"]), str(attrs["padding"])
    return (h, w, windows(shape[h], ksize[h], strides[h], padding), windows(shape[w], ksize[w], strides[w], padding))


def _require_pooled(got: tuple[int, ...], shape: tuple[int, ...], h: int, w: int, rows: list[Any], cols: list[Any],
                    index: int) -> None:
    """Input index must have the pooled shape of shape."""
    pooled = tuple(len(rows) if i == h else len(cols) if i == w else d for i, d in enumerate(shape))
    if tuple(got) != pooled:
        raise InputError(index, lambda name: f"{name} has shape {list(got)}, expected {list(pooled)} (the pooled shape "
                                             f"of {list(shape)})")


def avg_pool_grad(shape: tuple[int, ...], dy: np.ndarray, attrs: dict[str, Any]) -> np.ndarray:
    """AvgPoolGrad: each dy element divided evenly over its window (the elements inside the input)."""
    h, w, rows, cols = _tf_axes(shape, attrs)
    _require_pooled(dy.shape, shape, h, w, rows, cols, 1)
    grad = np.moveaxis(dy, (h, w), (-2, -1))
    dx = np.zeros(grad.shape[:-2] + (shape[h], shape[w]))
    for i, (r0, r1) in enumerate(rows):
        for j, (c0, c1) in enumerate(cols):
            dx[..., r0:r1, c0:c1] += (grad[..., i, j] / ((r1 - r0) * (c1 - c0)))[..., None, None]
    return np.moveaxis(dx, (-2, -1), (h, w))


def max_pool_grad(x: np.ndarray, y: np.ndarray, dy: np.ndarray, attrs: dict[str, Any]) -> np.ndarray:
    """MaxPoolGrad: each dy element added to its window's first element equal to the pooled value y."""
    h, w, rows, cols = _tf_axes(x.shape, attrs)
    _require_pooled(y.shape, x.shape, h, w, rows, cols, 1)
    _require_pooled(dy.shape, x.shape, h, w, rows, cols, 2)
    # spatial axes first: [H, W, ...] for x and dx, [rows, cols, ...] for y and dy
    xs, ys, grad = (np.moveaxis(a, (h, w), (0, 1)) for a in (x, y, dy))
    starts = [np.array([lo for lo, _ in axis]) for axis in (rows, cols)]
    lengths = [np.array([hi - lo for lo, hi in axis]) for axis in (rows, cols)]
    dx = np.zeros(xs.shape)
    found = np.zeros(ys.shape, dtype=bool)
    # every window's elements in row-major order, all windows at once: offset (a, b) from each window's start
    for a in range(int(lengths[0].max(initial=0))):
        for b in range(int(lengths[1].max(initial=0))):
            r = np.minimum(starts[0] + a, xs.shape[0] - 1)[:, None]
            c = np.minimum(starts[1] + b, xs.shape[1] - 1)[None, :]
            inside = ((a < lengths[0])[:, None] & (b < lengths[1])[None, :]).reshape(
                (len(rows), len(cols)) + (1,) * (xs.ndim - 2))
            first = (xs[r, c] == ys) & inside & ~found
            found |= first
            np.add.at(dx, (r, c), np.where(first, grad, 0.0))
    return np.moveaxis(dx, (0, 1), (h, w))


def _avg_pool_grad(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    shape = tuple(int(d) for d in np.asarray(xs[0]).ravel())
    return [round_to(avg_pool_grad(shape, widen(xs[1]), attrs), out[0])]


def _avg_pool_grad_shape(shapes: list[Any], values: list[Any], attrs: dict[str, Any]) -> list[tuple[int, ...]]:
    return [tuple(int(d) for d in needed_value(values, 0).ravel())]


def _max_pool_grad(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    return [round_to(max_pool_grad(widen(xs[0]), widen(xs[1]), widen(xs[2]), attrs), out[0])]


OPS: tuple[RefOp, ...] = (
    define("MaxPool", _pool(np.max), _pool_shape),
    define("AvgPool", _pool(np.mean), _pool_shape),
    define("AdaptiveAvgPool2d", _adaptive, _adaptive_shape),
    define("MaxPoolV3", _caffe(True), _caffe_shape),
    define("AvgPoolV2", _caffe(False), _caffe_shape),
    define("AvgPoolGrad", _avg_pool_grad, _avg_pool_grad_shape),
    define("AdaptiveAvgPool2dGrad",
           lambda xs, attrs, out: [round_to(adaptive_avg_pool_grad(widen(xs[0]), tuple(attrs["orig_input_shape"])),
                                            out[0])],
           lambda shapes, values, attrs: [tuple(int(d) for d in attrs["orig_input_shape"])]),
    define("MaxPoolGrad", _max_pool_grad, lambda shapes, values, attrs: [tuple(shapes[0])]),
)
