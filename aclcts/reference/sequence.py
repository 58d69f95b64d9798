"""References of the sequence family: RnnGenMask and NormalizeBatch (aclcts/core/prototypes/sequence.py).

Written from the REG_OP descriptions: a step is valid for an entry while it is below the entry's length; a feature is
standardised with the sample mean and the unbiased sample standard deviation (NumPy's ddof=1) of the entry's valid
frames, epsilon added to the standard deviation.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from aclcts.reference.base import InputError, RefOp, define


def _mask(xs: list[np.ndarray], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    lengths = np.asarray(xs[0]).reshape(-1)
    steps = np.arange(int(attrs["num_step"]))[:, None]
    valid = (steps < lengths[None, :]).astype(np.float64)
    return [np.repeat(valid[:, :, None], int(attrs["hidden_size"]), axis=2).astype(out[0])]


def _normalize(xs: list[np.ndarray], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    x, lengths = np.asarray(xs[0], np.float64), np.asarray(xs[1]).reshape(-1)
    if x.ndim != 3 or lengths.size != x.shape[0] or np.any(lengths < 2) or np.any(lengths > x.shape[2]):
        raise InputError(1, lambda name: f"input {name!r} must give each of the {x.shape[0]} entries a length in "
                                         f"[2, {x.shape[-1]}], got {lengths.tolist()}")
    per_feature = attrs["normalize_type"] == "per_feature"
    y = np.empty_like(x)
    for n, length in enumerate(lengths):
        frames = x[n, :, :length]
        axes = 1 if per_feature else None
        mean = frames.mean(axis=axes, keepdims=per_feature)
        std = frames.std(axis=axes, ddof=1, keepdims=per_feature)
        y[n] = (x[n] - mean) / (std + float(attrs["epsilon"]))
    return [y.astype(out[0])]


OPS: tuple[RefOp, ...] = (
    define("RnnGenMask", _mask,
           lambda shapes, values, attrs: [(int(attrs["num_step"]), int(np.prod(shapes[0])), int(attrs["hidden_size"]))]),
    define("NormalizeBatch", _normalize, lambda shapes, values, attrs: [tuple(shapes[0])]),
)
