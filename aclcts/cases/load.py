"""Loading case files and expanding them into concrete cases."""

from __future__ import annotations

import itertools
import logging
import os
import re
import sys
from collections.abc import Callable, Collection, Iterable
from pathlib import Path
from typing import Any

import numpy as np

from aclcts.cases.case import DTYPE_BY_NAME, FORMAT_BY_NAME, STORAGE_FORMAT_BY_NAME, Case, TensorCase
from aclcts.core.formats import FORMAT_NAMES, FormatError
from aclcts.cases.msopst import FIXED, file_namespace, is_msopst_file, load_msopst_cases
from aclcts.cases.msopst.golden import fallback_warnings
from aclcts.cases.prototype_check import check_prototype
from aclcts.cases.profiles import check_ranges, with_profiles
from aclcts.cases.schema import (FIXED_KINDS, MODES, REFUSALS, CaseChecker, CaseFileError, check_case_file, data_file,
                                 numbers, record_of, refusal)
from aclcts.core.inputs import MAX_YAML_BYTES, file_problem, one_line, read_bytes, read_text
from aclcts.core.yamlschema import parse_yaml
from aclcts.core.opmodel import canonical_attr
from aclcts.reference import reference

log = logging.getLogger("aclcts.cases")


def case_files(paths: Iterable[str], warn: Callable[[str], None] = log.warning) -> list[str]:
    """Every *.yaml / *.yml / *.json (msopst) file named or found (recursively, sorted) under the given paths.

    A special file found in a folder (a FIFO, device or socket named *.yaml) is skipped, and warn is called with a
    line naming it; one named directly is a CaseFileError. A *.json found in a folder counts only if it holds msopst
    cases (a `case_name` key), so single-op JSON kept beside case files is left alone.
    """
    found = []
    for path in paths:
        if os.path.isdir(path):
            for folder, subfolders, files in os.walk(path):
                subfolders.sort()
                for name in sorted(files):
                    file = os.path.join(folder, name)
                    if not name.endswith((".yaml", ".yml", ".json")):
                        continue
                    problem = file_problem(file)
                    if problem is not None:
                        warn(f"{file}: skipped, not read as a case file: {problem}")
                    elif not name.endswith(".json") or _names_msopst_cases(file):
                        found.append(file)
        elif os.path.exists(path):
            problem = file_problem(path)
            if problem is not None:
                raise CaseFileError(f"{path}: cannot read the case file: {problem}")
            found.append(path)
        else:
            raise CaseFileError(f"{path}: no such case file or folder")
    return found


def _names_msopst_cases(path: str) -> bool:
    """Whether the start of a JSON file names a `case_name`, as an msopst case file does and single-op JSON never."""
    with open(path, "rb") as handle:
        return b'"case_name"' in handle.read(1 << 16)


def _tag(shape: tuple[int, ...]) -> str:
    if shape == (-2,):
        return "unknownrank"
    return "x".join("dyn" if d == -1 else str(d) for d in shape) if shape else "s"


def _ranges(shape: list[int] | tuple[int, ...], pairs: list[list[int]] | None) -> tuple[tuple[int, int], ...]:
    return tuple((low, high) for low, high in pairs) if pairs and -1 in shape else ()


def _const_shape(values: Any) -> tuple[int, ...]:
    return () if not isinstance(values, list) else (len(values),)


def _importable(folder: str) -> None:
    """Let a custom op's reference module (`reference: module:ATTR`) be imported from its case file's folder."""
    if folder not in sys.path:
        sys.path.append(folder)


def _data_of(c: CaseChecker, source: str, tensor: TensorCase, case_id: str, spec: dict) -> list:
    """An input's fixed data (`fixed` values or a raw `file` of its dtype) as the flat values msopst's draw takes,
    checked against the case's shape: one value per element."""
    (kind, args), = spec.items()
    path = ("values", tensor.name, kind)
    of = f"input {tensor.name} of case {case_id}"
    if tensor.dynamic:
        c.fail(path, f"an input with a static shape for fixed data ({of} has shape {list(tensor.shape)})")
    count = int(np.prod(tensor.shape, dtype=np.int64))
    if kind == "fixed":
        flat = list(numbers(args))
        if len(flat) != count:
            c.fail(path, f"{count} value(s), the element count of {of} (shape {list(tensor.shape)})", len(flat))
        return flat
    full, size = data_file(source, args), count * tensor.np_dtype.itemsize
    try:
        got = os.stat(full).st_size
    except OSError as exc:
        raise c.problem(path, f"cannot read {full}: {exc.strerror or exc}") from None
    if got != size:
        c.fail(path, f"a file of {size} bytes, {count} {tensor.dtype_name} element(s) of {of} (shape "
                     f"{list(tensor.shape)}); {args} has {got}")
    try:
        raw = read_bytes(full, "values", size, CaseFileError)
    except CaseFileError as exc:
        raise c.problem(path, str(exc)) from None
    return np.frombuffer(raw, dtype=tensor.np_dtype).tolist()


