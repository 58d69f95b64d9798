"""A case file checked against its operator's prototype: tensor counts, attributes, dtypes.

Each problem is a CaseFileError of one line naming the file, the line and the field, with the allowed values. A custom
op's case file (`reference: module:ATTR`) is checked only when an OPP vendor record declares its prototype
($ASCEND_OPP_PATH, as `aclcts new-op` writes it); an op type with no prototype at all is left to `aclcts atc`, which
refuses to compile it. Shapes are not checked here: the prototypes carry no shape rule, the reference's shape function
and the kernels' shape inference check them.
"""

from __future__ import annotations

from typing import Any

from aclcts.cases.schema import CaseChecker
from aclcts.core.dtypes import JSON_TYPE_NAMES
from aclcts.core.prototypes import Prototype, prototype
from aclcts.core.prototypes.check import Problem, attr_problems, dtype_problems, slots
from aclcts.core.prototypes.vendors import VendorRecordError, vendor_prototype

_DTYPE_NAMES = {int(k): v for k, v in JSON_TYPE_NAMES.items()}


def _prototype_of(data: dict, c: CaseChecker) -> Prototype | None:
    if ":" not in str(data.get("reference", "")):
        return prototype(data["op"])
    try:
        return vendor_prototype(data["op"])
    except VendorRecordError as exc:
        raise c.problem(("reference",), f"the op's vendor prototype cannot be read: {exc}") from None


def _check_counts(proto: Prototype, data: dict, c: CaseChecker) -> None:
    """The numbers of inputs and outputs fit the prototype; their names are the file's own (msopst files name
    inputs input0, input1, ...), so they are not compared."""
    for side, tensors in (("inputs", proto.inputs), ("outputs", proto.outputs)):
        names = data[side]
        if slots(tensors, len(names)) is None:
            expected = ", ".join(t.name + {"optional": " (optional)", "dynamic": " (dynamic, 1 or more)"}
                                 .get(t.kind, "") for t in tensors)
            raise c.problem((side,), f"{len(names)} {side} named; {proto.op_type}'s prototype has {expected}")


def _raise_first(problems: list[Problem], c: CaseChecker, path_of: Any) -> None:
    if problems:
        path, field = path_of(problems[0].where)
        raise c.problem(path, problems[0].message, field)


def _check_attrs(proto: Prototype, data: dict, c: CaseChecker) -> list[dict[str, Any]]:
    """Each attribute set's values by name, after checking its names and types."""
    values = []
    for index, attr_set in enumerate(data.get("attrs", [{}])):
        problems = attr_problems(proto, {name: spec["type"] for name, spec in attr_set.items()})
        _raise_first(problems, c, lambda where: (("attrs", index, where[1]) if len(where) > 1 else ("attrs", index),
                                                 None))
        values.append({name: spec["value"] for name, spec in attr_set.items()})
    return values


def _check_dtypes(proto: Prototype, data: dict, attr_values: list[dict[str, Any]], c: CaseChecker) -> None:
    inputs, outputs = data["inputs"], data["outputs"]
    for index, combo in enumerate(data["dtypes"]):
        def of(name: str) -> str:
            return combo if isinstance(combo, str) else combo.get(name, combo.get("*"))

        def path_of(where: tuple) -> tuple[tuple, str | None]:
            name = (inputs if where[0] == "input" else outputs)[where[1]]
            if isinstance(combo, str):
                return ("dtypes", index), f"dtypes[{index}] (for {name})"
            return ("dtypes", index, name if name in combo else "*"), None

        for values in attr_values:
            _raise_first(dtype_problems(proto, [of(n) for n in inputs], [of(n) for n in outputs], values,
                                        _DTYPE_NAMES), c, path_of)


def check_prototype(data: dict, source: str, lines: dict) -> None:
    """Raise CaseFileError at the first place where a schema-valid case file breaks its op's prototype."""
    c = CaseChecker(source, lines)
    proto = _prototype_of(data, c)
    if proto is None:
        return
    _check_counts(proto, data, c)
    _check_dtypes(proto, data, _check_attrs(proto, data, c), c)
