"""Conv2D: 2-D convolution of a 4-D x with a filter, optional bias; its gradients and transposes.

Record: aclcts/core/prototypes/conv.py.
strides and dilations are given in data_format order, pads as [top, bottom, left, right];
out = (in + pad_before + pad_after - (dilation * (kernel - 1) + 1)) // stride + 1.
The kernel sees only arrays, not the filter's format: the filter is taken as [out_channels, in_channels / groups,
kernel_h, kernel_w] (the NCHW filter of the official Conv2D sample), x and y in data_format. The quantization offset input and a nonzero
offset_x are not simulated.
Numerics: an im2col view of x and one matrix product per group (numerics.batched_matmul): fp16/bf16 accumulate in
fp32 (BLAS's blocked order; with matmul_accumulation=sequential, over (input channel, kernel row, kernel column) in
that order), int8 in int32; the bias is added in the accumulator; the result is rounded once to the output type.
The input gradient (Conv2DBackpropInput(D), Conv2DTranspose(D), Deconvolution) is itself a convolution, run through
the same im2col product: the incoming gradient spread by the strides (zeros between) and padded by the dilated
kernel's span less one, correlated at stride 1 with the filter flipped in H and W and its two channel axes swapped per
group, the padding then cut off. The filter gradient (Conv2DBackpropFilter(D)) is one product per group of the incoming gradient's
[out channel, position] matrix with x's im2col [position, (input channel, kernel row, kernel column)] matrix.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from aclcts.core.constants import DataType
from aclcts.sim.kernels.base import InferredShape, TensorInfo
from aclcts.sim.kernels.call import OpCall, Outputs, dtype_name
from aclcts.sim.kernels.numerics import BFLOAT16, FLOAT16, FLOAT32, FLOAT64, accumulator_dtype, batched_matmul
from aclcts.sim.kernels.registry import builtin
from aclcts.sim.kernels.shapes import UNKNOWN, inferred
from aclcts.sim.seams import Seam

INT8 = np.dtype(np.int8)
INT32 = np.dtype(np.int32)
_OUTPUT = {FLOAT16: (FLOAT16, FLOAT32), BFLOAT16: (BFLOAT16, FLOAT32), FLOAT32: (FLOAT32,), INT8: (INT32,),
           FLOAT64: (FLOAT64,)}
_BIAS = {FLOAT16: (FLOAT16, FLOAT32), BFLOAT16: (BFLOAT16, FLOAT32), FLOAT32: (FLOAT32,), INT8: (INT32,)}


class _Geometry:
    """The attribute-derived geometry of one Conv2D call, in NCHW terms."""

    def __init__(self, call: OpCall, x_shape: tuple[int, ...], w_shape: tuple[int, ...]) -> None:
        fmt = call.attr_str("data_format")
        if fmt not in ("NCHW", "NHWC"):
            raise call.fail(f"attr 'data_format' is {fmt!r}, expected 'NCHW' or 'NHWC'")
        self.nhwc = fmt == "NHWC"
        h_at, w_at, c_at = (1, 2, 3) if self.nhwc else (2, 3, 1)
        strides = call.attr_list_int("strides")
        if len(strides) == 2:  # Deconvolution's strides: H and W only
            strides = [1, *strides, 1] if self.nhwc else [1, 1, *strides]
        strides = self._four(call, "strides", strides)
        dilations = self._four(call, "dilations", call.attr_list_int("dilations"))
        pads = call.attr_list_int("pads")
        if len(pads) != 4 or any(p < 0 for p in pads):
            raise call.fail(f"attr 'pads' must be 4 non-negative ints [top, bottom, left, right], got {pads}")
        self.groups = call.attr_int("groups")
        if call.record is not None and call.record.attr("offset_x") and call.attr_int("offset_x") != 0:
            raise call.fail("attr 'offset_x' must be 0 (quantization offsets are not simulated)")
        if len(x_shape) != 4 or len(w_shape) != 4:
            raise call.fail(f"inputs {call.quoted(0)} {list(x_shape)} and {call.quoted(1)} {list(w_shape)} must both "
                            "be 4-D")
        self.n, self.c = x_shape[0], x_shape[c_at]
        self.h, self.w = x_shape[h_at], x_shape[w_at]
        self.k, c_per_group, self.kh, self.kw = w_shape
        self.sh, self.sw = strides[h_at], strides[w_at]
        self.dh, self.dw = dilations[h_at], dilations[w_at]
        self.pads = pads
        if self.groups < 1 or self.c >= 0 and self.c % self.groups or self.k % self.groups:
            raise call.fail(
                f"attr 'groups' {self.groups} must divide the input channels {self.c} and the filter count {self.k}"
            )
        if self.c >= 0 and c_per_group * self.groups != self.c:
            raise call.fail(
                f"input {call.quoted(1)} {list(w_shape)} has {c_per_group} channels per group, expected {self.c // self.groups} "
                f"(x channels {self.c} / groups {self.groups}; filter layout [out, in/groups, kh, kw])"
            )
        self.oh = self._out(call, "H", self.h, pads[0] + pads[1], self.kh, self.dh, self.sh)
        self.ow = self._out(call, "W", self.w, pads[2] + pads[3], self.kw, self.dw, self.sw)

    @staticmethod
    def _four(call: OpCall, name: str, values: list[int]) -> list[int]:
        if len(values) != 4 or any(v < 1 for v in values):
            raise call.fail(f"attr '{name}' must be 4 positive ints in data_format order, got {values}")
        return values

    @staticmethod
    def _out(call: OpCall, axis: str, size: int, padding: int, kernel: int, dilation: int, stride: int) -> int:
        if size < 0:
            return UNKNOWN
        span = dilation * (kernel - 1) + 1
        if size + padding < span:
            raise call.fail(f"the {axis} window {span} (dilated kernel) is larger than the padded input {size + padding}")
        return (size + padding - span) // stride + 1

    def output_shape(self) -> tuple[int, ...]:
        """y's shape in data_format order."""
        return (self.n, self.oh, self.ow, self.k) if self.nhwc else (self.n, self.k, self.oh, self.ow)


