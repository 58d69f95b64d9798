"""References of the const-folded twins: GatherV2D, Gather, FillD and OneHotD (the references of GatherV2, Fill and
OneHot with the D op's attributes as the const inputs; Gather's axis is its batch_dims); RangeD, LinSpaceD, DiagD and DiagPartD written from TensorFlow's
Range, LinSpace, Diag and DiagPart with the assist input in the place CANN's TBE implementation gives it (the output
positions, or the identity tensor)."""

from __future__ import annotations

from typing import Any

import numpy as np

from aclcts.reference.base import RefOp, define, scalar_int
from aclcts.reference.folded import folded, twin_of
from aclcts.reference.gather_scatter import OPS as GATHER_OPS
from aclcts.reference.matrix_structure import diag_part_shape
from aclcts.reference.numeric import round_to, widen
from aclcts.reference.unary_math import OPS as UNARY_OPS


def _range_bounds(start: float, limit: float, delta: float) -> None:
    """RangeD's attributes as TensorFlow's Range takes them: delta not 0, pointing from start towards limit."""
    if delta == 0:
        raise ValueError("delta must not be 0")
    if start == limit:
        raise ValueError(f"start {start} must differ from limit")
    if (limit - start) * delta < 0:
        raise ValueError(f"delta {delta} does not lead from start {start} to limit {limit}")


def _range_d(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    """RangeD: y[i] = start + x[i] * delta (Range's i-th element at position x[i]); int32 uses the attributes'
    integer parts."""
    x = xs[0]
    start, limit, delta = (float(attrs[k]) for k in ("start", "limit", "delta"))
    if x.dtype.kind == "i":
        start, limit, delta = (float(int(v)) for v in (start, limit, delta))
        _range_bounds(start, limit, delta)
        return [(int(start) + x.astype(np.int64) * int(delta)).astype(out[0])]
    _range_bounds(start, limit, delta)
    return [round_to(start + widen(x) * delta, out[0])]


def _one(xs: list[Any], index: int) -> float:
    value = np.asarray(xs[index]).reshape(-1)
    if value.size != 1:
        raise ValueError(f"input {index} must hold one value, got {value.size}")
    return float(value[0])


def _lin_space_d(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    """LinSpaceD: output[i] = start + assist[i] * (stop - start) / (num - 1) (LinSpace at position assist[i]), for
    every num: the output's length is the assist's, num only sets the step (num 1 divides by 0, as lin_space_d.py)."""
    start, stop, num = _one(xs, 1), _one(xs, 2), scalar_int(xs, 3)
    step = np.float64(stop - start) / np.float64(num - 1)
    return [round_to(start + widen(xs[0]) * step, out[0])]


def _pair_shape(x: tuple[int, ...], assist: tuple[int, ...]) -> None:
    if tuple(assist) != tuple(x) + tuple(x):
        raise ValueError(f"assist {list(assist)} must be [D1..Dk, D1..Dk] for x {list(x)}")


def _diag_d(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    """DiagD: y[i1..ik, j1..jk] = x[j1..jk] * assist[i1..ik, j1..jk] (Diag when assist is the identity); int32
    products wrap."""
    x, assist = xs[0], xs[1]
    _pair_shape(x.shape, assist.shape)
    integer = x.dtype.kind == "i"
    y = np.empty(assist.shape, dtype=np.int64 if integer else np.float64)
    for i in np.ndindex(*x.shape):
        for j in np.ndindex(*x.shape):
            y[i + j] = int(x[j]) * int(assist[i + j]) if integer else float(x[j]) * float(assist[i + j])
    return [y.astype(out[0]) if integer else round_to(y, out[0])]


def _diag_part_d(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    """DiagPartD: y[i1..ik] = sum over j of x[i, j] * assist[i, j] (DiagPart when assist is the identity)."""
    x, assist = xs[0], xs[1]
    if x.shape != assist.shape:
        raise ValueError(f"assist {list(assist.shape)} must have x's shape {list(x.shape)}")
    half = diag_part_shape(x.shape)
    y = np.zeros(half, dtype=np.float64)
    for i in np.ndindex(*half):
        y[i] = sum(float(x[i + j]) * float(assist[i + j]) for j in np.ndindex(*half))
    return [round_to(y, out[0])]


def _diag_d_shape(shapes: list[Any], values: list[Any], attrs: dict[str, Any]) -> list[tuple[int, ...]]:
    _pair_shape(shapes[0], shapes[1])
    return [tuple(shapes[1])]


OPS: tuple[RefOp, ...] = (
    folded("GatherV2D", twin_of(GATHER_OPS, "GatherV2"), lambda a: {2: a["axis"]}),
    folded("Gather", twin_of(GATHER_OPS, "GatherV2"), lambda a: {2: a["batch_dims"]}),
    folded("FillD", twin_of(UNARY_OPS, "Fill"), lambda a: {0: a["dims"]}),
    folded("OneHotD", twin_of(GATHER_OPS, "OneHot"), lambda a: {1: np.array(a["depth"], dtype=np.int32)}),
    define("RangeD", _range_d, lambda shapes, values, attrs: [shapes[0]]),
    define("LinSpaceD", _lin_space_d, lambda shapes, values, attrs: [shapes[0]]),
    define("DiagD", _diag_d, _diag_d_shape),
    define("DiagPartD", _diag_part_d, lambda shapes, values, attrs: [diag_part_shape(shapes[0])]),
)
