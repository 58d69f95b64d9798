"""The RefOp and `define`, which checks inputs and attributes against the operator's record."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from aclcts.core.prototypes import REQUIRED, Prototype, Tensor, lookup
from aclcts.core.prototypes.check import slots

Array = np.ndarray
ComputeFn = Callable[[list[Array | None], dict[str, Any], list[np.dtype]], list[Array]]
ShapeFn = Callable[[list[tuple[int, ...] | None], list[Array | None], dict[str, Any]], list[tuple[int, ...]]]


class InputError(ValueError):
    """A problem with input index (or several inputs); define() reports message(name, ...) with their names from the
    op's record."""

    def __init__(self, index: int | tuple[int, ...], message: Callable[..., str]) -> None:
        self.indices = (index,) if isinstance(index, int) else tuple(index)
        self.message = message
        super().__init__(message(*(f"input{i}" for i in self.indices)))

    def named(self, record: Prototype, count: int) -> str:
        """The message with the inputs named from record (count inputs given)."""
        return self.message(*(input_name(record, i, count) for i in self.indices))


def input_name(record: Prototype, index: int, count: int) -> str:
    """The record's name of input index when count inputs are given (a dynamic input's tensors are name[0], ...)."""
    tensors = slots(record.inputs, max(count, index + 1)) or list(record.inputs)
    if index >= len(tensors):
        return f"input{index}"
    tensor = tensors[index]
    if tensor.kind != "dynamic":
        return tensor.name
    return f"{tensor.name}[{index - tensors.index(tensor)}]"


@dataclass(frozen=True)
class RefOp:
    """A reference operator: IR name, float64 compute function and output-shape function."""

    op_type: str
    compute: ComputeFn
    shape: ShapeFn
    inputs: tuple[str, ...] = ()
    attrs: Mapping[str, Any] = field(default_factory=dict)
    outputs: tuple[str, ...] = ("y",)


def _record(op_type: str) -> Prototype:
    """The op's record (built-in, or a custom op's from its OPP vendor folder); ValueError if it has none."""
    found, _ = lookup(op_type)
    if found is None:
        raise ValueError(f"{op_type}: no operator record; write one (aclcts new-op {op_type} scaffolds it)")
    return found


def _arity(op_type: str, tensors: tuple[Tensor, ...], got: Sequence[Any]) -> None:
    """Raise ValueError unless `got` fits the record's inputs (optional ones may be absent, a dynamic one repeats)."""
    required = [t.name for t in tensors if t.kind == "required"]
    if any(t.kind == "dynamic" for t in tensors):
        ok = len(got) >= len(required) + 1
    else:
        ok = len(required) <= len(got) <= len(tensors)
    if not ok:
        names = ", ".join(t.name + {"optional": "?", "dynamic": "*"}.get(t.kind, "") for t in tensors)
        raise ValueError(f"{op_type}: expected inputs ({names}), got {len(got)}")
    for tensor, value in zip(tensors, got):
        if value is None and tensor.kind != "optional":
            raise ValueError(f"{op_type}: required input {tensor.name!r} is missing (None)")


def _full_attrs(op_type: str, defaults: Mapping[str, Any], given: Mapping[str, Any]) -> dict[str, Any]:
    """Merge given attributes over the record's defaults; unknown or missing required ones raise."""
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


def define(op_type: str, compute: ComputeFn, shape: ShapeFn) -> RefOp:
    """A RefOp whose functions check arity, attributes and output count against the op's record and name the op in
    errors; the record (aclcts.core.prototypes) gives the names, kinds and attribute defaults."""

    def checked_compute(xs: list[Array | None], at: dict[str, Any], out: list[np.dtype]) -> list[Array]:
        record = _record(op_type)
        _arity(op_type, record.inputs, xs)
        full = _full_attrs(op_type, record.defaults(len(xs)), at)
        arrays = _padded([None if x is None else np.asarray(x) for x in xs], _named(record))
        dtypes = [np.dtype(d) for d in out]
        if not any(t.kind == "dynamic" for t in record.outputs) and len(dtypes) != len(record.outputs):
            raise ValueError(f"{op_type}: expected {len(record.outputs)} output dtype(s) "
                             f"({', '.join(record.output_names())}), got {len(dtypes)}")
        try:
            with np.errstate(all="ignore"):
                result = compute(arrays, full, dtypes)
        except InputError as exc:
            raise ValueError(f"{op_type}: {exc.named(record, len(xs))}") from None
        except ValueError as exc:
            raise ValueError(f"{op_type}: {exc}") from None
        if len(result) != len(dtypes):
            raise ValueError(f"{op_type}: produces {len(result)} output(s) but {len(dtypes)} output dtype(s) given")
        return result

    def checked_shape(shapes: list[tuple[int, ...] | None], values: list[Array | None],
                      at: dict[str, Any]) -> list[tuple[int, ...]]:
        record = _record(op_type)
        _arity(op_type, record.inputs, shapes)
        full = _full_attrs(op_type, record.defaults(len(shapes)), at)
        padded_shapes = _padded([None if s is None else tuple(int(d) for d in s) for s in shapes], _named(record))
        padded_values = _padded([None if v is None else np.asarray(v) for v in values], len(padded_shapes))
        try:
            return [tuple(int(d) for d in s) for s in shape(padded_shapes, padded_values, full)]
        except InputError as exc:
            raise ValueError(f"{op_type}: {exc.named(record, len(shapes))}") from None
        except ValueError as exc:
            raise ValueError(f"{op_type}: {exc}") from None

    return RefOp(op_type, checked_compute, checked_shape)


def _named(record: Prototype) -> int:
    """How many inputs a compute function is always given (every one but a dynamic list)."""
    return len([t for t in record.inputs if t.kind != "dynamic"])


def needed_value(values: list[Array | None], index: int) -> Array:
    """Return the value of input `index`, or raise (naming it from the record) when the output shape depends on it
    and it is absent."""
    value = values[index] if index < len(values) else None
    if value is None:
        raise InputError(index, lambda name: f"the output shape depends on the value of input {name!r}; pass it")
    return value


def normalize_axis(axis: int, rank: int, what: str | int = "axis") -> int:
    """Return axis in [0, rank), accepting [-rank, rank); raise ValueError outside naming what (a word, or the index
    of the input the axis came from)."""
    axis = int(axis)
    if not -rank <= axis < rank:
        def message(name: str) -> str:
            return f"{name} {axis} out of range for rank {rank}; expected [-{rank}, {rank - 1}]"
        raise InputError(what, message) if isinstance(what, int) else ValueError(message(what))
    return axis % rank


def normalize_axes(axes: Sequence[int] | Array, rank: int, what: str | int = "axes") -> tuple[int, ...]:
    """Normalise a list of axes for a tensor of this rank (what as in normalize_axis); duplicates raise ValueError."""
    result = tuple(normalize_axis(a, rank, what) for a in np.asarray(axes).reshape(-1))
    if len(set(result)) != len(result):
        def message(name: str) -> str:
            return f"{name} {list(np.asarray(axes).reshape(-1))} contain a duplicate"
        raise InputError(what, message) if isinstance(what, int) else ValueError(message(what))
    return result


def scalar_int(values: list[Array | None], index: int) -> int:
    """Return the single integer held by input index (a scalar or one-element tensor; needed_value when absent)."""
    value = needed_value(values, index)
    arr = np.asarray(value).reshape(-1)
    if arr.size != 1:
        raise InputError(index, lambda name: f"input {name!r} must hold exactly one value, got shape {np.shape(value)}")
    return int(arr[0])

