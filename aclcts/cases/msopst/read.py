"""Reading an msopst case file: the JSON, msopst's checks of its fields, and the one-line errors naming their position.

The format is msopst's (docs/msopst.md#field-by-field); each check here is one msopst makes before it runs a case.
"""

from __future__ import annotations

import json
import math
import warnings
from typing import Any

from aclcts.cases.case import DTYPE_BY_NAME
from aclcts.cases.schema import CaseFileError
from aclcts.core.inputs import MAX_JSON_BYTES, DuplicateKeyError, one_line, read_text, unique_keys

#: msopst's limit (const_manager.py) on the top-level cases of a file.
MAX_CASES = 1000
#: The placeholder of a field whose value fuzz_impl returns or hypothesis draws.
FUZZ = "fuzz"
#: msopst's default error_threshold [t, p] and data_distribute / value_range.
DEFAULT_THRESHOLD = (0.01, 0.05)
DEFAULT_DISTRIBUTE = "uniform"
DEFAULT_RANGE = (0.1, 1.0)
#: The shape_range msopst gives a -1 dim when the case gives none (1 to unbounded).
DEFAULT_SHAPE_RANGE = (1, -1)
DISTRIBUTIONS = ("uniform", "normal", "beta", "laplace", "triangular", "relu", "sigmoid", "softmax", "tanh")
#: msopst type names aclcts runs, and the aclcts spelling of each.
TYPES = {name: name for name in DTYPE_BY_NAME} | {"float": "float32"}
#: The dtype names a `data_type` attr may be written as, as msopst converts them (const_manager.py
#: ATTR_TYPE_SUPPORT_TYPE_MAP, applied in atc_transform_om.py _get_testcase_dict).
DATA_TYPE_ATTR_NAMES = ("int8", "int32", "int16", "int64", "uint8", "uint16", "uint32", "uint64", "float", "float16",
                        "float32", "bool", "double", "complex64", "complex128", "bfloat16")
#: Types of an omitted optional input (not run by aclcts).
OMITTED_TYPES = ("UNDEFINED", "RESERVED")
CASE_KEYS = ("case_name", "op", "input_desc", "output_desc", "attr", "calc_expect_func_file", "error_threshold",
             "expect", "st_mode", "run_torch_api", "fuzz_impl", "fuzz_case_num")
TENSOR_KEYS = ("name", "format", "ori_format", "type", "shape", "ori_shape", "typical_shape", "shape_range",
               "is_const", "const_value", "data_distribute", "value_range", "value")
#: Case fields msopst tests with json_obj.get(): an empty value is no value (no golden function, not a fuzz case);
#: fuzz_case_num too, which only its fuzz design reads (tools/msopst st/interface/case_design.py designs a case by fuzz
#: only when json_obj.get("fuzz_impl") is set; CANN's CeluV2 cases write "fuzz_case_num": "" beside an empty fuzz_impl).
FALSY_UNSET = ("calc_expect_func_file", "fuzz_impl", "fuzz_case_num")
#: Fields only an input has (msopst reads none of them on an output).
INPUT_ONLY_KEYS = ("is_const", "const_value", "data_distribute", "value_range", "value")
OUTPUT_KEYS = tuple(key for key in TENSOR_KEYS if key not in INPUT_ONLY_KEYS)
#: The order in which msopst crosses a tensor's alternatives (subcase_design_cross.py).
INPUT_FIELDS = ("format", "shape", "type", "data_distribute", "value_range")
OUTPUT_FIELDS = ("format", "shape", "type")
EXPECTS = ("success", "failed")


class IgnoredFieldsWarning(UserWarning):
    """An msopst file holds fields msopst does not read (CANN's own files carry several); aclcts ignores them too."""


def is_msopst_file(path: str) -> bool:
    """Whether a case path is an msopst case file (by its .json suffix)."""
    return path.endswith(".json")


