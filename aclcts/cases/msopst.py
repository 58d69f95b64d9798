"""msopst case JSON read as aclcts cases: msopst's checks, sub-case expansion, data rules and golden functions.

The format is msopst's (docs/msopst.md#field-by-field). A file is a JSON array of case objects; each expands into
sub-cases named as msopst names them, and each sub-case becomes one aclcts Case run by the same executor and judge as
a YAML case. Its reference is the case's golden function (`calc_expect_func_file`), else aclcts' built-in reference
of the op type, else none ("no numeric reference": the case is executed and its shapes and error codes checked).
"""

from __future__ import annotations

import importlib.util
import inspect
import itertools
import math
import json
import os
import unittest
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from aclcts.cases.case import DTYPE_BY_NAME, FORMAT_BY_NAME, Case, TensorCase
from aclcts.cases.schema import CaseFileError, shape_fits
from aclcts.core.dtypes import numpy_dtype
from aclcts.core.files import inside
from aclcts.core.inputs import MAX_JSON_BYTES, DuplicateKeyError, one_line, read_text, unique_keys
from aclcts.core.opmodel import canonical_attr
from aclcts.core.usercode import UserCodeError, guarded
from aclcts.core.prototypes import prototype
from aclcts.reference import OP_TYPES, RefOp

#: msopst's limits (const_manager.py): top-level cases per file, fuzz cases per case.
MAX_CASES = 1000
MAX_FUZZ_CASES = 2000
#: The placeholder of a field whose value fuzz_impl returns or hypothesis draws.
FUZZ = "fuzz"
#: Tensor fields hypothesis draws when written "fuzz" in a case without fuzz_impl.
DRAWN_FIELDS = ("format", "ori_format", "type", "shape", "ori_shape", "typical_shape", "data_distribute",
                "value_range")
#: Shapes hypothesis draws without a shape_range: ranks and dims (the upper bound of an unbounded range too).
SMALL_RANKS, SMALL_DIMS = (1, 4), (1, 8)
#: The value_range bounds hypothesis draws in.
FUZZ_RANGE = (-10.0, 10.0)
#: msopst's default error_threshold [t, p] and data_distribute / value_range.
DEFAULT_THRESHOLD = (0.01, 0.05)
DEFAULT_DISTRIBUTE = "uniform"
DEFAULT_RANGE = (0.1, 1.0)
#: The shape_range msopst gives a -1 dim when the case gives none (1 to unbounded).
DEFAULT_SHAPE_RANGE = (1, -1)
DISTRIBUTIONS = ("uniform", "normal", "beta", "laplace", "triangular", "relu", "sigmoid", "softmax", "tanh")
#: msopst type names aclcts runs, and the aclcts spelling of each.
TYPES = {name: name for name in DTYPE_BY_NAME} | {"float": "float32"}
#: Types of an omitted optional input (not run by aclcts).
OMITTED_TYPES = ("UNDEFINED", "RESERVED")
CASE_KEYS = ("case_name", "op", "input_desc", "output_desc", "attr", "calc_expect_func_file", "error_threshold",
             "expect", "st_mode", "run_torch_api", "fuzz_impl", "fuzz_case_num")
TENSOR_KEYS = ("name", "format", "ori_format", "type", "shape", "ori_shape", "typical_shape", "shape_range",
               "is_const", "const_value", "data_distribute", "value_range", "value")
#: Fields only an input may have.
INPUT_ONLY_KEYS = ("is_const", "const_value", "data_distribute", "value_range", "value")
#: The order in which msopst crosses a tensor's alternatives (subcase_design_cross.py).
INPUT_FIELDS = ("format", "shape", "type", "data_distribute", "value_range")
OUTPUT_FIELDS = ("format", "shape", "type")
EXPECTS = ("success", "failed")
#: The value kind (Case.values) under which a fixed `value` list or .bin is given to the input drawer.
FIXED = "fixed"
#: Prefix of the `value` kinds that draw with msopst's distributions (values.draw dispatches on it).
DRAW_PREFIX = "msopst_"
def _policy(op_type: str) -> str:
    """The precision policy class of an op type: its record's, else elementwise."""
    record = prototype(op_type)
    return record.policy if record is not None else "elementwise"


@dataclass(frozen=True)
class MsopstInfo:
    """What a sub-case was in msopst's terms: its parameters (as st_report.json shows them) and its reference."""

    case_name: str
    parent: str
    expect: str
    op_params: dict[str, Any]
    reference_kind: str  # "golden", "builtin" or "none"
    threshold: tuple[float, float]


#: Every sub-case loaded in this process, by case id (the msopst sub-case name).
INFO: dict[str, MsopstInfo] = {}
#: The golden and no-reference RefOps of the loaded sub-cases, by the attribute their reference spec names.
_REFERENCES: dict[str, RefOp] = {}
_GOLDEN_MODULES: dict[str, Any] = {}


def __getattr__(name: str) -> RefOp:
    """The RefOp a loaded sub-case names as `aclcts.cases.msopst:<name>` (aclcts.reference imports it by that)."""
    try:
        return _REFERENCES[name]
    except KeyError:
        raise AttributeError(f"no msopst reference {name!r} loaded in this process") from None


class GoldenError(AssertionError):
    """A golden function raised or returned something that is not one array per output."""


def is_msopst_file(path: str) -> bool:
    """Whether a case path is an msopst case file (by its .json suffix)."""
    return path.endswith(".json")


class _Where:
    """Builds the one-line errors: `file: case NAME: field: expected ..., got ...`."""

    def __init__(self, source: str, case: str = "") -> None:
        self.source, self.case = source, case

    def error(self, field: str, expected: str, got: Any = None, show: bool = True) -> CaseFileError:
        where = f"{self.source}: case {self.case}: " if self.case else f"{self.source}: "
        tail = f", got {json.dumps(got) if not isinstance(got, str) else repr(got)}" if show else ""
        return CaseFileError(one_line(f"{where}{field}: expected {expected}{tail}"))


