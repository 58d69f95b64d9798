"""Assign and in-place update references: the updated tensor, from TensorFlow's Assign, AssignAdd, AssignSub,
InplaceAdd, InplaceSub, InplaceUpdate and ScatterNdNonAliasingAdd (CANN's elewise_calculation_ops.h and
selection_ops.h REG_OP comments).

An index counts rows of x's first dim: InplaceUpdate's must lie inside it; the D forms' indices attribute is taken
modulo that dim, as CANN's TBE implementations do (tbe/impl/inplace_update_d.py, inplace_add_d.py, inplace_sub_d.py:
`(indices[i] % shape_x[0] + shape_x[0]) % shape_x[0]`; the header does not say). Indices holding a duplicate leave
the result undefined (the REG_OP comments), so the reference refuses them rather than pick one answer.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from aclcts.reference.base import RefOp, define
from aclcts.reference.numeric import round_to, widen

Array = np.ndarray


def assign(ref: Array, value: Array, validate_shape: bool) -> Array:
    """ref = value; with validate_shape the two shapes must match."""
    if validate_shape and ref.shape != value.shape:
        raise ValueError(f"value's shape {list(value.shape)} differs from the assigned tensor's {list(ref.shape)} "
                         "(validate_shape is true)")
    return value


def rows_combined(x: Array, rows: list[int], v: Array, how: str) -> Array:
    """A copy of x whose rows[i] is set to ("set"), increased by ("add") or decreased by ("sub") v[i]."""
    if len(rows) != (v.shape[0] if v.ndim else 0) or v.shape[1:] != x.shape[1:]:
        raise ValueError(f"v's shape {list(v.shape)} must be [{len(rows)}] + the dims of x after its first "
                         f"{list(x.shape[1:])}")
    if len(set(rows)) != len(rows):
        raise ValueError(f"indices {rows} hold a duplicate: the result is undefined")
    y = x.copy()
    for i, row in enumerate(rows):
        if not 0 <= row < x.shape[0]:
            raise ValueError(f"index {row} outside [0, {x.shape[0]}) of x's first dim")
        y[row] = v[i] if how == "set" else y[row] + v[i] if how == "add" else y[row] - v[i]
    return y


def scatter_nd_add(x: Array, indices: Array, updates: Array) -> Array:
    """x with updates[j] added at x[indices[j]] (indices' last dim addressing x's leading dims), one j at a time; a
    single scalar update may come as shape [1]."""
    k = indices.shape[-1] if indices.ndim else 0
    lead = indices.shape[:-1]
    if lead + x.shape[k:] == () and updates.size == 1:
        updates = updates.reshape(())
    if k == 0 or k > x.ndim or updates.shape != lead + x.shape[k:]:
        raise ValueError(f"updates {list(updates.shape)} must be indices' leading dims {list(lead)} + x's dims after "
                         f"the first {k} {list(x.shape[k:])}, with 1 <= {k} <= rank {x.ndim}")
    y = x.copy()
    for j in np.ndindex(*lead):
        at = tuple(int(i) for i in indices[j])
        if not all(0 <= i < d for i, d in zip(at, x.shape)):
            raise ValueError(f"index {list(at)} outside x's dims {list(x.shape[:k])}")
        y[at] = y[at] + updates[j]
    return y


def _scatter_add(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[Array]:
    return [round_to(scatter_nd_add(widen(xs[0]), np.asarray(xs[1]), widen(xs[2])), out[0])]


def _assign(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[Array]:
    return [round_to(assign(widen(xs[0]), widen(xs[1]), bool(attrs["validate_shape"])), out[0])]


def _assign_shape(shapes: list[Any], values: list[Any], attrs: dict[str, Any]) -> list[tuple[int, ...]]:
    return [tuple(shapes[1])]


def _pair(combine: Callable[[Array, Array], Array]) -> Callable[..., list[Array]]:
    def compute(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[Array]:
        a, b = widen(xs[0]), widen(xs[1])
        if a.shape != b.shape:
            raise ValueError(f"the two inputs' shapes differ: {list(a.shape)} and {list(b.shape)}")
        return [round_to(combine(a, b), out[0])]

    return compute


def _rows_attr(how: str) -> Callable[..., list[Array]]:
    def compute(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[Array]:
        rows = [int(i) % xs[0].shape[0] if np.ndim(xs[0]) else int(i) for i in attrs["indices"]]
        return [round_to(rows_combined(widen(xs[0]), rows, widen(xs[1]), how), out[0])]

    return compute


def _rows_input(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[Array]:
    rows = [int(i) for i in np.asarray(xs[1]).reshape(-1)]
    return [round_to(rows_combined(widen(xs[0]), rows, widen(xs[2]), "set"), out[0])]


def _first_shape(shapes: list[Any], values: list[Any], attrs: dict[str, Any]) -> list[tuple[int, ...]]:
    return [tuple(shapes[0])]


OPS: tuple[RefOp, ...] = (
    define("Assign", _assign, _assign_shape),
    define("AssignAdd", _pair(np.add), _first_shape),
    define("AssignSub", _pair(np.subtract), _first_shape),
    define("InplaceAddD", _rows_attr("add"), _first_shape),
    define("InplaceSubD", _rows_attr("sub"), _first_shape),
    define("InplaceUpdateD", _rows_attr("set"), _first_shape),
    define("InplaceUpdate", _rows_input, _first_shape),
    define("ScatterNonAliasingAdd", _scatter_add, _first_shape),
)
