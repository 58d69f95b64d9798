"""msopst sub-cases as aclcts Cases: each tensor, its data rule, the format, the reference and the msopst facts.

Each sub-case becomes one Case run by the same executor and judge as a YAML case. Its reference is the case's golden
function (`calc_expect_func_file`), else aclcts' built-in reference of the op type, else none ("no numeric
reference": the case is executed and its shapes and error codes checked). What it was in msopst's terms travels on
the Case (`Case.msopst`), for st_report.json and `aclcts msopst convert`.
"""

from __future__ import annotations

import itertools
import os
import re
import zlib
from dataclasses import replace
from typing import Any

import numpy as np

from aclcts.cases.case import (DTYPE_BY_NAME, FORMAT_BY_NAME, STORAGE_FORMAT_BY_NAME, Case, MsopstInfo, Refusal,
                               TensorCase)
from aclcts.cases.msopst.draw import DRAW_PREFIX, FIXED, given_values, msopst_draw
from aclcts.cases.msopst.expand import expand_msopst_case
from aclcts.cases.msopst.fuzz import check_fuzz, fuzz_cases, is_fuzz_case
from aclcts.cases.msopst.golden import (MissingModule, callable_golden, fall_back, golden_reference, loaded_reference,
                                        no_reference, reference_spec)
from aclcts.cases.msopst.read import (DATA_TYPE_ATTR_NAMES, DEFAULT_SHAPE_RANGE, DEFAULT_THRESHOLD, EXPECTS,
                                      OMITTED_TYPES, TYPES, Where, check_case, is_pair_list, is_shape, read_msopst)
from aclcts.cases.msopst.record import record_policy_class, record_shape_rule
from aclcts.cases.schema import CaseFileError, shape_fits
from aclcts.core.dtypes import numpy_dtype
from aclcts.core.formats import (FORMAT_NAMES, FORMAT_VALUES, FRACTAL_ROWS, PRIVATE_ORIGINS, FormatError,
                                 blocked_unknown_dims, c0, described_tensor, is_private,
                                 runtime_origin_shape)
from aclcts.core.opmodel import Attr, canonical_attr
from aclcts.core.prototypes.random import POLICY as RANDOM_POLICY
from aclcts.reference import OP_TYPES, RefOp


def _concrete(shape_value: list[int], typical: Any) -> tuple[int, ...]:
    return tuple(typical) if any(d < 0 for d in shape_value) and is_shape(typical) else tuple(shape_value)


def _ranges(where: Where, field: str, tensor: dict) -> tuple[tuple[int, int], ...]:
    """One [min, max] per -1 dim: the tensor's shape_range (one pair per -1, or one per dim), else [1, -1] each."""
    dims = tensor["shape"]
    unknown = [i for i, d in enumerate(dims) if d == -1]
    if not unknown:
        return ()
    given = tensor.get("shape_range") or [list(DEFAULT_SHAPE_RANGE)]
    if not is_pair_list(given):
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


def _tensor(where: Where, field: str, tensor: dict, source: str, case_id: str,
            values: dict[str, dict], fmt: int) -> TensorCase:
    """One aclcts tensor of a sub-case; an input's data rule goes into values under its name."""
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
    storage, shape = _layout(where, field, tensor, fmt, dtype, dims)
    if storage is not None and is_private(storage) and field.startswith("input") and (
            "value" in tensor or "const_value" in tensor):
        raise where.error(f"{field}.value", f"drawn data for a {tensor['format']} input (aclcts draws it in its "
                                            f"origin layout)", show=False)
    concrete = concrete if dynamic else shape
    const = None
    if field.startswith("input"):
        np_dtype = numpy_dtype(dtype)
        flat = given_values(where, field, tensor, source, np_dtype, concrete)
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
    return TensorCase(name, dtype, shape, const, ranges, storage)


#: The origin format a private format's shape is read in when the tensor names no plain ori_format (msopst then
#: writes no origin and ATC takes the shape as the device shape): every stored element is data, nothing is padding.
AS_WRITTEN = {"NC1HWC0": "NCHW", "NDC1HWC0": "NCDHW", "FRACTAL_NZ": "ND"}