def read_msopst(source: str) -> list[dict]:
    """The case objects of an msopst file (the compile_flag element left out), after msopst's file-level checks."""
    where = _Where(source)
    text = read_text(source, "msopst case", MAX_JSON_BYTES, CaseFileError)
    try:
        data = json.loads(text, object_pairs_hook=unique_keys)
    except DuplicateKeyError as exc:
        raise CaseFileError(one_line(f"{source}: duplicate key {exc.args[0]!r} in an object")) from None
    except (json.JSONDecodeError, RecursionError) as exc:
        raise CaseFileError(one_line(f"{source}: not valid JSON: {exc}")) from None
    if not isinstance(data, list):
        raise where.error("(top level)", "a JSON array of case objects", type(data).__name__)
    if len(data) > MAX_CASES:
        raise where.error("(top level)", f"at most {MAX_CASES} cases (msopst's limit)", len(data))
    cases = [c for c in data if not (isinstance(c, dict) and set(c) == {"compile_flag"})]
    names: set[str] = set()
    for position, case in enumerate(cases):
        if not isinstance(case, dict):
            raise where.error(f"[{position}]", "a case object", case)
        name = case.get("case_name")
        if not isinstance(name, str) or not name:
            raise where.error(f"[{position}].case_name", "a non-empty string", name)
        if name in names:
            raise _Where(source, name).error("case_name", "a case name used once in the file", name)
        names.add(name)
    return cases


def _alternatives(value: Any, nested: Callable[[Any], bool]) -> list[Any]:
    """A field's alternatives: its value as one, or each element of a list of them."""
    return list(value) if isinstance(value, list) and value and all(nested(v) for v in value) else [value]


def _is_shape(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(d, int) and not isinstance(d, bool) for d in value)


def _is_pair_list(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(p, list) and len(p) == 2 and all(
        isinstance(v, int) and not isinstance(v, bool) for v in p) for p in value)


def _is_number_pair(value: Any) -> bool:
    """Whether value is [min, max] of finite numbers (NaN and infinities give no range to draw from)."""
    return isinstance(value, list) and len(value) == 2 and all(
        isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in value)


#: The tensor fields msopst takes one value or a list of alternatives of.
ALTERNATIVE_FIELDS = ("format", "ori_format", "type", "shape", "ori_shape", "typical_shape", "data_distribute",
                      "value_range", "shape_range")


def _field_alternatives(tensor: dict, key: str) -> list[Any]:
    """The alternatives of one field of a tensor (msopst: one value or a list of them)."""
    value = tensor[key]
    if key in ("shape", "ori_shape", "typical_shape"):
        return [value] if _is_shape(value) else list(value) if isinstance(value, list) and value else [value]
    if key == "value_range":
        return [value] if _is_number_pair(value) else list(value) if isinstance(value, list) else [value]
    if key == "shape_range":
        return [value] if _is_pair_list(value) else list(value) if isinstance(value, list) else [value]
    return list(value) if isinstance(value, list) else [value]


def _with_defaults(tensor: dict, is_input: bool) -> dict:
    """The tensor with msopst's code defaults for the fields it leaves out."""
    full = dict(tensor)
    if is_input:
        full.setdefault("data_distribute", DEFAULT_DISTRIBUTE)
        full.setdefault("value_range", list(DEFAULT_RANGE))
    return full


def _check_tensor(where: _Where, tensor: Any, field: str, is_input: bool) -> None:
    """msopst's checks on one tensor object's keys and values."""
    if not isinstance(tensor, dict):
        raise where.error(field, "a tensor object", tensor)
    for key in tensor:
        if key not in TENSOR_KEYS or (not is_input and key in INPUT_ONLY_KEYS):
            raise where.error(f"{field}.{key}", "a known tensor field", key)
    for key in ("format", "type", "shape"):
        if key not in tensor:
            raise where.error(f"{field}.{key}", "the field (required by msopst)", show=False)
    for key in tensor:
        if tensor[key] == FUZZ:
            raise where.error(f"{field}.{key}", "a value (fuzz_impl gave none for this \"fuzz\")", FUZZ)
    name = tensor.get("name")
    if name is not None and not (isinstance(name, str) and name.replace("_", "a").isalnum() and len(name) <= 256):
        raise where.error(f"{field}.name", "a name of letters, digits and _ (1 to 256)", name)
    for key in ALTERNATIVE_FIELDS:
        if key in tensor and not _field_alternatives(tensor, key):
            raise where.error(f"{field}.{key}", "a value, or a non-empty list of them", tensor[key])
    for key in ("format", "ori_format", "type"):
        for given in _field_alternatives(tensor, key) if key in tensor else []:
            if not isinstance(given, str):
                raise where.error(f"{field}.{key}", f"a {key} name, or a list of them", given)
    for dist in _field_alternatives(tensor, "data_distribute") if "data_distribute" in tensor else []:
        if dist not in DISTRIBUTIONS:
            raise where.error(f"{field}.data_distribute", "one of " + ", ".join(DISTRIBUTIONS), dist)
    for pair in _field_alternatives(tensor, "value_range") if "value_range" in tensor else []:
        if not _is_number_pair(pair):
            raise where.error(f"{field}.value_range", "[min, max] of finite numbers, or a list of them", pair)
        if pair[0] > pair[1]:
            raise where.error(f"{field}.value_range", "min <= max", pair)
    for shape_value in _field_alternatives(tensor, "shape"):
        if not _is_shape(shape_value):
            raise where.error(f"{field}.shape", "a list of ints or a list of them", shape_value)
        if any(d < -2 or d == -2 and shape_value != [-2] for d in shape_value):
            raise where.error(f"{field}.shape", "dims >= -1, or the whole shape [-2]", shape_value)
    if "is_const" in tensor and not isinstance(tensor["is_const"], bool):
        raise where.error(f"{field}.is_const", "true or false", tensor["is_const"])
    if "const_value" in tensor:
        _check_const_value(where, field, tensor)


def _check_const_value(where: _Where, field: str, tensor: dict) -> None:
    """const_value (the constant's data, as msopst writes it into acl_op.json): only on an is_const input, and a
    literal (nested) list of numbers."""
    const_value = tensor["const_value"]
    if tensor.get("is_const") is not True:
        raise where.error(f"{field}.const_value", "is_const: true beside it (const_value is a constant's data)",
                          tensor.get("is_const"))
    if not isinstance(const_value, list) or not _is_numbers(const_value):
        raise where.error(f"{field}.const_value", "a literal (nested) list of numbers", const_value)


