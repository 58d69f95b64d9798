"""Pooling: MaxPool, AvgPool (TensorFlow semantics) and AdaptiveAvgPool2d (PyTorch semantics).

Prototypes: aclcts/core/prototypes/pooling.py (hicann/ops-nn). MaxPool/AvgPool take ksize and strides as 4 values in
data_format order (NHWC or NCHW; 1 on N and C) and padding "VALID" (whole windows) or "SAME"
(ceil(in / stride) outputs, the padding split low-first); an average counts only the window's elements inside the
input. AdaptiveAvgPool2d averages, over the last two axes, output cell i's input range
[floor(i * in / out), ceil((i + 1) * in / out)); AdaptiveAvgPool2dGrad spreads the incoming gradient one axis at a time
(rows, then columns), each cell's share divided by the cell's length, in fp32. MaxPoolV3/AvgPoolV2 take padding_mode SAME/VALID as above or
CALCULATED (explicit pads, floor or ceil_mode's ceiling), or one global window.
AvgPoolGrad gathers: the incoming gradient divided by each window's count, spread by the stride (zeros between) and
summed over a k-wide sliding window per axis (the transposed pooling as a correlation with ones). MaxPoolGrad
scatters: each incoming gradient goes to the first window element (row-major) equal to orig_output x2, as CANN's
TBE impl selects it (vcmpv_eq of x1 with x2), added kernel offset by kernel offset into the padded input.
Numerics: windows are read through a sliding view of x padded with the reduction's identity; MaxPool is exact; the
averages sum in fp32 for fp16/bf16 (the input type otherwise), divide by the counted elements and round once.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from aclcts.sim.kernels.base import InferredShape, TensorInfo
from aclcts.sim.kernels.call import OpCall, Outputs
from aclcts.sim.kernels.numerics import widen
from aclcts.sim.kernels.registry import builtin
from aclcts.sim.kernels.shapes import inferred, like_input, unknown_rank
from aclcts.sim.seams import Seam


def _layout(call: OpCall, rank: int) -> tuple[int, int]:
    if rank != 4:
        raise call.fail(f"input {call.quoted(0)} must be 4-D, got rank {rank}")
    data_format = call.attr_str("data_format")
    if data_format not in ("NHWC", "NCHW"):
        raise call.fail(f"attr 'data_format' must be NHWC or NCHW, got {data_format!r}")
    return (1, 2) if data_format == "NHWC" else (2, 3)


def _window(call: OpCall, name: str, h: int, w: int) -> tuple[int, int]:
    values = call.attr_list_int(name)
    if len(values) != 4 or any(v <= 0 for v in values) or any(values[i] != 1 for i in range(4) if i not in (h, w)):
        raise call.fail(f"attr '{name}' {values} must hold 4 positive values, 1 on N and C")
    return values[h], values[w]


def _padding(call: OpCall, size: int, k: int, stride: int, attr: str = "padding") -> tuple[int, int, int]:
    """(output count, padding before, padding after) along one axis, by the SAME/VALID attribute attr."""
    padding = call.attr_str(attr)
    if padding == "VALID":
        return ((size - k) // stride + 1 if size >= k else 0), 0, 0
    if padding == "SAME":
        count = -(-size // stride)
        total = max((count - 1) * stride + k - size, 0)
        return count, total // 2, total - total // 2
    raise call.fail(f"attr '{attr}' must be SAME or VALID, got {padding!r}")


def _geometry(call: OpCall, shape: tuple[int, ...]) -> tuple[int, int, list[tuple[int, int, int, int, int]]]:
    """Spatial axes and, per axis, (size, k, stride, count, before)."""
    h, w = _layout(call, len(shape))
    ks, strides = _window(call, "ksize", h, w), _window(call, "strides", h, w)
    axes = []
    for axis, k, stride in ((h, ks[0], strides[0]), (w, ks[1], strides[1])):
        count, before, _ = _padding(call, shape[axis], k, stride)
        axes.append((shape[axis], k, stride, count, before))
    return h, w, axes


def _caffe_geometry(call: OpCall, shape: tuple[int, ...]) -> tuple[int, int, list[tuple[int, int, int, int, int]],
                                                                    list[tuple[int, int]]]:
    """MaxPoolV3/AvgPoolV2: spatial axes, per axis (size, k, stride, count, before) and the pads the window counts
    of a non-exclusive average include."""
    h, w = _layout(call, len(shape))
    if call.attr_bool("global_pooling"):
        return h, w, [(shape[h], shape[h], 1, 1, 0), (shape[w], shape[w], 1, 1, 0)], [(0, 0), (0, 0)]
    ks, strides = _window(call, "ksize", h, w), _window(call, "strides", h, w)
    pads = call.attr_list_int("pads")
    if len(pads) != 4 or min(pads) < 0:
        raise call.fail(f"attr 'pads' {pads} must hold 4 non-negative values [top, bottom, left, right]")
    calculated = call.attr_str("padding_mode") == "CALCULATED"
    ceil_mode = call.attr_bool("ceil_mode")
    axes, counted = [], []
    for axis, k, stride, (top, bottom) in ((h, ks[0], strides[0], pads[:2]), (w, ks[1], strides[1], pads[2:])):
        if calculated:
            span = shape[axis] + top + bottom - k
            count, before, after = (span + (stride - 1 if ceil_mode else 0)) // stride + 1, top, bottom
        else:
            count, before, after = _padding(call, shape[axis], k, stride, "padding_mode")
        if count < 1 and shape[axis] >= 0:
            raise call.fail(f"the {k}-wide window does not fit the padded input of {shape[axis]} along axis {axis}")
        axes.append((shape[axis], k, stride, count, before))
        counted.append((before, after))
    return h, w, axes, counted


def _windows(x: np.ndarray, h: int, w: int, axes: list[tuple[int, int, int, int, int]], fill: Any) -> np.ndarray:
    """x's windows, shape (..., out_h, out_w, kh, kw) with the spatial axes last, padding filled with fill."""
    moved = np.moveaxis(x, (h, w), (-2, -1))
    pads = [(0, 0)] * (moved.ndim - 2)
    for size, k, stride, count, before in axes:
        after = max((count - 1) * stride + k - size - before, 0) if count else 0
        pads.append((before, after))
    padded = np.pad(moved, pads, constant_values=fill)
    view = sliding_window_view(padded, (axes[0][1], axes[1][1]), axis=(-2, -1))
    return view[..., :: axes[0][2], :: axes[1][2], :, :][..., : axes[0][3], : axes[1][3], :, :]


