"""`aclcts singleop`: the ATC single-op JSON for exactly the models the suite needs, and a case → model manifest."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Collection
from pathlib import Path

from aclcts.judge import golden
from aclcts.atc import generate_singleop_json
from aclcts.cases import CaseFileError, load_cases
from aclcts.cases.case import Case
from aclcts.cases.assemble import case_library
from aclcts.cases.defaults import SHIPPED_CASES
from aclcts.core.constants import DEFAULT_SEED
from aclcts.core.files import write_atomically
from aclcts.core.opmodel import OpModel, model_file_name
from aclcts.pytest_plugin.library import suite_model_cases

PROG = "aclcts singleop"
DEFAULT_GOLDEN = "golden"
#: The repository's case library: the models conformance/'s step tests execute and its dynamic/ cases, which
#: `pytest conformance/` runs without --cases, or with --with-step-tests.
REPOSITORY_CASES = "cases"
USAGE_EPILOG = f"""A PATH that is a golden folder (one holding {golden.DEFINITIONS}) adds its curated cases;
any other PATH is a case file or a folder of them (a custom operator's folder adds the default cases of
its record, op_proto/aclcts/<OpType>.json, when no case file runs its op). Without a golden folder among the PATHs
or --golden-dir, ./{DEFAULT_GOLDEN} is used when it has {golden.DEFINITIONS}, as `pytest conformance/` does.
With case PATHs, the models also include those `pytest conformance/ --cases PATH
--with-step-tests` needs whatever the PATHs select: the step tests' own (Add int32 [8, 16] and the like) and the
dynamic cases of ./{REPOSITORY_CASES}/dynamic.

example on an NPU host:
  aclcts singleop cases golden -o build/op_list.json
  atc --singleop=build/op_list.json --output=build/op_models --soc_version=Ascend910B1
  pytest conformance/ --backend=npu --model-dir=build/op_models