def _is_numbers(value: Any) -> bool:
    """Whether value is a number or a (nested) list of numbers."""
    if isinstance(value, list):
        return all(_is_numbers(v) for v in value)
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _check_frame(where: _Where, case: dict) -> None:
    """msopst's checks of a case's frame: known keys, op, no framework mode, input_desc and output_desc lists of
    objects, at least one output."""
    for key in case:
        if key not in CASE_KEYS:
            raise where.error(key, "a known case field (" + ", ".join(CASE_KEYS) + ")", key)
    for key in ("op", "input_desc", "output_desc"):
        if key not in case:
            raise where.error(key, "the field (required by msopst)", show=False)
    if not isinstance(case["op"], str) or not case["op"]:
        raise where.error("op", "a non-empty string", case["op"])
    for key in ("st_mode", "run_torch_api"):
        if key in case:
            raise where.error(key, "no framework (st_mode) fields: aclcts runs the ACL single-op path only",
                              case[key])
    for key in ("input_desc", "output_desc"):
        if not isinstance(case[key], list):
            raise where.error(key, "a list of tensor objects", case[key])
    if not case["output_desc"]:
        raise where.error("output_desc", "at least one output", case["output_desc"])
    for side in ("input_desc", "output_desc"):
        for position, tensor in enumerate(case[side]):
            if not isinstance(tensor, dict):
                raise where.error(f"{side}[{position}]", "a tensor object", tensor)


def _check_case(where: _Where, case: dict) -> None:
    """msopst's case-level checks (keys, op, tensors, attrs, threshold, expect, list lengths across tensors)."""
    _check_frame(where, case)
    for position, tensor in enumerate(case["input_desc"]):
        _check_tensor(where, tensor, f"input_desc[{position}]", True)
    for position, tensor in enumerate(case["output_desc"]):
        _check_tensor(where, tensor, f"output_desc[{position}]", False)
    names = [t["name"] for t in case["input_desc"] + case["output_desc"] if "name" in t]
    if len(set(names)) != len(names):
        raise where.error("input_desc/output_desc name", "names used once in a case", names)
    _check_counts(where, case)
    attrs = case.get("attr", [])
    if not isinstance(attrs, list):
        raise where.error("attr", "a list of {name, type, value}", attrs)
    seen: set[str] = set()
    for position, attr in enumerate(attrs):
        if not isinstance(attr, dict) or set(attr) != {"name", "type", "value"}:
            raise where.error(f"attr[{position}]", "an object with name, type and value", attr)
        if not isinstance(attr["name"], str) or not isinstance(attr["type"], str):
            key = "name" if not isinstance(attr["name"], str) else "type"
            raise where.error(f"attr[{position}].{key}", f"an attr {key} (a string)", attr[key])
        if attr["name"] in seen:
            raise where.error(f"attr[{position}].name", "an attr name used once in a case", attr["name"])
        seen.add(attr["name"])
        if attr["value"] == FUZZ:
            raise where.error(f"attr[{position}].value", "a value (fuzz_impl gave none for this \"fuzz\")", FUZZ)
    threshold = case.get("error_threshold", list(DEFAULT_THRESHOLD))
    if not (_is_number_pair(threshold) and all(0.0 <= v <= 1.0 for v in threshold)):
        raise where.error("error_threshold", "[threshold1, threshold2], floats in [0.0, 1.0]", threshold)
    if threshold[0] <= 0:
        raise where.error("error_threshold", "threshold1 > 0 (msopst divides by it)", threshold)
    if case.get("expect", "success") not in EXPECTS:
        raise where.error("expect", "\"success\" or \"failed\"", case.get("expect"))


def _check_counts(where: _Where, case: dict) -> None:
    """msopst's _check_value_number_valid: a field family has as many alternatives in every tensor."""
    tensors = [(f"input_desc[{i}]", _with_defaults(t, True), INPUT_FIELDS) for i, t in enumerate(case["input_desc"])]
    tensors += [(f"output_desc[{i}]", t, OUTPUT_FIELDS) for i, t in enumerate(case["output_desc"])]
    for key in INPUT_FIELDS:
        counts = [(field, len(_field_alternatives(t, key))) for field, t, keys in tensors
                  if key in keys and t.get("type") not in OMITTED_TYPES]
        if len({n for _, n in counts}) > 1:
            field, n = next((f, n) for f, n in counts if n != counts[0][1])
            raise where.error(f"{field}.{key}", f"{counts[0][1]} alternative(s), as {counts[0][0]}.{key} lists "
                                                f"(msopst aligns sub-cases by position)", n)


def _combinations(tensor: dict, keys: tuple[str, ...]) -> list[dict]:
    """A tensor's combinations in msopst's order: format (zipped with ori_format) x shape (zipped with ori_shape and
    typical_shape) x type x data_distribute x value_range; shape_range, value and is_const taken as they are."""
    formats = _field_alternatives(tensor, "format")
    if "ori_format" in tensor:
        origin = _field_alternatives(tensor, "ori_format")
        formats = [(f, origin[i] if len(origin) == len(formats) else origin[0]) for i, f in enumerate(formats)]
    else:
        formats = [(f, f) for f in formats]
    shapes = _field_alternatives(tensor, "shape")
    paired = []
    for i, s in enumerate(shapes):
        entry = {"shape": s, "ori_shape": s}
        for key in ("ori_shape", "typical_shape"):
            if key in tensor:
                given = _field_alternatives(tensor, key)
                entry[key] = given[i] if len(given) == len(shapes) else given[0]
        paired.append(entry)
    pools: list[list[Any]] = [formats, paired]
    pools += [_field_alternatives(tensor, k) for k in keys[2:]]
    ranges = _field_alternatives(tensor, "shape_range") if "shape_range" in tensor else [None]
    result = []
    for combo, shape_range in zip(itertools.product(*pools), itertools.cycle(ranges)):
        (fmt, ori_fmt), shape_entry, *rest = combo
        one = {"format": fmt, "ori_format": ori_fmt, **shape_entry, **dict(zip(keys[2:], rest))}
        for key in ("name", "value", "is_const", "const_value"):
            if key in tensor:
                one[key] = tensor[key]
        if shape_range is not None:
            one["shape_range"] = shape_range
        result.append(one)
    return result


