"""msopst case files run by the suite (`--cases FILE.json`, `--st-report`, `aclcts msopst convert`): outcomes, golden
functions, st_report.json, conversion."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import yaml

from aclcts.cases import expand_file
from aclcts.cases.msopst import load_msopst_cases
from aclcts.cases.values import draw_inputs
from aclcts.core.outputs import OWNER_FILE
from aclcts.core.prototypes import op
from aclcts.core.prototypes.vendors import RECORD_FOLDER, record_text
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
DYNAMIC = "Test_Add_dynamic_case_001_ND_float32"
#: st_report.json's keys at each level (docs/msopst.md#st_reportjson).
REPORT_KEYS, ENTRY_KEYS = {"run_cmd", "report_list", "summary"}, {"case_name", "status", "expect", "trace_detail"}
TRACE_KEYS, STAGE_KEYS = {"st_case_info", "stage_result"}, {"status", "result", "stage_name", "cmd"}
INFO_KEYS = {"case_name", "op_params", "input_data_path", "expect_data_paths", "planned_output_data_paths"}
SUMMARY_KEYS = {"test case count", "success count", "failed count"}
#: op_params' keys: the case-level fields each example sub-case gives (its golden function's two unless it has none).
PARAMS_KEYS = {"op", "input_desc", "output_desc", "case_name"}
GOLDEN_KEYS = {"calc_expect_func_file", "calc_expect_func_file_func"}
NO_GOLDEN = {"Test_Add_bin_case_001_ND_float32", "Test_Relu_builtin_case_001_ND_float16"}
TENSOR_KEYS, DRAWN_KEYS = {"format", "ori_format", "shape", "ori_shape", "type", "name"}, {"data_distribute",
                                                                                          "value_range"}
#: Tensor fields only some example tensors give, by (case, side, position).
EXTRA_TENSOR_KEYS = {(DYNAMIC, side, k): {"typical_shape", "shape_range"}
                     for side, k in (("input_desc", 0), ("input_desc", 1), ("output_desc", 0))}
EXTRA_TENSOR_KEYS[("Test_Add_const_case_001_ND_float32", "input_desc", 1)] = {"is_const", "const_value", "value"}
EXTRA_TENSOR_KEYS[("Test_Add_bin_case_001_ND_float32", "input_desc", 0)] = {"value"}
#: The compare_data result's rates of each output (aclcts/pytest_plugin/st_report.py RATES).
RATE_KEYS = {"policy", "params", "passed", "n", "mismatch_ratio", "max_abs", "max_rel", "mare", "mere",
             "n_nan_mismatch", "n_inf_mismatch"}


def run_suite(cases: Path, out: Path, *selection: str, workers: int = 0,
              extra_env: dict[str, str] | None = None) -> tuple[subprocess.CompletedProcess, dict, dict]:
    """Run the selection on the case files with --report and --st-report (in workers pytest-xdist processes if not 0);
    (process, cases by test id, st_report)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_XDIST", "PYTEST_ADDOPTS"))}
    env.pop("PYTEST_CURRENT_TEST", None)
    env.update(extra_env or {})
    parallel = ["-n", str(workers)] if workers else ["-p", "no:xdist"]
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly", *parallel,
               *(selection or SELECTION), "--cases", str(cases), "--model-cache=off",
               f"--report={out / 'report.jsonl'}", f"--st-report={out / 'st_report.json'}"]
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600, check=False)
    report = read_report(out / "report.jsonl")
    st = json.loads((out / "st_report.json").read_text())
    return done, report.cases, st


def case_of(test_id: str) -> str:
    """The msopst sub-case name of the case id in a test id's brackets (without its file's namespace and a dynamic
    test's runtime-shape suffix)."""
    return test_id.partition("[")[2].rstrip("]").split("-")[0].partition(".")[2]


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


def _itemsize(type_name: str) -> int:
    """Bytes per element of an msopst type name ("float" is float32)."""
    return np.dtype({"float": "float32"}.get(type_name, type_name)).itemsize


