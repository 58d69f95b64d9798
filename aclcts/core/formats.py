"""Tensor layouts as CANN defines them: plain formats (transpositions of one another) and the private formats
NC1HWC0, NDC1HWC0, FRACTAL_Z, FRACTAL_Z_3D and FRACTAL_NZ (blocked, zero-padded), with conversions to and from the
origin layout (docs/formats.md)."""

from __future__ import annotations

import math

import numpy as np

#: aclFormat values of the formats aclcts converts (CANN acl_base.h).
FORMAT_VALUES = {"NCHW": 0, "NHWC": 1, "ND": 2, "NC1HWC0": 3, "FRACTAL_Z": 4, "HWCN": 16, "NDHWC": 27,
                 "FRACTAL_NZ": 29, "NCDHW": 30, "DHWCN": 31, "NDC1HWC0": 32, "FRACTAL_Z_3D": 33}
FORMAT_NAMES = {value: name for name, value in FORMAT_VALUES.items()}
#: The private formats and the origin formats each is made from.
PRIVATE_ORIGINS = {
    "NC1HWC0": ("NCHW", "NHWC", "HWCN"),
    "FRACTAL_Z": ("NCHW", "NHWC", "HWCN"),
    "NDC1HWC0": ("NCDHW", "NDHWC", "DHWCN"),
    "FRACTAL_Z_3D": ("NCDHW", "NDHWC", "DHWCN"),
    "FRACTAL_NZ": ("ND", "NCHW", "NHWC", "NCDHW", "NDHWC", "HWCN", "DHWCN"),
}
#: Rows of one fractal (the cube unit's M0 and N0 of FRACTAL_Z's N axis).
FRACTAL_ROWS = 16
#: How an ND origin shape is read for a format whose blocks depend on axis letters, by (format, rank): CANN's shape
#: transfer reads a rank-4 ND shape as NCHW and a rank-2 one made into FRACTAL_Z as the [C, N] of a 1x1 weight
#: (HWCN with H = W = 1); docs/formats.md cites the source.
ND_READINGS = {("NC1HWC0", 4): "NCHW", ("FRACTAL_Z", 4): "NCHW", ("FRACTAL_Z", 2): "HWCN"}
#: The channel-blocked formats whose shape CANN keeps unchanged below rank 4 (docs/formats.md).
RANK_KEPT = ("NC1HWC0", "NDC1HWC0")


class FormatError(ValueError):
    """A shape or format pair no layout conversion accepts."""


def c0(dtype: np.dtype | type) -> int:
    """The C0 (block) size of a dtype: 32 one-byte elements, else 16 (the cube unit's 32-byte or 16-element row)."""
    return 32 if np.dtype(dtype).itemsize == 1 else 16


def is_private(fmt: int) -> bool:
    """Whether an aclFormat value is one of the blocked, padded formats."""
    return FORMAT_NAMES.get(fmt) in PRIVATE_ORIGINS


def _name(fmt: int) -> str:
    if fmt not in FORMAT_NAMES:
        raise FormatError(f"format {fmt} is not one of {', '.join(FORMAT_VALUES)}")
    return FORMAT_NAMES[fmt]


def _plain_axes(origin: str, target: str, rank: int) -> tuple[int, ...]:
    """The transposition taking a plain origin layout to a plain target layout (ND fits any rank)."""
    for name in (origin, target):
        if name != "ND" and len(name) != rank:
            raise FormatError(f"a rank-{rank} shape cannot be in format {name}")
    if "ND" in (origin, target):
        return tuple(range(rank))
    if sorted(origin) != sorted(target):
        raise FormatError(f"format {origin} cannot be converted to {target}")
    return tuple(origin.index(axis) for axis in target)


def _check_origin(origin: str, target: str, rank: int) -> None:
    if origin not in PRIVATE_ORIGINS[target]:
        raise FormatError(f"format {target} is made from {', '.join(PRIVATE_ORIGINS[target])}, not {origin}")
    if target == "FRACTAL_NZ" and rank < 1:
        raise FormatError("format FRACTAL_NZ needs a shape of rank 1 or more")
    if target != "FRACTAL_NZ" and len(origin) != rank:
        raise FormatError(f"a rank-{rank} shape cannot be in format {origin}")