def expand_msopst_case(case: dict) -> list[tuple[str, dict]]:
    """The sub-cases of one checked msopst case: (name, params) with one concrete alternative per field."""
    ins = [_combinations(_with_defaults(t, True), INPUT_FIELDS) for t in case["input_desc"]]
    outs = [_combinations(t, OUTPUT_FIELDS) for t in case["output_desc"]]
    count = max(len(c) for c in ins + outs)
    multiple = count > 1
    base = case["case_name"].replace("/", "_")
    subs = []
    for i in range(count):
        inputs = [c[i % len(c)] for c in ins]
        outputs = [c[i % len(c)] for c in outs]
        infix = "_sub_case_" if multiple else "_case_"
        name = f"{base}{infix}{i + 1:03d}_{outputs[0]['format']}_{outputs[0]['type']}"
        params = {"op": case["op"], "input_desc": inputs, "output_desc": outputs, "case_name": name}
        if "attr" in case:
            params["attr"] = case["attr"]
        subs.append((name, params))
    return subs


# ----------------------------------------------------------------------------------------------- data


def msopst_draw(kind: str, args: Any, shape: tuple[int, ...], dtype: np.dtype, rng: np.random.Generator) -> np.ndarray:
    """One input array by msopst's data rules (data_generator.py), with aclcts' seeded generator.

    kind is FIXED (args: the flat values) or DRAW_PREFIX + a data_distribute (args: value_range [min, max]).
    """
    if kind == FIXED:
        return np.asarray(args, dtype=np.float64 if dtype.kind != "c" else np.complex128).astype(dtype).reshape(shape)
    low, high = (float(v) for v in args)
    dist = kind[len(DRAW_PREFIX):]
    with np.errstate(all="ignore"):
        if dtype == np.bool_:  # msopst: int8 uniform on [0, 2), truncated
            return rng.uniform(0, 2, shape).astype(np.int8).astype(np.bool_)
        if dist == "normal":
            raw = rng.normal(low, abs(high) + 1e-4, shape)
        elif dist == "beta":
            raw = rng.beta(abs(low) + 1e-4, abs(high) + 1e-4, shape)
        elif dist == "laplace":
            raw = rng.laplace(low, abs(high) + 1e-4, shape)
        elif dist == "triangular":
            raw = rng.triangular(low, rng.uniform(low, high), high, shape) if high > low else np.full(shape, low)
        else:
            raw = rng.uniform(low, high, shape)
            if dist != "uniform":
                u = raw.astype(dtype).astype(np.float64)
                raw = {"relu": lambda: np.maximum(0, u), "sigmoid": lambda: 1 / (1 + np.exp(-u)),
                       "softmax": lambda: np.exp(u) / np.sum(np.exp(u)),
                       "tanh": lambda: np.tanh(u)}[dist]()
        return np.asarray(raw).astype(dtype)


def _given_values(where: _Where, field: str, tensor: dict, source: str, dtype: np.dtype,
                  shape: tuple[int, ...]) -> list | None:
    """An input's fixed data: its `value`, else its `const_value`; both given, they must hold the same numbers."""
    found = {key: _fixed_values(where, f"{field}.{key}", tensor[key], source, dtype, shape)
             for key in ("value", "const_value") if key in tensor}
    if len(found) == 2 and not np.array_equal(np.asarray(found["value"]), np.asarray(found["const_value"]),
                                              equal_nan=dtype.kind in "fc"):
        raise where.error(f"{field}.const_value", "the same numbers as value (both are the constant's data)",
                          tensor["const_value"])
    return found.get("value", found.get("const_value"))


def _fixed_values(where: _Where, field: str, value: Any, source: str, dtype: np.dtype,
                  shape: tuple[int, ...]) -> list:
    """The flat values of a `value` (or `const_value`) field: a literal list, or a .bin file (raw, the tensor's dtype)
    relative to the case file; their count must be the shape's element count."""
    if isinstance(value, str):
        folder = os.path.dirname(os.path.abspath(source))
        path = os.path.join(folder, value)
        if os.path.isabs(value) or not inside(folder, os.path.realpath(path)):
            raise where.error(field, "a .bin file inside the case file's folder (a relative path that does not lead "
                                     "out of it, symbolic links resolved)", value)
        if not os.path.isfile(path):
            raise where.error(f"{field}.value", "a literal list or an existing .bin file (relative to the case file)",
                              value)
        flat = np.fromfile(path, dtype=dtype)
    else:
        flat = np.ravel(np.asarray(value, dtype=np.float64)).astype(dtype)
    expected = int(np.prod(shape, dtype=np.int64))
    if flat.size != expected:
        raise where.error(field, f"{expected} element(s), the element count of shape {list(shape)}", int(flat.size))
    return flat.tolist()


# -------------------------------------------------------------------------------------- golden functions


def _golden_module(where: _Where, path: str, field: str) -> Any:
    """The module of a golden (or fuzz) function, imported once per file from its own folder."""
    if path in _GOLDEN_MODULES:
        return _GOLDEN_MODULES[path]
    name = f"aclcts_msopst_golden_{zlib.crc32(path.encode()):08x}"
    try:
        with guarded(path):
            spec = importlib.util.spec_from_file_location(name, path)
            module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
            spec.loader.exec_module(module)  # type: ignore[union-attr]
    except UserCodeError as exc:  # the user's file: raising, exiting or hanging at import is the case file's error
        raise where.error(field, f"an importable Python file ({exc})", show=False) from None
    _GOLDEN_MODULES[path] = module
    return module


def golden_function(where: _Where, spec: Any, source: str) -> tuple[str, str, Callable[..., Any]]:
    """(path, function name, function) of a `calc_expect_func_file: "path.py:func"`, path relative to the case file."""
    return _user_function(where, "calc_expect_func_file", spec, source)


def _golden_kwargs(params: dict, arrays: list[np.ndarray]) -> dict[str, Any]:
    """msopst's calling convention: inputs {value, dtype, shape, format} and outputs {dtype, shape, format} by name
    (an unnamed tensor as input<i> / output<i>), attrs by name with their JSON value."""
    kwargs: dict[str, Any] = {}
    for i, (tensor, array) in enumerate(zip(params["input_desc"], arrays)):
        kwargs[tensor.get("name", f"input{i}")] = {"value": array, "dtype": tensor["type"],
                                                   "shape": list(array.shape), "format": tensor["format"]}
    for i, tensor in enumerate(params["output_desc"]):
        kwargs[tensor.get("name", f"output{i}")] = {"dtype": tensor["type"], "shape": list(tensor.get(
            "typical_shape", tensor["shape"])), "format": tensor["format"]}
    for attr in params.get("attr", []):
        kwargs[attr["name"]] = attr["value"]
    return kwargs


