"""msopst case files run by the suite (`--cases FILE.json`, `--st-report`, `aclcts msopst convert`): outcomes, golden
functions, st_report.json, conversion."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from aclcts.report.records import read_report
from aclcts.tools.msopst import main as msopst_main

ROOT = Path(__file__).resolve().parents[2]
DATA = Path(__file__).parent / "data"
#: The tests that run a case and compare it, for the msopst example cases only (the shipped dynamic cases left out;
#: -k is case-insensitive, so the selection uses a part of msopst's sub-case names no test function has).
SELECTION = ["conformance/test_execute.py", "conformance/test_handle.py", "conformance/test_dynamic_shapes.py",
             "-k", "(matches_reference or matches_the_reference) and _case_0"]
EXPECTED_FAILURE = "Test_Add_mismatched_shapes_case_001_ND_float32"
#: The attr-carrying sub-cases (ReduceSumD, axes and keep_dims given to the golden function).
#: The fuzz sub-cases: two hypothesis draws (Relu) and two fuzz_impl calls (Add).
FUZZED = ["Test_Relu_fuzz_fuzz_case_001_ND_float32", "Test_Relu_fuzz_fuzz_case_002_ND_float32",
          "Test_Add_fuzz_impl_fuzz_case_001_ND_float32", "Test_Add_fuzz_impl_fuzz_case_002_ND_float32"]
REDUCE = [f"Test_ReduceSumD_001_sub_case_00{i}_ND_{t}" for i, t in zip(range(1, 5), ["float32", "float16"] * 2)]
#: Sub-cases whose data `aclcts msopst convert` cannot carry (a case file has no fixed-data kind and none of msopst's
#: triangular/tanh draws): their outcomes are compared, their metrics (of other data) are not.
APPROXIMATED = ["Test_Add_bin_case_001_ND_float32", "Test_Relu_builtin_case_001_ND_float16",
                "Test_Relu_fuzz_fuzz_case_002_ND_float32"]


def run_suite(cases: Path, out: Path, *selection: str) -> tuple[subprocess.CompletedProcess, dict, dict]:
    """Run the selection on the case files with --report and --st-report; (process, cases by test id, st_report)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_XDIST", "PYTEST_ADDOPTS"))}
    env.pop("PYTEST_CURRENT_TEST", None)
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly", "-p", "no:xdist",
               *(selection or SELECTION), "--cases", str(cases), "--model-cache=off",
               f"--report={out / 'report.jsonl'}", f"--st-report={out / 'st_report.json'}"]
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600, check=False)
    report = read_report(out / "report.jsonl")
    st = json.loads((out / "st_report.json").read_text())
    return done, report.cases, st


def case_of(test_id: str) -> str:
    """The case id in a test id's brackets (without a dynamic test's runtime-shape suffix)."""
    return test_id.partition("[")[2].rstrip("]").split("-")[0]


@pytest.fixture(scope="module")
def msopst_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("msopst-run")
    return run_suite(DATA, out)


def test_every_msopst_case_runs_with_its_expected_outcome(msopst_run):
    done, cases, _ = msopst_run
    assert done.returncode == 0, done.stdout[-3000:]
    statuses: dict[str, set[str]] = {}
    for test_id, record in cases.items():
        statuses.setdefault(case_of(test_id), set()).add(record["status"])
    assert statuses.pop(EXPECTED_FAILURE) == {"xfailed"}
    assert len(statuses) == 16 and all(s == {"passed"} for s in statuses.values()), statuses
    assert all(len([t for t in cases if case_of(t) == name]) == 2 for name in FUZZED)  # both modes ran each
    for name in REDUCE:  # the golden function reduced by the attrs: the output shapes keep the reduced dim
        runs = [r for t, r in cases.items() if case_of(t) == name]
        assert len(runs) == 2 and all(r["metrics"]["y[0]"]["params"] == {"t": 0.005, "p": 0.0} for r in runs)
    dynamic = [t for t in cases if "test_dynamic_shapes" in t and "Test_Add_dynamic" in t]
    assert len(dynamic) == 2  # hypothesis shapes inside shape_range, and the typical_shape


def test_the_ratio_policy_of_error_threshold_is_what_judged_them(msopst_run):
    _, cases, _ = msopst_run
    const = next(r for t, r in cases.items() if "test_execute.py" in t and "Test_Add_const" in t)
    assert const["metrics"]["y[0]"]["policy"] == "ratio"
    assert const["metrics"]["y[0]"]["params"] == {"t": 0.001, "p": 0.0}
    for key in ("max_abs", "max_rel", "max_ulp", "mare", "mere", "rmse", "mismatch_ratio"):
        assert key in const["metrics"]["y[0]"]  # every other aclcts metric is still recorded