def _lettered(origin: str, target: str, shape: tuple[int, ...]) -> tuple[str, tuple[int, ...]]:
    """The origin format and shape a blocked layout is built from: an ND origin read as ND_READINGS says (a rank-2
    FRACTAL_Z origin [C, N] as HWCN [1, 1, C, N]), any other origin as it is."""
    reading = ND_READINGS.get((target, len(shape))) if origin == "ND" else None
    if reading is None:
        return origin, shape
    return reading, (1, 1, *shape) if len(shape) == 2 else shape


def _kept(target: str, shape: tuple[int, ...]) -> bool:
    """Whether shape stays as it is in target: a channel-blocked format below rank 4 (one element at most, the only
    case whose element placement does not depend on how the op expands the shape to rank 4)."""
    if target not in RANK_KEPT or len(shape) >= 4:
        return False
    if math.prod(shape) > 1:
        raise FormatError(f"a rank-{len(shape)} shape of more than one element in {target} is laid out as the op "
                          f"expands it to rank 4 (its reshape type), which aclcts does not model")
    return True


def _canonical(origin: str, target: str) -> str:
    """The order a blocked format is built from: NCHW for 4-D origins; for 5-D ones NDCHW (C just before H, W) for
    NDC1HWC0 and NCDHW for FRACTAL_Z_3D."""
    if len(origin) == 4:
        return "NCHW"
    return "NCDHW" if target == "FRACTAL_Z_3D" else "NDCHW"