def _case_values(c: CaseChecker, source: str, values: dict, inputs: tuple[TensorCase, ...], case_id: str) -> dict:
    """A case's `values`: the file's, with each non-constant input's fixed data read for this case's dtype and shape
    and given as msopst's FIXED kind (the draw reshapes it)."""
    given = [t for t in inputs if t.const is None and set(values.get(t.name, ())) & set(FIXED_KINDS)]
    fixed = {t.name: _data_of(c, source, t, case_id, values[t.name]) for t in given}
    return values | {name: {FIXED: flat} for name, flat in fixed.items()} if fixed else values


#: The shipped case library, and how the built-in records' default cases name their source (aclcts.cases.defaults).
SHIPPED_CASES = Path(__file__).resolve().parents[2] / "cases"
BUILTIN_DEFAULTS = "aclcts/core/prototypes/"


def ranges_checked_at_load(source: str) -> bool:
    """Whether a case file's value ranges are checked as it loads (profiles.check_ranges): every file's but the
    shipped library's and the built-in records' default cases', which tests/cases/test_library_ranges.py checks once;
    at every load the same reference calls cost each process seconds."""
    return not (source.startswith(BUILTIN_DEFAULTS) or Path(source).resolve().is_relative_to(SHIPPED_CASES))


def expand_file(source: str, namespace: str | None = None, check_values: bool | None = None) -> list[Case]:
    """Load, validate and expand one case file (an msopst file's case ids in namespace, by default its stem);
    check_values as expand_data's."""
    if is_msopst_file(source):
        return load_msopst_cases(source, namespace)
    data, lines = parse_yaml(read_text(source, "case", MAX_YAML_BYTES, CaseFileError), source, CaseFileError)
    return expand_data(data, source, lines, check_values)