def test_st_report_has_msopst_layout_field_by_field(msopst_run):
    _, _, st = msopst_run
    assert set(st) == {"run_cmd", "report_list", "summary"}
    assert "--st-report=" in st["run_cmd"]
    assert st["summary"] == {"test case count": 17, "success count": 17, "failed count": 0}
    entries = {e["case_name"]: e for e in st["report_list"]}
    entry = entries["Test_Add_001_sub_case_001_ND_float16"]
    assert set(entry) == {"case_name", "status", "expect", "trace_detail"}
    assert (entry["status"], entry["expect"]) == ("success", "success")
    info = entry["trace_detail"]["st_case_info"]
    assert {"case_name", "op_params", "input_data_path", "expect_data_paths", "planned_output_data_paths"} <= set(info)
    params = info["op_params"]
    assert params["op"] == "Add" and params["case_name"] == "Test_Add_001_sub_case_001_ND_float16"
    assert params["input_desc"][0] == {"format": "ND", "ori_format": "ND", "shape": [8, 16], "ori_shape": [8, 16],
                                       "type": "float16", "data_distribute": "uniform", "value_range": [-1.0, 1.0],
                                       "name": "x1"}
    assert Path(params["calc_expect_func_file"]).name == "add_golden.py"
    assert params["calc_expect_func_file_func"] == "calc_expect_func"
    stages = entry["trace_detail"]["stage_result"]
    assert all(set(s) == {"status", "result", "stage_name", "cmd"} for s in stages)
    assert [s["stage_name"] for s in stages] == ["atc_single_op_convert", "run_acl_code", "compare_data",
                                                  "run_acl_code", "compare_data"]
    compare = stages[2]["result"]["y[0]"]
    assert compare["policy"] == "ratio" and compare["passed"] is True and compare["mismatch_ratio"] == 0.0
    failed = entries[EXPECTED_FAILURE]
    assert (failed["status"], failed["expect"]) == ("failed", "failed")
    assert any("507015" in str(s["result"]) for s in failed["trace_detail"]["stage_result"])


def _with_golden(tmp_path: Path, function: str) -> Path:
    """A copy of the example Add file whose Test_Add_001 uses the golden function named."""
    folder = tmp_path / "cases"
    folder.mkdir()
    for name in ("add_case.json", "add_golden.py", "add_x1_3x4_float32.bin"):
        shutil.copy(DATA / name, folder / name)
    cases = json.loads((folder / "add_case.json").read_text())
    for case in cases:
        if case.get("case_name") == "Test_Add_001":
            case["calc_expect_func_file"] = f"add_golden.py:{function}"
    (folder / "add_case.json").write_text(json.dumps(cases))
    return folder


def test_a_golden_function_off_by_a_factor_fails_its_cases_and_the_right_one_passes(tmp_path):
    selection = ("conformance/test_execute.py", "-k", "Test_Add_001")
    done, cases, st = run_suite(_with_golden(tmp_path, "calc_expect_func_doubled"), tmp_path, *selection)
    assert done.returncode == 1
    assert [r["status"] for r in cases.values()] == ["failed", "failed"]
    assert all("fails policy ratio" in r["message"] or "differs from the reference" in r["message"]
               for r in cases.values())
    assert st["summary"] == {"test case count": 2, "success count": 0, "failed count": 2}
    stage = st["report_list"][0]["trace_detail"]["stage_result"][-1]
    assert stage["stage_name"] == "compare_data" and stage["status"] == "failed"
    right = tmp_path / "right"
    right.mkdir()
    done, cases, st = run_suite(_with_golden(right, "calc_expect_func"), right, *selection)
    assert done.returncode == 0 and [r["status"] for r in cases.values()] == ["passed", "passed"]


def test_a_golden_function_that_raises_fails_its_cases_in_one_line_without_a_traceback(tmp_path):
    selection = ("conformance/test_execute.py", "-k", "Test_Add_001")
    done, cases, st = run_suite(_with_golden(tmp_path, "calc_expect_func_raises"), tmp_path, *selection)
    assert done.returncode == 1 and [r["status"] for r in cases.values()] == ["failed", "failed"]
    said = ("calc_expect_func_file add_golden.py:calc_expect_func_raises raised ValueError: "
            "this golden function always fails")
    lines = [line for line in done.stdout.splitlines() if said in line]
    assert len(lines) == 2 and all(line.startswith("GoldenError: ") and "add_case.json: case Test_Add_001_sub_case_00"
                                   in line for line in lines), done.stdout
    for frame in ("msopst.py:", "decorator.py:", "def call(", "raise GoldenError", "func(**kwargs)"):
        assert frame not in done.stdout, frame
    assert all(said in r["message"] for r in cases.values())
    assert all(e["trace_detail"]["stage_result"][-1]["stage_name"] == "compare_data" and
               e["trace_detail"]["stage_result"][-1]["status"] == "failed" for e in st["report_list"])


