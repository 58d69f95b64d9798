"""Convolution references: Conv2D (NCHW input, [out, in/groups, kh, kw] filter)."""

from __future__ import annotations

from typing import Any

import numpy as np

from aclcts.reference.base import InputError, RefOp, define
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


OPS: tuple[RefOp, ...] = (
    define("Conv2D", _conv2d, _conv2d_shape),
)
