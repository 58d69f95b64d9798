"""`aclcts msopst convert CASE.json -o FILE.yaml`: msopst case JSON written as aclcts case files (and `aclcts msopst
survey FOLDER`, aclcts.tools.msopst_survey).

Each msopst sub-case becomes one aclcts case file named after it (`name:` keeps msopst's sub-case name as the case
id, so the converted case draws from the same seed). A golden function (or the lack of any reference) is kept through
a small generated module next to the case files that the case files name as `reference: module:ATTR`. Input data are
carried exactly: a fixed `value` as `fixed: [...]`, or a .bin `value` copied beside the case file as
`file: <case>.<input>.bin`; a draw as `msopst_<data_distribute>: value_range` (a float uniform one as `uniform`, which
draws the same). The generated module reads a copy of the msopst file and of the files it names (golden functions,
fuzz_impl) kept in `<module>_source/` beside it, so the converted files can move. What a case file still cannot say (a fixed `value` of a dynamic input: a case file's fixed data has
one shape) is approximated by a uniform draw over its range, said in a comment of the converted file and on stderr, one
line per field, and the exit status is 1. `expect: "failed"` is carried as the case file's `expect` key.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from aclcts.cases import Case, CaseFileError
from aclcts.cases.case import TensorCase
from aclcts.cases.msopst import DRAW_PREFIX, FIXED, load_msopst_cases, read_msopst
from aclcts.core import usercode
from aclcts.core.files import write_atomically
from aclcts.core.formats import FORMAT_NAMES
from aclcts.core.outputs import OutputError, same_path, target_problem
from aclcts.tools import msopst_survey

PROG = "aclcts msopst"
HEADER = "# Converted by `aclcts msopst convert` from msopst case {file}, sub-case {name}.\n"


def _sub_case_name(case: Case) -> str:
    """The msopst sub-case name of a case (its id without the file's namespace), which names its case file."""
    return case.msopst.case_name if case.msopst is not None else case.id


def _data_file(case: Case, given: str) -> bytes:
    """The bytes of an msopst `value` .bin, relative to the msopst case file (the loader confined it to its folder)."""
    return Path(os.path.dirname(os.path.abspath(case.file)), given).read_bytes()


def _fixed(case: Case, tensor: TensorCase, given: Any, files: dict[str, bytes]) -> dict[str, Any]:
    """A fixed `value`'s kind: a .bin copied beside the case file as `file:`, a literal list as `fixed:` (complex
    values, which YAML cannot write, as a .bin of the input's dtype); the files to write go into files."""
    flat = case.values[tensor.name][FIXED]
    if isinstance(given, str):
        data = _data_file(case, given)
    elif tensor.np_dtype.kind == "c":
        data = np.asarray(flat, tensor.np_dtype).tobytes()
    else:
        return {"fixed": list(flat)}
    name = f"{_sub_case_name(case)}.{tensor.name}.bin"
    files[name] = data
    return {"file": name}


def _values(case: Case, notes: list[str], files: dict[str, bytes]) -> dict[str, Any]:
    """The case file's `values`: each input's data as msopst gives or draws it (a float uniform draw as the case file's
    own `uniform`, which draws the same); what a case file cannot carry, approximated with a note."""
    result: dict[str, Any] = {}
    described = case.msopst.op_params["input_desc"]
    for tensor, desc in zip(case.inputs, described):
        if tensor.const is not None:
            continue
        (kind, args), = case.values[tensor.name].items()
        if kind == FIXED and tensor.dynamic:
            low, high = float(min(args)), float(max(args))
            notes.append(f"{_sub_case_name(case)}: input {tensor.name}: a fixed value of a dynamic input (a case file's fixed data "
                         f"has one shape) is drawn uniform in [{low}, {high}] instead")
            result[tensor.name] = {"uniform": [low, high]}
        elif kind == FIXED:
            result[tensor.name] = _fixed(case, tensor, desc.get("value"), files)
        elif kind == DRAW_PREFIX + "uniform" and tensor.np_dtype.kind == "f":
            result[tensor.name] = {"uniform": [float(v) for v in args]}
        else:
            result[tensor.name] = {kind: [float(v) for v in args]}
    return result


def case_document(case: Case, reference: str, notes: list[str], files: dict[str, bytes]) -> dict[str, Any]:
    """The aclcts case file of one msopst sub-case, as a mapping in the keys' documented order; the data files it
    names (by name, beside it) go into files."""
    doc: dict[str, Any] = {
        "name": case.id, "op": case.op, "policy": case.family, "source": case.source, "reference": reference,
        "inputs": [t.name for t in case.inputs], "outputs": [t.name for t in case.outputs],
        "modes": list(case.modes), "dtypes": [{t.name: t.dtype_name for t in case.inputs + case.outputs}],
        "shapes": [{t.name: list(t.shape) for t in case.inputs + case.outputs}],
    }
    const = {t.name: list(t.const) for t in case.inputs if t.const is not None}
    if const:
        doc["const"] = const
    if case.attrs:
        doc["attrs"] = [{a.name: {"type": a.type, "value": v} for a, v in zip(case.attrs, case.attr_values().values())}]
    doc["values"] = _values(case, notes, files)
    doc["precision"] = case.precision
    doc["format"] = FORMAT_NAMES[case.format]
    stored = {t.name: FORMAT_NAMES[t.storage_format] for t in case.inputs + case.outputs
              if t.storage_format is not None}
    if stored:  # per-tensor storage formats made from the case's origin format (docs/formats.md, case files)
        doc["format"], doc["ori_format"] = stored, FORMAT_NAMES[case.format]
    if case.omitted:
        notes.append(f"{case.id}: omitted optional input(s) {', '.join(n for _, n in case.omitted)} left out of the "
                     "inputs (a case file has no undefined inputs; the model has fewer inputs)")
    if case.expect != "success":
        doc["expect"] = case.expect
    if case.dynamic:
        doc["shape_range"] = {t.name: [list(p) for p in t.shape_range] for t in case.inputs + case.outputs
                              if t.shape_range}
        doc["runtime_shapes"] = [[list(s) for s in shapes] for shapes in case.runtime_shapes]
        doc["shape_rule"] = case.shape_rule
        doc["elements"] = case.elements
    return doc


def _named_files(case: dict) -> list[str]:
    """The files an msopst case names relative to its case file: golden function, fuzz_impl and .bin values."""
    named = [case.get(key) for key in ("calc_expect_func_file", "fuzz_impl")]
    named = [spec.rpartition(":")[0] or spec for spec in named if isinstance(spec, str)]
    named += [t["value"] for t in case.get("input_desc", []) if isinstance(t, dict) and isinstance(t.get("value"), str)]
    return named


def _copy_source(source: str, into: Path) -> str:
    """Copy the msopst file (as <name>.msopst, which no --cases folder scan reads) and the files its cases name inside
    its folder into `into`, so that the converted files can move; the copy's name."""
    origin = Path(source).resolve().parent
    into.mkdir(parents=True, exist_ok=True)
    for name in dict.fromkeys(n for case in read_msopst(source) for n in _named_files(case)):
        found = (origin / name).resolve()
        if found.is_file() and found.is_relative_to(origin):
            (into / found.relative_to(origin)).parent.mkdir(parents=True, exist_ok=True)
            write_atomically(into / found.relative_to(origin), found.read_bytes())
    copy = f"{Path(source).stem}.msopst"
    write_atomically(into / copy, Path(source).read_bytes())
    return copy


def _module_name(source: str) -> str:
    stem = re.sub(r"\W", "_", Path(source).stem)
    return f"msopst_{stem}_references"


def convert(source: str, out: Path) -> tuple[list[str], int]:
    """Write the case files of an msopst file into out (a .yaml file for one sub-case, else a folder); the notes and
    how many case files were written."""
    cases = load_msopst_cases(source)
    refused = next((case.refusal for case in cases if case.refusal is not None), None)
    if refused is not None:
        raise CaseFileError(refused.reason)
    notes: list[str] = []
    single = out.suffix in (".yaml", ".yml") and len(cases) == 1
    folder = out.parent if single else out
    problem = target_problem(out, "file" if single else "folder")
    if problem:
        raise OutputError(f"-o {out}: {problem}")
    folder.mkdir(parents=True, exist_ok=True)
    module = _module_name(source)
    attrs: list[tuple[str, str]] = []
    for index, case in enumerate(cases):
        reference = case.reference
        if ":" in reference:
            attr = f"REFERENCE_{index:03d}"
            attrs.append((attr, case.id))
            reference = f"{module}:{attr}"
        case_notes: list[str] = []
        files: dict[str, bytes] = {}
        doc = case_document(case, reference, case_notes, files)
        for name, data in files.items():
            _write_new(folder / name, data, source)
        comments = "".join(f"# not exact: {note}\n" for note in case_notes)
        text = HEADER.format(file=os.path.basename(source), name=_sub_case_name(case)) + comments + yaml.safe_dump(
            doc, sort_keys=False, default_flow_style=None, width=120)
        notes += case_notes
        _write_new(out if single else folder / f"{_sub_case_name(case)}.yaml", text.encode(), source)
    if attrs:
        relative = _copy_source(source, folder / f"{module}_source")
        lines = [f'"""References of the case files converted from {os.path.basename(source)}: each sub-case\'s '
                 'golden function (or none), called as msopst calls it, from the copy of the msopst file and of the '
                 f'files it names in {module}_source/."""', "", "import os", "",
                 "from aclcts.cases.msopst import sub_case_reference", "",
                 f"SOURCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), {module + '_source'!r}, "
                 f"{relative!r})", ""]
        lines += [f"{attr} = sub_case_reference(SOURCE, {name!r})" for attr, name in attrs]
        _write_new(folder / f"{module}.py", ("\n".join(lines) + "\n").encode(), source)
    return notes, len(cases)


def _write_new(path: Path, data: bytes, source: str) -> None:
    """Write a converted file, never over the msopst case file; a file already holding exactly data (a value file
    converted into its own folder) is left as it is."""
    if same_path(path, Path(source)):
        raise OutputError(f"-o: {path} is the msopst case file being converted; expected another output folder")
    try:
        if path.is_file() and path.read_bytes() == data:
            return
    except OSError:
        pass
    write_atomically(path, data)


def parser() -> argparse.ArgumentParser:
    """The argument parser of `aclcts msopst`."""
    top = argparse.ArgumentParser(prog=PROG, description="Work with msopst case files.")
    actions = top.add_subparsers(dest="action", metavar="ACTION", required=True)
    conv = actions.add_parser("convert", help="write the aclcts case files of an msopst case JSON",
                              description="Write one aclcts case file per msopst sub-case (to FILE.yaml when there "
                                          "is one, else into the folder OUT); exit 1 if anything could not be "
                                          "carried over exactly (each said on stderr).")
    conv.add_argument("case_file", metavar="CASE.json")
    conv.add_argument("-o", "--output", required=True, metavar="OUT", help="FILE.yaml or a folder")
    msopst_survey.add_parser(actions)
    return top


def main(argv: list[str] | None = None) -> int:
    """Run `aclcts msopst`; convert: exit 0 converted exactly, 1 converted with notes, 2 usage error (survey:
    msopst_survey.main)."""
    try:
        args = parser().parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    if args.action == "survey":
        return msopst_survey.main(args, PROG)
    if not os.path.isfile(args.case_file):
        print(f"{PROG}: {args.case_file}: no such msopst case file", file=sys.stderr)
        return 2
    try:
        usercode.timeout()
    except ValueError as exc:  # ACLCTS_IMPORT_TIMEOUT is not a number of seconds
        print(f"{PROG}: {exc}", file=sys.stderr)
        return 2
    try:
        notes, written = convert(args.case_file, Path(args.output))
    except (CaseFileError, OutputError) as exc:
        print(f"{PROG}: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"{PROG}: -o {args.output}: {exc.strerror}", file=sys.stderr)
        return 2
    for note in notes:
        print(f"{PROG}: not exact: {note}", file=sys.stderr)
    print(f"{PROG}: wrote {written} case file(s) to {args.output}" + (f" ({len(notes)} not exact)" if notes else ""))
    return 1 if notes else 0