@dataclass(frozen=True)
class _Plain:
    """A stride-1, unpadded convolution's geometry, as _convolve reads it (the input gradient's correlation)."""

    n: int
    c: int
    k: int
    groups: int
    kh: int
    kw: int
    dh: int
    dw: int
    oh: int
    ow: int
    sh: int = 1
    sw: int = 1


#: One matrix product's im2col matrix holds at most about this many elements: images are taken a few at a time.
IM2COL_ELEMENTS = 1 << 22


def _convolve(g: _Geometry | _Plain, x: np.ndarray, w: np.ndarray) -> np.ndarray:
    """NCHW x (already padded) convolved with w into an [N, OH, OW, K] accumulator, one matrix product per group.

    The windows are an im2col view of x, copied a few images at a time as the product needs them: for each output
    pixel the (input channel, kernel row, kernel column) elements in that order, the contraction index.
    """
    span_h, span_w = g.dh * (g.kh - 1) + 1, g.dw * (g.kw - 1) + 1
    windows = sliding_window_view(x, (span_h, span_w), axis=(2, 3))[:, :, :: g.sh, :: g.sw, :: g.dh, :: g.dw]
    windows = windows[:, :, : g.oh, : g.ow]  # [N, C, OH, OW, KH, KW]
    per_group_in, per_group_out = g.c // g.groups, g.k // g.groups
    depth = per_group_in * g.kh * g.kw
    filters = w.reshape(g.groups, per_group_out, depth).transpose(0, 2, 1)
    acc = np.empty((g.n, g.oh, g.ow, g.groups, per_group_out), dtype=accumulator_dtype(x.dtype))
    images = max(1, IM2COL_ELEMENTS // max(1, g.groups * g.oh * g.ow * depth))
    for first in range(0, g.n, images):
        part = windows[first : first + images]
        count = part.shape[0]
        cols = part.reshape(count, g.groups, per_group_in, g.oh, g.ow, g.kh, g.kw).transpose(1, 0, 3, 4, 2, 5, 6)
        product = batched_matmul(cols.reshape(g.groups, count * g.oh * g.ow, depth), filters, order=range)
        acc[first : first + count] = product.reshape(g.groups, count, g.oh, g.ow, per_group_out).transpose(1, 2, 3, 0, 4)
    return acc.reshape(g.n, g.oh, g.ow, g.k)


def _compute(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list[TensorInfo]) -> list[np.ndarray]:
    call = OpCall("Conv2D", inputs, attrs)
    call.require_inputs()
    x, w = call.input(0), call.input(1)
    call.require_dtype(0, x.dtype)
    call.require_same_dtype([0, 1], [x.dtype, w.dtype])
    if call.optional(3) is not None:
        raise call.fail(f"optional input {call.quoted(3)} is not supported by the simulator (pass it as absent)")
    g = _Geometry(call, tuple(x.shape), tuple(w.shape))
    out = Outputs(call, outputs)
    y_dtype = out.dtype(0)
    if y_dtype not in _OUTPUT[x.dtype]:
        allowed = ", ".join(dtype_name(d) for d in _OUTPUT[x.dtype])
        raise call.fail(f"output '{out.names[0]}' has dtype {dtype_name(y_dtype)}, expected {allowed} for {dtype_name(x.dtype)} inputs")
    acc_dtype = accumulator_dtype(x.dtype)
    nchw = np.transpose(x, (0, 3, 1, 2)) if g.nhwc else x
    if acc_dtype.kind == "f":
        nchw, w = nchw.astype(acc_dtype, copy=False), w.astype(acc_dtype, copy=False)
    top, bottom, left, right = g.pads
    padded = np.pad(nchw, ((0, 0), (0, 0), (top, bottom), (left, right))) if any(g.pads) else nchw
    with np.errstate(all="ignore"):
        bias = call.optional(2)
        if bias is not None:
            call.require_dtype(2, bias.dtype, _BIAS[x.dtype])
            if bias.shape != (g.k,):
                raise call.fail(f"input {call.quoted(2)} must have shape [{g.k}] (the filter count), got {list(bias.shape)}")
        acc = _convolve(g, padded, w)
        if bias is not None:
            np.add(acc, bias.astype(acc_dtype), out=acc)
        if not g.nhwc:
            acc = np.transpose(acc, (0, 3, 1, 2))
        y = out.buffer(0, acc.shape)
        np.copyto(y, acc, casting="unsafe")
    return [out.emit(0, y)]


def _infer(inputs: list[TensorInfo], values: list[np.ndarray | None], attrs: dict[str, Any]) -> list[InferredShape]:
    call = OpCall("Conv2D", inputs, attrs)
    call.require_inputs()
    x, w = call.input(0), call.input(1)
    g = _Geometry(call, tuple(x.shape), tuple(w.shape))
    dtype = DataType.ACL_INT32 if x.dtype == DataType.ACL_INT8 else x.dtype
    return [inferred(dtype, g.output_shape())]


builtin("Conv2D", _compute, _infer)


def _given(call: OpCall, values: list[Any], index: int) -> list[int] | None:
    """The integers of size input index, None while its value is unknown (infer_shape without a constant)."""
    value = values[index] if len(values) > index else None
    return None if value is None else call.index_values(index, value)


def _nchw(g: _Geometry, a: np.ndarray) -> np.ndarray:
    return np.transpose(a, (0, 3, 1, 2)) if g.nhwc else a


def _in_format(g: _Geometry, a: np.ndarray) -> np.ndarray:
    return np.transpose(a, (0, 2, 3, 1)) if g.nhwc else a


def _require_backprop(call: OpCall, g: _Geometry, dy_at: int, dy: np.ndarray) -> None:
    expected = (g.n, g.oh, g.ow, g.k) if g.nhwc else (g.n, g.k, g.oh, g.ow)
    if tuple(dy.shape) != expected:
        raise call.fail(f"input {call.quoted(dy_at)} has shape {list(dy.shape)}, expected {list(expected)} (the "
                        "convolution's output for the given input size, filter and attributes)")


def _flipped(w: np.ndarray, groups: int) -> np.ndarray:
    """The filter of the input gradient's correlation: w [out, in/groups, kh, kw] flipped in H and W, its channel
    axes swapped within each group ([in, out/groups, kh, kw])."""
    out, per_in, kh, kw = w.shape
    per_out = out // groups
    return (w[:, :, ::-1, ::-1].reshape(groups, per_out, per_in, kh, kw).transpose(0, 2, 1, 3, 4)
            .reshape(groups * per_in, per_out, kh, kw))


#: The filter the input gradient (and the transposed convolutions) correlates the spread incoming gradient with.
gradient_filter = Seam("conv input gradient filter", _flipped)


def _input_gradient(g: _Geometry, w: np.ndarray, dy: np.ndarray) -> np.ndarray:
    """The NCHW input gradient, in the accumulator type, of the convolution g of an NCHW dy by w."""
    acc_dtype = accumulator_dtype(dy.dtype)
    if acc_dtype.kind == "f":
        dy, w = dy.astype(acc_dtype, copy=False), w.astype(acc_dtype, copy=False)
    top, bottom, left, right = g.pads
    span_h, span_w = g.dh * (g.kh - 1) + 1, g.dw * (g.kw - 1) + 1
    rows, cols = g.h + top + bottom, g.w + left + right
    spread = np.zeros((g.n, g.k, rows + span_h - 1, cols + span_w - 1), dtype=dy.dtype)
    spread[:, :, span_h - 1: span_h - 1 + (g.oh - 1) * g.sh + 1: g.sh,
           span_w - 1: span_w - 1 + (g.ow - 1) * g.sw + 1: g.sw] = dy
    plain = _Plain(g.n, g.k, g.c, g.groups, g.kh, g.kw, g.dh, g.dw, rows, cols)
    full = _convolve(plain, spread, np.ascontiguousarray(gradient_filter(w, g.groups))).transpose(0, 3, 1, 2)
    return full[:, :, top: top + g.h, left: left + g.w]


def _check_output(call: OpCall, out: Outputs, dtype: np.dtype) -> np.dtype:
    y_dtype = out.dtype(0)
    if y_dtype not in _OUTPUT[dtype]:
        allowed = ", ".join(dtype_name(d) for d in _OUTPUT[dtype])
        raise call.fail(f"output '{out.names[0]}' has dtype {dtype_name(y_dtype)}, expected {allowed} for "
                        f"{dtype_name(dtype)} inputs")
    return y_dtype


def _emit(out: Outputs, acc: np.ndarray) -> list[np.ndarray]:
    y = out.buffer(0, acc.shape)
    with np.errstate(all="ignore"):
        np.copyto(y, acc, casting="unsafe")
    return [out.emit(0, y)]


def _backprop_input_kernel(op_type: str, size_from_input: bool) -> None:
    """Conv2DBackpropInput (input_size its first input) or its D form (input_size an attribute)."""
    first = 1 if size_from_input else 0

    def size(call: OpCall, values: list[Any]) -> list[int] | None:
        return _given(call, values, 0) if size_from_input else call.attr_list_int("input_size")

    def compute(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list[TensorInfo]) -> list[np.ndarray]:
        call = OpCall(op_type, inputs, attrs)
        call.require_inputs()
        w, dy = call.input(first), call.input(first + 1)
        call.require_dtype(first, w.dtype)
        call.require_same_dtype([first, first + 1], [w.dtype, dy.dtype])
        g = _Geometry(call, tuple(size(call, inputs) or ()), tuple(w.shape))
        _require_backprop(call, g, first + 1, dy)
        out = Outputs(call, outputs)
        _check_output(call, out, w.dtype)
        with np.errstate(all="ignore"):
            return _emit(out, _in_format(g, _input_gradient(g, w, _nchw(g, dy))))

    def infer(inputs: list[TensorInfo], values: list[np.ndarray | None], attrs: dict[str, Any]) -> list[InferredShape]:
        call = OpCall(op_type, inputs, attrs)
        call.require_inputs()
        dy = call.input(first + 1)
        return [inferred(dy.dtype, size(call, values) or [UNKNOWN] * 4)]

    builtin(op_type, compute, infer)


def _deconvolution_shape(call: OpCall, x_shape: tuple[int, ...], w_shape: tuple[int, ...]) -> list[int]:
    """Deconvolution's y: (in - 1) * stride - pads + dilation * (kernel - 1) + 1 per axis, filter [x's C, y's C /
    groups, kh, kw]."""
    fmt = call.attr_str("data_format")
    if fmt not in ("NCHW", "NHWC") or len(x_shape) != 4 or len(w_shape) != 4:
        raise call.fail(f"inputs {call.quoted(0)} {list(x_shape)} and {call.quoted(1)} {list(w_shape)} must be 4-D in "
                        f"NCHW or NHWC (data_format {fmt!r})")
    n, h, w = (x_shape[0], x_shape[1], x_shape[2]) if fmt == "NHWC" else (x_shape[0], x_shape[2], x_shape[3])
    at = (1, 2) if fmt == "NHWC" else (2, 3)
    strides, dilations, pads = (call.attr_list_int(name) for name in ("strides", "dilations", "pads"))
    (sh, sw), (dh, dw) = strides[-2:] if len(strides) == 2 else [strides[i] for i in at], [dilations[i] for i in at]
    oh = UNKNOWN if h < 0 else (h - 1) * sh - pads[0] - pads[1] + dh * (w_shape[2] - 1) + 1
    ow = UNKNOWN if w < 0 else (w - 1) * sw - pads[2] - pads[3] + dw * (w_shape[3] - 1) + 1
    channels = w_shape[1] * call.attr_int("groups")
    return [n, oh, ow, channels] if fmt == "NHWC" else [n, channels, oh, ow]


def _transpose_kernel(op_type: str) -> None:
    """Conv2DTranspose(D) and Deconvolution: the input gradient of x by filter, plus bias in the accumulator."""
    first = 1 if op_type == "Conv2DTranspose" else 0

    def y_shape(call: OpCall, x_shape: tuple[int, ...], w_shape: tuple[int, ...],
                values: list[Any]) -> list[int] | None:
        if op_type == "Conv2DTransposeD":
            return call.attr_list_int("input_size")
        if op_type == "Conv2DTranspose":
            return _given(call, values, 0)
        return _deconvolution_shape(call, x_shape, w_shape)

    def compute(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list[TensorInfo]) -> list[np.ndarray]:
        call = OpCall(op_type, inputs, attrs)
        call.require_inputs()
        x, w = call.input(first), call.input(first + 1)
        call.require_dtype(first, x.dtype)
        call.require_same_dtype([first, first + 1], [x.dtype, w.dtype])
        if call.optional(first + 3) is not None:
            raise call.fail(f"optional input {call.quoted(first + 3)} is not supported by the simulator (pass it as "
                            "absent)")
        g = _Geometry(call, tuple(y_shape(call, tuple(x.shape), tuple(w.shape), inputs) or ()), tuple(w.shape))
        _require_backprop(call, g, first, x)
        out = Outputs(call, outputs)
        _check_output(call, out, x.dtype)
        with np.errstate(all="ignore"):
            acc = _input_gradient(g, w, _nchw(g, x))
            bias = call.optional(first + 2)
            if bias is not None:
                call.require_dtype(first + 2, bias.dtype, _BIAS[x.dtype])
                if bias.shape != (g.c,):
                    raise call.fail(f"input {call.quoted(first + 2)} must have shape [{g.c}] (y's channels), got "
                                    f"{list(bias.shape)}")
                acc = acc + bias.astype(acc.dtype).reshape(1, g.c, 1, 1)
            return _emit(out, _in_format(g, acc))

    def infer(inputs: list[TensorInfo], values: list[np.ndarray | None], attrs: dict[str, Any]) -> list[InferredShape]:
        call = OpCall(op_type, inputs, attrs)
        call.require_inputs()
        x, w = call.input(first), call.input(first + 1)
        dtype = DataType.ACL_INT32 if x.dtype == DataType.ACL_INT8 else x.dtype
        return [inferred(dtype, y_shape(call, tuple(x.shape), tuple(w.shape), values) or [UNKNOWN] * 4)]

    builtin(op_type, compute, infer)


def _backprop_filter_kernel(op_type: str, size_from_input: bool) -> None:
    """Conv2DBackpropFilter (filter_size its second input) or its D form (filter_size an attribute)."""
    dy_at = 2 if size_from_input else 1

    def size(call: OpCall, values: list[Any]) -> list[int] | None:
        return _given(call, values, 1) if size_from_input else call.attr_list_int("filter_size")

    def compute(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list[TensorInfo]) -> list[np.ndarray]:
        call = OpCall(op_type, inputs, attrs)
        call.require_inputs()
        x, dy = call.input(0), call.input(dy_at)
        call.require_dtype(0, x.dtype)
        call.require_same_dtype([0, dy_at], [x.dtype, dy.dtype])
        w_shape = tuple(size(call, inputs) or ())
        g = _Geometry(call, tuple(x.shape), w_shape)
        _require_backprop(call, g, dy_at, dy)
        out = Outputs(call, outputs)
        _check_output(call, out, x.dtype)
        acc_dtype = accumulator_dtype(x.dtype)
        top, bottom, left, right = g.pads
        padded = np.pad(_nchw(g, x).astype(acc_dtype), ((0, 0), (0, 0), (top, bottom), (left, right)))
        span_h, span_w = g.dh * (g.kh - 1) + 1, g.dw * (g.kw - 1) + 1
        windows = sliding_window_view(padded, (span_h, span_w), axis=(2, 3))[:, :, :: g.sh, :: g.sw, :: g.dh, :: g.dw]
        per_in, per_out = g.c // g.groups, g.k // g.groups
        cols = (windows[:, :, : g.oh, : g.ow].reshape(g.n, g.groups, per_in, g.oh, g.ow, g.kh * g.kw)
                .transpose(1, 0, 3, 4, 2, 5).reshape(g.groups, g.n * g.oh * g.ow, per_in * g.kh * g.kw))
        grads = (_nchw(g, dy).astype(acc_dtype).reshape(g.n, g.groups, per_out, g.oh * g.ow).transpose(1, 2, 0, 3)
                 .reshape(g.groups, per_out, g.n * g.oh * g.ow))
        with np.errstate(all="ignore"):
            return _emit(out, batched_matmul(grads, cols, order=range).reshape(w_shape))

    def infer(inputs: list[TensorInfo], values: list[np.ndarray | None], attrs: dict[str, Any]) -> list[InferredShape]:
        call = OpCall(op_type, inputs, attrs)
        call.require_inputs()
        x = call.input(0)
        # the AI Core op info gives the filter gradient of float16 inputs in float32 only
        dtype = DataType.ACL_FLOAT if x.dtype == DataType.ACL_FLOAT16 else x.dtype
        return [inferred(dtype, size(call, values) or [UNKNOWN] * 4)]

    builtin(op_type, compute, infer)


_backprop_input_kernel("Conv2DBackpropInput", True)
_backprop_input_kernel("Conv2DBackpropInputD", False)
_backprop_filter_kernel("Conv2DBackpropFilter", True)
_backprop_filter_kernel("Conv2DBackpropFilterD", False)
for _op_type in ("Conv2DTranspose", "Conv2DTransposeD", "Deconvolution"):
    _transpose_kernel(_op_type)
