"""Convolution references: Conv2D (NCHW input, [out, in/groups, kh, kw] filter) and its gradients.

Conv2DBackpropInput(D) and Conv2DBackpropFilter(D) follow TensorFlow's conv2d_backprop_input / _filter (the headers'
"Compatible with Tensorflow's"), Conv2DTranspose(D) and Deconvolution are the input gradient of a convolution with
the same filter (plus a bias per output channel): written here as the transposed direct sum, each kernel tap's
products added back at the input positions it read, in NCHW or NHWC (data_format), the filter [out, in/groups, kh,
kw] (for the transposes: [x's channels, y's channels / groups, kh, kw]).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from aclcts.reference.base import InputError, RefOp, define, needed_value
from aclcts.reference.numeric import round_to, widen


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


def _conv2d(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    """Conv2D compute: the quantization offset input (the fourth) must be absent."""
    if xs[3] is not None:
        raise InputError(3, lambda name: f"{name} (quantization) is not modelled; leave it out")
    geo = conv2d_geometry(xs[0].shape, xs[1].shape, attrs)
    bias = None if xs[2] is None else widen(xs[2])
    return [round_to(conv2d(widen(xs[0]), widen(xs[1]), bias, geo), out[0])]


def _conv2d_shape(shapes: list[Any], values: list[Any], attrs: dict[str, Any]) -> list[tuple[int, ...]]:
    """Conv2D output shape [N, out_channels, Ho, Wo]."""
    return [conv2d_geometry(shapes[0], shapes[1], attrs)["out"]]


def _nhwc(attrs: dict[str, Any]) -> bool:
    data_format = str(attrs["data_format"]).upper()
    if data_format not in ("NCHW", "NHWC"):
        raise ValueError(f"data_format={attrs['data_format']!r}: expected NCHW or NHWC")
    return data_format == "NHWC"


def _planar(a: np.ndarray, nhwc: bool) -> np.ndarray:
    """A 4-D tensor of data_format in NCHW."""
    return a.transpose(0, 3, 1, 2) if nhwc else a


def _shape_nchw(shape: tuple[int, ...], nhwc: bool) -> tuple[int, ...]:
    return (shape[0], shape[3], shape[1], shape[2]) if nhwc else tuple(shape)


def _hw_attr(attrs: dict[str, Any], name: str, nhwc: bool) -> tuple[int, int]:
    values = [int(v) for v in attrs[name]]
    if len(values) == 2:
        return values[0], values[1]
    if len(values) != 4 or min(values) < 1:
        raise ValueError(f"{name} {values}: expected 4 positive values in data_format order")
    return (values[1], values[2]) if nhwc else (values[2], values[3])


def backprop_geometry(x_nchw: tuple[int, ...], w_shape: tuple[int, ...], dy_nchw: tuple[int, ...],
                      attrs: dict[str, Any], nhwc: bool) -> dict[str, Any]:
    """Strides, dilations, pads and groups of a convolution x * w -> dy, checked against the three shapes."""
    (sh, sw), (dh, dw) = _hw_attr(attrs, "strides", nhwc), _hw_attr(attrs, "dilations", nhwc)
    pads = [int(p) for p in attrs["pads"]]
    groups = int(attrs["groups"])
    if len(pads) != 4 or min(pads) < 0:
        raise ValueError(f"pads {pads}: expected 4 non-negative values [top, bottom, left, right]")
    n, c, h, w = x_nchw
    o, cg, kh, kw = w_shape
    if groups < 1 or c % groups or o % groups or c // groups != cg:
        raise ValueError(f"groups={groups} incompatible with {c} input channels and filter {list(w_shape)}")
    ho = (h + pads[0] + pads[1] - (dh * (kh - 1) + 1)) // sh + 1
    wo = (w + pads[2] + pads[3] - (dw * (kw - 1) + 1)) // sw + 1
    if tuple(dy_nchw) != (n, o, ho, wo):
        raise ValueError(f"the incoming gradient (NCHW) {list(dy_nchw)} does not match the convolution of {list(x_nchw)} by "
                         f"{list(w_shape)}: expected {[n, o, ho, wo]}")
    return {"strides": (sh, sw), "dilations": (dh, dw), "pads": pads, "groups": groups}


def _taps(geo: dict[str, Any], w_shape: tuple[int, ...], dy_nchw: tuple[int, ...]) -> Any:
    """For each group and kernel tap: the group's input/output channel slices, the tap, and the padded-input slices
    of the positions that tap reads."""
    (sh, sw), (dh, dw), groups = geo["strides"], geo["dilations"], geo["groups"]
    o, cg, kh, kw = w_shape
    og, (ho, wo) = o // groups, dy_nchw[2:]
    for g in range(groups):
        for i in range(kh):
            for j in range(kw):
                yield (slice(g * cg, (g + 1) * cg), slice(g * og, (g + 1) * og), i, j,
                       slice(i * dh, i * dh + sh * (ho - 1) + 1, sh), slice(j * dw, j * dw + sw * (wo - 1) + 1, sw))


def conv2d_backprop_input(x_nchw: tuple[int, ...], w: np.ndarray, dy: np.ndarray, geo: dict[str, Any]) -> np.ndarray:
    """d(sum(dy * conv(x, w)))/dx: each tap's dy x filter product added at the input positions the tap read."""
    top, bottom, left, right = geo["pads"]
    n, c, h, width = x_nchw
    dx = np.zeros((n, c, h + top + bottom, width + left + right))
    for cin, cout, i, j, rows, cols in _taps(geo, w.shape, dy.shape):
        dx[:, cin, rows, cols] += np.einsum("nohw,oc->nchw", dy[:, cout], w[cout, :, i, j])
    return dx[:, :, top:top + h, left:left + width]


