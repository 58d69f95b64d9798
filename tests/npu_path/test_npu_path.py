"""The npu code path: JSON from `aclcts singleop`, models compiled from it, the suite run with --backend=npu."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from aclcts.cases import load_cases
from aclcts.cli import shim_dir

ROOT = Path(__file__).resolve().parents[2]


def aclcts_command(*args: str) -> subprocess.CompletedProcess:
    """Run the aclcts command line in a child process from the repository root."""
    return subprocess.run([sys.executable, "-m", "aclcts.cli", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=600)


@pytest.fixture(scope="module")
def compiled(tmp_path_factory):
    folder = tmp_path_factory.mktemp("npu-path")
    made = aclcts_command("singleop", "cases", "-o", str(folder / "op_list.json"))
    assert made.returncode == 0, made.stderr
    built = aclcts_command("atc", f"--singleop={folder / 'op_list.json'}", f"--output={folder / 'models'}",
                           "--soc_version=Ascend910B1")
    assert built.returncode == 0, built.stderr
    return folder


def test_every_case_in_the_manifest_has_a_model_compiled_from_the_generated_json(compiled):
    manifest = json.loads((compiled / "op_list.json.manifest.json").read_text())
    compiled_files = {p.name for p in (compiled / "models").iterdir()}
    assert manifest["models"] and set(manifest["models"].values()) <= compiled_files
    cases = {case_id for case_id in manifest["models"] if not case_id.startswith(("golden-", "dynamic-"))}
    assert len(cases) >= 1500


def test_the_manifest_names_every_dynamic_case_file_and_dynamic_only_json_holds_just_their_models(compiled, tmp_path):
    manifest = json.loads((compiled / "op_list.json.manifest.json").read_text())["models"]
    shipped = {f"dynamic-{case.id}" for case in load_cases([str(ROOT / "cases" / "dynamic")], kind="dynamic")}
    assert {case_id for case_id in manifest if case_id.startswith("dynamic-")} == shipped
    result = aclcts_command("singleop", "cases", "--dynamic", "-o", str(tmp_path / "dynamic.json"))
    assert result.returncode == 0, result.stderr
    elements = json.loads((tmp_path / "dynamic.json").read_text())
    assert len(elements) == len(shipped)
    assert all(any(d["shape"] == [-2] or -1 in d["shape"] for d in e["input_desc"] + e["output_desc"]) for e in elements)


def test_singleop_reports_a_broken_case_file_in_one_line(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("op: Add\n")
    result = aclcts_command("singleop", str(bad), "-o", str(tmp_path / "x.json"))
    assert result.returncode == 2
    assert "bad.yaml" in result.stderr and "Traceback" not in result.stderr


@pytest.mark.slow
def test_the_whole_suite_passes_through_the_npu_code_path_with_the_simulator_as_acl(compiled):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([shim_dir(), str(ROOT), os.environ.get("PYTHONPATH", "")]))
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "conformance", "-q", "-p", "no:cacheprovider", "-p", "no:xdist",
         "--backend=npu", f"--model-dir={compiled / 'models'}"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=1200,
    )
    tail = result.stdout[-2500:]
    assert result.returncode == 0, tail
    assert " passed" in tail