def _origin_name(tensor: dict) -> str:
    """The origin format of a tensor: its plain format, the ori_format a private format is made from, or with no
    plain ori_format the one its shape is read in (AS_WRITTEN, else ND as formats.described_tensor reads it)."""
    fmt = tensor["format"]
    if fmt not in PRIVATE_ORIGINS:
        return fmt
    origin = tensor.get("ori_format", fmt)
    return origin if origin in FORMAT_BY_NAME else AS_WRITTEN.get(fmt, "ND")


def _unpadded_origin(name: str, dims: tuple[int, ...], dtype: int) -> tuple[int, ...] | None:
    """The origin shape whose layout in private format name is exactly dims with no padding, or None when dims is no
    stored shape of that format (docs/formats.md: NC1HWC0 [N, C1, H, W, C0], NDC1HWC0 [N, D, C1, H, W, C0],
    FRACTAL_NZ [..., N1, M1, 16, N0])."""
    block = c0(numpy_dtype(dtype))
    if name == "NC1HWC0" and len(dims) == 5 and dims[4] == block:
        n, c1, h, w, _ = dims
        return n, c1 * block, h, w
    if name == "NDC1HWC0" and len(dims) == 6 and dims[5] == block:
        n, d, c1, h, w, _ = dims
        return n, c1 * block, d, h, w
    if name == "FRACTAL_NZ" and len(dims) >= 4 and dims[-2:] == (FRACTAL_ROWS, block):
        *batch, n1, m1, _, _ = dims
        return *batch, m1 * FRACTAL_ROWS, n1 * block
    return None


def _names_its_dims(tensor: dict) -> bool:
    """Whether a tensor's origin format names as many axes as its ori_shape has dims (true with no ori_format, or an
    ND one, or no ori_shape); a tensor whose ori_format does not is refused on its own in _layout."""
    origin, ori_shape = tensor.get("ori_format"), tensor.get("ori_shape")
    return origin not in FORMAT_BY_NAME or origin == "ND" or not ori_shape or len(origin) == len(ori_shape)


def _format(where: Where, params: dict) -> int:
    """The case's one origin format (aclcts keeps one per case): the origin of its NC1HWC0 / FRACTAL_Z / NDC1HWC0
    tensors (their blocks depend on the axis letters; a tensor whose ori_format cannot hold its ori_shape has no say),
    else its one plain format other than ND, else ND."""
    tensors = [t for t in params["input_desc"] if t["type"] not in OMITTED_TYPES] + params["output_desc"]
    for tensor in tensors:
        if tensor["format"] not in STORAGE_FORMAT_BY_NAME:
            raise where.error("format", "a format aclcts lays out (" + ", ".join(STORAGE_FORMAT_BY_NAME) + ")",
                              tensor["format"])
    lettered = {_origin_name(t) for t in tensors
                if t["format"] in PRIVATE_ORIGINS and t["format"] != "FRACTAL_NZ" and _names_its_dims(t)}
    plain = {t["format"] for t in tensors if t["format"] not in PRIVATE_ORIGINS} - {"ND"}
    for found in (lettered, plain):
        if len(found) > 1:
            raise where.error("ori_format", "one origin format for the case's tensors (aclcts keeps one per case)",
                              sorted(found))
        if found:
            return FORMAT_BY_NAME[next(iter(found))]
    return FORMAT_BY_NAME["ND"]


def _dynamic_refusal(where: Where, field: str, label: str, tensor: dict, ori_shape: tuple[int, ...],
                     dims: tuple[int, ...], dtype: int) -> CaseFileError | None:
    """The one-line refusal of a private-format tensor with -1 dims, saying why (docs/formats.md), or None when it
    runs: a -1 in an origin dim the format blocks cannot be given back by the stored dims msopst's runtime desc
    carries; a FRACTAL_NZ shape written as stored needs a runtime conversion aclcts does not have yet."""
    name = tensor["format"]
    origin = _origin_name(tensor)
    written = tensor.get("ori_format") not in FORMAT_BY_NAME and ori_shape == dims
    try:
        blocked = () if written else blocked_unknown_dims(ori_shape, FORMAT_VALUES[origin], FORMAT_VALUES[name],
                                                          numpy_dtype(dtype))
    except FormatError as exc:
        return where.error(f"{field}.format", f"a layout aclcts can make ({exc}) for {label} in {name}", show=False)
    if blocked:
        axes = ", ".join(origin[p] if len(origin) == len(ori_shape) else f"dim {p}" for p in blocked)
        return where.error(f"{field}.ori_shape", f"no -1 in an origin dim {name} divides into blocks for {label} "
                           f"({axes} of {origin}: msopst's runtime desc carries the stored dims only, which cannot "
                           "give it back; docs/formats.md)", list(ori_shape))
    if written:
        return where.error(f"{field}.format", f"a plain format in a dynamic case for {label} (aclcts does not yet "
                           "convert private formats at runtime shapes, though each -1 here is one stored dim as it "
                           "is; docs/formats.md)", name)
    return None