def _golden_ref(case_id: str, where: _Where, params: dict, func: Callable[..., Any], shapes: list[tuple[int, ...]],
                spec: str) -> RefOp:
    """A RefOp whose compute calls the golden function as msopst does and whose shape is the function's outputs'."""
    outputs = tuple(t.get("name", f"output{i}") for i, t in enumerate(params["output_desc"]))

    def call(xs: list[np.ndarray]) -> list[np.ndarray]:
        kwargs = _golden_kwargs(params, [np.asarray(x) for x in xs])
        try:
            with guarded(f"{where.source}: case {case_id}: calc_expect_func_file {spec}", watchdog=False), \
                    np.errstate(all="ignore"):
                result = func(**kwargs)
        except UserCodeError as exc:  # the user's golden function: its failure is this case's failure, in one line
            raise GoldenError(one_line(str(exc))) from None
        arrays = [np.asarray(r) for r in (result if isinstance(result, (list, tuple)) else [result])]
        if len(arrays) != len(outputs):
            raise GoldenError(one_line(f"{where.source}: case {case_id}: calc_expect_func_file {spec} returned "
                                       f"{len(arrays)} array(s), expected one per output ({len(outputs)})"))
        return arrays

    def compute(xs: list[np.ndarray], attrs: dict[str, Any], dtypes: list[np.dtype]) -> list[np.ndarray]:
        arrays = call(xs)
        return [a.reshape(s) if a.shape != tuple(s) and a.size == int(np.prod(s, dtype=np.int64)) and -1 not in s
                else a for a, s in zip(arrays, shapes)]

    def shape_of(in_shapes: list, values: list, attrs: dict[str, Any]) -> list[tuple[int, ...]]:
        """The golden function's output shapes at these inputs (zeros of their shapes where no value is given)."""
        given = [v if v is not None else np.zeros(s, numpy_dtype(DTYPE_BY_NAME[TYPES[t["type"]]]))
                 for v, s, t in zip(values or [None] * len(in_shapes), in_shapes, params["input_desc"])]
        return [tuple(a.shape) for a in call(given)]

    return RefOp(params["op"], compute, shape_of, tuple(t.get("name", f"input{i}")
                                                       for i, t in enumerate(params["input_desc"])), {}, outputs)


def _no_reference(case_id: str, op: str, shapes: list[tuple[int, ...]]) -> RefOp:
    """A RefOp that ends the test as skipped after execution, saying it had no numeric reference."""

    def compute(xs: list[np.ndarray], attrs: dict[str, Any], dtypes: list[np.dtype]) -> list[np.ndarray]:
        raise unittest.SkipTest(f"{case_id}: no numeric reference (no calc_expect_func_file, and aclcts has no "
                                f"reference of op {op}): executed, output shapes and error codes checked only")

    return RefOp(op, compute, lambda in_shapes, values, attrs: [tuple(s) for s in shapes], (), {}, ())


# ---------------------------------------------------------------------------------------------------- fuzz

#: Where a "fuzz" placeholder sits: ("input_desc" | "output_desc", position, field) or ("attr", position, "value").
Slot = tuple[str, int, str]


def is_fuzz_case(case: dict) -> bool:
    """Whether a case is a fuzz case: it has fuzz_impl or fuzz_case_num, or a field written "fuzz"."""
    return "fuzz_impl" in case or "fuzz_case_num" in case or bool(_fuzz_slots(case))


def _fuzz_slots(case: dict) -> list[Slot]:
    """Every "fuzz" placeholder of a case, tensors in order, then attrs."""
    slots = [(side, i, key) for side in ("input_desc", "output_desc") if isinstance(case.get(side), list)
             for i, t in enumerate(case[side]) if isinstance(t, dict) for key, v in t.items() if v == FUZZ]
    attrs = case.get("attr") if isinstance(case.get("attr"), list) else []
    return slots + [("attr", i, "value") for i, a in enumerate(attrs) if isinstance(a, dict) and a.get("value") == FUZZ]


def _check_fuzz(where: _Where, case: dict) -> None:
    """msopst's fuzz checks (fuzz_case_num 1..2000, fuzz_impl "file.py:func", named fuzz tensors), and without
    fuzz_impl only the fields aclcts draws itself."""
    _check_frame(where, case)
    number = case.get("fuzz_case_num")
    if not (isinstance(number, int) and not isinstance(number, bool) and 1 <= number <= MAX_FUZZ_CASES):
        raise where.error("fuzz_case_num", f"an int in 1..{MAX_FUZZ_CASES} (a fuzz case's count)", number,
                          show="fuzz_case_num" in case)
    slots = _fuzz_slots(case)
    if not slots:
        raise where.error("fuzz_case_num", "a field written \"fuzz\" to draw (none in the case)", show=False)
    for side, i, key in slots:
        field = f"{side}[{i}].{key}" if side != "attr" else f"attr[{i}].value"
        if "fuzz_impl" in case and "name" not in case[side][i]:
            raise where.error(f"{side}[{i}].name", "a name (fuzz_impl's values are found by it)", show=False)
        if "fuzz_impl" not in case and (side == "attr" or key not in DRAWN_FIELDS):
            raise where.error(field, "a value (aclcts draws only " + ", ".join(DRAWN_FIELDS) +
                              " without fuzz_impl)", FUZZ)
        if "fuzz_impl" not in case and key == "type" and _prototype_of(case["op"]) is None:
            raise where.error(field, f"a type (no prototype of op {case['op']} to draw one from; give fuzz_impl)",
                              FUZZ)


def _prototype_of(op: Any) -> Any:
    from aclcts.core.prototypes import prototype

    return prototype(op) if isinstance(op, str) else None