def _counted(x_shape: tuple[int, ...], h: int, w: int, axes: list[tuple[int, int, int, int, int]]) -> np.ndarray:
    """The divisor of each average window (its elements inside the input), over the output's two spatial axes."""
    ones = np.ones((x_shape[h], x_shape[w]), dtype=np.float64)
    return average_divisor(ones, axes)


def _inside_count(ones: np.ndarray, axes: list[tuple[int, int, int, int, int]]) -> np.ndarray:
    """The number of input elements inside each window (padding not counted)."""
    return _windows(ones, 0, 1, axes, 0.0).sum(axis=(-2, -1))


#: What an average window divides by, given a map of ones over the input's two spatial axes.
average_divisor = Seam("average pool divisor", _inside_count)


def _tf_geometry(call: OpCall, shape: tuple[int, ...]) -> tuple[int, int, list[tuple[int, int, int, int, int]], None]:
    """MaxPool/AvgPool's geometry: no padding counted in an average."""
    return (*_geometry(call, shape), None)


def _pool_kernel(op_type: str, maximum: bool, geometry: Any) -> None:
    """A window maximum or average; geometry gives the axes and the pads a non-exclusive average counts (or None)."""

    def compute(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list[TensorInfo]) -> list[np.ndarray]:
        call = OpCall(op_type, inputs, attrs)
        call.require_inputs()
        x = call.input(0)
        call.require_dtype(0, x.dtype)
        h, w, axes, counted = geometry(call, tuple(x.shape))
        out = Outputs(call, outputs)
        out.require_input_dtype(0, 0, x.dtype)
        with np.errstate(all="ignore"):
            if maximum:
                fill = -np.inf if x.dtype.kind == "f" or x.dtype.name == "bfloat16" else np.iinfo(x.dtype).min
                y = _windows(x, h, w, axes, fill).max(axis=(-2, -1))
            else:
                wide = widen(x)
                if counted is None or call.attr_bool("exclusive"):
                    divisor = _counted(x.shape, h, w, axes)
                else:
                    ones = np.pad(np.ones((x.shape[h], x.shape[w])), counted, constant_values=1.0)
                    padded = [(size + before + after, k, stride, count, 0)
                              for (size, k, stride, count, _), (before, after) in zip(axes, counted)]
                    divisor = _windows(ones, 0, 1, padded, 0.0).sum(axis=(-2, -1))
                y = _windows(wide, h, w, axes, 0).sum(axis=(-2, -1)) / divisor.astype(wide.dtype)
        return [out.emit(0, np.moveaxis(y, (-2, -1), (h, w)).astype(x.dtype))]

    def infer_shape(inputs: list[TensorInfo], values: list[np.ndarray | None], attrs: dict[str, Any]) -> list[InferredShape]:
        call = OpCall(op_type, inputs, attrs)
        call.require_inputs()
        x = call.input(0)
        shape = list(x.shape)
        if unknown_rank(tuple(shape)):
            return [inferred(x.dtype, shape)]
        h, w, axes, _ = geometry(call, tuple(shape))
        for axis, along in ((h, axes[0]), (w, axes[1])):
            shape[axis] = -1 if shape[axis] < 0 else along[3]  # an unknown input dim gives an unknown output dim
        return [inferred(x.dtype, shape)]

    builtin(op_type, compute, infer_shape)