def _layout(where: Where, field: str, tensor: dict, fmt: int, dtype: int,
            dims: tuple[int, ...]) -> tuple[int | None, tuple[int, ...]]:
    """(storage format or None, shape in the case's format fmt) of a tensor given by format, ori_format, shape and
    ori_shape, as single-op JSON describes it (formats.described_tensor; docs/formats.md)."""
    name = tensor["format"]
    if FORMAT_VALUES[name] == fmt:
        return None, dims
    label = f"tensor {tensor['name']!r}" if "name" in tensor else "the tensor"
    ori_shape = tuple(tensor.get("ori_shape") or dims)
    refusal = _dynamic_refusal(where, field, label, tensor, ori_shape, dims, dtype) \
        if name in PRIVATE_ORIGINS and any(d < 0 for d in dims) else None
    if refusal is not None:
        raise refusal
    as_written = _unpadded_origin(name, dims, dtype) if tensor.get("ori_format") not in FORMAT_BY_NAME and \
        ori_shape == dims else None
    try:
        if as_written is not None:
            storage, shape = FORMAT_VALUES[name], as_written
        else:
            storage, _, shape = described_tensor(name, _origin_name(tensor), dims, ori_shape, numpy_dtype(dtype))
            storage = FORMAT_VALUES[name] if storage is None else storage
        TensorCase("", dtype, shape, storage_format=storage).stored(fmt)
    except FormatError as exc:
        if name not in PRIVATE_ORIGINS and "ND" in (name, FORMAT_NAMES[fmt]):
            return None, dims  # ND beside a plain format of another rank: described in the case's format
        raise where.error(f"{field}.format", f"a layout aclcts can make ({exc}) for {label} in {name}",
                          show=False) from None
    return storage, shape


def _runtime_shape(tensor: dict, made: TensorCase, fmt: int) -> tuple[int, ...]:
    """The origin shape (in the case's format fmt) a dynamic input runs at: its typical_shape, which a private-format
    tensor written in stored dims gives in stored dims too (docs/formats.md)."""
    concrete = tuple(_concrete(tensor["shape"], tensor.get("typical_shape")))
    if made.storage_format is None or tuple(tensor["shape"]) == made.shape:
        return concrete
    return runtime_origin_shape(concrete, made.shape, fmt, made.storage_format, made.np_dtype)


def _apart_from_inputs(inputs: tuple[TensorCase, ...], outputs: tuple[TensorCase, ...]) -> tuple[TensorCase, ...]:
    """The outputs, one named as an input (a ref output such as ScatterAdd's var, which msopst accepts) renamed
    `<name>_out` so a case's tensor names stay unique; the golden function still gets msopst's names."""
    taken = {t.name for t in inputs + outputs}
    renamed = []
    for tensor in outputs:
        if tensor.name in {t.name for t in inputs}:
            name = next(n for n in (f"{tensor.name}_out{i or ''}" for i in itertools.count()) if n not in taken)
            taken.add(name)
            tensor = replace(tensor, name=name)
        renamed.append(tensor)
    return tuple(renamed)


def _attr(where: Where, position: int, attr: dict) -> Attr:
    """One attr of a sub-case; a `data_type` value written as a dtype name ("int32") is that aclDataType, as msopst
    turns it into DT_INT32 for ATC."""
    value = attr["value"]
    if attr["type"] == "data_type" and isinstance(value, str):
        if value not in DATA_TYPE_ATTR_NAMES:
            raise where.error(f"attr[{position}].value", "a dtype name (" + ", ".join(DATA_TYPE_ATTR_NAMES) + ")",
                              value)
        value = DTYPE_BY_NAME[TYPES[value]]
    try:
        return canonical_attr(attr["name"], attr["type"], value)
    except ValueError as exc:
        raise where.error(f"attr[{position}]", f"an attr aclcts accepts ({exc})", show=False) from None