def expand_data(data: Any, source: str, lines: dict, check_values: bool | None = None) -> list[Case]:
    """Validate and expand one case file's content (lines: the line of each field, for messages); its value ranges
    are checked when check_values is true, or where it is None, as ranges_checked_at_load says."""
    check_case_file(data, source, lines, set(DTYPE_BY_NAME))
    c = CaseChecker(source, lines)
    op = data["op"]
    if ":" in data.get("reference", ""):
        _importable(os.path.dirname(os.path.abspath(source)))
    try:
        ref = reference(data.get("reference", op))
    except KeyError as exc:
        raise c.problem(("reference" if "reference" in data else "op",), str(exc).strip("'\"")) from None
    inputs, outputs = data["inputs"], data["outputs"]
    const = data.get("const", {})
    variable = [n for n in inputs if n not in const]
    modes = tuple(data.get("modes", MODES))
    fmt, stored_as = _formats(c, data)
    attr_sets = []
    for index, attr_set in enumerate(data.get("attrs", [{}])):
        try:
            attr_sets.append(tuple(canonical_attr(n, s["type"], s["value"]) for n, s in attr_set.items()))
        except ValueError as exc:
            raise c.problem(("attrs", index), str(exc)) from None
    check_prototype(data, source, lines)
    ranges = data.get("shape_range", {})
    runtime = tuple(tuple(tuple(shape) for shape in shapes) for shapes in data.get("runtime_shapes", []))
    for index, shapes in enumerate(data["shapes"]):
        first = data["shapes"].index(shapes)
        if first != index:
            raise c.problem(("shapes", index), f"the same shapes as shapes[{first}]; expected each entry once (a "
                                               "repeated entry would run the same cases twice)")
    cases: list[Case] = []
    seen: set[str] = set()
    combos = itertools.product(enumerate(data["dtypes"]), enumerate(data["shapes"]), enumerate(attr_sets))
    for (d_index, combo), (s_index, shapes), (a_index, attrs) in combos:
        names = inputs + outputs
        dtypes = {n: combo for n in names} if isinstance(combo, str) else {n: combo.get(n, combo.get("*")) for n in names}
        shape_of = dict(zip(variable, shapes)) if isinstance(shapes, list) else dict(shapes)
        for name, values in const.items():
            shape_of.setdefault(name, _const_shape(values))
        in_cases = tuple(
            TensorCase(n, DTYPE_BY_NAME[dtypes[n]], tuple(shape_of[n]),
                       tuple(np.ravel(const[n]).tolist()) if n in const else None, _ranges(shape_of[n], ranges.get(n)),
                       stored_as.get(n))
            for n in inputs
        )
        if all(n in shape_of for n in outputs):
            computed = []
        else:
            attr_values = {a.name: a.value for a in attrs}
            try:
                computed = ref.shape([t.shape for t in in_cases],
                                     [t.const_array() if t.const is not None else None for t in in_cases],
                                     {k: list(v) if isinstance(v, tuple) else v for k, v in attr_values.items()})
            except REFUSALS as exc:
                raise c.problem(("shapes", s_index),
                                f"the reference shape function refused it: {refusal(op, exc)}") from None
        out_shapes = [tuple(shape_of.get(n, computed[i] if i < len(computed) else ())) for i, n in enumerate(outputs)]
        out_cases = tuple(TensorCase(n, DTYPE_BY_NAME[dtypes[n]], s, None, _ranges(s, ranges.get(n)), stored_as.get(n))
                          for n, s in zip(outputs, out_shapes))
        _check_stored_shapes(c, in_cases + out_cases, fmt, s_index)
        dtype_tag = "_".join(dict.fromkeys(t.dtype_name for t in in_cases + out_cases))
        shape_tag = "_".join(_tag(t.shape) for t in in_cases if t.const is None)
        case_id = data.get("name") or \
            f"{op}-{dtype_tag}-{shape_tag}" + (f"-attrs{a_index}" if len(attr_sets) > 1 else "") + _format_tag(stored_as)
        if case_id in seen:
            case_id = f"{case_id}-{d_index}.{s_index}.{a_index}"
        seen.add(case_id)
        values = _case_values(c, source, data.get("values", {}), in_cases, case_id)
        cases.append(Case(case_id, op, data["policy"], source, data["source"], data.get("reference", op), in_cases,
                          out_cases, attrs, modes, values, data.get("precision"), fmt,
                          data.get("dynamic_input", ""), runtime, data.get("shape_rule", _shape_rule(op)),
                          data.get("elements", "full"), tuple(data.get("data_dependent", ())),
                          data.get("expect", "success"), exact_because=data.get("exact_because", "")))
    if ranges_checked_at_load(source) if check_values is None else check_values:
        check_ranges(cases, c)
    return with_profiles(cases, data, c)


def _formats(c: CaseChecker, data: dict) -> tuple[int, dict[str, int]]:
    """A case file's origin format and the tensors stored in another format: `format: NAME` puts every tensor in one
    plain format; `format: {tensor: NAME}` with `ori_format: NAME` (msopst's fields) stores the named tensors in
    their format, made from the origin format and shape the case gives (docs/formats.md)."""
    given = data.get("format", "ND")
    origin_name = data.get("ori_format", given if isinstance(given, str) else "ND")
    if origin_name not in FORMAT_BY_NAME:
        key = "ori_format" if "ori_format" in data or not isinstance(given, str) else "format"
        raise c.problem((key,), f"expected one of {', '.join(FORMAT_BY_NAME)}")
    if isinstance(given, str):
        if "ori_format" in data and origin_name != given:
            raise c.problem(("ori_format",), "expected it only with a per-tensor `format` mapping")
        return FORMAT_BY_NAME[origin_name], {}
    names = data["inputs"] + data["outputs"]
    stored: dict[str, int] = {}
    for name, value in given.items():
        if name not in names:
            raise c.problem(("format", name), f"expected a tensor name of the case ({', '.join(names)})")
        if value not in STORAGE_FORMAT_BY_NAME:
            raise c.problem(("format", name), f"expected one of {', '.join(STORAGE_FORMAT_BY_NAME)}")
        if value != origin_name:
            stored[name] = STORAGE_FORMAT_BY_NAME[value]
    if stored and any(d < 0 for shapes in data["shapes"] for shape in _shape_lists(shapes) for d in shape):
        raise c.problem(("format",), "expected plain formats only in a dynamic case (private formats are static)")
    return FORMAT_BY_NAME[origin_name], stored


