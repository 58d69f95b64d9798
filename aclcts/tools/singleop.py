"""`aclcts singleop`: the ATC single-op JSON for exactly the models the suite needs, and a case → model manifest."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from aclcts.judge import golden
from aclcts.atc import generate_singleop_json
from aclcts.cases import CaseFileError, load_cases
from aclcts.core.files import write_atomically
from aclcts.core.opmodel import OpModel, model_file_name

USAGE_EPILOG = """example on an NPU host:
  aclcts singleop cases golden -o build/op_list.json
  atc --singleop=build/op_list.json --output=build/op_models --soc_version=Ascend910B1
  pytest conformance/ --backend=npu --model-dir=build/op_models
"""


def suite_models(case_paths: list[str], golden_dir: str | None, soc: str) -> list[tuple[str, OpModel]]:
    """(case id, model) for every static case of the library and every golden case, in order."""
    cases = load_cases(case_paths)
    if golden_dir and (Path(golden_dir) / golden.DEFINITIONS).exists():
        cases += [g.case for g in golden.load_definitions(Path(golden_dir))]
    return [(case.id, case.op_model(soc)) for case in cases]


def dynamic_models(case_paths: list[str], soc: str) -> list[tuple[str, OpModel]]:
    """("dynamic-" + case id, model) for every dynamic-shape case (-1 dims or [-2]) of the library, in order."""
    return [(f"dynamic-{case.id}", case.op_model(soc)) for case in load_cases(case_paths, kind="dynamic")]


def build(case_paths: list[str], golden_dir: str | None, soc: str, kinds: str) -> tuple[list[dict], dict[str, str]]:
    """The JSON array (one element per distinct model) and the manifest case id → .om file name."""
    entries = []
    if kinds in ("all", "static"):
        entries += suite_models(case_paths, golden_dir, soc)
    if kinds in ("all", "dynamic"):
        entries += dynamic_models(case_paths, soc)
    distinct = list(dict.fromkeys(model for _, model in entries))
    index = {model: i for i, model in enumerate(distinct)}
    elements = generate_singleop_json(distinct)
    manifest = {case_id: model_file_name(index[model], model, None) for case_id, model in entries}
    return elements, manifest


def main(argv: list[str] | None = None) -> int:
    """Run `aclcts singleop`; 0 on success, 2 for bad arguments or case files."""
    parser = argparse.ArgumentParser(prog="aclcts singleop", epilog=USAGE_EPILOG,
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     description="Write the single-op JSON for the models the conformance suite needs.")
    parser.add_argument("cases", nargs="*", default=["cases"], help="case files or folders (default: cases)")
    parser.add_argument("-o", "--output", required=True, help="the single-op JSON file to write")
    parser.add_argument("--manifest", help="where to write the case → model manifest (default: OUTPUT.manifest.json)")
    parser.add_argument("--golden-dir", default="golden", help="golden folder whose cases are included (default: golden)")
    parser.add_argument("--soc", default="Ascend910B1", help="SoC recorded in the manifest (pass the same to atc)")
    kind = parser.add_mutually_exclusive_group()
    kind.add_argument("--static", dest="kinds", action="store_const", const="static", help="static models only")
    kind.add_argument("--dynamic", dest="kinds", action="store_const", const="dynamic",
                      help="dynamic models only (the cases with -1 dims or [-2])")
    args = parser.parse_args(argv)
    try:
        elements, manifest = build(args.cases, args.golden_dir, args.soc, args.kinds or "all")
    except CaseFileError as exc:
        print(f"aclcts singleop: error: {exc}", file=sys.stderr)
        return 2
    output = Path(args.output)
    output.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(output, (json.dumps(elements, indent=1) + "\n").encode("utf-8"))
    manifest_path = Path(args.manifest or f"{output}.manifest.json")
    document = {"soc_version": args.soc, "json": output.name, "models": manifest}
    write_atomically(manifest_path, (json.dumps(document, indent=1, sort_keys=True) + "\n").encode("utf-8"))
    print(f"wrote {len(elements)} operator(s) for {len(manifest)} case(s) to {output} (manifest {manifest_path})")
    print(f"next: atc --singleop={output} --output=op_models --soc_version={args.soc}")
    return 0
