"""Parsing and validation of an ATC single-operator JSON file into OpModels, with ATC's error codes.

Messages read `<file>:<line>: element <n> (op "<type>"): <field>: <what> [<code>]`, where n is the
0-based position in the JSON array (compile_flag elements included) and the line is that of the
innermost object or array holding the field.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace

from aclcts.atc import settings
from aclcts.atc.constdata import CONST_TYPES, const_bytes
from aclcts.atc.jsonpos import DuplicateJsonKey, JsonTooDeep, LocatedJson
from aclcts.atc.tables import (DATA_TYPE_NAMES, FORMAT_VALUES, FP16_HALF_SPELLINGS, GE_DT_UNDEFINED,
                               GE_FORMAT_RESERVED, JSON_ATTR_TYPES, RESERVED_ONLY_FORMATS, TYPE_VALUES,
                               UNDEFINED_FORMAT_SPELLINGS, UNDEFINED_TYPE_SPELLINGS, acl_data_type,
                               acl_format)
from aclcts.core.inputs import MAX_JSON_BYTES, InputFileError, decode_utf8, one_line, read_bytes
from aclcts.core.opmodel import (Attr, OpModel, TensorSpec, canonical_attr, is_valid_model_name,
                            model_file_name)

INT32_MAX = 2 ** 31 - 1
_MISSING = object()


@dataclass(frozen=True)
class Diagnostic:
    """One error found in a single-op JSON file: ATC error code and a full message naming where."""

    code: str
    message: str


class SingleOpFileError(Exception):
    """The single-op JSON file as a whole cannot be read (syntax error, not an array)."""

    def __init__(self, diagnostic: Diagnostic) -> None:
        super().__init__(diagnostic.message)
        self.diagnostic = diagnostic


@dataclass(frozen=True)
class ParsedOp:
    """One operator element of a single-op JSON file: its model and file name, or its errors."""

    position: int
    index: int
    op_type: str
    name: str | None
    line: int | None
    model: OpModel | None
    file_name: str | None
    errors: tuple[Diagnostic, ...] = ()
    warnings: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        """Whether the element is valid and has a model."""
        return self.model is not None


def _is_int(v: object) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_int_list(v: object) -> bool:
    return isinstance(v, list) and all(_is_int(x) for x in v)


def _is_number_list(v: object) -> bool:
    return isinstance(v, list) and all(_is_int(x) or isinstance(x, float) for x in v)


def _is_range_list(v: object) -> bool:
    return isinstance(v, list) and all(_is_int_list(x) for x in v)


_CHECKS: dict[str, tuple[Callable[[object], bool], str]] = {
    "str": (lambda v: isinstance(v, str), "a string"),
    "bool": (lambda v: isinstance(v, bool), "true or false"),
    "int": (_is_int, "an integer"),
    "list": (lambda v: isinstance(v, list), "an array"),
    "ints": (_is_int_list, "an array of integers"),
    "numbers": (_is_number_list, "a 1-D array of numbers"),
    "ranges": (_is_range_list, "an array of [min, max] integer pairs"),
}


def _fmt_list(values: list) -> str:
    return "[" + ", ".join(str(v) for v in values) + "]"


@dataclass
class _ElementParser:
    """Parses and validates one operator element, collecting every error and warning."""

    doc: LocatedJson
    source: str
    position: int
    element: dict
    op_type: str = ""
    errors: list[Diagnostic] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def _prefix(self, node: object) -> str:
        line = self.doc.line(node) or self.doc.line(self.element)
        where = f"{self.source}:{line}" if line else self.source
        op = f'op "{self.op_type}"' if self.op_type else "no op"
        return f"{where}: element {self.position} ({op})"

    def fail(self, code: str, where: str, text: str, node: object = None) -> None:
        """Record an error with ATC code `code` at field `where` (line taken from `node`)."""
        self.errors.append(Diagnostic(code, one_line(f"{self._prefix(node)}: {where}: {text} [{code}]")))

    def warn(self, where: str, text: str, node: object = None) -> None:
        """Record a warning at field `where`."""
        self.warnings.append(one_line(f"{self._prefix(node)}: {where}: warning: {text}"))

    def get(self, node: dict, key: str, where: str, kind: str, required: bool = False) -> object:
        """Return node[key] if it has the expected JSON kind; _MISSING (with an E10032) otherwise."""
        value = node.get(key, _MISSING)
        check, expected = _CHECKS[kind]
        if value is _MISSING:
            if required:
                self.fail("E10032", f"{where}{key}", f"missing required key; expected {expected}", node)
            return _MISSING
        if not check(value):
            self.fail("E10032", f"{where}{key}", f"expected {expected}, got {value!r}", node)
            return _MISSING
        return value

    def parse_op_type(self) -> None:
        """Read the required `op` (E10026 if missing or empty)."""
        op = self.get(self.element, "op", "", "str")
        if op is _MISSING and "op" in self.element:
            return
        if op is _MISSING or not op:
            self.fail("E10026", "op", "missing or empty operator type")
            return
        self.op_type = op

    def _data_type(self, text: str, where: str, node: dict) -> int | None:
        key = text.lower()
        if key in TYPE_VALUES:
            return TYPE_VALUES[key]
        if key in UNDEFINED_TYPE_SPELLINGS:
            return GE_DT_UNDEFINED
        if key in FP16_HALF_SPELLINGS:
            if settings.ACCEPT_FP16_HALF:
                return TYPE_VALUES["float16"]
            self.fail("E10027", where, f'"{text}" may be rejected by current ATC (DT_{key.upper()} is not a '
                      'GE data type name); write "float16"', node)
            return None
        self.fail("E10027", where, f'unknown data type "{text}"; expected one of '
                  f'{", ".join(TYPE_VALUES)} or UNDEFINED (case-insensitive)', node)
        return None

    def _format(self, text: str, where: str, node: dict) -> int | None:
        key = text.lower()
        if key in FORMAT_VALUES:
            return FORMAT_VALUES[key]
        if key in UNDEFINED_FORMAT_SPELLINGS or key in RESERVED_ONLY_FORMATS:
            return GE_FORMAT_RESERVED
        self.fail("E10027", where, f'unknown format "{text}"; expected one of '
                  f'{", ".join(k.upper() for k in FORMAT_VALUES)}, or RESERVED/UNDEFINED (case-insensitive)', node)
        return None

    def _check_defined(self, ge_dtype: int, ge_fmt: int, type_str: str, format_str: str,
                       where: str, is_input: bool, node: dict) -> bool:
        dt_undefined, fmt_undefined = ge_dtype == GE_DT_UNDEFINED, ge_fmt == GE_FORMAT_RESERVED
        if is_input and dt_undefined != fmt_undefined:
            note = (f' (format "{format_str}" is accepted by ATC only for an unused optional input)'
                    if format_str.lower() in RESERVED_ONLY_FORMATS else "")
            self.fail("E10027", where, f'type "{type_str}" with format "{format_str}": an unused optional input '
                      'needs type UNDEFINED and format RESERVED, a used input needs both defined' + note, node)
            return False
        if not is_input and (dt_undefined or fmt_undefined):
            bad = "type" if dt_undefined else "format"
            value = type_str if dt_undefined else format_str
            self.fail("E10027", f"{where}{bad}", f'an output needs a defined {bad}, got "{value}"', node)
            return False
        return True

    def _shape_range(self, shape: list[int], ranges: list, where: str, node: dict) -> tuple | None:
        ranges_node = node.get("shape_range", node)
        if -2 in shape:
            if shape != [-2]:
                self.fail("E13014", f"{where}shape", "the tensor has unknown rank, so its shape must be set "
                          f"to [-2], got {_fmt_list(shape)}", node)
                return None
            if ranges:
                self.fail("E13014", f"{where}shape_range", "must be absent or empty for an unknown-rank "
                          f"shape [-2], got {len(ranges)} pair(s)", ranges_node)
                return None
            return ()
        bad = [(i, d) for i, d in enumerate(shape) if d < -1]
        if bad:
            i, d = bad[0]
            self.fail("E13014", f"{where}shape[{i}]", f"dimension {d}: expected a size >= 0, -1 for an "
                      "unknown dimension, or the whole shape [-2] for unknown rank", node)
            return None
        unknown = shape.count(-1)
        if len(ranges) != unknown:
            self.fail("E13014", f"{where}shape_range", f"expected {unknown} [min, max] pairs (one per -1 in "
                      f"shape {_fmt_list(shape)}), got {len(ranges)}", ranges_node)
            return None
        for j, pair in enumerate(ranges):
            if len(pair) != 2:
                self.fail("E13014", f"{where}shape_range[{j}]", "expected a [min, max] pair of 2 numbers, got "
                          f"{_fmt_list(pair)}", ranges_node)
                return None
        pairs = iter(ranges)
        return tuple((d, d) if d >= 0 else tuple(next(pairs)) for d in shape)

    def _product(self, shape: list[int], where: str, node: dict) -> bool:
        known = [d for d in shape if d >= 0]
        product = math.prod(known)
        if product > INT32_MAX:
            self.fail("E13014", f"{where}shape", f"the product of the dimensions {_fmt_list(shape)} is "
                      f"{product}, above the limit {INT32_MAX}", node)
            return False
        return True

    def _const(self, node: dict, where: str, acl_dtype: int, type_str: str, shape: list[int]) -> bytes | None:
        values = self.get(node, "const_value", where, "numbers")
        if "const_value" in node and values is _MISSING:
            return None
        if acl_dtype not in CONST_TYPES:
            self.warn(f"{where}const_value", f'ATC does not convert constants of type "{type_str}"; the model '
                      "keeps no constant data", node)
            return b""
        if values is _MISSING:
            self.warn(f"{where}is_const", "constant input without const_value; the model's constant holds no "
                      "data", node)
            return b""
        if -2 not in shape and -1 not in shape and len(values) != math.prod(shape):
            self.fail("E13014", f"{where}const_value", f"{len(values)} values, but shape {_fmt_list(shape)} "
                      f"holds {math.prod(shape)}", node)
            return None
        try:
            return const_bytes(acl_dtype, values)
        except (ValueError, OverflowError) as exc:
            self.fail("E10032", f"{where}const_value", str(exc), node)
            return None

    def tensor(self, node: object, where: str, is_input: bool) -> tuple[TensorSpec, str] | None:
        """Parse one input_desc/output_desc entry into its spec and its dynamic_input group ("" if none); None if it
        has errors."""
        if not isinstance(node, dict):
            self.fail("E10032", where, f"expected a tensor descriptor object, got {node!r}")
            return None
        prefix = f"{where}."
        n_errors = len(self.errors)
        type_str = self.get(node, "type", prefix, "str", required=True)
        format_str = self.get(node, "format", prefix, "str", required=True)
        shape = self.get(node, "shape", prefix, "ints", required=True)
        ranges = self.get(node, "shape_range", prefix, "ranges")
        origin_format_str = self.get(node, "origin_format", prefix, "str")
        origin_shape = self.get(node, "origin_shape", prefix, "ints")
        name = self.get(node, "name", prefix, "str")
        dynamic_input = self.get(node, "dynamic_input", prefix, "str") if is_input else _MISSING
        is_const = self.get(node, "is_const", prefix, "bool")
        if len(self.errors) > n_errors:
            return None
        ge_dtype = self._data_type(type_str, f"{prefix}type", node)
        ge_fmt = self._format(format_str, f"{prefix}format", node)
        ge_origin = GE_FORMAT_RESERVED
        if origin_format_str is not _MISSING:
            ge_origin = self._format(origin_format_str, f"{prefix}origin_format", node)
        if None in (ge_dtype, ge_fmt, ge_origin):
            return None
        if not self._check_defined(ge_dtype, ge_fmt, type_str, format_str, prefix, is_input, node):
            return None
        shape_range = self._shape_range(shape, [] if ranges is _MISSING else ranges, prefix, node)
        if shape_range is None or not self._product(shape, prefix, node):
            return None
        acl_dtype = acl_data_type(ge_dtype)
        const = is_const is True
        const_data = None
        if const and is_input:
            const_data = self._const(node, prefix, acl_dtype, type_str, shape)
            if const_data is None:
                return None
        elif "const_value" in node:
            self.warn(f"{prefix}const_value", "ignored: only an input with \"is_const\": true keeps constant data",
                      node)
        spec = TensorSpec(
            dtype=acl_dtype, format=acl_format(ge_fmt), shape=tuple(shape), shape_range=shape_range,
            origin_format=acl_format(ge_fmt if ge_origin == GE_FORMAT_RESERVED else ge_origin),
            origin_shape=tuple(origin_shape) if origin_shape not in (_MISSING, []) else tuple(shape),
            name="" if name is _MISSING else name, is_const=const and is_input, const_data=const_data)
        return spec, "" if dynamic_input is _MISSING else dynamic_input

    def name_dynamic_inputs(self, inputs: list[tuple[TensorSpec, str]]) -> list[TensorSpec]:
        """The input specs, every input of a dynamic_input group named <dynamic_input><n>, n counting from 0."""
        counters: dict[str, int] = {}
        named = []
        for i, (spec, group) in enumerate(inputs):
            named.append(spec)
            if not group:
                continue
            n = counters.get(group, 0)
            counters[group] = n + 1
            generated = f"{group}{n}"
            if spec.name and spec.name != generated:
                if not settings.DYNAMIC_INPUT_OVERRIDES_NAME:
                    continue
                self.warn(f"input_desc[{i}].name", f'"{spec.name}" replaced by "{generated}" from '
                          "dynamic_input (the current ATC source's behaviour)")
            named[i] = replace(spec, name=generated)
        return named

    def _data_type_attr(self, value: object, where: str, node: dict) -> int | None:
        if isinstance(value, str):
            if value in DATA_TYPE_NAMES:
                return acl_data_type(DATA_TYPE_NAMES[value])
            self.fail("E10030", where, f'unknown data type "{value}"; expected a name such as "DT_FLOAT" '
                      f'(one of {", ".join(DATA_TYPE_NAMES)}) or its number', node)
            return None
        if _is_int(value) and value in DATA_TYPE_NAMES.values():
            return acl_data_type(value)
        self.fail("E10030", where, f'expected a "DT_*" data type name or a GE DataType number, got {value!r}', node)
        return None

    def attr(self, node: object, where: str) -> Attr | None:
        """Parse one attr entry; None if it has errors."""
        if not isinstance(node, dict):
            self.fail("E10032", where, f"expected an attribute object, got {node!r}")
            return None
        n_errors = len(self.errors)
        name = self.get(node, "name", f"{where}.", "str", required=True)
        type_ = self.get(node, "type", f"{where}.", "str", required=True)
        if len(self.errors) > n_errors:
            return None
        if not name:
            self.fail("E10029", f"{where}.name", "attribute name is empty", node)
            return None
        label = f'{where} ("{name}")'
        if type_ not in JSON_ATTR_TYPES:
            self.fail("E10030", f"{label}.type", f'unsupported attribute type "{type_}"; expected one of '
                      f'{", ".join(JSON_ATTR_TYPES)} (lower case)', node)
            return None
        if "value" not in node:
            self.fail("E10030", f"{label}.value", "missing attribute value", node)
            return None
        value = node["value"]
        if type_ == "data_type":
            value = self._data_type_attr(value, f"{label}.value", node)
            if value is None:
                return None
        try:
            return canonical_attr(name, type_, value)
        except ValueError as exc:
            self.fail("E10030", f"{label}.value", str(exc), node)
            return None

    def attrs(self) -> list[Attr] | None:
        """Parse the attr list (duplicate names: the last one wins, as in GE's attribute map)."""
        nodes = self.get(self.element, "attr", "", "list")
        if nodes is _MISSING:
            return None if "attr" in self.element else []
        parsed = [self.attr(node, f"attr[{k}]") for k, node in enumerate(nodes)]
        if None in parsed:
            return None
        last = {a.name: k for k, a in enumerate(parsed)}
        for k, a in enumerate(parsed):
            if last[a.name] != k:
                self.warn(f"attr[{k}]", f'attribute "{a.name}" is given again later; the later value is used')
        return [a for k, a in enumerate(parsed) if last[a.name] == k]

    def tensors(self, key: str, is_input: bool) -> list[tuple[TensorSpec, str]] | None:
        """Parse input_desc or output_desc into (spec, dynamic_input group) pairs; None if any entry has errors."""
        nodes = self.get(self.element, key, "", "list", required=True)
        if nodes is _MISSING:
            return None
        parsed = [self.tensor(node, f"{key}[{i}]", is_input) for i, node in enumerate(nodes)]
        return None if None in parsed else parsed

    def check_io_counts(self, inputs: list, outputs: list, counts: Mapping[str, tuple[int, int]]) -> None:
        """E13014 when fewer inputs/outputs are given than the operator's known IR counts."""
        if self.op_type not in counts:
            return
        for key, given, needed in (("input_desc", len(inputs), counts[self.op_type][0]),
                                   ("output_desc", len(outputs), counts[self.op_type][1])):
            if given < needed:
                kind = key.split("_")[0]
                self.fail("E13014", key, f"{kind} size {given}: the operator's IR needs at least {needed} {kind}s")


def _parse_element(doc: LocatedJson, source: str, position: int, element: dict, index: int, fuzzy: bool,
                   soc_version: str, ir_io_counts: Mapping[str, tuple[int, int]] | None) -> ParsedOp:
    p = _ElementParser(doc, source, position, element)
    p.parse_op_type()
    p.get(element, "compile_flag", "", "int")
    name = p.get(element, "name", "", "str")
    name = None if name is _MISSING else name
    grouped_inputs = p.tensors("input_desc", is_input=True)
    outputs = p.tensors("output_desc", is_input=False)
    attrs = p.attrs()
    inputs = None if grouped_inputs is None else p.name_dynamic_inputs(grouped_inputs)
    if inputs is not None and outputs is not None and ir_io_counts:
        p.check_io_counts(inputs, outputs, ir_io_counts)
    model = file_name = None
    if not p.errors:
        model = OpModel(p.op_type, tuple(inputs), tuple(spec for spec, _ in outputs), tuple(attrs), soc_version,
                        fuzzy)
        file_name = model_file_name(index, model, name)
        if name and not is_valid_model_name(name):
            p.warn("name", f'"{name}" is not a valid file name (only a-z, A-Z, 0-9, ".", "-" and "_", and '
                   f'not "." or ".."); the model is written as "{file_name}"')
    return ParsedOp(position, index, p.op_type, name, doc.line(element), model, file_name,
                    tuple(p.errors), tuple(p.warnings))


def _not_an_object(doc: LocatedJson, source: str, position: int, index: int, element: object) -> ParsedOp:
    message = (f"{source}: element {position}: expected an operator object, got {json.dumps(element)[:60]} "
               "[E10032]")
    return ParsedOp(position, index, "", None, doc.line(element), None, None, (Diagnostic("E10032", message),))


def read_singleop_text(path: str | os.PathLike[str]) -> str:
    """The text of a single-op JSON file; SingleOpFileError E10023 if it does not exist, E10024 if it cannot be read
    (not a regular file: a FIFO is never opened; above MAX_JSON_BYTES), E10025 if it is not UTF-8."""
    if not os.path.lexists(path):
        raise SingleOpFileError(Diagnostic("E10023", f"--singleop: {os.fspath(path)}: no such file [E10023]"))
    try:
        data = read_bytes(path, "single-op JSON", MAX_JSON_BYTES)
    except InputFileError as exc:
        raise SingleOpFileError(Diagnostic("E10024", f"--singleop: {exc} [E10024]")) from None
    try:
        return decode_utf8(data, os.fspath(path))
    except InputFileError as exc:
        raise SingleOpFileError(Diagnostic("E10025", f"{exc} [E10025]")) from None


def load_singleop_json(text: str, source: str) -> LocatedJson:
    """Decode a single-op JSON file that must hold an array; SingleOpFileError (E10025/E10032) otherwise.

    Stricter than ATC: a key given twice in one object, nesting deeper than MAX_NESTING_DEPTH and text longer than
    MAX_JSON_BYTES are E10025 too.
    """
    if len(text) > MAX_JSON_BYTES:
        raise SingleOpFileError(Diagnostic(
            "E10025", f"{source}: invalid JSON: expected at most {MAX_JSON_BYTES} characters, got {len(text)} "
            "[E10025]"))
    try:
        doc = LocatedJson(text)
    except json.JSONDecodeError as exc:
        raise SingleOpFileError(Diagnostic(
            "E10025", f"{source}:{exc.lineno}:{exc.colno}: invalid JSON: {exc.msg} [E10025]")) from None
    except (DuplicateJsonKey, JsonTooDeep) as exc:
        raise SingleOpFileError(Diagnostic("E10025", f"{source}:{exc.line}: invalid JSON: {exc} [E10025]")) from None
    except (ValueError, RecursionError) as exc:
        raise SingleOpFileError(Diagnostic("E10025", f"{source}: invalid JSON: {exc} [E10025]")) from None
    if not isinstance(doc.value, list):
        raise SingleOpFileError(Diagnostic(
            "E10032", f"{source}: expected a JSON array of operator descriptions, got a JSON "
            f"{type(doc.value).__name__} [E10032]"))
    return doc


def parse_singleop(text: str, source: str, *, soc_version: str = "",
                   ir_io_counts: Mapping[str, tuple[int, int]] | None = None) -> list[ParsedOp]:
    """Parse a single-op JSON text into one ParsedOp per operator element (compile_flag elements skipped).

    `source` names the file in messages.  `ir_io_counts` optionally gives, per op type, the input and
    output counts of its IR prototype for ATC's "input size"/"output size" check.  Raises
    SingleOpFileError if the text is not a JSON array.
    """
    return parse_document(load_singleop_json(text, source), source, soc_version=soc_version,
                          ir_io_counts=ir_io_counts)


def parse_document(doc: LocatedJson, source: str, *, soc_version: str = "",
                   ir_io_counts: Mapping[str, tuple[int, int]] | None = None) -> list[ParsedOp]:
    """parse_singleop of an already decoded file (load_singleop_json)."""
    ops: list[ParsedOp] = []
    fuzzy = False
    for position, element in enumerate(doc.value):
        if not isinstance(element, dict):
            ops.append(_not_an_object(doc, source, position, len(ops), element))
            continue
        flag = element.get("compile_flag")
        if _is_int(flag) and flag == 1:
            fuzzy = True
            continue
        ops.append(_parse_element(doc, source, position, element, len(ops), fuzzy, soc_version, ir_io_counts))
    return ops
