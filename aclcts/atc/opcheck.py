"""The ATC's prototype check: every operator of a single-op JSON file against its CANN prototype.

An op type with no built-in prototype, no prototype record in an OPP vendor folder and no kernel registered in this
process is rejected; a known one is checked for input/output counts, attribute names and types, and dtypes
(core.prototypes.check). Each problem is one line naming the file, the line, the element and the field; the kinds in
settings.WARNED_PROBLEMS are warnings and the operator still compiles.
"""

from __future__ import annotations

import dataclasses
import difflib
import json

from aclcts.atc import settings
from aclcts.atc.jsonpos import LocatedJson
from aclcts.atc.parser import Diagnostic, ParsedOp
from aclcts.core.dtypes import JSON_TYPE_NAMES
from aclcts.core.inputs import one_line
from aclcts.core.prototypes import VendorRecordError, lookup, op_types
from aclcts.core.prototypes.check import Problem, attr_problems, count_problem, dtype_problems
from aclcts.atc.format_check import format_problems
from aclcts.core.prototypes.vendors import RECORD_FOLDER

#: The error code of a prototype rejection: the code ATC gives for an input/output count that does not fit the
#: operator's IR (docs/contract/single-op-json.md#operator-entries); real ATC's codes for the other prototype checks
#: are UNCONFIRMED.
CODE = "E13014"
_DTYPE_NAMES = {int(k): v for k, v in JSON_TYPE_NAMES.items()}


def _dtype(value: int) -> str | None:
    return None if value == -1 else _DTYPE_NAMES.get(value, f"aclDataType {value}")


def _unknown(op_type: str) -> str:
    close = difflib.get_close_matches(op_type, op_types(), n=3)
    hint = f"; did you mean {', '.join(close)}?" if close else ""
    return (f'no prototype for op type "{op_type}": not a built-in operator, no record '
            f"$ASCEND_OPP_PATH/vendors/<vendor>/{RECORD_FOLDER.as_posix()}/{op_type}.json (aclcts new-op writes one) "
            f"and no kernel registered with register_kernel{hint}")


class _Locator:
    """The field name and line of a Problem's `where` inside one JSON element."""

    def __init__(self, doc: LocatedJson, element: dict) -> None:
        self.doc, self.element = doc, element

    def _node(self, key: str, index: int | None = None) -> object:
        node = self.element.get(key)
        if index is not None and isinstance(node, list) and index < len(node):
            return node[index]
        return node

    def field(self, where: tuple) -> tuple[str, int | None]:
        kind = where[0]
        if kind in ("inputs", "outputs"):
            key = "input_desc" if kind == "inputs" else "output_desc"
            return key, self.doc.line(self._node(key)) or self.doc.line(self.element)
        if kind in ("input", "output"):
            key = f"{kind}_desc"
            part = where[2] if len(where) > 2 else "type"
            return f"{key}[{where[1]}].{part}", self.doc.line(self._node(key, where[1]))
        attrs = self._node("attr")
        if kind == "attr" and isinstance(attrs, list):
            positions = [k for k, a in enumerate(attrs) if isinstance(a, dict) and a.get("name") == where[1]]
            if positions:
                return f'attr[{positions[-1]}] ("{where[1]}").{where[2]}', self.doc.line(attrs[positions[-1]])
        return "attr", self.doc.line(attrs) or self.doc.line(self.element)


def _problems(op: ParsedOp) -> list[Problem]:
    """What is wrong with one parsed operator against its prototype (the op itself for an unknown type)."""
    try:
        proto, found = lookup(op.op_type)
    except VendorRecordError as exc:
        return [Problem(("op",), f"the vendor prototype cannot be read: {exc}")]
    if proto is None:
        return [] if found == "custom kernel" else [Problem(("op",), _unknown(op.op_type))]
    model = op.model
    problems = [p for p in (count_problem(proto, "inputs", len(model.inputs)),
                            count_problem(proto, "outputs", len(model.outputs))) if p]
    if problems:
        return problems
    problems = attr_problems(proto, {a.name: a.type for a in model.attrs}) + \
        format_problems(proto, model.inputs, model.outputs)
    return problems + dtype_problems(proto, [_dtype(t.dtype) for t in model.inputs],
                                     [_dtype(t.dtype) for t in model.outputs],
                                     {a.name: a.value for a in model.attrs}, _DTYPE_NAMES)


def checked(op: ParsedOp, doc: LocatedJson, source: str) -> ParsedOp:
    """op, or op without its model and with one error per prototype problem."""
    if op.model is None:
        return op
    problems = _problems(op)
    if not problems:
        return op
    element = doc.value[op.position]
    locate = _Locator(doc, element)
    errors, warnings = [], []
    for problem in problems:
        field, line = ("op", doc.line(element)) if problem.where == ("op",) else locate.field(problem.where)
        prefix = f"{source}:{line}" if line else source
        prefix += f": element {op.position} (op {json.dumps(op.op_type)}): {field}: "
        if problem.kind in settings.WARNED_PROBLEMS:
            warnings.append(one_line(f"{prefix}warning: {problem.message}"))
        else:
            errors.append(Diagnostic(CODE, one_line(f"{prefix}{problem.message} [{CODE}]")))
    if not errors:
        return dataclasses.replace(op, warnings=op.warnings + tuple(warnings))
    return dataclasses.replace(op, model=None, file_name=None, errors=op.errors + tuple(errors),
                               warnings=op.warnings + tuple(warnings))
