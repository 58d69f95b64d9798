"""Dropout references: DropOutDoMask and DropOutDoMaskV3D, x / keep_prob where the mask keeps an element, else 0."""

from __future__ import annotations

from typing import Any

import numpy as np

from aclcts.reference.base import InputError, RefOp, define
from aclcts.reference.numeric import round_to, widen

#: DropOutDoMask's mask covers x in blocks of this many elements (nn_norm_ops.h: (size(x) + 127) // 128 * 128 // 8).
MASK_BLOCK = 128


def kept_bits(mask: np.ndarray, count: int) -> np.ndarray:
    """Whether each of the first count elements is kept: bit i % 8 of byte i // 8, least significant bit first."""
    needed = -(-count // MASK_BLOCK) * MASK_BLOCK // 8
    if mask.size != needed:
        raise InputError(1, lambda name: f"{name} must hold {needed} bytes for {count} elements, got {mask.size}")
    byte = mask.reshape(-1)[np.arange(count) // 8].astype(np.int64)
    return (byte >> (np.arange(count) % 8)) & 1 == 1


def _do_mask(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    x, mask, keep_prob = xs
    scaled = widen(x) / float(np.asarray(keep_prob, dtype=np.float64).reshape(-1)[0])
    kept = kept_bits(np.asarray(mask), x.size).reshape(x.shape)
    return [round_to(np.where(kept, scaled, 0.0), out[0])]


def _do_mask_v3d(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    x, mask = xs
    if mask.shape != x.shape:
        raise InputError((0, 1), lambda x_name, mask_name: f"{mask_name} must have the shape of {x_name} "
                                                            f"{list(x.shape)}, got {list(mask.shape)}")
    scaled = widen(x) / float(attrs["keep_prob"])
    return [round_to(np.where(np.asarray(mask) == 1, scaled, 0.0), out[0])]


def _like_x(shapes: list[Any], values: list[Any], attrs: dict[str, Any]) -> list[tuple[int, ...]]:
    return [tuple(shapes[0])]


OPS: tuple[RefOp, ...] = (
    define("DropOutDoMask", _do_mask, _like_x),
    define("DropOutDoMaskV3D", _do_mask_v3d, _like_x),
)