def _ceil(dim: int, block: int) -> int:
    """dim / block rounded up; an unknown (-1) dim stays unknown, as CANN's DivisionCeiling keeps it."""
    return -1 if dim < 0 else -(-dim // block)


def storage_shape(origin_shape: tuple[int, ...], origin_format: int, fmt: int, dtype: np.dtype | type) -> tuple[int, ...]:
    """The shape of a tensor of origin_shape (in origin_format) stored in fmt; FormatError if they do not fit. A -1
    dim stays -1 in the dims made from it (a product of dims with a -1 is -1)."""
    shape = tuple(int(d) for d in origin_shape)
    origin, target = _name(origin_format), _name(fmt)
    if target not in PRIVATE_ORIGINS:
        axes = _plain_axes(origin, target, len(shape))
        return tuple(shape[a] for a in axes)
    origin, shape = _lettered(origin, target, shape)
    if origin in PRIVATE_ORIGINS[target] and _kept(target, shape):
        return shape
    _check_origin(origin, target, len(shape))
    block = c0(dtype)
    if target == "FRACTAL_NZ":
        *batch, m, n = (1, *shape) if len(shape) == 1 else shape
        return (*batch, _ceil(n, block), _ceil(m, FRACTAL_ROWS), FRACTAL_ROWS, block)
    dims = dict(zip(origin, shape))
    n, c, h, w = dims["N"], dims["C"], dims["H"], dims["W"]
    c1 = _ceil(c, block)
    if target == "NC1HWC0":
        return (n, c1, h, w, block)
    if target == "NDC1HWC0":
        return (n, dims["D"], c1, h, w, block)
    spatial = (c1, dims.get("D", 1), h, w)
    rows = -1 if min(spatial) < 0 else math.prod(spatial)
    return (rows, _ceil(n, FRACTAL_ROWS), FRACTAL_ROWS, block)


#: Two origin dims no block size divides, put in place of an unknown dim to see which stored dim holds it.
_PROBES = (97, 131)


def unknown_dim_places(origin_shape: tuple[int, ...], origin_format: int, fmt: int,
                       dtype: np.dtype | type) -> dict[int, int | None]:
    """Per -1 dim of origin_shape, the position of the stored dim of fmt that holds it unchanged (NC1HWC0's N, H and
    W), or None when the format divides it into blocks (C behind C1) or merges it with others (FRACTAL_Z's C1*H*W):
    the stored dims of a runtime desc cannot give such a dim back."""
    shape = tuple(int(d) for d in origin_shape)
    places: dict[int, int | None] = {}
    for position in (p for p, d in enumerate(shape) if d < 0):
        probed = [storage_shape(tuple(v if p == position else 2 if d < 0 else d for p, d in enumerate(shape)),
                                origin_format, fmt, dtype) for v in _PROBES]
        places[position] = next((s for s, dims in enumerate(zip(*probed)) if dims == _PROBES), None)
    return places


def blocked_unknown_dims(origin_shape: tuple[int, ...], origin_format: int, fmt: int,
                         dtype: np.dtype | type) -> tuple[int, ...]:
    """The positions of origin_shape's -1 dims that no stored dim of fmt holds unchanged (unknown_dim_places)."""
    return tuple(p for p, s in unknown_dim_places(origin_shape, origin_format, fmt, dtype).items() if s is None)


def runtime_origin_shape(stored: tuple[int, ...], origin_shape: tuple[int, ...], origin_format: int, fmt: int,
                         dtype: np.dtype | type) -> tuple[int, ...]:
    """The origin shape of a tensor of a dynamic model (origin_shape, -1 for an unknown dim) whose runtime desc has
    the stored dims of fmt: each unknown dim read from the stored dim holding it, the others as the model has them."""
    places = unknown_dim_places(origin_shape, origin_format, fmt, dtype)
    if any(s is None or s >= len(stored) for s in places.values()):
        raise FormatError(f"stored dims {list(stored)} of {_name(fmt)} do not give back origin shape "
                          f"{list(origin_shape)}")
    return tuple(int(stored[places[p]]) if p in places else int(d) for p, d in enumerate(origin_shape))


def _padded(array: np.ndarray, sizes: tuple[int, ...]) -> np.ndarray:
    """array zero-padded at the end of each axis to sizes."""
    return np.pad(array, [(0, s - d) for d, s in zip(array.shape, sizes)])


def to_storage(array: np.ndarray, origin_format: int, fmt: int) -> np.ndarray:
    """array (in origin_format) laid out in fmt, padded with zeros, as a new C-contiguous array."""
    origin, target = _name(origin_format), _name(fmt)
    shape = storage_shape(array.shape, origin_format, fmt, array.dtype)
    if target not in PRIVATE_ORIGINS:
        return np.ascontiguousarray(array.transpose(_plain_axes(origin, target, array.ndim)))
    origin, lettered = _lettered(origin, target, array.shape)
    if _kept(target, lettered):
        return np.ascontiguousarray(array)
    array = array.reshape(lettered)
    block = c0(array.dtype)
    if target == "FRACTAL_NZ":
        x = array.reshape(1, -1) if array.ndim == 1 else array
        *batch, n1, m1, m0, n0 = shape
        x = _padded(x, (*batch, m1 * m0, n1 * n0)).reshape(*batch, m1, m0, n1, n0)
        b = len(batch)
        return np.ascontiguousarray(x.transpose(*range(b), b + 2, b, b + 1, b + 3))
    x = array.transpose(_plain_axes(origin, _canonical(origin, target), array.ndim))
    if target in ("FRACTAL_Z", "FRACTAL_Z_3D"):
        x = x if x.ndim == 5 else x[:, :, None]
        n, c, d, h, w = x.shape
        c1, n1 = -(-c // block), -(-n // FRACTAL_ROWS)
        x = _padded(x, (n1 * FRACTAL_ROWS, c1 * block, d, h, w)).reshape(n1, FRACTAL_ROWS, c1, block, d, h, w)
        return np.ascontiguousarray(x.transpose(4, 2, 5, 6, 0, 1, 3)).reshape(shape)
    lead = x.shape[:-3]
    c, spatial = x.shape[-3], x.shape[-2:]
    c1 = -(-c // block)
    x = _padded(x, (*lead, c1 * block, *spatial)).reshape(*lead, c1, block, *spatial)
    k = len(lead)
    return np.ascontiguousarray(x.transpose(*range(k + 1), k + 2, k + 3, k + 1)).reshape(shape)


def from_storage(array: np.ndarray, fmt: int, origin_format: int, origin_shape: tuple[int, ...]) -> np.ndarray:
    """The origin_format array of origin_shape that to_storage laid out as array (the padding dropped)."""
    origin, target = _name(origin_format), _name(fmt)
    expected = storage_shape(origin_shape, origin_format, fmt, array.dtype)
    if tuple(array.shape) != expected:
        raise FormatError(f"a {target} array of origin shape {list(origin_shape)} has shape {list(expected)}, "
                          f"not {list(array.shape)}")
    if target not in PRIVATE_ORIGINS:
        axes = _plain_axes(origin, target, len(origin_shape))
        return np.ascontiguousarray(array.transpose(np.argsort(axes)))
    origin, lettered = _lettered(origin, target, tuple(origin_shape))
    if _kept(target, lettered):
        return np.ascontiguousarray(array)
    if target == "FRACTAL_NZ":
        *batch, n1, m1, m0, n0 = array.shape
        b = len(batch)
        x = array.transpose(*range(b), b + 1, b + 2, b, b + 3).reshape(*batch, m1 * m0, n1 * n0)
        m, n = (1, origin_shape[0]) if len(origin_shape) == 1 else origin_shape[-2:]
        return np.ascontiguousarray(x[..., :m, :n]).reshape(origin_shape)
    canonical = _canonical(origin, target)
    dims = dict(zip(origin, lettered))
    block = c0(array.dtype)
    if target in ("FRACTAL_Z", "FRACTAL_Z_3D"):
        n, c, d, h, w = dims["N"], dims["C"], dims.get("D", 1), dims["H"], dims["W"]
        c1, n1 = -(-c // block), -(-n // FRACTAL_ROWS)
        x = array.reshape(d, c1, h, w, n1, FRACTAL_ROWS, block).transpose(4, 5, 1, 6, 0, 2, 3)
        x = x.reshape(n1 * FRACTAL_ROWS, c1 * block, d, h, w)[:n, :c]
        x = x if canonical == "NCDHW" else x[:, :, 0]
    else:
        k = array.ndim - 4
        x = array.transpose(*range(k + 1), k + 3, k + 1, k + 2)
        lead, spatial = x.shape[:k], x.shape[-2:]
        x = x.reshape(*lead, math.prod(x.shape[k:k + 2]), *spatial)[..., :dims["C"], :, :]
    x = x.transpose(np.argsort(_plain_axes(origin, canonical, len(lettered))))
    return np.ascontiguousarray(x).reshape(origin_shape)


def described_tensor(fmt: str, origin_format: str, shape: tuple[int, ...], origin_shape: tuple[int, ...],
                     dtype: np.dtype | type) -> tuple[int | None, int, tuple[int, ...]]:
    """(storage format or None for a plain tensor, origin format, origin shape) of a tensor described as msopst and
    single-op JSON do (format, ori_format, shape, ori_shape by name). A private format made from a private or absent
    origin format is made from ND; its shape may be the stored one or, as some of CANN's own case files write it, the
    origin shape again. FormatError when the names are unknown or the shapes do not fit."""
    for name in (fmt, origin_format):
        if name not in FORMAT_VALUES:
            raise FormatError(f"format {name} is not one of {', '.join(FORMAT_VALUES)}")
    shape, origin_shape = tuple(shape), tuple(origin_shape or shape)
    if fmt not in PRIVATE_ORIGINS:
        return None, FORMAT_VALUES[fmt], shape
    origin = origin_format if origin_format not in PRIVATE_ORIGINS else "ND"
    expected = storage_shape(origin_shape, FORMAT_VALUES[origin], FORMAT_VALUES[fmt], dtype)
    if shape not in (expected, origin_shape):
        raise FormatError(f"shape {list(shape)} is neither {list(expected)}, what origin shape {list(origin_shape)} "
                          f"in {origin} gives in {fmt}, nor the origin shape")
    return FORMAT_VALUES[fmt], FORMAT_VALUES[origin], origin_shape
