"""The references of the const-folded `*D` ops: the twin's reference run with the D op's attributes as its inputs."""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

#: The key of a constant that goes after every input of the D op (ConcatV2's concat_dim after its dynamic x).
LAST = sys.maxsize

from aclcts.core.prototypes import prototype
from aclcts.reference.base import RefOp, define

#: The twin's inputs that a D op's attributes give: twin input index -> its value, from the D op's attributes.
Constants = Callable[[Mapping[str, Any]], Mapping[int, Any]]


def _twin_arguments(twin: RefOp, consts: Constants, drop: tuple[int, ...], items: list[Any],
                    attrs: Mapping[str, Any], fill: Callable[[np.ndarray], Any]) -> tuple[list[Any], dict[str, Any]]:
    """The twin's inputs (the D op's, less drop, with fill(constant) put at the twin's positions) and attributes
    (those of the D op the twin's record names)."""
    kept = [item for i, item in enumerate(items) if i not in drop]
    for index, value in sorted(consts(attrs).items()):
        kept.insert(index, fill(value if isinstance(value, np.ndarray) else np.asarray(value, dtype=np.int64)))
    names = {a.name for a in prototype(twin.op_type).attrs}
    return kept, {k: v for k, v in attrs.items() if k in names}


def _lifted(shape: tuple[int, ...], rank: int) -> tuple[int, ...]:
    """shape with leading 1s up to rank."""
    return (1,) * (rank - len(shape)) + tuple(shape)


def folded(op_type: str, twin: RefOp, consts: Constants, drop: tuple[int, ...] = (), lift: str = "") -> RefOp:
    """op_type's reference: its record checked, then twin's with the constants consts(attrs) inserted as inputs;
    lift names a list attribute whose length x's rank is raised to with leading 1s (TileD's multiples)."""

    def compute(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
        if lift:
            xs = [np.reshape(xs[0], _lifted(np.shape(xs[0]), len(attrs[lift])))] + xs[1:]
        inputs, twin_attrs = _twin_arguments(twin, consts, drop, xs, attrs, lambda value: value)
        return twin.compute(inputs, twin_attrs, out)

    def shape(shapes: list[Any], values: list[Any], attrs: dict[str, Any]) -> list[tuple[int, ...]]:
        if lift:
            shapes = [_lifted(shapes[0], len(attrs[lift]))] + shapes[1:]
        given, twin_attrs = _twin_arguments(twin, consts, drop, list(zip(shapes, values)), attrs,
                                            lambda value: (value.shape, value))
        return twin.shape([s for s, _ in given], [v for _, v in given], twin_attrs)

    return define(op_type, compute, shape)


def twin_of(ops: tuple[RefOp, ...], op_type: str) -> RefOp:
    """The RefOp of op_type among a family's OPS."""
    return next(r for r in ops if r.op_type == op_type)
