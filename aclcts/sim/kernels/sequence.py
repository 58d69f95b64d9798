"""Sequence kernels: RnnGenMask and NormalizeBatch.

Record: aclcts/core/prototypes/sequence.py. RnnGenMask writes 1 or 0 per (step, entry) row of hidden_size halves.
NormalizeBatch follows the TBE implementation (ops/built-in/tbe/impl/normalize_batch.py) in float32: the sums of x and
x * x over the valid frames give E(x) and E(x^2), the variance |E(x^2) - E(x)^2| scaled by L / (L - 1), then
x * 1 / (sqrt(var) + epsilon) after adding -E(x), every frame of the entry written.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from aclcts.core.dtypes import acl_data_type
from aclcts.sim.kernels.base import InferredShape, TensorInfo
from aclcts.sim.kernels.call import OpCall, Outputs
from aclcts.sim.kernels.registry import builtin
from aclcts.sim.kernels.shapes import UNKNOWN, inferred, like_input

_FLOAT16 = acl_data_type(np.dtype(np.float16))


def _mask(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list[TensorInfo]) -> list[np.ndarray]:
    call = OpCall("RnnGenMask", inputs, attrs)
    call.require_count(1)
    lengths = np.asarray(call.input(0)).reshape(-1)
    steps, hidden = call.attr_int("num_step"), call.attr_int("hidden_size")
    if steps < 1 or hidden < 1:
        raise call.fail(f"num_step and hidden_size must be >= 1, got {steps} and {hidden}")
    mask = np.zeros((steps, lengths.size, hidden), np.float16)
    for step in range(steps):
        mask[step, lengths > step, :] = 1
    return [Outputs(call, outputs).emit(0, mask)]


def _mask_shape(inputs: list[TensorInfo], values: list[np.ndarray | None], attrs: dict[str, Any]) -> list[InferredShape]:
    call = OpCall("RnnGenMask", inputs, attrs)
    call.require_count(1)
    dims = tuple(inputs[0].shape)
    batch = int(np.prod(dims)) if all(d >= 0 for d in dims) else UNKNOWN
    return [inferred(_FLOAT16, (call.attr_int("num_step"), batch, call.attr_int("hidden_size")))]


def _normalize(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list[TensorInfo]) -> list[np.ndarray]:
    call = OpCall("NormalizeBatch", inputs, attrs)
    call.require_count(2)
    x, lengths = np.asarray(call.input(0), np.float32), np.asarray(call.input(1)).reshape(-1)
    kind, epsilon = call.attr_str("normalize_type"), np.float32(call.attr_float("epsilon"))
    if kind not in ("per_feature", "all_features"):
        raise call.fail(f"attr 'normalize_type' must be per_feature or all_features, got {kind!r}")
    if x.ndim != 3 or lengths.size != x.shape[0] or np.any(lengths < 2) or np.any(lengths > x.shape[2]):
        raise call.fail(f"input {call.quoted(1)} must give each of the {x.shape[0] if x.ndim else 0} entries of input "
                        f"{call.quoted(0)} {list(x.shape)} a length in [2, d], got {lengths.tolist()}")
    y = np.empty_like(x)
    for n, length in enumerate(int(v) for v in lengths):
        frames = x[n, :, :length]
        axis, count = (1, length) if kind == "per_feature" else (None, length * x.shape[1])
        mean = (frames.sum(axis=axis, keepdims=axis is not None, dtype=np.float32) / np.float32(count))
        square = (frames * frames).sum(axis=axis, keepdims=axis is not None, dtype=np.float32) / np.float32(count)
        unbiased = np.float32(count) / np.float32(count - 1)
        variance = np.abs((square - mean * mean) * unbiased)
        reciprocal = np.float32(1) / (np.sqrt(variance) + epsilon)
        y[n] = (x[n] + -mean) * reciprocal
    return [Outputs(call, outputs).emit(0, y)]


builtin("RnnGenMask", _mask, _mask_shape)
builtin("NormalizeBatch", _normalize, like_input("NormalizeBatch"))