def conv2d_backprop_filter(x: np.ndarray, w_shape: tuple[int, ...], dy: np.ndarray, geo: dict[str, Any]) -> np.ndarray:
    """d(sum(dy * conv(x, w)))/dw: each tap's sum over images and positions of dy x the input it read."""
    top, bottom, left, right = geo["pads"]
    xp = np.pad(x, ((0, 0), (0, 0), (top, bottom), (left, right)))
    dw = np.zeros(w_shape)
    for cin, cout, i, j, rows, cols in _taps(geo, w_shape, dy.shape):
        dw[cout, :, i, j] = np.einsum("nchw,nohw->oc", xp[:, cin, rows, cols], dy[:, cout])
    return dw


def _input_grad(x_shape: tuple[int, ...], w: np.ndarray, dy: np.ndarray, bias: np.ndarray | None,
                attrs: dict[str, Any]) -> np.ndarray:
    """The input gradient in data_format, plus bias per channel."""
    nhwc = _nhwc(attrs)
    x_nchw, dy_nchw = _shape_nchw(x_shape, nhwc), _planar(dy, nhwc)
    geo = backprop_geometry(x_nchw, w.shape, dy_nchw.shape, attrs, nhwc)
    dx = conv2d_backprop_input(x_nchw, w, dy_nchw, geo)
    if bias is not None:
        dx = dx + bias.reshape(1, -1, 1, 1)
    return dx.transpose(0, 2, 3, 1) if nhwc else dx


def _sizes(values: Any) -> tuple[int, ...]:
    return tuple(int(v) for v in np.asarray(values).ravel())


