"""The suite models: `pytest conformance/ --cases FILE --with-step-tests` runs the step tests green, since the models
they execute (SUITE_MODEL_CASES) are compiled whatever --cases selects, and `aclcts singleop FILE` writes them too."""

import json
import subprocess
import sys
from pathlib import Path

from aclcts.pytest_plugin.library import SUITE_MODEL_CASES, suite_model_cases
from aclcts.report.records import FAILING, read_report

ROOT = Path(__file__).resolve().parents[2]
#: A small case file without any suite model among its cases (Abs only).
CASE_FILE = "cases/elementwise/abs.yaml"
#: Step tests that execute the suite models (Add int32 [8, 16], GEMV and GEMM fp16 16x16, Cast float32 -> float16),
#: and test_execute.py, which also runs the case file's cases.
SELECTION = ["conformance/test_free.py", "conformance/test_sync.py", "conformance/test_handle.py",
             "conformance/test_execute.py", "conformance/test_blas.py", "conformance/test_blas_gemv.py",
             "conformance/test_cast.py"]


def test_every_suite_model_case_is_in_the_repository_case_library():
    assert [case.id for case in suite_model_cases(ROOT / "cases")] == [case_id for _, case_id in SUITE_MODEL_CASES]


def test_a_folder_without_the_case_files_has_no_suite_models(tmp_path):
    assert suite_model_cases(tmp_path) == []


def test_the_step_tests_pass_with_one_foreign_case_file_and_its_cases_run(tmp_path):
    report = tmp_path / "run.jsonl"
    command = [sys.executable, "-m", "pytest", *SELECTION, "--with-step-tests", "--cases", CASE_FILE, f"--report={report}",
               f"--model-cache={tmp_path / 'models'}", "-q", "-p", "no:cacheprovider", "-p", "no:xdist"]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=600)
    cases = read_report(report).cases
    failing = sorted(test_id for test_id, case in cases.items() if case["status"] in FAILING)
    assert not failing and done.returncode == 0, (failing[:10], done.stdout[-3000:])
    passed = {test_id for test_id, case in cases.items() if case["status"] == "passed"}
    assert any(test_id.startswith(("conformance/test_free.py::", "conformance/test_sync.py::")) for test_id in passed)
    assert any("[Abs-" in test_id for test_id in passed)
    assert not any("[Add-int32-8x16_8x16" in test_id for test_id in cases), "suite models must not be parametrized"


def test_singleop_of_one_case_file_adds_the_suite_models_and_the_shipped_dynamic_cases(tmp_path):
    output = tmp_path / "op_list.json"
    done = subprocess.run([sys.executable, "-m", "aclcts.tools.singleop", CASE_FILE, "-o", str(output)], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    manifest = json.loads((tmp_path / "op_list.json.manifest.json").read_text())["models"]
    assert {case_id for _, case_id in SUITE_MODEL_CASES} <= set(manifest)
    assert any(case_id.startswith("dynamic-") for case_id in manifest)
