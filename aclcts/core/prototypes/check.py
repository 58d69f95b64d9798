"""One operator description checked against its prototype: tensor counts, attributes and dtypes.

The caller (aclcts atc for single-op JSON, aclcts.cases for case files) turns each Problem's `where` into its own
file, line and field. Output shapes are left to the kernels' shape inference: the prototypes carry no shape rule.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from aclcts.core.prototypes.spec import REQUIRED, Prototype, Tensor, canonical_dtype

#: The single-op JSON attribute type of each prototype attribute type.
JSON_ATTR_TYPE = {"int": "int", "float": "float", "bool": "bool", "str": "string", "type": "data_type",
                  "list_int": "list_int", "list_float": "list_float", "list_bool": "list_bool",
                  "list_str": "list_string", "list_list_int": "list_list_int"}


@dataclass(frozen=True)
class Problem:
    """What breaks the prototype and where: ("input", i), ("output", i), ("inputs",), ("outputs",),
    ("attr", name, "name" or "type") or ("attrs",) for a missing attribute."""

    where: tuple
    message: str
    #: What kind of problem: one of KINDS.
    kind: str = "dtype"


#: Problem kinds: a tensor count, a dtype outside its constraint or unlike the others of its constraint, a dtype unlike
#: the one an attribute sets, an attribute the prototype does not have, an attribute of another type, a missing
#: REQUIRED attribute, a private format the tensor may not have or a shape that does not fit it.
KINDS = ("count", "dtype", "dtype_attr", "unknown_attr", "attr_type", "missing_attr", "format")


def _slot_text(t: Tensor) -> str:
    return t.name + {"optional": " (optional)", "dynamic": " (dynamic, 1 or more)"}.get(t.kind, "")


def slots(tensors: Sequence[Tensor], count: int) -> list[Tensor] | None:
    """The prototype tensor each of `count` given tensors stands for, in order; None if the count cannot fit."""
    required = [t for t in tensors if t.kind == "required"]
    optional = [t for t in tensors if t.kind == "optional"]
    if any(t.kind == "dynamic" for t in tensors):
        with_optional = count - len(required) - len(optional) >= 1
        kept = [t for t in tensors if t.kind != "optional" or with_optional]
        repeat = count - (len(kept) - 1)
        if repeat < 1:
            return None
        return [s for t in kept for s in ([t] * repeat if t.kind == "dynamic" else [t])]
    if not len(required) <= count <= len(tensors) or any(t.kind == "required" for t in tensors[count:]):
        return None
    return list(tensors[:count])


def count_problem(proto: Prototype, side: str, count: int) -> Problem | None:
    """A Problem if `count` inputs (side "inputs") or outputs cannot fit the prototype."""
    tensors = proto.inputs if side == "inputs" else proto.outputs
    if slots(tensors, count) is not None:
        return None
    names = ", ".join(_slot_text(t) for t in tensors) or "none"
    return Problem((side,), f"{count} {side} given; {proto.op_type} takes {names}", "count")


def _allowed(proto: Prototype, constraint: str) -> tuple[str, ...]:
    return tuple(canonical_dtype(d) for d in proto.types.get(constraint, ()))


def dtype_problems(proto: Prototype, inputs: Sequence[str | None], outputs: Sequence[str | None],
                   attrs: Mapping[str, object], dtype_names: Mapping[int, str]) -> list[Problem]:
    """Problems of the given input and output dtype names (None: an unused optional tensor) against the type
    constraints: each dtype allowed, tensors sharing a constraint of one dtype, dtypes that an attribute sets.

    A dtype refused for one tensor is not refused again for the later tensors sharing its constraint."""
    problems: list[Problem] = []
    first: dict[str, tuple[str, str]] = {}
    refused: set[tuple[str, str]] = set()
    for side, given, tensors in (("input", inputs, proto.inputs), ("output", outputs, proto.outputs)):
        for index, (slot, dtype) in enumerate(zip(slots(tensors, len(given)) or [], given)):
            if dtype is None:
                if slot.kind != "optional":
                    problems.append(Problem((side, index), f"UNDEFINED: {proto.op_type}'s {slot.name} is not "
                                            "optional; expected one of " + ", ".join(_allowed(proto, slot.types))))
                continue
            dtype = canonical_dtype(dtype)
            allowed = _allowed(proto, slot.types)
            if dtype not in allowed:
                if (slot.types, dtype) in refused:
                    continue
                refused.add((slot.types, dtype))
                problems.append(Problem((side, index), f'"{dtype}": {proto.op_type}\'s {slot.name} takes one of '
                                        f'{", ".join(allowed)}'))
                continue
            attr = proto.dtype_from.get(slot.name)
            if attr is not None:
                value = attrs.get(attr, getattr(proto.attr(attr), "default", REQUIRED))
                wanted = dtype_names.get(value) if isinstance(value, int) else None
                if wanted is not None and wanted != dtype:
                    problems.append(Problem((side, index), f'"{dtype}": expected "{wanted}", the dtype attribute '
                                            f"{attr} sets ({value})", "dtype_attr"))
                continue
            if slot.types in first and first[slot.types][1] != dtype:
                name, other = first[slot.types]
                problems.append(Problem((side, index), f'"{dtype}": expected "{other}", the dtype of {name} '
                                        f"({slot.name} and {name} share type {slot.types})"))
            first.setdefault(slot.types, (slot.name, dtype))
    return problems


def attr_problems(proto: Prototype, attrs: Mapping[str, str]) -> list[Problem]:
    """Problems of the given attribute names and single-op JSON attribute types: unknown names, wrong types and
    missing REQUIRED attributes."""
    problems: list[Problem] = []
    known = {a.name: a for a in proto.attrs}
    listed = ", ".join(f"{a.name} ({JSON_ATTR_TYPE[a.type]})" for a in proto.attrs) or "none"
    for name, json_type in attrs.items():
        declared = known.get(name)
        if declared is None:
            problems.append(Problem(("attr", name, "name"), f'{proto.op_type} has no attribute "{name}"; its '
                                    f"attributes: {listed}", "unknown_attr"))
        elif JSON_ATTR_TYPE[declared.type] != json_type:
            problems.append(Problem(("attr", name, "type"), f'type "{json_type}": {proto.op_type}\'s {name} is '
                                    f'"{JSON_ATTR_TYPE[declared.type]}"', "attr_type"))
    missing = [a for a in proto.attrs if a.default is REQUIRED and a.name not in attrs]
    for a in missing:
        problems.append(Problem(("attrs",), f'{proto.op_type} requires attribute "{a.name}" '
                                f"({JSON_ATTR_TYPE[a.type]}, REQUIRED_ATTR)", "missing_attr"))
    return problems
