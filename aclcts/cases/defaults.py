"""Default cases of an op that no case file covers, made from its record: its dtypes, sample shapes, sample attribute
values and sample value ranges, expanded and checked as a case file's content would be. A record with sample_ranges
also gets a dynamic default case: every tensor's dims -1 inside those ranges, run at the sample shapes and at shapes
drawn by the record's shape rule."""

from __future__ import annotations

from collections.abc import Collection, Iterable
from functools import cache
from typing import Any

from aclcts.cases.case import Case
from aclcts.cases.load import BUILTIN_DEFAULTS, SHIPPED_CASES, expand_data
from aclcts.core.dtypes import JSON_TYPE_NAMES, has_numpy_dtype
from aclcts.core.prototypes import Prototype, Sample, op_types, prototype
from aclcts.core.prototypes.check import JSON_ATTR_TYPE

#: The input shapes of a record that gives none: every required input [2, 3], then [4, 1, 5].
DEFAULT_SHAPES = ((2, 3), (4, 1, 5))
#: How the elements of a dynamic default case are drawn (aclcts.cases.schema.ELEMENT_KINDS): no inf or NaN.
DYNAMIC_ELEMENTS = "finite"
#: The dtypes the simulator can hold, by single-op JSON name.
_HELD = {name for code, name in JSON_TYPE_NAMES.items() if has_numpy_dtype(code)}


def source_of(record: Prototype) -> str:
    """Where a default case comes from, as the reports name its file."""
    return f"{BUILTIN_DEFAULTS}{record.family}.py (default cases of {record.op_type})"


def _distribution(sample: Sample) -> dict[str, list[float]]:
    """A sample hint as a case file's distribution."""
    return {"special": [sample.special]} if sample.special else {"uniform": [sample.low, sample.high]}


def case_data(record: Prototype) -> dict[str, Any]:
    """The case-file content of the op's default cases."""
    required = [t for t in record.inputs if t.kind == "required"]
    first = required[0].types if required else record.outputs[0].types
    others = {name: next((d for d in dtypes if d in _HELD), dtypes[0]) for name, dtypes in record.types.items()}
    tensors = required + [t for t in record.outputs if t.kind == "required"]
    dtypes = [{t.name: dtype if t.types == first else others[t.types] for t in tensors}
              for dtype in record.types[first] if dtype in _HELD]
    shapes = record.sample_shapes or tuple(tuple(shape for _ in required) for shape in DEFAULT_SHAPES)
    attrs = {name: {"type": JSON_ATTR_TYPE[record.attr(name).type], "value": value}
             for name, value in record.sample_attrs.items()}
    return {"op": record.op_type, "dtypes": dtypes, "shapes": [[list(s) for s in case] for case in shapes],
            "attrs": [attrs], "values": {name: _distribution(s) for name, s in record.samples.items()},
            **({"reference": record.reference} if record.reference else {}),
            **({"profiles": list(record.profiles)} if record.profiles is not None else {})}


def dynamic_data(record: Prototype) -> dict[str, Any]:
    """The case-file content of the op's dynamic default case (the record gives sample_ranges)."""
    static = case_data(record)
    return {**static, "modes": ["execute_v2"],
            "shapes": [{name: [-1] * len(pairs) for name, pairs in record.sample_ranges.items()}],
            "shape_range": {name: [list(pair) for pair in pairs] for name, pairs in record.sample_ranges.items()},
            "runtime_shapes": static["shapes"], "shape_rule": record.shape_rule, "elements": DYNAMIC_ELEMENTS}


def record_cases(record: Prototype, source: str) -> list[Case]:
    """The default cases of a record (its static ones, then its dynamic one if it has sample_ranges), their file
    named source."""
    cases = expand_data(case_data(record), source, {})
    return cases + (expand_data(dynamic_data(record), source, {}) if record.sample_ranges else [])


def default_cases(op_type: str) -> list[Case]:
    """The default cases of a built-in op_type, from its record."""
    return list(_built_in_default_cases(op_type))


@cache
def _built_in_default_cases(op_type: str) -> tuple[Case, ...]:
    """default_cases, expanded and checked once per process: a built-in record does not change while it runs, and
    its value profiles bisect its reference for each dtype (its ranges are checked by
    tests/cases/test_library_ranges.py, not at load)."""
    record = prototype(op_type)
    if record is None:
        raise KeyError(f"no record of op type {op_type!r}")
    return tuple(record_cases(record, source_of(record)))


def uncovered(cases: Iterable[Case], ops: Collection[str] | None = None) -> list[str]:
    """The op types with a record (among ops, when given) that none of cases runs, sorted."""
    covered = {case.op for case in cases}
    return [op for op in op_types() if op not in covered and (ops is None or op in ops)]


def with_defaults(cases: list[Case], ops: Collection[str] | None = None) -> list[Case]:
    """cases and the default cases of every record (among ops, when given) none of them runs: the shipped library."""
    return cases + [case for op in uncovered(cases, ops) for case in default_cases(op)]