def _spread(grad: np.ndarray, axes: list[tuple[int, int, int, int, int]]) -> np.ndarray:
    """The sum, at each input position of the last two axes, of grad over the windows holding it."""
    for axis, (size, k, stride, count, before) in zip((-2, -1), axes):
        moved = np.moveaxis(grad, axis, -1)
        spaced = np.zeros(moved.shape[:-1] + ((count - 1) * stride + 1,), dtype=moved.dtype)
        spaced[..., ::stride] = moved
        lead = k - 1 - before
        padded = np.pad(spaced, [(0, 0)] * (moved.ndim - 1) + [(max(lead, 0), max(size + k - 1, 0))])
        padded = padded[..., max(-lead, 0): max(-lead, 0) + size + k - 1]
        grad = np.moveaxis(sliding_window_view(padded, k, axis=-1).sum(axis=-1), -1, axis)
    return grad


def _avg_pool_grad(inputs: list[np.ndarray | None], attrs: dict[str, Any],
                   outputs: list[TensorInfo]) -> list[np.ndarray]:
    call = OpCall("AvgPoolGrad", inputs, attrs)
    call.require_inputs()
    shape = tuple(call.index_values(0, call.input(0)))
    dy = call.input(1)
    call.require_dtype(1, dy.dtype)
    h, w, axes = _geometry(call, shape)
    expected = tuple(axes[0][3] if i == h else axes[1][3] if i == w else d for i, d in enumerate(shape))
    if tuple(dy.shape) != expected:
        raise call.fail(f"input {call.quoted(1)} has shape {list(dy.shape)}, expected {list(expected)} (the pooled "
                        f"shape of orig_input_shape {list(shape)})")
    out = Outputs(call, outputs)
    out.require_input_dtype(0, 1, dy.dtype)
    wide = np.moveaxis(widen(dy), (h, w), (-2, -1))
    with np.errstate(all="ignore"):
        dx = _spread(wide / _counted(shape, h, w, axes).astype(wide.dtype), axes)
    return [out.emit(0, np.moveaxis(dx, (-2, -1), (h, w)).astype(dy.dtype))]