def _backprop_input(size_from: str) -> Any:
    """Conv2DBackpropInput (input_size the first input) or its D form (input_size an attribute)."""
    def compute(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
        size, w, dy = (_sizes(xs[0]), xs[1], xs[2]) if size_from == "input" else (_sizes(attrs["input_size"]), *xs)
        return [round_to(_input_grad(size, widen(w), widen(dy), None, attrs), out[0])]

    def shape(shapes: list[Any], values: list[Any], attrs: dict[str, Any]) -> list[tuple[int, ...]]:
        return [_sizes(needed_value(values, 0) if size_from == "input" else attrs["input_size"])]
    return compute, shape


def _backprop_filter(size_from: str) -> Any:
    """Conv2DBackpropFilter (filter_size the second input) or its D form (filter_size an attribute)."""
    def compute(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
        x, size, dy = (xs[0], _sizes(xs[1]), xs[2]) if size_from == "input" else (xs[0], _sizes(attrs["filter_size"]),
                                                                                   xs[1])
        nhwc = _nhwc(attrs)
        x_nchw, dy_nchw = _planar(widen(x), nhwc), _planar(widen(dy), nhwc)
        geo = backprop_geometry(x_nchw.shape, size, dy_nchw.shape, attrs, nhwc)
        return [round_to(conv2d_backprop_filter(x_nchw, size, dy_nchw, geo), out[0])]

    def shape(shapes: list[Any], values: list[Any], attrs: dict[str, Any]) -> list[tuple[int, ...]]:
        return [_sizes(needed_value(values, 1) if size_from == "input" else attrs["filter_size"])]
    return compute, shape


def _no_quantization(xs: list[Any], offset_at: int, attrs: dict[str, Any]) -> None:
    if len(xs) > offset_at and xs[offset_at] is not None:
        raise InputError(offset_at, lambda name: f"{name} (quantization) is not modelled; leave it out")
    if int(attrs.get("offset_x", 0)) != 0:
        raise ValueError(f"offset_x={attrs['offset_x']}: quantization offsets are not modelled")


def _transpose(size_from: str) -> Any:
    """Conv2DTranspose (input_size the first input) or its D form: the input gradient of x plus bias."""
    def compute(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
        first = 1 if size_from == "input" else 0
        size = _sizes(xs[0]) if size_from == "input" else _sizes(attrs["input_size"])
        _no_quantization(xs, first + 3, attrs)
        bias = None if xs[first + 2] is None else widen(xs[first + 2])
        return [round_to(_input_grad(size, widen(xs[first + 1]), widen(xs[first]), bias, attrs), out[0])]

    def shape(shapes: list[Any], values: list[Any], attrs: dict[str, Any]) -> list[tuple[int, ...]]:
        return [_sizes(needed_value(values, 0) if size_from == "input" else attrs["input_size"])]
    return compute, shape


def deconvolution_shape(x_shape: tuple[int, ...], w_shape: tuple[int, ...], attrs: dict[str, Any]) -> tuple[int, ...]:
    """Deconvolution's y shape: (in - 1) * stride - pads + dilation * (k - 1) + 1 per spatial axis."""
    nhwc = _nhwc(attrs)
    n, c, h, w = _shape_nchw(x_shape, nhwc)
    (sh, sw), (dh, dw) = _hw_attr(attrs, "strides", nhwc), _hw_attr(attrs, "dilations", nhwc)
    top, bottom, left, right = (int(p) for p in attrs["pads"])
    if w_shape[0] != c:
        raise ValueError(f"filter {list(w_shape)} must have x's {c} channels first")
    y = (n, w_shape[1] * int(attrs["groups"]), (h - 1) * sh - top - bottom + dh * (w_shape[2] - 1) + 1,
         (w - 1) * sw - left - right + dw * (w_shape[3] - 1) + 1)
    return (y[0], y[2], y[3], y[1]) if nhwc else y


def _deconvolution(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    _no_quantization(xs, 3, attrs)
    size = deconvolution_shape(xs[0].shape, xs[1].shape, attrs)
    bias = None if xs[2] is None else widen(xs[2])
    return [round_to(_input_grad(size, widen(xs[1]), widen(xs[0]), bias, attrs), out[0])]


OPS: tuple[RefOp, ...] = (
    define("Conv2D", _conv2d, _conv2d_shape),
    define("Conv2DBackpropInput", *_backprop_input("input")),
    define("Conv2DBackpropInputD", *_backprop_input("attr")),
    define("Conv2DBackpropFilter", *_backprop_filter("input")),
    define("Conv2DBackpropFilterD", *_backprop_filter("attr")),
    define("Conv2DTranspose", *_transpose("input")),
    define("Conv2DTransposeD", *_transpose("attr")),
    define("Deconvolution", _deconvolution,
           lambda shapes, values, attrs: [deconvolution_shape(tuple(shapes[0]), tuple(shapes[1]), attrs)]),
)