the same commands rehearsed on the simulator (`import acl` and `atc` are the simulator's):
  aclcts sim run -- sh -c 'aclcts singleop cases golden -o build/op_list.json &&
      atc --singleop=build/op_list.json --output=build/op_models --soc_version=Ascend910B1 &&
      pytest conformance/ --backend=npu --model-dir=build/op_models'

exit status: 0 written, 2 usage error or a bad case file, golden definitions file or output path
"""


def is_golden_folder(path: str) -> bool:
    """Whether path is a golden folder: a folder holding the golden store's definitions file."""
    return (Path(path) / golden.DEFINITIONS).is_file()


def split_paths(paths: list[str], golden_dir: str | None) -> tuple[list[str], list[Path]]:
    """The case paths and the golden folders (distinct, in order) named by the command line's PATHs and --golden-dir."""
    case_paths = [p for p in paths if not is_golden_folder(p)]
    named = [p for p in paths if is_golden_folder(p)] + ([golden_dir] if golden_dir else [])
    if not named and is_golden_folder(DEFAULT_GOLDEN):
        named = [DEFAULT_GOLDEN]
    folders = {os.path.realpath(p): Path(p) for p in reversed(named)}
    return case_paths, list(reversed(folders.values()))


def golden_models(folders: list[Path], soc: str, ops: Collection[str] = ()) -> list[tuple[str, OpModel]]:
    """(case id, model) for every curated case of the golden folders (of the op types in ops, when given);
    CaseFileError for a name defined twice."""
    owner: dict[str, Path] = {}
    models = []
    for folder in folders:
        if not is_golden_folder(str(folder)):
            raise CaseFileError(f"{folder}: not a golden folder; expected a folder holding {golden.DEFINITIONS}")
        for curated in golden.load_definitions(folder):
            if curated.case.id in owner:
                raise CaseFileError(f"{folder / golden.DEFINITIONS}: golden case {curated.name} is also defined in "
                                    f"{owner[curated.case.id] / golden.DEFINITIONS}")
            owner[curated.case.id] = folder
            if not ops or curated.case.op in ops:
                models.append((curated.case.id, curated.case.op_model(soc)))
    return models


def golden_ops(folders: list[Path]) -> set[str]:
    """The op types of the curated cases of those folders that are golden folders."""
    return {curated.case.op for folder in folders if is_golden_folder(str(folder))
            for curated in golden.load_definitions(folder)}


def is_shipped(case_paths: list[str]) -> bool:
    """Whether the case paths hold the shipped library (./cases), which `pytest conformance/` runs without --cases."""
    return any(Path(path).resolve() == SHIPPED_CASES for path in case_paths)


def library_cases(case_paths: list[str], seed: int, ops: Collection[str] = ()) -> list[Case]:
    """Every case a run of the case paths holds (with --ops, of those op types), as `pytest conformance/` assembles it
    (case_library; for the shipped library with the records' default cases and the cases generated from their
    domains, drawn with seed as pytest's --aclcts-seed); a refused case (Case.refusal), whose tests fail before any
    model is needed, is left out."""
    return [case for case in case_library(case_paths, seed, shipped=is_shipped(case_paths), ops=ops or None)
            if case.refusal is None]


def suite_models(library: list[Case], golden_folders: list[Path], soc: str,
                 ops: Collection[str] = ()) -> list[tuple[str, OpModel]]:
    """(case id, model) for every static case of the library (library_cases), every golden case (of the op types in
    ops, when given) and, with a library, every case of the step tests' own models (./cases's SUITE_MODEL_CASES) not
    among them, in order."""
    static = [(case.id, case.op_model(soc)) for case in library if not case.dynamic]
    entries = static + golden_models(golden_folders, soc, ops)
    named = {case_id for case_id, _ in entries}
    steps = suite_model_cases(Path(REPOSITORY_CASES)) if library else []
    return entries + [(case.id, case.op_model(soc)) for case in steps if case.id not in named]


def dynamic_models(library: list[Case], soc: str) -> list[tuple[str, OpModel]]:
    """("dynamic-" + case id, model) for every dynamic-shape case (-1 dims or [-2]) of the library (library_cases) and,
    with a library, of ./cases/dynamic, which `pytest conformance/` runs without --cases or with --with-step-tests, in
    order."""
    if not library:
        return []
    shipped = Path(REPOSITORY_CASES) / "dynamic"
    cases = [case for case in library if case.dynamic]
    cases += load_cases([str(shipped)], kind="dynamic") if shipped.is_dir() else []
    return [(f"dynamic-{case.id}", case.op_model(soc)) for case in {case.id: case for case in cases}.values()]


def build(case_paths: list[str], golden_folders: list[Path], soc: str,
          kinds: str, seed: int = DEFAULT_SEED, ops: Collection[str] = ()) -> tuple[list[dict], dict[str, str]]:
    """The JSON array (one element per distinct model) and the manifest case id → .om file name (with ops, of those
    op types' cases, as `pytest conformance/ --ops` runs them); CaseFileError for an op type no case has."""
    library = library_cases(case_paths, seed, ops) if case_paths else []
    unknown = sorted(set(ops) - {case.op for case in library} - golden_ops(golden_folders)) if ops else []
    if unknown:
        raise CaseFileError(f"--ops: no case of op type {', '.join(unknown)} in the case library or the golden "
                            "folders; expected op types as the case files name them, e.g. --ops=Add,MatMul")
    entries = []
    if kinds in ("all", "static"):
        entries += suite_models(library, golden_folders, soc, ops)
    if kinds in ("all", "dynamic"):
        entries += dynamic_models(library, soc)
    distinct = list(dict.fromkeys(model for _, model in entries))
    index = {model: i for i, model in enumerate(distinct)}
    elements = generate_singleop_json(distinct)
    manifest = {case_id: model_file_name(index[model], model, None) for case_id, model in entries}
    return elements, manifest


def parser() -> argparse.ArgumentParser:
    """The command line of `aclcts singleop`."""
    described = argparse.ArgumentParser(
        prog=PROG, epilog=USAGE_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Write the single-op JSON of exactly the op models the conformance suite needs, for CANN's\n"
                    "ATC (atc --singleop), and a manifest naming each case's model file.")
    described.add_argument("paths", nargs="*", default=["cases"], metavar="PATH",
                           help="case files or folders, and golden folders (default: cases)")
    described.add_argument("-o", "--output", required=True, help="the single-op JSON file to write")
    described.add_argument("--manifest",
                           help="where to write the case → model manifest (default: OUTPUT.manifest.json)")
    described.add_argument("--golden-dir", help="a golden folder whose cases are included "
                                                f"(default: ./{DEFAULT_GOLDEN} unless a PATH is a golden folder)")
    described.add_argument("--soc", default="Ascend910B1", help="SoC recorded in the manifest (pass the same to atc)")
    described.add_argument("--aclcts-seed", type=int, default=DEFAULT_SEED,
                           help=f"the session seed the pytest run will use (default {DEFAULT_SEED}); the shipped "
                                "library's generated domain cases are the ones valid for it")
    described.add_argument("--ops", type=lambda text: [op.strip() for op in text.split(",") if op.strip()], default=[],
                           help="only the models of these op types' cases (comma-separated), as `pytest conformance/ "
                                "--ops` runs them: the step tests' own models and ./cases/dynamic stay")
    kind = described.add_mutually_exclusive_group()
    kind.add_argument("--static", dest="kinds", action="store_const", const="static",
                      help="static models only (the case library's and the golden cases')")
    kind.add_argument("--dynamic", dest="kinds", action="store_const", const="dynamic",
                      help="dynamic models only (the cases with -1 dims or [-2])")
    return described


def main(argv: list[str] | None = None) -> int:
    """Run `aclcts singleop`; 0 on success, 2 for bad arguments, case files, golden definitions or output paths."""
    args = parser().parse_args(sys.argv[1:] if argv is None else argv)
    case_paths, golden_folders = split_paths(args.paths, args.golden_dir)
    try:
        elements, manifest = build(case_paths, golden_folders, args.soc, args.kinds or "all", args.aclcts_seed,
                                   args.ops)
    except CaseFileError as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return 2
    output = Path(args.output)
    manifest_path = Path(args.manifest or f"{output}.manifest.json")
    document = {"soc_version": args.soc, "json": output.name, "models": manifest}
    try:
        output.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(output, (json.dumps(elements, indent=1) + "\n").encode("utf-8"))
        manifest_path.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(manifest_path, (json.dumps(document, indent=1, sort_keys=True) + "\n").encode("utf-8"))
    except OSError as exc:
        print(f"{PROG}: error: {exc.filename or output}: cannot write ({exc.strerror})", file=sys.stderr)
        return 2
    print(f"wrote {len(elements)} operator(s) for {len(manifest)} case(s) to {output} (manifest {manifest_path})")
    print(f"next: atc --singleop={output} --output={output.parent / 'op_models'} --soc_version={args.soc}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