def _expected_summary(cases: dict) -> dict:
    """msopst's summary from the run's outcomes: a case succeeds when every test of it passed (the expect-failed one:
    failed as expected)."""
    outcomes: dict[str, set[str]] = {}
    for test_id, record in cases.items():
        outcomes.setdefault(case_of(test_id), set()).add(record["status"])
    success = sum(1 for name, found in outcomes.items() if found == ({"xfailed"} if name == EXPECTED_FAILURE
                                                                     else {"passed"}))
    return {"test case count": len(outcomes), "success count": success, "failed count": len(outcomes) - success}


def _check_params(name: str, params: dict) -> None:
    """op_params, its input_desc and output_desc entries have exactly msopst's keys the example case gives."""
    keys = PARAMS_KEYS | (set() if name in NO_GOLDEN else GOLDEN_KEYS) | ({"attr"} if "ReduceSumD" in name else set())
    assert set(params) == keys, name
    assert params["case_name"] == name
    for side, base in (("input_desc", TENSOR_KEYS | DRAWN_KEYS), ("output_desc", TENSOR_KEYS)):
        for k, tensor in enumerate(params[side]):
            want = base | EXTRA_TENSOR_KEYS.get((name, side, k), set())
            assert set(tensor) == (want - {"name"} if name == "Test_Relu_builtin_case_001_ND_float16" else want), \
                (name, side, k)


def _check_stages(name: str, stages: list, outputs: list, cases: dict) -> None:
    """atc_single_op_convert, then run_acl_code (cmd: the test id) and compare_data (the rates of the output's every
    execution) per test, in whichever order the tests ran."""
    tests = sorted(t for t in cases if case_of(t) == name)
    assert all(set(stage) == STAGE_KEYS for stage in stages), name
    assert stages[0] == {"status": "success", "result": None, "stage_name": "atc_single_op_convert", "cmd": ""}
    if name == EXPECTED_FAILURE:
        assert sorted((s["stage_name"], s["status"], s["cmd"]) for s in stages[1:]) == [
            ("run_acl_code", "failed", t) for t in tests]
        assert all("507015" in s["result"] for s in stages[1:])
        return
    assert [s["stage_name"] for s in stages[1:]] == ["run_acl_code", "compare_data"] * len(tests), name
    runs, compares = stages[1::2], stages[2::2]
    assert sorted((s["status"], s["result"], s["cmd"]) for s in runs) == [("success", None, t) for t in tests], name
    output = outputs[0].get("name", "output0")
    for stage in compares:  # one rates entry per execution of the output (the handle tests execute three times)
        result = stage["result"]
        assert (stage["status"], stage["cmd"]) == ("success", "") and set(result) == {f"{output}[{j}]" for j in
                                                                                      range(len(result))}, name
        assert all(set(rates) == RATE_KEYS and rates["passed"] is True for rates in result.values()), name


def _check_data(name: str, info: dict) -> None:
    """The data files named exist under msopst's names, each the byte size of its tensor (shape product x type size;
    the dynamic case's: whole rows of its 16 float32 columns, inputs and output alike)."""
    params = info["op_params"]
    if name == EXPECTED_FAILURE:  # never compared: no data
        assert (info["input_data_path"], info["expect_data_paths"], info["planned_output_data_paths"]) == ("", [], [])
        return
    folder = Path(info["input_data_path"])
    assert folder.is_absolute() and folder.is_dir(), name
    inputs = [folder / f"{name}_input_{k}.bin" for k in range(len(params["input_desc"]))]
    outputs = params["output_desc"]
    assert info["expect_data_paths"] == [str(folder / "expect" / f"{name}_expect_output_{i}_{t['type']}.bin")
                                         for i, t in enumerate(outputs)], name
    assert info["planned_output_data_paths"] == [str(folder / f"{name}_output_{i}.bin") for i in range(len(outputs))]
    tensors = [*zip(inputs, params["input_desc"]), *zip(map(Path, info["expect_data_paths"]), outputs),
               *zip(map(Path, info["planned_output_data_paths"]), outputs)]
    sizes = [path.stat().st_size for path, _ in tensors]
    if name == DYNAMIC:  # the first comparing test's shapes: Add's inputs broadcast to its output
        *given, expected, output = sizes
        assert expected == output > 0 and output % 4 == 0, sizes
        assert all(0 < size <= output and output % size == 0 and size % 4 == 0 for size in given), sizes
        return
    assert sizes == [int(np.prod(t["shape"])) * _itemsize(t["type"]) for _, t in tensors], name


