"""A case ATC refuses, of the case library or dynamic, fails its own tests with the one-line reason and its stage, atc
(CaseRefused), serially and under -n 2, through the model cache too; every other case runs; with `expect: "failed"`
the refusal is the expected outcome (issue 34, scope 3)."""

from __future__ import annotations

import dataclasses
import json
import math
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from add_case import ADD_CASE

from aclcts.cases import load_cases
from aclcts.drive import model_cache, partial_models
from aclcts.atc import generate_singleop_json
from aclcts.core.opmodel import Attr
from aclcts.report.records import read_report

ROOT = Path(__file__).resolve().parents[2]
SOC = "Ascend910B1"
#: The tests that run a static case: execute_v2 and handle mode.
STATIC = ["conformance/test_execute.py", "conformance/test_handle.py"]
#: msopst cases: an Add the prototype accepts beside the two refusals the CANN tree holds (an ArgMaxD with a float32
#: output, a comparison op with an int8 output).
MSOPST_CASES = [
    {"case_name": "Test_Add_good", "op": "Add",
     "input_desc": [{"name": "x1", "format": "ND", "type": "float32", "shape": [4, 8]},
                    {"name": "x2", "format": "ND", "type": "float32", "shape": [4, 8]}],
     "output_desc": [{"name": "y", "format": "ND", "type": "float32", "shape": [4, 8]}]},
    {"case_name": "Test_Equal_int8", "op": "Equal",
     "input_desc": [{"name": "x1", "format": "ND", "type": "float32", "shape": [4, 8]},
                    {"name": "x2", "format": "ND", "type": "float32", "shape": [4, 8]}],
     "output_desc": [{"name": "y", "format": "ND", "type": "int8", "shape": [4, 8]}]},
    {"case_name": "Test_ArgMaxD_float32", "op": "ArgMaxD",
     "input_desc": [{"name": "x", "format": "ND", "type": "float32", "shape": [4, 8]}],
     "output_desc": [{"name": "y", "format": "ND", "type": "float32", "shape": [4]}],
     "attr": [{"name": "dimension", "type": "int", "value": 1}]},
]
GOOD, EQUAL, ARGMAX = ("Test_Add_good_case_001_ND_float32", "Test_Equal_int8_case_001_ND_int8",
                       "Test_ArgMaxD_float32_case_001_ND_float32")
#: A YAML Add case at 65536 x 65536 elements (above ATC's 2147483647 per tensor) beside ADD_CASE's [8, 16].
OVERSIZED = "Add-float32-65536x65536_65536x65536"
#: Two dynamic Add cases; the second has fixed dims whose product is above ATC's element limit.
DYNAMIC_CASE = """\
name: {name}
op: Add
modes: [execute_v2]
dtypes: [float32]
shapes:
  - {{x1: [-1, {dims}], x2: [-1, {dims}], y: [-1, {dims}]}}
shape_range:
  x1: [[1, 2]]
  x2: [[1, 2]]
  y: [[1, 2]]
shape_rule: broadcast
elements: full
runtime_shapes:
  - [[1, {dims}], [1, {dims}]]
"""


