"""Pooling references in float64, written as explicit loops over output positions.

MaxPool / AvgPool follow TensorFlow (the headers' "Compatible with the TensorFlow operator"): ksize and strides hold 4
values in data_format order (NHWC or NCHW, 1 on N and C); "VALID" keeps whole windows, "SAME" gives ceil(in / stride)
outputs with the padding split low-first, and an average divides by the window's elements inside the input only.
AdaptiveAvgPool2d follows PyTorch: output cell i covers [floor(i * in / out), ceil((i + 1) * in / out)).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from aclcts.reference.base import RefOp, define
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


def _adaptive(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    return [round_to(adaptive_avg_pool(widen(xs[0]), list(attrs["output_size"])), out[0])]


def _adaptive_shape(shapes: list[Any], values: list[Any], attrs: dict[str, Any]) -> list[tuple[int, ...]]:
    return [tuple(shapes[0][:-2]) + tuple(int(d) for d in attrs["output_size"])]


OPS: tuple[RefOp, ...] = (
    define("MaxPool", _pool(np.max), _pool_shape),
    define("AvgPool", _pool(np.mean), _pool_shape),
    define("AdaptiveAvgPool2d", _adaptive, _adaptive_shape),
)