def _check_golden_data(info: dict) -> None:
    """Test_Add_001's expected output file holds the golden function's output for its input files, and the output file
    the same values."""
    spec = importlib.util.spec_from_file_location("add_golden_check", DATA / "add_golden.py")
    golden = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(golden)
    folder, name = Path(info["input_data_path"]), info["case_name"]
    x1, x2 = (np.fromfile(folder / f"{name}_input_{k}.bin", np.float16).reshape(8, 16) for k in range(2))
    (want,) = golden.calc_expect_func({"value": x1}, {"value": x2}, {"dtype": "float16"})
    assert Path(info["expect_data_paths"][0]).read_bytes() == want.tobytes()
    assert np.array_equal(np.fromfile(info["planned_output_data_paths"][0], np.float16), want.reshape(-1))


def check_st_report(st: dict, cases: dict) -> None:
    """st_report.json against msopst's layout, field by field, and against the run's outcomes (report.jsonl)."""
    assert set(st) == REPORT_KEYS
    assert "--st-report=" in st["run_cmd"]
    assert set(st["summary"]) == SUMMARY_KEYS and st["summary"] == _expected_summary(cases)
    assert st["summary"] == {"test case count": 17, "success count": 17, "failed count": 0}
    entries = {e["case_name"]: e for e in st["report_list"]}
    assert len(entries) == len(st["report_list"]) == 17
    for name, entry in entries.items():
        assert set(entry) == ENTRY_KEYS and set(entry["trace_detail"]) == TRACE_KEYS, name
        expect = "failed" if name == EXPECTED_FAILURE else "success"
        assert (entry["status"], entry["expect"]) == (expect, expect), name
        info = entry["trace_detail"]["st_case_info"]
        assert set(info) == INFO_KEYS and info["case_name"] == name, name
        _check_params(name, info["op_params"])
        _check_stages(name, entry["trace_detail"]["stage_result"], info["op_params"]["output_desc"], cases)
        _check_data(name, info)
    _check_golden_data(entries["Test_Add_001_sub_case_001_ND_float16"]["trace_detail"]["st_case_info"])


def test_st_report_has_msopst_layout_field_by_field(msopst_run):
    _, cases, st = msopst_run
    check_st_report(st, cases)
    entries = {e["case_name"]: e for e in st["report_list"]}
    params = entries["Test_Add_001_sub_case_001_ND_float16"]["trace_detail"]["st_case_info"]["op_params"]
    assert params["op"] == "Add"
    assert params["input_desc"][0] == {"format": "ND", "ori_format": "ND", "shape": [8, 16], "ori_shape": [8, 16],
                                       "type": "float16", "data_distribute": "uniform", "value_range": [-1.0, 1.0],
                                       "name": "x1"}
    assert Path(params["calc_expect_func_file"]).name == "add_golden.py"
    assert params["calc_expect_func_file_func"] == "calc_expect_func"
    compare = entries["Test_Add_001_sub_case_001_ND_float16"]["trace_detail"]["stage_result"][2]["result"]["y[0]"]
    assert compare["policy"] == "ratio" and compare["mismatch_ratio"] == 0.0
    dynamic = [s["stage_name"] for s in entries[DYNAMIC]["trace_detail"]["stage_result"]]
    assert dynamic == ["atc_single_op_convert"] + ["run_acl_code", "compare_data"] * 2