class Where:
    """Builds the one-line errors: `file: case NAME: field: expected ..., got ...`."""

    def __init__(self, source: str, case: str = "") -> None:
        self.source, self.case = source, case

    def error(self, field: str, expected: str, got: Any = None, show: bool = True) -> CaseFileError:
        where = f"{self.source}: case {self.case}: " if self.case else f"{self.source}: "
        tail = f", got {json.dumps(got) if not isinstance(got, str) else repr(got)}" if show else ""
        return CaseFileError(one_line(f"{where}{field}: expected {expected}{tail}"))


def read_msopst(source: str) -> list[dict]:
    """The case objects of an msopst file (the compile_flag element left out), after msopst's file-level checks."""
    where = Where(source)
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
            raise Where(source, name).error("case_name", "a case name used once in the file", name)
        names.add(name)
    return _without_ignored_fields(source, cases)


def _without_ignored_fields(source: str, cases: list[dict]) -> list[dict]:
    """The cases with the fields msopst does not read left out (case_design.py and subcase_design_cross.py read only
    their own keys: `param_type`, `range`, a misspelt `oir_shape`, an output's `value_range`...), and one warning
    naming the file and every field left out."""
    ignored: set[str] = set()

    def kept(obj: dict, known: tuple[str, ...], label: str) -> dict:
        dropped = [key for key, value in obj.items() if key not in known or (key in FALSY_UNSET and not value)]
        ignored.update(f"{label}{key}" + (" (empty)" if key in known else "") for key in dropped)
        return {key: value for key, value in obj.items() if key not in dropped}

    result = []
    for case in cases:
        case = kept(case, CASE_KEYS, "")
        for side, known in (("input_desc", TENSOR_KEYS), ("output_desc", OUTPUT_KEYS)):
            if isinstance(case.get(side), list):
                case[side] = [kept(t, known, f"{side}[].") if isinstance(t, dict) else t for t in case[side]]
        result.append(case)
    if ignored:
        line = f"{source}: fields msopst does not read, ignored: {', '.join(sorted(ignored))}"
        warnings.warn_explicit(IgnoredFieldsWarning(line), IgnoredFieldsWarning, "aclcts msopst", 0)  # one line
    return result


def is_shape(value: Any) -> bool:
    """Whether value is one shape: a list of ints."""
    return isinstance(value, list) and all(isinstance(d, int) and not isinstance(d, bool) for d in value)


def is_pair_list(value: Any) -> bool:
    """Whether value is a list of [min, max] pairs of ints (one shape_range)."""
    return isinstance(value, list) and all(isinstance(p, list) and len(p) == 2 and all(
        isinstance(v, int) and not isinstance(v, bool) for v in p) for p in value)


def is_number_pair(value: Any) -> bool:
    """Whether value is [min, max] of finite numbers (NaN and infinities give no range to draw from)."""
    return isinstance(value, list) and len(value) == 2 and all(
        isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in value)


#: The tensor fields msopst takes one value or a list of alternatives of.
ALTERNATIVE_FIELDS = ("format", "ori_format", "type", "shape", "ori_shape", "typical_shape", "data_distribute",
                      "value_range", "shape_range")


def field_alternatives(tensor: dict, key: str) -> list[Any]:
    """The alternatives of one field of a tensor (msopst: one value or a list of them)."""
    value = tensor[key]
    if key in ("shape", "ori_shape", "typical_shape"):
        return [value] if is_shape(value) else list(value) if isinstance(value, list) and value else [value]
    if key == "value_range":
        return [value] if is_number_pair(value) else list(value) if isinstance(value, list) else [value]
    if key == "shape_range":  # one [min, max] written flat is one pair (subcase_design.py _check_list_list_valid)
        if is_shape(value) and len(value) == 2:
            return [[value]]
        return [value] if is_pair_list(value) else list(value) if isinstance(value, list) else [value]
    return list(value) if isinstance(value, list) else [value]


def with_defaults(tensor: dict, is_input: bool) -> dict:
    """The tensor with msopst's code defaults for the fields it leaves out."""
    full = dict(tensor)
    if is_input:
        full.setdefault("data_distribute", DEFAULT_DISTRIBUTE)
        full.setdefault("value_range", list(DEFAULT_RANGE))
    return full


