"""The RefOp record and `define`, which checks inputs and attributes against an operator's IR prototype."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

Array = np.ndarray
ComputeFn = Callable[[list[Array | None], dict[str, Any], list[np.dtype]], list[Array]]
ShapeFn = Callable[[list[tuple[int, ...] | None], list[Array | None], dict[str, Any]], list[tuple[int, ...]]]


class _Required:
    """Marker for a prototype attribute without a default (REQUIRED_ATTR)."""

    def __repr__(self) -> str:
        return "REQUIRED"


REQUIRED = _Required()


@dataclass(frozen=True)
class RefOp:
    """A reference operator: IR name, float64 compute function and output-shape function."""

    op_type: str
    compute: ComputeFn
    shape: ShapeFn
    inputs: tuple[str, ...] = ()
    attrs: Mapping[str, Any] = field(default_factory=dict)
    outputs: tuple[str, ...] = ("y",)


def _arity(op_type: str, names: tuple[str, ...], got: Sequence[Any]) -> None:
    """Raise ValueError unless `got` fits the IR input list (`name?` optional, `name*` dynamic)."""
    required = [n for n in names if not n.endswith(("?", "*"))]
    dynamic = any(n.endswith("*") for n in names)
    if dynamic:
        ok = len(got) >= len(required) + 1
    else:
        ok = len(required) <= len(got) <= len(names)
    if not ok:
        raise ValueError(f"{op_type}: expected inputs ({', '.join(names)}), got {len(got)}")
    for name, value in zip(names, got):
        if value is None and not name.endswith("?"):
            raise ValueError(f"{op_type}: required input {name!r} is missing (None)")


def _full_attrs(op_type: str, defaults: Mapping[str, Any], given: Mapping[str, Any]) -> dict[str, Any]:
    """Merge given attributes over the prototype defaults; unknown or missing required ones raise."""
    unknown = sorted(set(given) - set(defaults))
    if unknown:
        raise ValueError(f"{op_type}: unknown attribute(s) {unknown}; prototype has {sorted(defaults)}")
    full = {**defaults, **given}
    missing = sorted(k for k, v in full.items() if v is REQUIRED)
    if missing:
        raise ValueError(f"{op_type}: required attribute(s) {missing} not given")
    return full


def _padded(items: Sequence[Any], n: int) -> list[Any]:
    """Return items as a list of length at least n, filling with None."""
    return list(items) + [None] * (n - len(items))


def define(op_type: str, inputs: tuple[str, ...], attrs: Mapping[str, Any], compute: ComputeFn,
           shape: ShapeFn, outputs: tuple[str, ...] = ("y",)) -> RefOp:
    """Build a RefOp whose functions validate arity, attributes and output count and name the op in errors.

    Input names ending in `?` are optional (None or absent), `*` marks a dynamic input or output.
    """
    n_named = len([n for n in inputs if not n.endswith("*")])

    def checked_compute(xs: list[Array | None], at: dict[str, Any], out: list[np.dtype]) -> list[Array]:
        _arity(op_type, inputs, xs)
        full = _full_attrs(op_type, attrs, at)
        arrays = _padded([None if x is None else np.asarray(x) for x in xs], n_named)
        dtypes = [np.dtype(d) for d in out]
        if not any(n.endswith("*") for n in outputs) and len(dtypes) != len(outputs):
            raise ValueError(f"{op_type}: expected {len(outputs)} output dtype(s) ({', '.join(outputs)}), "
                             f"got {len(dtypes)}")
        try:
            with np.errstate(all="ignore"):
                result = compute(arrays, full, dtypes)
        except ValueError as exc:
            raise ValueError(f"{op_type}: {exc}") from None
        if len(result) != len(dtypes):
            raise ValueError(f"{op_type}: produces {len(result)} output(s) but {len(dtypes)} output dtype(s) given")
        return result

    def checked_shape(shapes: list[tuple[int, ...] | None], values: list[Array | None],
                      at: dict[str, Any]) -> list[tuple[int, ...]]:
        _arity(op_type, inputs, shapes)
        full = _full_attrs(op_type, attrs, at)
        padded_shapes = _padded([None if s is None else tuple(int(d) for d in s) for s in shapes], n_named)
        padded_values = _padded([None if v is None else np.asarray(v) for v in values], len(padded_shapes))
        try:
            return [tuple(int(d) for d in s) for s in shape(padded_shapes, padded_values, full)]
        except ValueError as exc:
            raise ValueError(f"{op_type}: {exc}") from None

    return RefOp(op_type, checked_compute, checked_shape, inputs, dict(attrs), outputs)


def needed_value(values: list[Array | None], index: int, name: str) -> Array:
    """Return the value of input `index`, or raise when the output shape depends on it and it is absent."""
    value = values[index] if index < len(values) else None
    if value is None:
        raise ValueError(f"the output shape depends on the value of input {name!r}; pass it")
    return value


def normalize_axis(axis: int, rank: int, what: str = "axis") -> int:
    """Return axis in [0, rank), accepting [-rank, rank); raise ValueError outside."""
    axis = int(axis)
    if not -rank <= axis < rank:
        raise ValueError(f"{what} {axis} out of range for rank {rank}; expected [-{rank}, {rank - 1}]")
    return axis % rank


def normalize_axes(axes: Sequence[int] | Array, rank: int, what: str = "axes") -> tuple[int, ...]:
    """Normalise a list of axes for a tensor of this rank; duplicates raise ValueError."""
    result = tuple(normalize_axis(a, rank, what) for a in np.asarray(axes).reshape(-1))
    if len(set(result)) != len(result):
        raise ValueError(f"{what} {list(np.asarray(axes).reshape(-1))} contain a duplicate")
    return result


def scalar_int(value: Array, name: str) -> int:
    """Return the single integer held by a scalar or one-element tensor."""
    arr = np.asarray(value).reshape(-1)
    if arr.size != 1:
        raise ValueError(f"input {name!r} must hold exactly one value, got shape {np.shape(value)}")
    return int(arr[0])

