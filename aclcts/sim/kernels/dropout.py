"""DropOutDoMask and DropOutDoMaskV3D: x times 1 / keep_prob where the mask keeps an element, 0 elsewhere.

Records: aclcts/core/prototypes/dropout.py (the mask layouts and their sources).
Numerics: as tbe/impl/dynamic/drop_out_do_mask.py, 1 / keep_prob is rounded to x's type first, then x times it in x's
type, then the select; DropOutDoMaskV3D (drop_out_do_mask_v3_d.py) multiplies x by the mask byte cast to x's type,
then by 1 / keep_prob rounded to x's type.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from aclcts.sim.kernels.base import TensorInfo
from aclcts.sim.kernels.call import OpCall, Outputs
from aclcts.sim.kernels.registry import builtin
from aclcts.sim.kernels.shapes import like_input
from aclcts.sim.seams import Seam

#: Elements per block of the bit mask (16 bytes of compare mask per vsel of 128 elements).
BLOCK = 128


def _lowest_bit_first(mask: np.ndarray, count: int) -> np.ndarray:
    """The first count mask bits, bit 0 of byte 0 first: the vector unit's compare-mask order."""
    return np.unpackbits(mask.reshape(-1), bitorder="little")[:count].astype(bool)


#: How the bit mask's bytes map onto elements.
mask_bits = Seam("dropout mask bits", _lowest_bit_first)


def _reciprocal(call: OpCall, keep_prob: float, dtype: np.dtype) -> Any:
    if keep_prob == 0:
        raise call.fail("keep_prob is 0: 1 / keep_prob is not finite")
    with np.errstate(all="ignore"):
        return dtype.type(1.0 / dtype.type(keep_prob))


def _do_mask(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list[TensorInfo]) -> list[np.ndarray]:
    call = OpCall("DropOutDoMask", inputs, attrs)
    call.require_inputs()
    x, mask, keep_prob = call.input(0), call.input(1), call.input(2)
    call.require_dtype(0, x.dtype)
    call.require_dtype(1, mask.dtype)
    call.require_same_dtype([0, 2], [x.dtype, keep_prob.dtype])
    needed = -(-x.size // BLOCK) * BLOCK // 8
    if mask.ndim != 1 or mask.size != needed:
        raise call.fail(f"{call.quoted(1)} must be 1-D of (size(x) + 127) // 128 * 128 // 8 = {needed} bytes, got "
                        f"shape {list(mask.shape)}")
    if keep_prob.size != 1:
        raise call.fail(f"{call.quoted(2)} must hold one value, got shape {list(keep_prob.shape)}")
    out = Outputs(call, outputs)
    out.require_input_dtype(0, 0, x.dtype)
    rec = _reciprocal(call, float(keep_prob.reshape(-1)[0]), x.dtype)
    kept = mask_bits(mask, x.size).reshape(x.shape)
    with np.errstate(all="ignore"):
        y = np.where(kept, x * rec, x.dtype.type(0))
    return [out.emit(0, y.astype(x.dtype))]


def _do_mask_v3d(inputs: list[np.ndarray | None], attrs: dict[str, Any],
                 outputs: list[TensorInfo]) -> list[np.ndarray]:
    call = OpCall("DropOutDoMaskV3D", inputs, attrs)
    call.require_inputs()
    x, mask = call.input(0), call.input(1)
    call.require_dtype(0, x.dtype)
    call.require_dtype(1, mask.dtype)
    if mask.shape != x.shape:
        raise call.fail(f"{call.quoted(1)} must have the shape of {call.quoted(0)} {list(x.shape)}, got "
                        f"{list(mask.shape)}")
    out = Outputs(call, outputs)
    out.require_input_dtype(0, 0, x.dtype)
    rec = _reciprocal(call, call.attr_float("keep_prob"), x.dtype)
    with np.errstate(all="ignore"):
        y = (x * mask.astype(x.dtype)) * rec
    return [out.emit(0, y.astype(x.dtype))]


builtin("DropOutDoMask", _do_mask, like_input("DropOutDoMask"))
builtin("DropOutDoMaskV3D", _do_mask_v3d, like_input("DropOutDoMaskV3D"))