def test_a_case_without_golden_or_builtin_reference_says_no_numeric_reference(tmp_path):
    folder = tmp_path / "cases"
    folder.mkdir()
    (folder / "reduce_case.json").write_text(json.dumps([{
        "case_name": "Test_ReduceSumD_no_golden", "op": "ReduceSumD",
        "input_desc": [{"name": "x", "format": "ND", "type": "float32", "shape": [4, 8]}],
        "output_desc": [{"name": "y", "format": "ND", "type": "float32", "shape": [4]}],
        "attr": [{"name": "axes", "type": "list_int", "value": [1]}]}]))
    done, cases, st = run_suite(folder, tmp_path, "conformance/test_execute.py", "-k", "_case_0")
    (record,) = cases.values()
    assert record["status"] == "skipped" and "no numeric reference" in record["message"]
    (entry,) = st["report_list"]
    assert entry["status"] == "success"
    assert "no numeric reference" in entry["trace_detail"]["stage_result"][-1]["result"]


@pytest.fixture(scope="module")
def converted_run(tmp_path_factory):
    """Every example file converted (exit 1: notes on the approximated fields) and the converted files run."""
    out = tmp_path_factory.mktemp("msopst-converted")
    for name, code in (("add_case.json", 1), ("relu_case.json", 1), ("reduce_case.json", 0), ("fuzz_case.json", 1)):
        assert msopst_main(["convert", str(DATA / name), "-o", str(out / "cases")]) == code
    return run_suite(out / "cases", out, *SELECTION)


def test_converted_case_files_give_the_same_outcomes_and_metrics(msopst_run, converted_run):
    """Outcomes of every sub-case but the expect-failed one (next test); metrics of every sub-case whose data convert
    carries exactly (all but APPROXIMATED: their inputs differ, so their metrics do)."""
    _, original, _ = msopst_run
    _, cases, _ = converted_run
    outcomes = metrics = 0
    for test_id, record in original.items():
        if case_of(test_id) == EXPECTED_FAILURE:
            continue
        again = cases[test_id]
        assert again["status"] == record["status"] == "passed", test_id
        outcomes += 1
        if case_of(test_id) not in APPROXIMATED:
            assert again["metrics"] == record["metrics"], test_id
            metrics += 1
    assert (outcomes, metrics) == (32, 26)  # 15 static sub-cases in two modes, the dynamic one in two tests


@pytest.mark.xfail(strict=True, reason="the case file's expect key is checked and written, but cases/load.py does "
                                       "not yet pass it to Case (one-line change in a file outside this work)")
def test_a_converted_expect_failed_case_keeps_its_outcome(msopst_run, converted_run):
    _, original, _ = msopst_run
    _, cases, _ = converted_run
    ids = [t for t in original if case_of(t) == EXPECTED_FAILURE]
    assert ids and all(cases[t]["status"] == original[t]["status"] == "xfailed" for t in ids)


def test_convert_carries_expect_and_comments_each_approximated_field(tmp_path, capsys):
    assert msopst_main(["convert", str(DATA / "add_case.json"), "-o", str(tmp_path)]) == 1
    warnings = [w for w in capsys.readouterr().err.splitlines() if "Test_Add_bin" in w]
    assert warnings == [
        "aclcts msopst: not exact: Test_Add_bin_case_001_ND_float32: input x1: a fixed value (case files have no "
        "fixed-data kind) is drawn uniform in [-6.0, 5.0] instead",
        "aclcts msopst: not exact: Test_Add_bin_case_001_ND_float32: input x2: data_distribute triangular (no such "
        "case-file distribution) is drawn uniform in [0.0, 1.0] instead"]
    text = (tmp_path / "Test_Add_bin_case_001_ND_float32.yaml").read_text().splitlines()
    assert [line[len("# not exact: "):] for line in text if line.startswith("# not exact: ")] == [
        w.partition("not exact: ")[2] for w in warnings]
    failed = yaml.safe_load((tmp_path / f"{EXPECTED_FAILURE}.yaml").read_text())
    assert failed["expect"] == "failed"
    assert "expect" not in yaml.safe_load((tmp_path / "Test_Add_001_sub_case_001_ND_float16.yaml").read_text())


def test_convert_exit_codes(tmp_path):
    exact = tmp_path / "exact.json"
    exact.write_text(json.dumps([json.loads((DATA / "relu_case.json").read_text())[0]]))
    shutil.copy(DATA / "relu_golden.py", tmp_path / "relu_golden.py")
    assert msopst_main(["convert", str(exact), "-o", str(tmp_path / "out")]) == 0
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == [
        "Test_Relu_001_sub_case_001_ND_float32.yaml", "Test_Relu_001_sub_case_002_NCHW_float32.yaml",
        "msopst_exact_references.py"]
    assert msopst_main(["convert", str(tmp_path / "missing.json"), "-o", str(tmp_path / "x")]) == 2
    (tmp_path / "bad.json").write_text('[{"case_name": "T"}]')
    assert msopst_main(["convert", str(tmp_path / "bad.json"), "-o", str(tmp_path / "y")]) == 2
    assert msopst_main(["convert", str(exact)]) == 2  # -o is required
