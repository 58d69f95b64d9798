"""The npu code path: JSON from `aclcts singleop`, models compiled from it, the suite run with --backend=npu."""

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from family_ops import family_ops

from aclcts.cases import load_cases
from aclcts.cases.domains import shape_corner_cases
from aclcts.core.opmodel import OpModel
from aclcts.pytest_plugin.library import SUITE_MODEL_CASES
from aclcts.pytest_plugin.plugin import DEFAULT_SEED
from aclcts.report.records import FAILING, read_report
from aclcts.tools.singleop import library_cases

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
#: What the README's commands read from the repository (the rest of a checkout is not needed to run them).
CHECKOUT = ("cases", "golden", "conformance", "error-codes", "pytest.ini", "conftest.py")


def aclcts_command(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    """Run the aclcts command line in a child process (from the repository root unless told)."""
    return subprocess.run([sys.executable, "-m", "aclcts.cli", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=600)


def golden_names(folder: Path) -> set[str]:
    """The case names of a golden folder's definitions, read as plain YAML."""
    return {entry["name"] for entry in yaml.safe_load((folder / "definitions.yaml").read_text(encoding="utf-8"))}


def golden_ops(folder: Path) -> list[str]:
    """The op types of a golden folder's definitions, read as plain YAML, sorted."""
    return sorted({entry["op"] for entry in yaml.safe_load((folder / "definitions.yaml").read_text(encoding="utf-8"))})


#: The op types the compiled library is narrowed to (--ops): one per record family and those of the golden store, so
#: that every golden case is among them. Compiling is per case, and neither part grows with the case library.
SELECTED = list(dict.fromkeys(family_ops() + golden_ops(ROOT / "golden")))
OPS = f"--ops={','.join(SELECTED)}"


def models_in(folder: Path) -> set[OpModel]:
    """The op models stored in a folder's .om files."""
    return {OpModel.from_bytes(path.read_bytes()) for path in folder.glob("*.om")}


@pytest.fixture(scope="module")
def compiled(tmp_path_factory):
    folder = tmp_path_factory.mktemp("npu-path")
    made = aclcts_command("singleop", "cases", "golden", OPS, "-o", str(folder / "op_list.json"))
    assert made.returncode == 0, made.stderr
    built = aclcts_command("atc", f"--singleop={folder / 'op_list.json'}", f"--output={folder / 'models'}",
                           "--soc_version=Ascend910B1")
    assert built.returncode == 0, built.stderr
    return folder


def test_every_case_in_the_manifest_has_a_model_compiled_from_the_generated_json(compiled):
    manifest = json.loads((compiled / "op_list.json.manifest.json").read_text())
    compiled_files = {p.name for p in (compiled / "models").iterdir()}
    assert manifest["models"] and set(manifest["models"].values()) <= compiled_files
    # every selected op type's cases are among them, its default and generated domain cases included
    elements = json.loads((compiled / "op_list.json").read_text())
    assert {element["op"] for element in elements} >= set(SELECTED)
    assert any("-domain-" in case_id for case_id in manifest["models"])


def test_a_golden_folder_among_the_paths_adds_each_of_its_curated_cases_once(compiled, tmp_path):
    manifest = json.loads((compiled / "op_list.json.manifest.json").read_text())["models"]
    assert {case_id for case_id in manifest if case_id.startswith("golden-")} == \
        {f"golden-{name}" for name in golden_names(ROOT / "golden")}
    # ./golden is the default golden folder: naming it, or by --golden-dir, changes nothing (shown over one case file:
    # the golden folder's handling does not depend on the library's size).
    written = []
    for extra in (["golden"], [], ["--golden-dir", "golden"]):
        result = aclcts_command("singleop", "cases/elementwise/add.yaml", *extra, "-o", str(tmp_path / "again.json"))
        assert result.returncode == 0, result.stderr
        written.append((tmp_path / "again.json").read_bytes())
    assert written[0] == written[1] == written[2]
    named = json.loads((tmp_path / "again.json.manifest.json").read_text())["models"]
    assert {case_id for case_id in named if case_id.startswith("golden-")} == \
        {f"golden-{name}" for name in golden_names(ROOT / "golden")}
    alone = aclcts_command("singleop", "golden", "-o", str(tmp_path / "golden.json"))
    assert alone.returncode == 0, alone.stderr
    only = json.loads((tmp_path / "golden.json.manifest.json").read_text())["models"]
    assert set(only) == {f"golden-{name}" for name in golden_names(ROOT / "golden")}


def test_the_op_list_holds_exactly_the_models_the_suite_compiles_for_itself(tmp_path):
    made = aclcts_command("singleop", "cases", "golden", "--static", OPS, "-o", str(tmp_path / "op_list.json"))
    assert made.returncode == 0, made.stderr
    built = aclcts_command("atc", f"--singleop={tmp_path / 'op_list.json'}", f"--output={tmp_path / 'models'}",
                           "--soc_version=Ascend910B1")
    assert built.returncode == 0, built.stderr
    # The simulator run compiles its case library and golden cases into the model cache on its own (both narrowed by
    # the same --ops).
    run = subprocess.run([sys.executable, "-m", "pytest", "conformance/test_golden.py", "-q", "-p", "no:cacheprovider",
                          "-p", "no:xdist", OPS, f"--model-cache={tmp_path / 'cache'}"],
                         cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout[-2000:]
    [suite_models] = list((tmp_path / "cache").glob("*/models"))
    assert models_in(tmp_path / "models") == models_in(suite_models)


def test_golden_folders_defining_the_same_case_are_refused_naming_both(tmp_path):
    copy = tmp_path / "more_golden"
    copy.mkdir()
    shutil.copy(ROOT / "golden" / "definitions.yaml", copy)
    result = aclcts_command("singleop", "golden", str(copy), "-o", str(tmp_path / "x.json"))
    assert result.returncode == 2
    [line] = result.stderr.splitlines()
    assert str(copy / "definitions.yaml") in line and "golden/definitions.yaml" in line
    assert not (tmp_path / "x.json").exists()


def test_a_golden_dir_without_definitions_is_one_line_naming_it(tmp_path):
    # One case file: the library's size does not matter to a refused --golden-dir.
    result = aclcts_command("singleop", "cases/elementwise/add.yaml", "--golden-dir", str(tmp_path),
                            "-o", str(tmp_path / "x.json"))
    assert result.returncode == 2
    [line] = result.stderr.splitlines()
    assert str(tmp_path) in line and "definitions.yaml" in line


def test_an_unwritable_output_is_one_line_naming_it(tmp_path):
    (tmp_path / "file").write_text("")
    result = aclcts_command("singleop", "golden", "-o", str(tmp_path / "file" / "op_list.json"))
    assert result.returncode == 2
    [line] = result.stderr.splitlines()
    assert str(tmp_path / "file") in line and "Traceback" not in result.stderr


def test_the_manifest_names_every_dynamic_case_file_and_dynamic_only_json_holds_just_their_models(compiled, tmp_path):
    manifest = json.loads((compiled / "op_list.json.manifest.json").read_text())["models"]
    own = load_cases([str(ROOT / "cases" / "dynamic")], kind="dynamic")
    # the generated corners of the selected op types' cases (the rest of ./cases/dynamic runs without its corners)
    corners = shape_corner_cases([case for case in own if case.op in SELECTED], DEFAULT_SEED)
    assert corners
    # the library's own dynamic cases: a record's dynamic default case (sample_ranges) and its generated corners
    library = [case for case in library_cases([str(ROOT / "cases")], DEFAULT_SEED, SELECTED) if case.dynamic]
    assert library  # the selection holds a record's dynamic default case
    shipped = {f"dynamic-{case.id}" for case in own + corners + library}
    assert {case_id for case_id in manifest if case_id.startswith("dynamic-")} == shipped
    result = aclcts_command("singleop", "cases", "--dynamic", OPS, "-o", str(tmp_path / "dynamic.json"))
    assert result.returncode == 0, result.stderr
    elements = json.loads((tmp_path / "dynamic.json").read_text())
    # a bounds corner runs on its base case's model; every other dynamic case has its own
    assert len(elements) == len({case.id for case in own + corners + library if "-domain-bounds-" not in case.id})
    assert all(any(d["shape"] == [-2] or -1 in d["shape"] for d in e["input_desc"] + e["output_desc"]) for e in elements)


def test_an_ops_name_no_case_has_is_one_line_naming_it(tmp_path):
    result = aclcts_command("singleop", "cases", "golden", "--ops=Add,NoSuchOp", "-o", str(tmp_path / "x.json"))
    assert result.returncode == 2
    [line] = result.stderr.splitlines()
    assert "--ops" in line and "NoSuchOp" in line and "Add" not in line.split("expected")[0]
    assert not (tmp_path / "x.json").exists()


def test_singleop_reports_a_broken_case_file_in_one_line(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("op: Add\n")
    result = aclcts_command("singleop", str(bad), "-o", str(tmp_path / "x.json"))
    assert result.returncode == 2
    assert "bad.yaml" in result.stderr and "Traceback" not in result.stderr


def readme_blocks(heading: str) -> list[str]:
    """The ```sh blocks of one README section."""
    section = README.read_text(encoding="utf-8").split(f"\n{heading}\n", 1)[1].split("\n#", 1)[0]
    return re.findall(r"```sh\n(.*?)```", section, flags=re.S)


def npu_host_commands() -> tuple[list[str], str]:
    """README's "On an NPU host": the commands of its first block (without `source`), and its rehearsal block."""
    first, rehearsal = readme_blocks("### On an NPU host")
    commands = [line.split("#", 1)[0].strip() for line in first.splitlines()]
    return [c for c in commands if c and not c.startswith("source ")], rehearsal


def test_the_rehearsal_block_runs_exactly_the_npu_host_commands_under_the_simulator():
    commands, rehearsal = npu_host_commands()
    words = shlex.split(rehearsal)
    assert words[:6] == ["aclcts", "sim", "run", "--", "sh", "-c"] and len(words) == 7
    assert [" ".join(c.split()) for c in words[6].split("&&")] == commands
    assert [c.split()[0] for c in commands] == ["aclcts", "atc", "pytest"]


def step_test_library(folder: Path) -> None:
    """A case library of the step tests' own case files (SUITE_MODEL_CASES) and the suite's dynamic cases: the
    rehearsal's library, whose size does not grow with cases/."""
    for name in dict.fromkeys(name for name, _ in SUITE_MODEL_CASES):
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / "cases" / name, folder / name)
    (folder / "dynamic").symlink_to(ROOT / "cases" / "dynamic")


def test_the_readme_rehearsal_of_the_npu_host_commands_passes(tmp_path):
    """README's rehearsal block, run as written in a folder holding what it reads from the repository (a case library
    of the step tests' own case files)."""
    _, rehearsal = npu_host_commands()
    for name in CHECKOUT:
        if name != "cases":
            (tmp_path / name).symlink_to(ROOT / name)
    step_test_library(tmp_path / "cases")
    report = tmp_path / "run.jsonl"
    env = {name: value for name, value in os.environ.items() if not name.startswith("PYTEST_")}
    # The commands stay as written: the run report comes from PYTEST_ADDOPTS, and this interpreter's scripts
    # (aclcts, pytest) come first on PATH.
    env["PYTEST_ADDOPTS"] = f"-p no:cacheprovider --report={report}"
    env["PATH"] = os.pathsep.join([os.path.dirname(sys.executable), env.get("PATH", "")])
    for script in ("aclcts", "pytest"):
        assert shutil.which(script, path=env["PATH"]), f"the {script} command is not on PATH; pip install -e ."
    done = subprocess.run(["sh", "-c", rehearsal], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=1200)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert (tmp_path / "build" / "op_list.json").is_file() and any((tmp_path / "build" / "op_models").glob("*.om"))
    run = read_report(report)
    assert run.run["backend"] == "npu" and run.run["model_dir"] == "build/op_models"
    assert run.summary is not None and run.summary["exit_status"] == 0
    statuses = {case["status"] for case in run.cases.values()}
    assert statuses <= {"passed", "skipped"} and not statuses & set(FAILING)
    golden = {case_id: case["status"] for case_id, case in run.cases.items()
              if case_id.startswith("conformance/test_golden.py::")}
    assert len(golden) == len(golden_names(ROOT / "golden")) and set(golden.values()) == {"passed"}
    library = load_cases([str(tmp_path / "cases")], kind="all")
    executed = {case_id for case_id in run.cases if case_id.startswith("conformance/test_execute.py::")}
    assert {f"conformance/test_execute.py::test_execute_v2_matches_reference[{c.id}]" for c in library
            if not c.dynamic} <= executed