def run_suite(cases: Path, report: Path, *args: str) -> tuple[subprocess.CompletedProcess, dict[str, dict]]:
    """Run the conformance selection in args over the case files with --report; (process, records by test id)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_XDIST", "PYTEST_ADDOPTS"))}
    env.pop("PYTEST_CURRENT_TEST", None)
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly", *args,
               "--cases", str(cases), f"--report={report}"]
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600, check=False)
    return done, read_report(report).cases if report.exists() else {}


def outcomes(records: dict[str, dict], case_id: str) -> list[tuple[str, str]]:
    """(status, message) of every test of a case."""
    return [(r["status"], r["message"]) for test, r in records.items() if case_id in test.partition("[")[2]]


def assert_refused(records: dict[str, dict], case_id: str, stage: str, reason: str) -> None:
    """Every test of the case failed with CaseRefused naming the stage and the reason, and it has tests."""
    found = outcomes(records, case_id)
    assert found, f"no test ran {case_id}"
    for status, message in found:
        assert status == "failed" and f"CaseRefused: {stage}: " in message and reason in message, (status, message)


def assert_passed(records: dict[str, dict], case_id: str) -> None:
    found = outcomes(records, case_id)
    assert found and all(status == "passed" for status, _ in found), found


@pytest.fixture
def msopst_file(tmp_path: Path) -> Path:
    path = tmp_path / "cmp_case.json"
    path.write_text(json.dumps(MSOPST_CASES, indent=1))
    return path


@pytest.mark.slow
def test_an_msopst_case_the_prototype_refuses_fails_at_atc_and_the_others_run(msopst_file, tmp_path):
    done, records = run_suite(msopst_file, tmp_path / "report.jsonl", *STATIC, "-p", "no:xdist", "--model-cache=off")
    assert done.returncode == 1, done.stdout[-3000:] + done.stderr[-2000:]
    assert_passed(records, GOOD)
    assert_refused(records, EQUAL, "atc", "output_desc[0].type: \"int8\": Equal's y takes one of bool [E13014]")
    assert_refused(records, ARGMAX, "atc", "ArgMaxD's y takes one of int32")
    assert "compiling the case library" not in done.stdout + done.stderr


@pytest.mark.slow
def test_a_yaml_case_atc_refuses_fails_alone_under_xdist_through_the_model_cache(tmp_path):
    cases = tmp_path / "add.yaml"
    cases.write_text(ADD_CASE + "  - [[65536, 65536], [65536, 65536]]\n")
    cache = tmp_path / "cache"
    for run in ("compiles", "hits the cache"):
        done, records = run_suite(cases, tmp_path / f"{run}.jsonl", *STATIC, "-n", "2", f"--model-cache={cache}")
        assert done.returncode == 1, (run, done.stdout[-3000:] + done.stderr[-2000:])
        assert "compiling it again" not in done.stdout  # the entry, refusals and all, passes its index
        assert_passed(records, "Add-float32-8x16_8x16")
        assert_refused(records, OVERSIZED, "atc", "the product of the dimensions [65536, 65536] is 4294967296, "
                                                  "above the limit 2147483647 [E13014]")
    [entry] = [p for p in cache.iterdir() if (p / model_cache.MARKER).exists()]
    assert list(json.loads((entry / model_cache.REFUSALS).read_text()).values()) == [
        "input_desc[0].shape: the product of the dimensions [65536, 65536] is 4294967296, above the limit 2147483647 "
        "[E13014]"]


@pytest.mark.slow
def test_the_reproduce_line_of_a_refused_case_fails_it_the_same_way(msopst_file, tmp_path):
    done, records = run_suite(msopst_file, tmp_path / "report.jsonl", "conformance/test_execute.py", "-p",
                              "no:xdist", "--model-cache=off", "-k", "Equal")
    [(test, record)] = [(t, r) for t, r in records.items() if EQUAL in t]
    words = shlex.split(record["reproduce"])
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_XDIST", "PYTEST_ADDOPTS"))}
    while "=" in words[0] and words[0] != "pytest":  # the line's leading NAME=value environment settings
        name, _, value = words.pop(0).partition("=")
        env[name] = value
    assert words[0] == "pytest" and test in words
    again = subprocess.run([sys.executable, "-m", *words, "-q"], cwd=ROOT, env=env, capture_output=True, text=True,
                           timeout=600, check=False)
    assert again.returncode == 1 and "1 failed" in again.stdout, again.stdout[-3000:]
    assert "CaseRefused: atc: output_desc[0].type: \"int8\"" in again.stdout


@pytest.mark.slow
def test_a_refused_case_expected_to_fail_is_an_expected_failure_in_every_test(tmp_path):
    cases = [dict(case, expect="failed") if case["op"] == "Equal" else case for case in MSOPST_CASES[:2]]
    path = tmp_path / "expect_case.json"
    path.write_text(json.dumps(cases))
    done, records = run_suite(path, tmp_path / "report.jsonl", *STATIC, "conformance/test_perf.py", "-p",
                              "no:xdist", "--model-cache=off")
    assert done.returncode == 0, done.stdout[-3000:]
    assert_passed(records, GOOD)
    found = outcomes(records, EQUAL)
    assert len(found) == 3 and all(status == "xfailed" for status, _ in found), found


@pytest.mark.slow
def test_a_dynamic_case_whose_model_atc_refuses_fails_alone_at_atc(tmp_path):
    (tmp_path / "dyn_add_ok.yaml").write_text(DYNAMIC_CASE.format(name="dyn_add_ok", dims=16))
    (tmp_path / "dyn_add_big.yaml").write_text(DYNAMIC_CASE.format(name="dyn_add_big", dims="65536, 65536"))
    done, records = run_suite(tmp_path, tmp_path / "report.jsonl", "conformance/test_dynamic_shapes.py", "-n", "2",
                              "--model-cache=off")
    assert done.returncode == 1, done.stdout[-3000:] + done.stderr[-2000:]
    assert "compiling the dynamic models failed" not in done.stdout + done.stderr
    assert_passed(records, "dyn_add_ok")
    assert_refused(records, "dyn_add_big", "atc", "the product of the dimensions [-1, 65536, 65536] is 4294967296")
    assert not [r for r in records.values() if r["status"] == "error"]


@pytest.mark.slow
def test_an_op_type_without_prototype_is_refused_at_atc_in_its_static_and_dynamic_tests(tmp_path):
    unknown = [{"case_name": "Test_static", "op": "NoSuchOpXyz",
                "input_desc": [{"name": "x", "format": "ND", "type": "float32", "shape": [4, 8]}],
                "output_desc": [{"name": "y", "format": "ND", "type": "float32", "shape": [4, 8]}]},
               {"case_name": "Test_dynamic", "op": "NoSuchOpXyz",
                "input_desc": [{"name": "x", "format": "ND", "type": "float32", "shape": [-1, 8],
                                "shape_range": [[1, 4], [8, 8]], "typical_shape": [2, 8]}],
                "output_desc": [{"name": "y", "format": "ND", "type": "float32", "shape": [-1, 8],
                                 "shape_range": [[1, 4], [8, 8]], "typical_shape": [2, 8]}]}]
    path = tmp_path / "unknown_case.json"
    path.write_text(json.dumps(unknown))
    done, records = run_suite(path, tmp_path / "report.jsonl", *STATIC, "conformance/test_dynamic_shapes.py", "-p",
                              "no:xdist", "--model-cache=off")
    assert done.returncode == 1, done.stdout[-3000:] + done.stderr[-2000:]
    dynamic = [test for test in records if "test_dynamic_shapes.py" in test and "Test_dynamic" in test]
    assert dynamic and len(records) > len(dynamic), sorted(records)
    for case_id in ("Test_static", "Test_dynamic"):
        assert_refused(records, case_id, "atc", 'no prototype for op type "NoSuchOpXyz"')
    assert {r["stage"] for r in records.values()} == {"atc"}


def _case_file(folder: Path, text: str) -> Path:
    (folder / "add.yaml").write_text(text)
    return folder / "add.yaml"


def _elements(folder: Path, text: str) -> list[dict]:
    cases = load_cases([str(_case_file(folder, text))])
    return generate_singleop_json(list(dict.fromkeys(c.op_model(SOC) for c in cases)))


def test_a_clean_set_compiles_once_and_a_refused_element_is_named_by_position(tmp_path, monkeypatch):
    calls = []
    compile_elements = partial_models.compile_elements
    monkeypatch.setattr(partial_models, "compile_elements", lambda *a: calls.append(a[0]) or compile_elements(*a))
    clean = _elements(tmp_path, ADD_CASE)
    assert not partial_models.compile_accepted(clean, tmp_path / "clean", SOC).refused and len(calls) == 1
    mixed = _elements(tmp_path, ADD_CASE + "  - [[65536, 65536], [65536, 65536]]\n")
    compiled = partial_models.compile_accepted(mixed, tmp_path / "mixed", SOC)
    assert list(compiled.refused) == [1] and compiled.refused[1].startswith("input_desc[0].shape: the product")
    assert [p.name for p in compiled.folder.iterdir()] == [p.name for p in compiled.written] and len(compiled.written) == 1
    assert calls[-1] == [mixed[0]]


def test_a_problem_no_element_owns_is_a_shared_compile_error(tmp_path):
    with pytest.raises(partial_models.SharedCompileError, match="--soc_version: must not be empty"):
        partial_models.compile_accepted(_elements(tmp_path, ADD_CASE), tmp_path / "out", "")


def test_a_cache_entry_whose_refusals_were_modified_is_compiled_again(tmp_path):
    elements = _elements(tmp_path, ADD_CASE + "  - [[65536, 65536], [65536, 65536]]\n")
    calls = []

    def compile_into(elements: list[dict], out: Path, soc: str) -> Path:
        calls.append(out)
        compiled = partial_models.compile_accepted(elements, out, soc)
        model_cache.write_refusals(compiled.folder, compiled.refused)
        return compiled.folder

    models = model_cache.cached_models(elements, SOC, tmp_path / "cache", compile_into)
    assert list(model_cache.read_refusals(models)) == [1]
    (models.parent / model_cache.REFUSALS).write_text("{}")
    with pytest.warns(model_cache.ModelCacheWarning, match="refused.json does not match its index"):
        again = model_cache.cached_models(elements, SOC, tmp_path / "cache", compile_into)
    assert len(calls) == 2 and list(model_cache.read_refusals(again)) == [1]


def test_a_model_single_op_json_cannot_hold_is_named_and_the_others_are_written(tmp_path):
    [good] = [c.op_model(SOC) for c in load_cases([str(_case_file(tmp_path, ADD_CASE))])]
    bad = dataclasses.replace(good, attrs=(Attr("alpha", "float", math.nan),))
    elements, kept, unwritable = partial_models.writable_json([bad, good])
    assert kept == [good] and elements == generate_singleop_json([good])
    assert unwritable == {bad: "attr[0]: NaN and infinite floats cannot be written in JSON"}
    fuzzy, plain = dataclasses.replace(good, fuzzy=True), good
    with pytest.raises(partial_models.SharedCompileError, match="a non-fuzzy model cannot follow a fuzzy one"):
        partial_models.writable_json([fuzzy, plain])
