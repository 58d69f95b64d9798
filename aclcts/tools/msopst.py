"""`aclcts msopst convert CASE.json -o FILE.yaml`: msopst case JSON written as aclcts case files.

Each msopst sub-case becomes one aclcts case file named after it (`name:` keeps msopst's sub-case name as the case
id). A golden function (or the lack of any reference) is kept through a small generated module next to the case files
that the case files name as `reference: module:ATTR`. What an aclcts case file cannot say exactly (msopst's beta,
laplace, triangular, relu, sigmoid, softmax and tanh draws, integer or bool draws, a fixed `value` of a non-constant
input: the case-file schema has no such distribution and no fixed-data kind) is approximated by the nearest case-file
distribution, said in a comment of the converted file and on stderr, one line per field, and the exit status is 1.
`expect: "failed"` is carried as the case file's `expect` key.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from pathlib import Path
from typing import Any

import yaml

from aclcts.cases import Case, CaseFileError
from aclcts.cases.case import FORMAT_BY_NAME
from aclcts.cases.msopst import DRAW_PREFIX, FIXED, load_msopst_cases
from aclcts.core.files import write_atomically

PROG = "aclcts msopst"
HEADER = "# Converted by `aclcts msopst convert` from msopst case {file}, sub-case {name}.\n"


def _values(case: Case, notes: list[str]) -> dict[str, Any]:
    """The case file's `values`: msopst's draws that aclcts draws identically, else the nearest, with a note."""
    result: dict[str, Any] = {}
    for tensor in case.inputs:
        if tensor.const is not None:
            continue
        if case.expect == "failed":
            notes.append(f"{case.id}: input {tensor.name}: expect \"failed\": drawn from the case-file defaults (a "
                         "case file's range is checked by computing its reference, which such a case may not have)")
            continue
        (kind, args), = case.values[tensor.name].items()
        exact_float = tensor.np_dtype.kind == "f"
        if kind == FIXED:
            low, high = float(min(args)), float(max(args))
            notes.append(f"{case.id}: input {tensor.name}: a fixed value (case files have no fixed-data kind) is drawn "
                         f"uniform in [{low}, {high}] instead")
            result[tensor.name] = {"uniform": [low, high]}
        elif kind == DRAW_PREFIX + "normal":
            result[tensor.name] = {"normal": [float(args[0]), abs(float(args[1])) + 1e-4]}
        else:
            if kind != DRAW_PREFIX + "uniform":
                notes.append(f"{case.id}: input {tensor.name}: data_distribute {kind[len(DRAW_PREFIX):]} (no such "
                             f"case-file distribution) is drawn uniform in {list(args)} instead")
            elif not exact_float:
                notes.append(f"{case.id}: input {tensor.name}: {tensor.dtype_name} uniform draws are aclcts' "
                             "(integers in the range), not msopst's truncated floats")
            result[tensor.name] = {"uniform": [float(v) for v in args]}
    return result


def case_document(case: Case, reference: str, notes: list[str]) -> dict[str, Any]:
    """The aclcts case file of one msopst sub-case, as a mapping in the keys' documented order."""
    doc: dict[str, Any] = {
        "name": case.id, "op": case.op, "family": case.family, "source": case.source, "reference": reference,
        "inputs": [t.name for t in case.inputs], "outputs": [t.name for t in case.outputs],
        "modes": list(case.modes), "dtypes": [{t.name: t.dtype_name for t in case.inputs + case.outputs}],
        "shapes": [{t.name: list(t.shape) for t in case.inputs + case.outputs}],
    }
    const = {t.name: list(t.const) for t in case.inputs if t.const is not None}
    if const:
        doc["const"] = const
    if case.attrs:
        doc["attrs"] = [{a.name: {"type": a.type, "value": v} for a, v in zip(case.attrs, case.attr_values().values())}]
    doc["values"] = _values(case, notes)
    doc["precision"] = case.precision
    doc["format"] = {v: k for k, v in FORMAT_BY_NAME.items()}[case.format]
    if case.expect != "success":
        doc["expect"] = case.expect
    if case.dynamic:
        doc["shape_range"] = {t.name: [list(p) for p in t.shape_range] for t in case.inputs + case.outputs
                              if t.shape_range}
        doc["runtime_shapes"] = [[list(s) for s in shapes] for shapes in case.runtime_shapes]
        doc["shape_rule"] = case.shape_rule
    return doc


def _module_name(source: str) -> str:
    stem = re.sub(r"\W", "_", Path(source).stem)
    return f"msopst_{stem}_references"


def convert(source: str, out: Path) -> list[str]:
    """Write the case files of an msopst file into out (a .yaml file for one sub-case, else a folder); the notes."""
    cases = load_msopst_cases(source)
    notes: list[str] = []
    single = out.suffix in (".yaml", ".yml") and len(cases) == 1
    folder = out.parent if single else out
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
        doc = case_document(case, reference, case_notes)
        comments = "".join(f"# not exact: {note}\n" for note in case_notes)
        text = HEADER.format(file=os.path.basename(source), name=case.id) + comments + yaml.safe_dump(
            doc, sort_keys=False, default_flow_style=None, width=120)
        notes += case_notes
        write_atomically(out if single else folder / f"{case.id}.yaml", text.encode())
    if attrs:
        relative = os.path.relpath(os.path.abspath(source), os.path.abspath(folder))
        lines = [f'"""References of the case files converted from {os.path.basename(source)}: each sub-case\'s '
                 'golden function (or none), called as msopst calls it."""', "", "import os", "",
                 "from aclcts.cases.msopst import sub_case_reference", "",
                 f"SOURCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), {relative!r})", ""]
        lines += [f"{attr} = sub_case_reference(SOURCE, {name!r})" for attr, name in attrs]
        write_atomically(folder / f"{module}.py", ("\n".join(lines) + "\n").encode())
    return notes


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
    return top


def main(argv: list[str] | None = None) -> int:
    """Run `aclcts msopst`; exit 0 converted exactly, 1 converted with notes, 2 usage error."""
    try:
        args = parser().parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    if not os.path.isfile(args.case_file):
        print(f"{PROG}: {args.case_file}: no such msopst case file", file=sys.stderr)
        return 2
    try:
        notes = convert(args.case_file, Path(args.output))
    except CaseFileError as exc:
        print(f"{PROG}: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"{PROG}: -o {args.output}: {exc.strerror}", file=sys.stderr)
        return 2
    for note in notes:
        print(f"{PROG}: not exact: {note}", file=sys.stderr)
    return 1 if notes else 0