def _check_tensor(where: Where, tensor: Any, field: str) -> None:
    """msopst's checks on one tensor object's values."""
    if not isinstance(tensor, dict):
        raise where.error(field, "a tensor object", tensor)
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
        if key in tensor and not field_alternatives(tensor, key):
            raise where.error(f"{field}.{key}", "a value, or a non-empty list of them", tensor[key])
    for key in ("format", "ori_format", "type"):
        for given in field_alternatives(tensor, key) if key in tensor else []:
            if not isinstance(given, str):
                raise where.error(f"{field}.{key}", f"a {key} name, or a list of them", given)
    for dist in field_alternatives(tensor, "data_distribute") if "data_distribute" in tensor else []:
        if dist not in DISTRIBUTIONS:
            raise where.error(f"{field}.data_distribute", "one of " + ", ".join(DISTRIBUTIONS), dist)
    for pair in field_alternatives(tensor, "value_range") if "value_range" in tensor else []:
        if not is_number_pair(pair):
            raise where.error(f"{field}.value_range", "[min, max] of finite numbers, or a list of them", pair)
        if pair[0] > pair[1]:
            raise where.error(f"{field}.value_range", "min <= max", pair)
    for shape_value in field_alternatives(tensor, "shape"):
        if not is_shape(shape_value):
            raise where.error(f"{field}.shape", "a list of ints or a list of them", shape_value)
        if any(d < -2 or d == -2 and shape_value != [-2] for d in shape_value):
            raise where.error(f"{field}.shape", "dims >= -1, or the whole shape [-2]", shape_value)
    if "is_const" in tensor and not isinstance(tensor["is_const"], bool):
        raise where.error(f"{field}.is_const", "true or false", tensor["is_const"])
    if "const_value" in tensor:
        _check_const_value(where, field, tensor)


def _check_const_value(where: Where, field: str, tensor: dict) -> None:
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


def check_frame(where: Where, case: dict) -> None:
    """msopst's checks of a case's frame: op, no framework mode, input_desc and output_desc lists of
    objects, at least one output."""
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


def check_case(where: Where, case: dict) -> None:
    """msopst's case-level checks (keys, op, tensors, attrs, threshold, expect, list lengths across tensors)."""
    check_frame(where, case)
    for position, tensor in enumerate(case["input_desc"]):
        _check_tensor(where, tensor, f"input_desc[{position}]")
    for position, tensor in enumerate(case["output_desc"]):
        _check_tensor(where, tensor, f"output_desc[{position}]")
    for side in ("input_desc", "output_desc"):  # atc_transform_om.py _get_desc_dic: per side (a ref output may
        names = [t["name"] for t in case[side] if "name" in t]  # share its input's name)
        if len(set(names)) != len(names):
            raise where.error(f"{side} name", f"names used once in a case's {side}", names)
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
    if not (is_number_pair(threshold) and all(0.0 <= v <= 1.0 for v in threshold)):
        raise where.error("error_threshold", "[threshold1, threshold2], floats in [0.0, 1.0]", threshold)
    if threshold[0] <= 0:
        raise where.error("error_threshold", "threshold1 > 0 (msopst divides by it)", threshold)
    if case.get("expect", "success") not in EXPECTS:
        raise where.error("expect", "\"success\" or \"failed\"", case.get("expect"))


def _check_counts(where: Where, case: dict) -> None:
    """msopst's _check_value_number_valid: a field family has as many alternatives in every tensor."""
    tensors = [(f"input_desc[{i}]", with_defaults(t, True), INPUT_FIELDS) for i, t in enumerate(case["input_desc"])]
    tensors += [(f"output_desc[{i}]", t, OUTPUT_FIELDS) for i, t in enumerate(case["output_desc"])]
    for key in INPUT_FIELDS:
        counts = [(field, len(field_alternatives(t, key))) for field, t, keys in tensors
                  if key in keys and t.get("type") not in OMITTED_TYPES]
        if len({n for _, n in counts}) > 1:
            field, n = next((f, n) for f, n in counts if n != counts[0][1])
            raise where.error(f"{field}.{key}", f"{counts[0][1]} alternative(s), as {counts[0][0]}.{key} lists "
                                                f"(msopst aligns sub-cases by position)", n)