def test_st_report_under_two_workers_has_the_same_layout_and_data_files(tmp_path):
    stale = tmp_path / "st_report_data" / "stale.bin"
    stale.parent.mkdir()
    (stale.parent / OWNER_FILE).touch()  # an earlier run's folder (a user's is refused: tests/hardening/outputs)
    stale.write_bytes(b"from an earlier run")
    done, cases, st = run_suite(DATA, tmp_path, workers=2)
    assert done.returncode == 0, done.stdout[-3000:]
    assert not stale.exists()  # the data folder is the run's own
    check_st_report(st, cases)
    assert all(str(tmp_path / "st_report_data") in e["trace_detail"]["st_case_info"]["input_data_path"]
               for e in st["report_list"] if e["case_name"] != EXPECTED_FAILURE)


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
    lines = [line for line in done.stdout.splitlines() if line.startswith("GoldenError: ")]  # aclcts' own lines
    assert {line.split(": case ")[1].split(":")[0] for line in lines if said in line} == {
        "Test_Add_001_sub_case_001_ND_float16", "Test_Add_001_sub_case_002_ND_float32"}, done.stdout
    for frame in ("msopst/golden.py:", "decorator.py:", "def call(", "raise GoldenError", "func(**kwargs)"):
        assert frame not in done.stdout, frame
    assert all(said in r["message"] and len(r["message"].strip().splitlines()) == 1 for r in cases.values()), cases
    assert all(e["trace_detail"]["stage_result"][-1]["stage_name"] == "compare_data" and
               e["trace_detail"]["stage_result"][-1]["status"] == "failed" for e in st["report_list"])


#: A custom op's simulator kernel (y = x), registered by a plugin module the run loads with -p.
NO_REFERENCE_KERNEL = """\
import aclcts.sim


def pytest_configure(config):
    aclcts.sim.register_kernel("MyNoRefOp", lambda xs, attrs, outs: [xs[0].copy()])
"""


def test_a_case_without_golden_or_builtin_reference_says_no_numeric_reference(tmp_path):
    """A custom op (its record in an OPP vendor folder, its kernel registered) whose case names no golden function:
    every built-in op has a reference, so only such an op runs without a numeric one."""
    folder = tmp_path / "cases"
    folder.mkdir()
    (folder / "custom_case.json").write_text(json.dumps([{
        "case_name": "Test_MyNoRefOp_no_golden", "op": "MyNoRefOp",
        "input_desc": [{"name": "x", "format": "ND", "type": "float32", "shape": [4, 8]}],
        "output_desc": [{"name": "y", "format": "ND", "type": "float32", "shape": [4, 8]}]}]))
    record = tmp_path / "opp" / "vendors" / "acme" / RECORD_FOLDER / "MyNoRefOp.json"
    record.parent.mkdir(parents=True)
    record.write_text(record_text(op("MyNoRefOp", "x:T", "y:T", {"T": ("float32",)}, source="custom")))
    (tmp_path / "no_reference_kernel.py").write_text(NO_REFERENCE_KERNEL)
    done, cases, st = run_suite(folder, tmp_path, "conformance/test_execute.py", "-k", "_case_0", "-p",
                                "no_reference_kernel", extra_env={"ASCEND_OPP_PATH": str(tmp_path / "opp"),
                                                                  "PYTHONPATH": str(tmp_path)})
    (record,) = cases.values()
    assert record["status"] == "skipped" and "no numeric reference" in record["message"], done.stdout[-2000:]
    (entry,) = st["report_list"]
    assert entry["status"] == "success"
    assert "no numeric reference" in entry["trace_detail"]["stage_result"][-1]["result"]