def fuzz_cases(where: _Where, case: dict, source: str) -> list[tuple[str, dict]]:
    """The concrete cases of a checked fuzz case: (sub-case name, case with every "fuzz" replaced), named
    `<case_name>_fuzz_case_<NNN>_<format>_<type>` as msopst names them."""
    seed = zlib.crc32(f"{case['case_name']}/fuzz".encode())
    if "fuzz_impl" in case:
        draws = _fuzz_impl_draws(where, case, source, seed)
    else:
        draws = _hypothesis_draws(where, case, seed)
    base = case["case_name"].replace("/", "_")
    result = []
    for number, values in enumerate(draws, 1):
        concrete = _replaced(case, values)
        out = concrete["output_desc"][0] if concrete["output_desc"] else {}
        suffix = f"{_first(out.get('format'))}_{_first(out.get('type'))}"
        result.append((f"{base}_fuzz_case_{number:03d}_{suffix}", concrete))
    return result


def _first(value: Any) -> Any:
    return value[0] if isinstance(value, list) and value else value


def _replaced(case: dict, values: dict[Slot, Any]) -> dict:
    """A copy of the case with each placeholder replaced by its value, without the fuzz fields."""
    concrete = json.loads(json.dumps({k: v for k, v in case.items() if k not in ("fuzz_impl", "fuzz_case_num")}))
    for (side, i, key), value in values.items():
        concrete[side][i][key] = value
    return concrete


def _fuzz_impl_draws(where: _Where, case: dict, source: str, seed: int) -> list[dict[Slot, Any]]:
    """fuzz_case_num calls of the fuzz_impl function (random and numpy.random seeded from the case each time), each
    giving a dict, or a list of them, {"input_desc"|"output_desc"|"attr": {name: {field: value}}}."""
    spec = case["fuzz_impl"]
    func = _user_function(where, "fuzz_impl", spec, source)[2]
    slots = _fuzz_slots(case)
    draws = []
    for call in range(case["fuzz_case_num"]):
        returned = _seeded_call(where, spec, func, seed + call)
        for one in returned if isinstance(returned, list) else [returned]:
            draws.append({slot: _fuzz_value(where, spec, case, slot, one) for slot in slots})
    return draws


def _seeded_call(where: _Where, spec: str, func: Callable[[], Any], seed: int) -> Any:
    """func() with Python's and NumPy's global generators seeded (and restored after): one line if it raises."""
    import random

    saved = random.getstate(), np.random.get_state()
    random.seed(seed)
    np.random.seed(seed & 0xFFFFFFFF)
    try:
        with guarded(spec):
            returned = func()
    except UserCodeError as exc:  # the user's fuzz function: raising, exiting or hanging is the case file's error
        raise where.error("fuzz_impl", f"a function that returns field values ({exc})", show=False) from None
    finally:
        random.setstate(saved[0])
        np.random.set_state(saved[1])
    if not isinstance(returned, (dict, list)) or isinstance(returned, list) and not all(
            isinstance(r, dict) for r in returned):
        raise where.error("fuzz_impl", f"a dict of field values, or a list of them, from {spec}",
                          type(returned).__name__)
    return returned


def _fuzz_value(where: _Where, spec: str, case: dict, slot: Slot, returned: dict) -> Any:
    """The value fuzz_impl returned for one placeholder: returned[side][tensor or attr name][field]."""
    side, i, key = slot
    name = case[side][i]["name"]
    if not isinstance(name, str):
        raise where.error(f"{side}[{i}].name", "a name (fuzz_impl's values are found by it)", name)
    value = returned.get(side, {}).get(name, {}) if isinstance(returned.get(side), dict) else {}
    if not isinstance(value, dict) or key not in value:
        raise where.error(f"{side}[{i}].{key}", f"a value from fuzz_impl {spec} at [{side!r}][{name!r}][{key!r}]",
                          show=False)
    return value[key]


def _user_function(where: _Where, field: str, spec: Any, source: str) -> tuple[str, str, Callable[..., Any]]:
    """(path, function name, function) of a `"path.py:func"` field, path relative to the case file."""
    if not isinstance(spec, str) or ":" not in spec or not spec.rpartition(":")[2]:
        raise where.error(field, "\"path/file.py:function\"", spec)
    file, _, func = spec.rpartition(":")
    path = file if os.path.isabs(file) else os.path.join(os.path.dirname(os.path.abspath(source)), file)
    if not os.path.isfile(path):
        raise where.error(field, f"an existing Python file ({path} does not exist)", spec)
    found = getattr(_golden_module(where, path, field), func, None)
    if not callable(found):
        raise where.error(field, f"a function {func} in {file}", spec)
    return path, func, found


def _hypothesis_draws(where: _Where, case: dict, seed: int) -> list[dict[Slot, Any]]:
    """fuzz_case_num value sets drawn by hypothesis from the case's strategy, seeded by the case (repeatable); when
    hypothesis runs out of distinct values first, they repeat in order."""
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as with_seed

    number = case["fuzz_case_num"]
    found: list[dict[Slot, Any]] = []

    @settings(max_examples=number, database=None, phases=[Phase.generate], derandomize=False, deadline=None,
              suppress_health_check=list(HealthCheck))
    @with_seed(seed)
    @given(_fuzz_strategy(case))
    def collect(values: dict[Slot, Any]) -> None:
        if len(found) < number:
            found.append(values)

    collect()
    return [found[i % len(found)] for i in range(number)]


def _fuzz_strategy(case: dict) -> Any:
    """A hypothesis strategy of one value per placeholder: one format, one shape and one typical shape shared by the
    case's "fuzz" ones (as an elementwise op needs), types from the op's prototype (one per type constraint),
    msopst's distributions, value ranges in FUZZ_RANGE."""
    from hypothesis import strategies as st

    slots = _fuzz_slots(case)
    proto = _prototype_of(case["op"])

    @st.composite
    def draw(take: Any) -> dict[Slot, Any]:
        shared: dict[str, Any] = {}

        def once(key: str, strategy: Any) -> Any:
            if key not in shared:
                shared[key] = take(strategy)
            return shared[key]

        values: dict[Slot, Any] = {}
        for side, i, key in slots:
            tensor = case[side][i]
            if key in ("format", "ori_format"):
                values[(side, i, key)] = once("format", st.sampled_from(_formats(case)))
            elif key in ("shape", "ori_shape"):
                values[(side, i, key)] = once("shape", _shape_strategy(tensor))
            elif key == "typical_shape":
                values[(side, i, key)] = once(f"typical {tensor.get('shape')}", _shape_strategy(tensor))
            elif key == "type":
                var, choices = _type_choices(proto, side, i)
                values[(side, i, key)] = once(f"type {var}", st.sampled_from(choices))
            elif key == "data_distribute":
                values[(side, i, key)] = take(st.sampled_from(DISTRIBUTIONS))
            else:
                values[(side, i, key)] = sorted(take(st.lists(st.floats(*FUZZ_RANGE, width=32), min_size=2,
                                                              max_size=2)))
        return values

    return draw()