def _reference_of(case: dict, case_id: str, where: Where, params: dict, source: str,
                  out_shapes: list[tuple[int, ...]]) -> tuple[str, str, dict[str, str]]:
    """(reference spec for the Case, kind, the st_report fields naming the golden function)."""
    if "calc_expect_func_file" in case:
        spec = case["calc_expect_func_file"]
        try:
            path, func, found = callable_golden(where, params, source, spec)
        except MissingModule as missing:
            note = fall_back(missing, where, params["op"], params["op"] in OP_TYPES)
            return params["op"], "builtin-fallback", {"calc_expect_func_file": missing.path,
                                                      "calc_expect_func_file_func": spec.rpartition(":")[2],
                                                      "reference_note": note}
        ref = golden_reference(case_id, where, params, found, out_shapes, spec)
        return reference_spec("golden", source, case_id, ref), "golden", {
            "calc_expect_func_file": path, "calc_expect_func_file_func": func}
    if params["op"] in OP_TYPES:
        return params["op"], "builtin", {}
    return reference_spec("none", source, case_id, no_reference(case_id, params["op"], out_shapes)), "none", {}


#: The element kind of every dynamic msopst sub-case: at each drawn shape its values come from its own
#: data_distribute and value_range (msopst's default uniform [0.1, 1.0] where it gives none), the data msopst makes
#: for it and its golden function is written for; drawing over the whole float range instead runs the op past the
#: magnitudes where its documented compute order overflows (inf - inf), where a correct device fails too.
MSOPST_ELEMENTS = "values"


def to_case(case: dict, name: str, params: dict, source: str) -> Case:
    """The aclcts Case of one msopst sub-case."""
    where = Where(source, case["case_name"])
    for position, tensor in enumerate(params["output_desc"]):
        if tensor["type"] in OMITTED_TYPES:
            raise where.error(f"output_desc[{position}].type", "a data type (only an optional input may be left out)",
                              tensor["type"])
    fmt = _format(where, params)
    values: dict[str, dict] = {}
    given = [(i, t) for i, t in enumerate(params["input_desc"]) if t["type"] not in OMITTED_TYPES]
    omitted = tuple((i, t.get("name", f"input{i}")) for i, t in enumerate(params["input_desc"])
                    if t["type"] in OMITTED_TYPES)
    inputs = tuple(_tensor(where, f"input_desc[{i}]", t, source, name, values, fmt) for i, t in given)
    outputs = _apart_from_inputs(inputs, tuple(_tensor(where, f"output_desc[{i}]", t, source, name, values, fmt)
                                               for i, t in enumerate(params["output_desc"])))
    attrs = tuple(_attr(where, position, attr) for position, attr in enumerate(params.get("attr", [])))
    out_shapes = [_concrete(t["shape"], t.get("typical_shape")) if x.dynamic else x.shape
                  for t, x in zip(params["output_desc"], outputs)]
    spec, kind, golden_fields = _reference_of(case, name, where, params, source, out_shapes)
    if kind in ("builtin", "builtin-fallback") and omitted and given and omitted[0][0] < given[-1][0]:
        raise where.error(f"input_desc[{omitted[0][0]}].type", "an omitted optional input after every given one (the "
                                                               "built-in reference takes its inputs by position)",
                          "UNDEFINED")
    t, p = case.get("error_threshold", DEFAULT_THRESHOLD)
    runtime: tuple = ()
    if any(x.dynamic for x in inputs + outputs):
        runtime = (tuple(_runtime_shape(t_, x, fmt) for (_, t_), x in zip(given, inputs) if x.const is None),)
    expect = case.get("expect", "success")
    info = MsopstInfo(name, case["case_name"], expect, {**params, **golden_fields}, kind, (t, p))
    policy_class = record_policy_class(params["op"])
    # msopst's ratio compare sets one element beside another; a random op's values are judged as a sample of its
    # distribution instead, by the family's default policy (docs/precision-policy.md, "Random ops")
    precision = None if policy_class == RANDOM_POLICY else f"ratio:{t},{p}"
    return Case(name, params["op"], policy_class, source,
                f"msopst case {case['case_name']} ({os.path.basename(source)})", spec, inputs, outputs,
                attrs, ("execute_v2", "handle"), values, precision, fmt, "", runtime,
                record_shape_rule(params["op"]), MSOPST_ELEMENTS, (), expect,
                msopst=info, omitted=omitted)