@pytest.fixture(scope="module")
def converted_run(tmp_path_factory):
    """Every example file converted (exit 0: every field carried exactly), the msopst files removed, the converted
    folder moved elsewhere, and the moved files run."""
    out = tmp_path_factory.mktemp("msopst-converted")
    shutil.copytree(DATA, out / "msopst")
    for name in ("add_case.json", "relu_case.json", "reduce_case.json", "fuzz_case.json"):
        assert msopst_main(["convert", str(out / "msopst" / name), "-o", str(out / "cases")]) == 0
    shutil.rmtree(out / "msopst")
    (out / "moved" / "deeper").mkdir(parents=True)
    moved = Path(shutil.move(out / "cases", out / "moved" / "deeper" / "cases"))
    return run_suite(moved, out, *SELECTION)


def test_converted_case_files_give_the_same_outcomes_and_metrics(msopst_run, converted_run):
    """Outcomes and metrics of every sub-case but the expect-failed one (next test): convert carries every input's
    data exactly (fixed values, .bin files and msopst's draws), so the converted cases compare the same data."""
    _, original, _ = msopst_run
    _, cases, _ = converted_run
    compared = 0
    for test_id, record in original.items():
        if case_of(test_id) == EXPECTED_FAILURE:
            continue
        again = cases[test_id]
        assert again["status"] == record["status"] == "passed", test_id
        assert again["metrics"] == record["metrics"], test_id
        compared += 1
    assert compared == 32  # 15 static sub-cases in two modes, the dynamic one in two tests


def test_a_converted_expect_failed_case_keeps_its_outcome(msopst_run, converted_run):
    _, original, _ = msopst_run
    _, cases, _ = converted_run
    ids = [t for t in original if case_of(t) == EXPECTED_FAILURE]
    assert ids and all(cases[t]["status"] == original[t]["status"] == "xfailed" for t in ids)


def test_convert_carries_expect_fixed_data_and_msopst_draws_exactly(tmp_path, capsys):
    assert msopst_main(["convert", str(DATA / "add_case.json"), "-o", str(tmp_path)]) == 0
    printed = capsys.readouterr()
    assert printed.err == ""
    assert printed.out.splitlines() == [f"aclcts msopst: wrote {len(load_msopst_cases(str(DATA / 'add_case.json')))} "
                                        f"case file(s) to {tmp_path}"]
    text = (tmp_path / "Test_Add_bin_case_001_ND_float32.yaml").read_text()
    assert "not exact" not in text
    values = yaml.safe_load(text)["values"]
    assert values == {"x1": {"file": "Test_Add_bin_case_001_ND_float32.x1.bin"},
                      "x2": {"msopst_triangular": [0.0, 1.0]}}
    assert (tmp_path / values["x1"]["file"]).read_bytes() == (DATA / "add_x1_3x4_float32.bin").read_bytes()
    failed = yaml.safe_load((tmp_path / f"{EXPECTED_FAILURE}.yaml").read_text())
    assert failed["expect"] == "failed"
    assert failed["values"] == {"x1": {"uniform": [0.1, 1.0]}, "x2": {"uniform": [0.1, 1.0]}}  # msopst's defaults
    first = yaml.safe_load((tmp_path / "Test_Add_001_sub_case_001_ND_float16.yaml").read_text())
    assert "expect" not in first
    assert first["values"] == {"x1": {"uniform": [-1.0, 1.0]}, "x2": {"msopst_normal": [0.0, 2.0]}}


def test_convert_writes_a_literal_value_as_fixed_and_draws_the_same_inputs(tmp_path):
    source = tmp_path / "literal.json"
    source.write_text(json.dumps([{
        "case_name": "Test_Literal", "op": "Add",
        "input_desc": [{"name": "x1", "format": "ND", "type": "int32", "shape": [2, 2], "value": [[1, -2], [3, 4]]},
                       {"name": "x2", "format": "ND", "type": "int32", "shape": [2, 2],
                        "data_distribute": "sigmoid", "value_range": [-3, 3]}],
        "output_desc": [{"name": "y", "format": "ND", "type": "int32", "shape": [2, 2]}]}]))
    out = tmp_path / "out.yaml"
    assert msopst_main(["convert", str(source), "-o", str(out)]) == 0
    assert yaml.safe_load(out.read_text())["values"] == {"x1": {"fixed": [1, -2, 3, 4]},
                                                         "x2": {"msopst_sigmoid": [-3.0, 3.0]}}
    (original,) = load_msopst_cases(str(source))
    (converted, *_) = expand_file(str(out))
    assert converted.id == original.id
    for mine, theirs in zip(draw_inputs(converted, 11), draw_inputs(original, 11)):
        assert mine.dtype == theirs.dtype and np.array_equal(mine, theirs)