def _formats(case: dict) -> list[str]:
    """The formats a "fuzz" format may take: the case's one given format, else every format aclcts runs."""
    given = {t.get(k) for side in ("input_desc", "output_desc") for t in case[side] for k in ("format", "ori_format")}
    given = {f for f in given if isinstance(f, str) and f != FUZZ}
    return sorted(given) if len(given) == 1 else list(FORMAT_BY_NAME)


def _shape_strategy(tensor: dict) -> Any:
    """Shapes inside the tensor's shape (its -1 dims) and shape_range when it gives them, else small shapes."""
    from hypothesis import strategies as st

    shape, ranges = tensor.get("shape"), tensor.get("shape_range")
    if _is_shape(shape) and -1 in shape:
        pairs = ranges if _is_pair_list(ranges) and len(ranges) in (1, shape.count(-1)) else [[1, -1]]
        pairs = pairs * shape.count(-1) if len(pairs) == 1 else pairs
        bounds = iter(pairs)
        dims = [_dim(*next(bounds)) if d == -1 else st.just(d) for d in shape]
        return st.tuples(*dims).map(list)
    if _is_pair_list(ranges) and ranges:
        return st.tuples(*(_dim(low, high) for low, high in ranges)).map(list)
    return st.lists(_dim(*SMALL_DIMS), min_size=SMALL_RANKS[0], max_size=SMALL_RANKS[1])


def _dim(low: int, high: int) -> Any:
    from hypothesis import strategies as st

    low = max(low, 1)
    return st.integers(low, max(low, high if high != -1 else max(SMALL_DIMS[1], low)))


def _type_choices(proto: Any, side: str, position: int) -> tuple[str, list[str]]:
    """(type constraint, the types aclcts runs in it) of the tensor at a prototype position."""
    tensors = proto.inputs if side == "input_desc" else proto.outputs
    var = tensors[min(position, len(tensors) - 1)].types
    return var, [t for t in proto.types[var] if t in TYPES] or sorted(TYPES)


# --------------------------------------------------------------------------------------- into aclcts cases


def _concrete(shape_value: list[int], typical: Any) -> tuple[int, ...]:
    return tuple(typical) if any(d < 0 for d in shape_value) and _is_shape(typical) else tuple(shape_value)


def _ranges(where: _Where, field: str, tensor: dict) -> tuple[tuple[int, int], ...]:
    """One [min, max] per -1 dim: the tensor's shape_range (one pair per -1, or one per dim), else [1, -1] each."""
    dims = tensor["shape"]
    unknown = [i for i, d in enumerate(dims) if d == -1]
    if not unknown:
        return ()
    given = tensor.get("shape_range") or [list(DEFAULT_SHAPE_RANGE)]
    if not _is_pair_list(given):
        raise where.error(f"{field}.shape_range", "a list of [min, max] pairs of ints", given)
    if len(given) == len(dims) and len(dims) != len(unknown):
        given = [given[i] for i in unknown]
    elif len(given) == 1:
        given = given * len(unknown)
    if len(given) != len(unknown):
        raise where.error(f"{field}.shape_range", f"{len(unknown)} [min, max] pair(s), one per -1 of {dims}", given)
    for low, high in given:
        if low < 0 or (high != -1 and high < low):
            raise where.error(f"{field}.shape_range", "0 <= min <= max (max -1: no upper bound)", [low, high])
    return tuple((low, high) for low, high in given)


def _tensor(where: _Where, field: str, tensor: dict, source: str, case_id: str,
            values: dict[str, dict]) -> TensorCase:
    """One aclcts tensor of a sub-case; an input's data rule goes into values under its name."""
    if tensor["type"] in OMITTED_TYPES:
        raise where.error(f"{field}.type", "a data type (aclcts does not run omitted optional inputs yet)",
                          tensor["type"])
    if tensor["type"] not in TYPES:
        raise where.error(f"{field}.type", "a data type name (" + ", ".join(sorted(TYPES)) + ")", tensor["type"])
    dtype = DTYPE_BY_NAME[TYPES[tensor["type"]]]
    dims = tuple(tensor["shape"])
    dynamic = any(d < 0 for d in dims)
    if dynamic and "typical_shape" not in tensor and field.startswith("input"):
        raise where.error(f"{field}.typical_shape", f"the concrete shape to run (shape {list(dims)} is dynamic)",
                          show=False)
    ranges = _ranges(where, field, tensor)
    concrete = _concrete(tensor["shape"], tensor.get("typical_shape"))
    if dynamic and "typical_shape" in tensor and not shape_fits(concrete, dims, ranges):
        raise where.error(f"{field}.typical_shape", f"a shape inside {list(dims)} with shape_range "
                                                    f"{[list(r) for r in ranges]}", tensor["typical_shape"])
    name = tensor.get("name", field.replace("[", "").replace("]", "").replace("_desc", ""))
    const = None
    if field.startswith("input"):
        np_dtype = numpy_dtype(dtype)
        flat = _given_values(where, field, tensor, source, np_dtype, concrete)
        if tensor.get("is_const"):
            if dynamic:
                raise where.error(f"{field}.is_const", "a static shape for a constant input", list(dims))
            if flat is None:
                rng = np.random.default_rng(zlib.crc32(f"{case_id}/{name}".encode()))
                flat = msopst_draw(DRAW_PREFIX + tensor["data_distribute"], tensor["value_range"], concrete,
                                   np_dtype, rng).ravel().tolist()
            const = tuple(flat)
        elif flat is not None:
            values[name] = {FIXED: flat}
        else:
            values[name] = {DRAW_PREFIX + tensor["data_distribute"]: list(tensor["value_range"])}
    return TensorCase(name, dtype, dims, const, ranges)


