"""The Cast reference: x converted to the dtype named by attribute dst_type, by the rules of `round_to`."""

from __future__ import annotations

from typing import Any

import numpy as np

from aclcts.core.dtypes import has_numpy_dtype, numpy_dtype
from aclcts.reference.base import RefOp, define
from aclcts.reference.numeric import round_to, widen


def cast(x: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """Cast: float->float rounds to nearest even, float->int truncates/saturates (NaN -> 0), int->int wraps,
    anything->bool is "nonzero", complex->real keeps the real part (see aclcts.reference.numeric)."""
    if x.dtype == dtype:
        return x.copy()
    return round_to(widen(x), dtype)


def _cast(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    """Cast compute; `truncate` is accepted and ignored (documented as reserved for aclopCast)."""
    dst = int(attrs["dst_type"])
    if not has_numpy_dtype(dst):
        raise ValueError(f"dst_type={dst} has no NumPy representation")
    if numpy_dtype(dst) != out[0]:
        raise ValueError(f"dst_type={dst} ({numpy_dtype(dst)}) disagrees with the output dtype {out[0]}")
    return [cast(xs[0], out[0])]


def _same(shapes: list[Any], values: list[Any], attrs: dict[str, Any]) -> list[tuple[int, ...]]:
    """Cast keeps the shape."""
    return [shapes[0]]


OPS: tuple[RefOp, ...] = (
    define("Cast", _cast, _same),
)