def load_msopst_cases(source: str, namespace: str | None = None) -> list[Case]:
    """Read, check and expand one msopst case file into aclcts cases (one per msopst sub-case), each id prefixed by
    the file's namespace (its stem unless given): `<namespace>.<sub-case>`, as case names are unique within a file only.

    A problem of one case (a CaseFileError while checking, expanding or converting it) makes that case one refused
    Case and the others still load; a problem of the file (not JSON, not a list of cases, too many) makes the file
    one refused Case, named after it.
    """
    prefix = namespace or file_namespace(source)
    try:
        cases = read_msopst(source)
    except CaseFileError as exc:
        return [refused_case(prefix, "", _op_named(source), source, exc)]
    loaded: list[Case] = []
    for case in cases:
        try:
            where = Where(source, case["case_name"])
            check_fuzz(where, case) if is_fuzz_case(case) else check_case(where, case)
            subs = [to_case(concrete, name, params, source) for concrete, name, params in _sub_cases(case, source)]
        except CaseFileError as exc:
            op = case.get("op") if isinstance(case.get("op"), str) else ""
            name = case["case_name"].replace("/", "_")
            loaded.append(refused_case(prefix, name, op, source, exc, case.get("expect")))
            continue
        loaded += [replace(sub, id=f"{prefix}.{sub.id}") for sub in subs]
    return loaded


def _sub_cases(case: dict, source: str) -> list[tuple[dict, str, dict]]:
    """(concrete case, sub-case name, params) of each sub-case of a checked case; a fuzz case's drawn ones are
    checked as any case is, and must each be one sub-case (msopst: one alternative per field in a fuzz case)."""
    if not is_fuzz_case(case):
        return [(case, name, params) for name, params in expand_msopst_case(case)]
    where = Where(source, case["case_name"])
    result = []
    for name, concrete in fuzz_cases(where, case, source):
        check_case(where, concrete)
        expanded = expand_msopst_case(concrete)
        if len(expanded) != 1:
            raise where.error("fuzz_impl" if "fuzz_impl" in case else "input_desc",
                              f"one alternative per field in a fuzz case ({name} expands to {len(expanded)})",
                              show=False)
        params = {**expanded[0][1], "case_name": name}
        result.append((concrete, name, params))
    return result


def file_namespace(source: str) -> str:
    """The namespace of an msopst file's case ids: its file name without the .json suffix."""
    return os.path.splitext(os.path.basename(source))[0]


def refused_case(namespace: str, name: str, op: str, source: str, exc: CaseFileError, expect: Any = None) -> Case:
    """The Case of a case named name (or, with name "", of the whole file) that cannot run: its tests fail at exc's
    stage with exc's one line."""
    case_id = f"{namespace}.{name}" if name else namespace
    name = name or namespace
    expect = expect if expect in EXPECTS else "success"
    info = MsopstInfo(name, name, expect, {"op": op, "case_name": name}, "none", DEFAULT_THRESHOLD)
    return Case(case_id, op, record_policy_class(op) if op else "elementwise", source,
                f"msopst case {name} ({os.path.basename(source)})", "", (), (), (), ("execute_v2", "handle"), {},
                expect=expect, msopst=info, refusal=Refusal(exc.stage, str(exc)))


#: The first op type an msopst file's text names, for a file that cannot be read as cases.
_OP_TEXT = re.compile(r'"op"\s*:\s*"([^"]+)"')


def _op_named(source: str) -> str:
    """The first `"op": "..."` in a file's text ("" if none or unreadable)."""
    try:
        with open(source, "rb") as handle:
            found = _OP_TEXT.search(handle.read(1 << 16).decode("utf-8", "replace"))
    except OSError:
        return ""
    return found.group(1) if found else ""


def sub_case_reference(case_file: str, sub_case: str) -> RefOp:
    """The reference (golden function, or none) of one sub-case of an msopst file, for a converted case file's
    `reference: module:ATTR`; KeyError if the file has no such sub-case or it uses a built-in reference."""
    for case in load_msopst_cases(case_file):
        if case.id == sub_case and ":" in case.reference:
            return loaded_reference(case.reference.partition(":")[2])
    raise KeyError(f"{case_file}: no msopst sub-case {sub_case} with a golden function")