def test_convert_notes_the_fixed_value_of_a_dynamic_input_it_cannot_carry(tmp_path, capsys):
    source = tmp_path / "dynamic.json"
    dynamic = {"name": "x1", "format": "ND", "type": "float32", "shape": [-1], "typical_shape": [3],
               "shape_range": [[1, 8]]}
    source.write_text(json.dumps([{
        "case_name": "Test_Dynamic_value", "op": "Relu", "input_desc": [{**dynamic, "value": [1.0, -2.0, 3.0]}],
        "output_desc": [{**dynamic, "name": "y"}]}]))
    out = tmp_path / "out.yaml"
    assert msopst_main(["convert", str(source), "-o", str(out)]) == 1
    warning = ("Test_Dynamic_value_case_001_ND_float32: input x1: a fixed value of a dynamic input (a case file's fixed "
               "data has one shape) is drawn uniform in [-2.0, 3.0] instead")
    assert capsys.readouterr().err.splitlines() == [f"aclcts msopst: not exact: {warning}"]
    assert f"# not exact: {warning}" in out.read_text().splitlines()
    (case, *_) = expand_file(str(out))
    assert case.values == {"x1": {"uniform": [-2.0, 3.0]}}


def test_convert_exit_codes(tmp_path):
    exact = tmp_path / "exact.json"
    exact.write_text(json.dumps([json.loads((DATA / "relu_case.json").read_text())[0]]))
    shutil.copy(DATA / "relu_golden.py", tmp_path / "relu_golden.py")
    assert msopst_main(["convert", str(exact), "-o", str(tmp_path / "out")]) == 0
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == [
        "Test_Relu_001_sub_case_001_ND_float32.yaml", "Test_Relu_001_sub_case_002_NCHW_float32.yaml",
        "msopst_exact_references.py", "msopst_exact_references_source"]
    assert sorted(p.name for p in (tmp_path / "out" / "msopst_exact_references_source").iterdir()) == [
        "exact.msopst", "relu_golden.py"]
    assert msopst_main(["convert", str(tmp_path / "missing.json"), "-o", str(tmp_path / "x")]) == 2
    (tmp_path / "bad.json").write_text('[{"case_name": "T"}]')
    assert msopst_main(["convert", str(tmp_path / "bad.json"), "-o", str(tmp_path / "y")]) == 2
    assert msopst_main(["convert", str(exact)]) == 2  # -o is required


def test_st_report_creates_its_missing_folder_as_report_does(pytester):
    pytester.makepyfile(test_x="def test_x():\n    pass\n")
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-p", "no:xdist", "--st-report=build/st/x.json",
                                           "--report=build/run/run.jsonl")
    assert result.ret == 0, result.stderr.str()[-2000:]
    assert json.loads((pytester.path / "build" / "st" / "x.json").read_text())["summary"]["test case count"] == 0


def test_st_report_in_a_folder_that_cannot_be_made_is_one_usage_line(pytester):
    pytester.makepyfile(test_x="def test_x():\n    pass\n")
    (pytester.path / "build").write_text("a file, not a folder")
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-p", "no:xdist", "--st-report=build/st/x.json")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert [line for line in result.stderr.lines if line.strip()] == [
        line for line in result.stderr.lines if "--st-report=build/st/x.json:" in line and "not a folder" in line]