def _format(where: _Where, params: dict) -> int:
    """The one aclcts format of a sub-case (every tensor's format and ori_format must be it)."""
    seen = {t[k] for t in params["input_desc"] + params["output_desc"] for k in ("format", "ori_format")}
    if len(seen) != 1 or next(iter(seen)) not in FORMAT_BY_NAME:
        raise where.error("format", "one format for every tensor, one of " + ", ".join(FORMAT_BY_NAME) +
                                    " (aclcts runs no private formats)", sorted(seen))
    return FORMAT_BY_NAME[next(iter(seen))]


def _reference_of(case: dict, case_id: str, where: _Where, params: dict, source: str,
                  out_shapes: list[tuple[int, ...]]) -> tuple[str, str, dict[str, str]]:
    """(reference spec for the Case, kind, the st_report fields naming the golden function)."""
    if "calc_expect_func_file" in case:
        path, func, found = golden_function(where, case["calc_expect_func_file"], source)
        kwargs = set(_golden_kwargs(params, [np.zeros(1)] * len(params["input_desc"])))
        try:
            inspect.signature(found).bind(**{k: None for k in kwargs})
        except TypeError as exc:
            raise where.error("calc_expect_func_file", f"a function taking the case's named tensors and attrs "
                              f"({', '.join(sorted(kwargs))}) as msopst calls it ({exc})", show=False) from None
        except ValueError:
            pass  # a builtin without a signature: called as it is
        attr = f"golden_{zlib.crc32(f'{os.path.abspath(source)}/{case_id}'.encode()):08x}"
        _REFERENCES[attr] = _golden_ref(case_id, where, params, found, out_shapes, case["calc_expect_func_file"])
        return f"{__name__}:{attr}", "golden", {"calc_expect_func_file": path, "calc_expect_func_file_func": func}
    if params["op"] in OP_TYPES:
        return params["op"], "builtin", {}
    attr = f"none_{zlib.crc32(f'{os.path.abspath(source)}/{case_id}'.encode()):08x}"
    _REFERENCES[attr] = _no_reference(case_id, params["op"], out_shapes)
    return f"{__name__}:{attr}", "none", {}


def to_case(case: dict, name: str, params: dict, source: str) -> Case:
    """The aclcts Case of one msopst sub-case."""
    where = _Where(source, case["case_name"])
    fmt = _format(where, params)
    values: dict[str, dict] = {}
    inputs = tuple(_tensor(where, f"input_desc[{i}]", t, source, name, values)
                   for i, t in enumerate(params["input_desc"]))
    outputs = tuple(_tensor(where, f"output_desc[{i}]", t, source, name, values)
                    for i, t in enumerate(params["output_desc"]))
    attrs = []
    for position, attr in enumerate(params.get("attr", [])):
        try:
            attrs.append(canonical_attr(attr["name"], attr["type"], attr["value"]))
        except ValueError as exc:
            raise where.error(f"attr[{position}]", f"an attr aclcts accepts ({exc})", show=False) from None
    out_shapes = [_concrete(t["shape"], t.get("typical_shape")) for t in params["output_desc"]]
    reference_spec, kind, golden_fields = _reference_of(case, name, where, params, source, out_shapes)
    t, p = case.get("error_threshold", DEFAULT_THRESHOLD)
    runtime: tuple = ()
    if any(x.dynamic for x in inputs + outputs):
        runtime = (tuple(_concrete(t_["shape"], t_.get("typical_shape"))
                         for t_, x in zip(params["input_desc"], inputs) if x.const is None),)
    expect = case.get("expect", "success")
    family = _policy(params["op"])
    INFO[name] = MsopstInfo(name, case["case_name"], expect, {**params, **golden_fields}, kind, (t, p))
    return Case(name, params["op"], family, source,
                f"msopst case {case['case_name']} ({os.path.basename(source)})", reference_spec, inputs, outputs,
                tuple(attrs), ("execute_v2", "handle"), values, f"ratio:{t},{p}", fmt, "", runtime,
                _shape_rule(inputs, family), "full", (), expect)


def _shape_rule(inputs: tuple[TensorCase, ...], family: str) -> str:
    """How the suite draws a dynamic sub-case's runtime shapes: equal when every input has the same dynamic shape and
    ranges, broadcast for other elementwise ops, else each input on its own."""
    variable = {(t.shape, t.shape_range) for t in inputs if t.const is None}
    return "same" if len(variable) == 1 else "broadcast" if family == "elementwise" else "each"


def load_msopst_cases(source: str) -> list[Case]:
    """Read, check and expand one msopst case file into aclcts cases (one per msopst sub-case)."""
    cases = read_msopst(source)
    for case in cases:
        where = _Where(source, case["case_name"])
        _check_fuzz(where, case) if is_fuzz_case(case) else _check_case(where, case)
    return [to_case(case, name, params, source) for case in cases for case, name, params in _sub_cases(case, source)]


def _sub_cases(case: dict, source: str) -> list[tuple[dict, str, dict]]:
    """(concrete case, sub-case name, params) of each sub-case of a checked case; a fuzz case's drawn ones are
    checked as any case is, and must each be one sub-case (msopst: one alternative per field in a fuzz case)."""
    if not is_fuzz_case(case):
        return [(case, name, params) for name, params in expand_msopst_case(case)]
    where = _Where(source, case["case_name"])
    result = []
    for name, concrete in fuzz_cases(where, case, source):
        _check_case(where, concrete)
        expanded = expand_msopst_case(concrete)
        if len(expanded) != 1:
            raise where.error("fuzz_impl" if "fuzz_impl" in case else "input_desc",
                              f"one alternative per field in a fuzz case ({name} expands to {len(expanded)})",
                              show=False)
        params = {**expanded[0][1], "case_name": name}
        result.append((concrete, name, params))
    return result


def sub_case_reference(case_file: str, sub_case: str) -> RefOp:
    """The reference (golden function, or none) of one sub-case of an msopst file, for a converted case file's
    `reference: module:ATTR`; KeyError if the file has no such sub-case or it uses a built-in reference."""
    for case in load_msopst_cases(case_file):
        if case.id == sub_case and ":" in case.reference:
            return _REFERENCES[case.reference.partition(":")[2]]
    raise KeyError(f"{case_file}: no msopst sub-case {sub_case} with a golden function")
