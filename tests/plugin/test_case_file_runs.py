"""Case-file runs: `pytest conformance/ --cases FILE` runs the tests of that file's cases and nothing else; the step
tests (the suite's own models, cases/dynamic, golden/) only with --with-step-tests; no test is an empty parametrization;
the st_report counts the file's cases only."""

import json
import os
import subprocess
import sys
from pathlib import Path

from aclcts.cases.msopst import load_msopst_cases
from aclcts.report.records import read_report

ROOT = Path(__file__).resolve().parents[2]
MSOPST_FILE = "tests/msopst/data/add_case.json"


def _pytest(*args: str, env_extra: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_XDIST", "PYTEST_ADDOPTS", "ACLCTS_"))}
    env.pop("PYTEST_CURRENT_TEST", None)
    env.update(env_extra or {})
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist", *args],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=600, check=False)


def _collected(*args: str) -> list[str]:
    done = _pytest("conformance/", "--collect-only", *args)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return [line for line in done.stdout.splitlines() if line.startswith("conformance/")]


def _file_case_ids() -> set[str]:
    return {case.id for case in load_msopst_cases(ROOT / MSOPST_FILE)}


def test_a_case_file_run_collects_only_the_tests_of_that_files_cases():
    ids = _file_case_ids()
    collected = _collected("--cases", MSOPST_FILE)
    assert collected
    bracketed = [test_id.partition("[")[2].rstrip("]") for test_id in collected]
    assert all(any(case_id in inside for case_id in ids) for inside in bracketed), collected
    assert {case_id for case_id in ids if any(case_id in inside for inside in bracketed)} == ids


def test_step_tests_and_the_shipped_dynamic_cases_run_only_when_asked():
    collected = _collected("--cases", MSOPST_FILE, "--with-step-tests")
    assert any(test_id.startswith("conformance/test_sync.py::") for test_id in collected)
    assert any("[dyn_add_float32" in test_id for test_id in collected)
    assert any(test_id.startswith("conformance/test_golden.py::") for test_id in collected)


def test_no_test_is_an_empty_parametrization():
    done = _pytest("conformance/test_cast.py", "conformance/test_blas.py", "--cases", MSOPST_FILE,
                   "--with-step-tests", "--collect-only", "-rs")
    assert done.returncode == 0, done.stdout[-3000:]
    assert "empty parameter set" not in done.stdout
    assert "nothing-to-run" not in done.stdout
    assert "deselected" in done.stdout


def test_st_report_of_a_case_file_run_counts_that_files_cases_only(tmp_path):
    st, report = tmp_path / "st_report.json", tmp_path / "run.jsonl"
    done = _pytest("conformance/test_execute.py", "conformance/test_dynamic_shapes.py", "--cases", MSOPST_FILE,
                   "--with-step-tests", "-k", "test_execute_v2_matches_reference or runtime_shapes_of_the_case_file",
                   f"--st-report={st}", f"--report={report}", f"--model-cache={tmp_path / 'models'}")
    assert done.returncode == 0, done.stdout[-3000:]
    assert any("[dyn_" in test_id for test_id in read_report(report).cases)  # the step tests ran the shipped cases
    names = [entry["case_name"] for entry in json.loads(st.read_text())["report_list"]]
    assert sorted(names) == sorted(case.msopst.case_name for case in load_msopst_cases(ROOT / MSOPST_FILE))


def test_a_failing_step_test_of_a_case_file_run_is_reproduced_with_the_step_tests(tmp_path):
    """The reproduce line of a step test that failed in a --cases --with-step-tests run selects it again."""
    done = _pytest("conformance/test_memory.py", "-k", "test_malloc_of_size_0_is_100000", "--cases", MSOPST_FILE,
                   "--with-step-tests", f"--model-cache={tmp_path / 'models'}", env_extra={
                       "ACLCTS_SIM_FAULTS": "malloc_size_zero_succeeds"})
    assert done.returncode == 1, done.stdout[-3000:]
    line = next(line for line in done.stdout.splitlines() if line.startswith("ACLCTS_SIM_FAULTS=") and " pytest " in line)
    assert "--with-step-tests" in line.split()