def _avg_pool_grad_infer(inputs: list[TensorInfo], values: list[np.ndarray | None],
                         attrs: dict[str, Any]) -> list[InferredShape]:
    call = OpCall("AvgPoolGrad", inputs, attrs)
    call.require_inputs()
    dy = call.input(1)
    value = values[0] if values else None
    shape = [-1] * 4 if value is None else call.index_values(0, value)
    return [inferred(dy.dtype, shape)]


def _max_pool_grad(inputs: list[np.ndarray | None], attrs: dict[str, Any],
                   outputs: list[TensorInfo]) -> list[np.ndarray]:
    call = OpCall("MaxPoolGrad", inputs, attrs)
    call.require_inputs()
    x, y, dy = call.input(0), call.input(1), call.input(2)
    call.require_dtype(0, x.dtype)
    call.require_same_dtype([0, 1, 2], [x.dtype, y.dtype, dy.dtype])
    h, w, axes = _geometry(call, tuple(x.shape))
    expected = tuple(axes[0][3] if i == h else axes[1][3] if i == w else d for i, d in enumerate(x.shape))
    if tuple(y.shape) != expected or tuple(dy.shape) != expected:
        raise call.fail(f"inputs {call.quoted(1)} {list(y.shape)} and {call.quoted(2)} {list(dy.shape)} must have the "
                        f"pooled shape {list(expected)}")
    out = Outputs(call, outputs)
    out.require_input_dtype(0, 0, x.dtype)
    (size_h, k_h, s_h, oh, top), (size_w, k_w, s_w, ow, left) = axes
    rows, cols = max((oh - 1) * s_h + k_h, top + size_h), max((ow - 1) * s_w + k_w, left + size_w)
    planes = [(top, rows - top - size_h), (left, cols - left - size_w)]
    padded = np.pad(np.moveaxis(x, (h, w), (-2, -1)), [(0, 0)] * (x.ndim - 2) + planes)
    inside = np.pad(np.ones((size_h, size_w), dtype=bool), planes)
    pooled = np.moveaxis(y, (h, w), (-2, -1))
    grad = np.moveaxis(widen(dy), (h, w), (-2, -1))
    taken = np.zeros(pooled.shape, dtype=bool)
    dx = np.zeros(grad.shape[:-2] + (rows, cols), dtype=grad.dtype)
    for a in range(k_h):  # the window's elements in row-major order: the first equal one takes the gradient
        for b in range(k_w):
            at = (..., slice(a, a + (oh - 1) * s_h + 1, s_h), slice(b, b + (ow - 1) * s_w + 1, s_w))
            hit = (padded[at] == pooled) & inside[at[1:]] & ~taken
            taken |= hit
            dx[at] += np.where(hit, grad, 0)
    dx = dx[..., top: top + size_h, left: left + size_w]
    return [out.emit(0, np.moveaxis(dx, (-2, -1), (h, w)).astype(x.dtype))]


def _adaptive_size(call: OpCall, rank: int) -> tuple[int, int]:
    size = call.attr_list_int("output_size")
    if len(size) != 2 or min(size) <= 0 or rank not in (3, 4):
        raise call.fail(f"attr 'output_size' {size} must be 2 positive values and {call.quoted(0)} 3-D or "
                        f"4-D (rank {rank})")
    return size[0], size[1]