def _shape_lists(shapes: Any) -> list:
    """The shapes of one `shapes` entry, given as a list or a mapping."""
    return list(shapes.values()) if isinstance(shapes, dict) else list(shapes)


def _check_stored_shapes(c: CaseChecker, tensors: tuple[TensorCase, ...], fmt: int, s_index: int) -> None:
    """Refuse a shape its tensor's storage format cannot be made from."""
    for tensor in tensors:
        try:
            tensor.stored(fmt)
        except FormatError as exc:
            raise c.problem(("shapes", s_index), f"{tensor.name}: {exc}") from None


def _format_tag(stored_as: dict[str, int]) -> str:
    """The case-id suffix naming the storage formats of a case's tensors (none when all are plain)."""
    return "".join(f"-{FORMAT_NAMES[f]}" for f in dict.fromkeys(stored_as.values()))


def _shape_rule(op: str) -> str:
    """The shape rule of a dynamic case that names none: its op's record's, else each input on its own."""
    record = record_of(op)
    return record.shape_rule if record is not None else "each"


def msopst_namespace(source: str, taken: set[str]) -> str:
    """The namespace of an msopst file's case ids in a run: its stem, or `<folder>.<stem>` when an earlier file of the
    run has that stem (CANN's tree holds `Abs/Abs_case.json` and `aicpu_test/json/Abs_case.json`); added to taken."""
    namespace = file_namespace(source)
    if namespace in taken:
        namespace = f"{os.path.basename(os.path.dirname(os.path.abspath(source)))}.{namespace}"
    taken.add(namespace)
    return namespace


#: Which cases load_cases returns: static ones (every shape known), dynamic ones (-1 dims or [-2]), or all.
KINDS = ("static", "dynamic", "all")


#: The op type a YAML case file names (its top-level `op:` line).
_OP_LINE = re.compile(rb"^op:[ \t]*[\"']?([A-Za-z_][A-Za-z0-9_]*)", re.MULTILINE)
#: The op types an msopst case file names (each case's "op").
_MSOPST_OP = re.compile(rb'"op"\s*:\s*"([^"]*)"')


def may_hold(path: str, ops: Collection[str]) -> bool:
    """Whether the case file at path may hold cases of one of ops, from its text alone (the op names it declares); a
    file whose ops cannot be told this way may."""
    try:
        with open(path, "rb") as handle:
            text = handle.read(MAX_YAML_BYTES)
    except OSError:
        return True
    found = _MSOPST_OP.findall(text) if path.endswith(".json") else _OP_LINE.findall(text)[:1]
    return not found or any(name.decode() in ops for name in found)


def load_cases(paths: Iterable[str], kind: str = "static", warn: Callable[[str], None] = log.warning,
               ops: Collection[str] | None = None) -> list[Case]:
    """The cases of one kind (static by default) of every case file under paths; ids must be unique across files.

    warn receives a line for every special file skipped in a folder (case_files), and one per module that msopst golden
    files import but is not installed (their cases fall back to aclcts' reference). With ops, only the files that may
    hold cases of those op types are read (may_hold), so narrowing a large library to a few ops costs little. An
    msopst file's case ids carry its namespace (msopst_namespace); a case it refuses is returned as a refused Case
    (Case.refusal, counted as static), and so is a file it cannot read.
    """
    if kind not in KINDS:
        raise ValueError(f"kind: expected one of {', '.join(KINDS)}, got {kind!r}")
    cases: list[Case] = []
    owner: dict[str, str] = {}
    namespaces: set[str] = set()
    for source in case_files(paths, warn):
        if ops is not None and not may_hold(source, ops):
            continue
        namespace = msopst_namespace(source, namespaces) if is_msopst_file(source) else None
        for case in expand_file(source, namespace):
            if case.id in owner:
                raise CaseFileError(one_line(f"{source}: case id {case.id} is also produced by {owner[case.id]}"))
            owner[case.id] = source
            cases.append(case)
    for line in fallback_warnings():
        warn(line)
    return [c for c in cases if kind == "all" or c.dynamic == (kind == "dynamic")]
