"""Neural-network references: SoftmaxV2, LogSoftmaxV2, Relu, Sigmoid, Tanh and Conv2D (NCHW input, NCHW filter)."""

from __future__ import annotations

from typing import Any

import numpy as np

from aclcts.reference.base import REQUIRED, RefOp, define, normalize_axes
from aclcts.reference.elementwise import maximum
from aclcts.reference.numeric import round_to, widen


def relu(x: np.ndarray) -> np.ndarray:
    """Relu: maximum(x, 0) with the IEEE maximum of `maximum`, so NaN stays NaN and Relu(-0) = +0."""
    return maximum(x, np.zeros_like(x))


def sigmoid(x: np.ndarray) -> np.ndarray:
    """Sigmoid: 1 / (1 + exp(-x))."""
    return 1.0 / (1.0 + np.exp(-x))


def tanh(x: np.ndarray) -> np.ndarray:
    """Tanh: hyperbolic tangent."""
    return np.tanh(x)


def softmax(x: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
    """SoftmaxV2: exp(x - max) / sum(exp(x - max)) over axes; a slice holding NaN, or only -inf, gives NaN."""
    shifted = x - np.max(x, axis=axes, keepdims=True)
    e = np.exp(shifted)
    return e / np.sum(e, axis=axes, keepdims=True)


def log_softmax(x: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
    """LogSoftmaxV2: (x - max) - log(sum(exp(x - max))) over axes; -inf stays -inf, a slice holding NaN, or only
    -inf, gives NaN."""
    shifted = x - np.max(x, axis=axes, keepdims=True)
    return shifted - np.log(np.sum(np.exp(shifted), axis=axes, keepdims=True))


def conv2d_geometry(x_shape: tuple[int, ...], w_shape: tuple[int, ...], attrs: dict[str, Any]) -> dict[str, Any]:
    """Validate Conv2D's shapes and attributes (NCHW only) and return strides, pads, dilations, output size."""
    if str(attrs["data_format"]).upper() != "NCHW":
        raise ValueError(f"data_format={attrs['data_format']!r}: the reference implements NCHW only")
    if int(attrs["offset_x"]) != 0:
        raise ValueError(f"offset_x={attrs['offset_x']}: quantization offsets are not modelled")
    if len(x_shape) != 4 or len(w_shape) != 4:
        raise ValueError(f"x {x_shape} and filter {w_shape} must both be 4-D (NCHW)")
    strides, pads, dil = (list(map(int, attrs[k])) for k in ("strides", "pads", "dilations"))
    if len(strides) != 4 or len(pads) != 4 or len(dil) != 4 or min(strides[2:] + dil[2:]) < 1 or min(pads) < 0:
        raise ValueError(f"strides {strides}, pads {pads}, dilations {dil}: expected 4 values each, "
                         "strides/dilations >= 1 in H and W, pads >= 0")
    n, c, h, w = x_shape
    o, cg, kh, kw = w_shape
    groups = int(attrs["groups"])
    if groups < 1 or c % groups or o % groups or c // groups != cg:
        raise ValueError(f"groups={groups} incompatible with x channels {c} and filter {w_shape}")
    ho = (h + pads[0] + pads[1] - (dil[2] * (kh - 1) + 1)) // strides[2] + 1
    wo = (w + pads[2] + pads[3] - (dil[3] * (kw - 1) + 1)) // strides[3] + 1
    if ho < 1 or wo < 1:
        raise ValueError(f"output would be {ho}x{wo}: kernel larger than the padded input")
    return {"strides": strides, "pads": pads, "dilations": dil, "groups": groups, "out": (n, o, ho, wo)}


def conv2d(x: np.ndarray, w: np.ndarray, bias: np.ndarray | None, geo: dict[str, Any]) -> np.ndarray:
    """Conv2D: cross-correlation of NCHW x with [out, in/groups, kh, kw] filters, plus bias per out channel."""
    (pt, pb, pl, pr), (_, _, sh, sw), (_, _, dh, dw) = geo["pads"], geo["strides"], geo["dilations"]
    n, o, ho, wo = geo["out"]
    groups = geo["groups"]
    xp = np.pad(x, ((0, 0), (0, 0), (pt, pb), (pl, pr)))
    cg, og = x.shape[1] // groups, o // groups
    y = np.zeros((n, o, ho, wo), dtype=np.result_type(x, w))
    for g in range(groups):
        xg = xp[:, g * cg:(g + 1) * cg]
        wg = w[g * og:(g + 1) * og]
        for i in range(w.shape[2]):
            for j in range(w.shape[3]):
                patch = xg[:, :, i * dh:i * dh + sh * (ho - 1) + 1:sh, j * dw:j * dw + sw * (wo - 1) + 1:sw]
                y[:, g * og:(g + 1) * og] += np.einsum("nchw,oc->nohw", patch, wg[:, :, i, j])
    return y if bias is None else y + bias.reshape(1, o, 1, 1)


def _elementwise(fn: Any) -> Any:
    """Wrap a one-input function into a compute function."""
    def compute(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
        return [round_to(fn(widen(xs[0])), out[0])]
    return compute


def _same(shapes: list[Any], values: list[Any], attrs: dict[str, Any]) -> list[tuple[int, ...]]:
    """Output shape equal to the input shape."""
    return [shapes[0]]


def _softmax(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    """SoftmaxV2 compute; half_to_float only changes the output dtype, which comes from `out`."""
    x = widen(xs[0])
    return [round_to(softmax(x, normalize_axes(attrs["axes"], x.ndim)), out[0])]


def _log_softmax(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    """LogSoftmaxV2 compute."""
    x = widen(xs[0])
    return [round_to(log_softmax(x, normalize_axes(attrs["axes"], x.ndim)), out[0])]


def _conv2d(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    """Conv2D compute: (x, filter, bias?, offset_w?); offset_w must be absent."""
    if xs[3] is not None:
        raise ValueError("offset_w (quantization) is not modelled; leave it out")
    geo = conv2d_geometry(xs[0].shape, xs[1].shape, attrs)
    bias = None if xs[2] is None else widen(xs[2])
    return [round_to(conv2d(widen(xs[0]), widen(xs[1]), bias, geo), out[0])]


def _conv2d_shape(shapes: list[Any], values: list[Any], attrs: dict[str, Any]) -> list[tuple[int, ...]]:
    """Conv2D output shape [N, out_channels, Ho, Wo]."""
    return [conv2d_geometry(shapes[0], shapes[1], attrs)["out"]]


_CONV_ATTRS = {"strides": REQUIRED, "pads": REQUIRED, "dilations": (1, 1, 1, 1), "groups": 1,
               "data_format": "NHWC", "offset_x": 0}

OPS: tuple[RefOp, ...] = (
    define("Relu", ("x",), {}, _elementwise(relu), _same),
    define("Sigmoid", ("x",), {}, _elementwise(sigmoid), _same),
    define("Tanh", ("x",), {}, _elementwise(tanh), _same),
    define("SoftmaxV2", ("x",), {"axes": (-1,), "half_to_float": False}, _softmax, _same),
    define("LogSoftmaxV2", ("logits",), {"axes": (-1,)}, _log_softmax, _same, outputs=("logsoftmax",)),
    define("Conv2D", ("x", "filter", "bias?", "offset_w?"), _CONV_ATTRS, _conv2d, _conv2d_shape),
)