def _adaptive(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list[TensorInfo]) -> list[np.ndarray]:
    call = OpCall("AdaptiveAvgPool2d", inputs, attrs)
    call.require_inputs()
    x = call.input(0)
    call.require_dtype(0, x.dtype)
    out_h, out_w = _adaptive_size(call, x.ndim)
    out = Outputs(call, outputs)
    out.require_input_dtype(0, 0, x.dtype)
    wide = widen(x)
    in_h, in_w = x.shape[-2:]
    rows = [((i * in_h) // out_h, math.ceil((i + 1) * in_h / out_h)) for i in range(out_h)]
    cols = [((j * in_w) // out_w, math.ceil((j + 1) * in_w / out_w)) for j in range(out_w)]
    y = np.stack([np.stack([wide[..., r0:r1, c0:c1].sum(axis=(-2, -1)) / wide.dtype.type((r1 - r0) * (c1 - c0))
                            for c0, c1 in cols], axis=-1) for r0, r1 in rows], axis=-2)
    return [out.emit(0, y.astype(x.dtype))]


def _spread_cells(grad: np.ndarray, size: int, axis: int) -> np.ndarray:
    """grad's cells along axis spread back over size positions, each cell's value divided by its length."""
    moved = np.moveaxis(grad, axis, -1)
    cells = moved.shape[-1]
    spread = np.zeros(moved.shape[:-1] + (size,), dtype=moved.dtype)
    for i in range(cells):
        start, end = (i * size) // cells, -(-(i + 1) * size // cells)
        spread[..., start:end] += moved[..., i: i + 1] / moved.dtype.type(end - start)
    return np.moveaxis(spread, -1, axis)


def _adaptive_grad(inputs: list[np.ndarray | None], attrs: dict[str, Any],
                   outputs: list[TensorInfo]) -> list[np.ndarray]:
    call = OpCall("AdaptiveAvgPool2dGrad", inputs, attrs)
    call.require_inputs()
    dy = call.input(0)
    call.require_dtype(0, dy.dtype)
    shape = call.attr_list_int("orig_input_shape")
    if len(shape) != dy.ndim or dy.ndim < 2 or list(dy.shape[:-2]) != shape[:-2] or min(shape) <= 0:
        raise call.fail(f"attr 'orig_input_shape' {shape} must match {call.quoted(0)} {list(dy.shape)} but in the last "
                        "two axes, every dim positive")
    out = Outputs(call, outputs)
    out.require_input_dtype(0, 0, dy.dtype)
    with np.errstate(all="ignore"):
        dx = _spread_cells(_spread_cells(widen(dy), shape[-2], -2), shape[-1], -1)
    return [out.emit(0, dx.astype(dy.dtype))]


def _adaptive_grad_infer(inputs: list[TensorInfo], values: list[np.ndarray | None],
                         attrs: dict[str, Any]) -> list[InferredShape]:
    call = OpCall("AdaptiveAvgPool2dGrad", inputs, attrs)
    call.require_inputs()
    return [inferred(call.input(0).dtype, call.attr_list_int("orig_input_shape"))]


def _adaptive_infer(inputs: list[TensorInfo], values: list[np.ndarray | None], attrs: dict[str, Any]) -> list[InferredShape]:
    call = OpCall("AdaptiveAvgPool2d", inputs, attrs)
    call.require_inputs()
    x = call.input(0)
    shape = tuple(x.shape)
    return [inferred(x.dtype, shape[:-2] + _adaptive_size(call, len(shape)))]


_pool_kernel("MaxPool", True, _tf_geometry)
_pool_kernel("AvgPool", False, _tf_geometry)
builtin("AdaptiveAvgPool2d", _adaptive, _adaptive_infer)
builtin("AdaptiveAvgPool2dGrad", _adaptive_grad, _adaptive_grad_infer)
_pool_kernel("MaxPoolV3", True, _caffe_geometry)
_pool_kernel("AvgPoolV2", False, _caffe_geometry)
builtin("AvgPoolGrad", _avg_pool_grad, _avg_pool_grad_infer)
builtin("MaxPoolGrad", _max_pool_grad, like_input("MaxPoolGrad"))
