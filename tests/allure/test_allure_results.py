"""allure-results of a child conformance run under xdist: labels, case parameters and failure attachments."""

import csv
import importlib.util
import io
import json
import os
import re
import subprocess
import sys

import pytest

from aclcts.cases import load_cases
from aclcts.pytest_plugin.plugin import DEFAULT_SEED
from allure_selection import CASES, CAST, EXECUTE, HANDLE, ROOT

MEMORY = "test_malloc_of_size_0_is_100000"
SELECTION = [f"conformance/test_execute.py::{EXECUTE}", f"conformance/test_handle.py::{HANDLE}",
             f"conformance/test_cast.py::{CAST}", f"conformance/test_memory.py::{MEMORY}"]
HAS_MATPLOTLIB = importlib.util.find_spec("matplotlib") is not None
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def allure_dir(tmp_path_factory):
    """Run the selection against the changed_output_element fault with two xdist workers and --alluredir."""
    base = tmp_path_factory.mktemp("allure")
    (base / "golden").mkdir()
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    command = [sys.executable, "-m", "pytest", *SELECTION, "--backend=tests.suite.faults:changed_output_element",
               f"--golden-dir={base / 'golden'}", f"--alluredir={base / 'results'}", "-q", "-n", "2",
               "-p", "no:cacheprovider", "--with-step-tests", "--cases", str(CASES)]
    run = subprocess.run(command, check=False, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 1, f"expected the two Add tests to fail (exit {run.returncode}):\n{run.stdout[-3000:]}"
    summary = re.search(r"\b2 failed, (\d+) passed in ", run.stdout)
    assert summary, run.stdout[-3000:]
    (base / "ran").write_text(str(2 + int(summary.group(1))))
    return base / "results"


@pytest.fixture(scope="module")
def results(allure_dir):
    """The test results by test name."""
    found = {}
    for path in allure_dir.glob("*-result.json"):
        result = json.loads(path.read_text())
        found[result["name"]] = result
    return found


def labels(result, name):
    return [label["value"] for label in result["labels"] if label["name"] == name]


def parameters(result):
    return {p["name"]: p["value"] for p in result.get("parameters", [])}


def attachments(result):
    return {a["name"]: a for a in result.get("attachments", [])}


def case_named(case_id):
    return next(c for c in load_cases([str(CASES)]) if c.id == case_id)


def test_both_xdist_workers_write_results_for_every_test_of_the_run(allure_dir, results):
    assert len(results) == int((allure_dir.parent / "ran").read_text())
    processes = {labels(r, "thread")[0].split("-")[0] for r in results.values()}
    assert len(processes) == 2, processes


@pytest.mark.parametrize("name, feature, story", [
    (EXECUTE, "execute: ", "Add"), (HANDLE, "handle: ", "Add"), (CAST, "cast: ", "Cast"),
])
def test_case_tests_are_labelled_by_suite_step_and_op(results, name, feature, story):
    result = results[name]
    assert labels(result, "epic") == ["aclcts conformance"]
    (found,) = labels(result, "feature")
    assert found.startswith(feature) and len(found) > len(feature)
    assert labels(result, "story") == [story]


def test_a_test_without_a_case_is_labelled_by_its_step_and_module_concern(results):
    memory = [r for name, r in results.items() if name.startswith(MEMORY + "[")]
    assert memory
    for result in memory:
        assert labels(result, "epic") == ["aclcts conformance"]
        assert labels(result, "feature")[0].startswith("memory: ")
        assert labels(result, "story") == ["memory"]
        assert not {"dtype", "shape", "mode", "seed"} & set(parameters(result))


@pytest.mark.parametrize("name, case_id, dtype, shape, mode", [
    (EXECUTE, "Add-float16-4x8_4x8", "float16", "[4, 8], [4, 8] -> [4, 8]", "execute_v2, static"),
    (HANDLE, "Add-float16-4x8_4x8", "float16", "[4, 8], [4, 8] -> [4, 8]", "handle, static"),
    (CAST, "Cast-int32_float16-4x8", "int32 -> float16", "[4, 8] -> [4, 8]", "direct, static"),
])
def test_case_tests_carry_dtype_shape_mode_and_seed(results, name, case_id, dtype, shape, mode):
    found = parameters(results[name])
    assert found["op_case"] == repr(case_id)
    assert found["dtype"] == repr(dtype)
    assert found["shape"] == repr(shape)
    assert found["mode"] == repr(mode)
    assert found["seed"] == repr(case_named(case_id).seed(DEFAULT_SEED))


def check_histogram(allure_dir, attached, where, nodeid):
    if HAS_MATPLOTLIB:
        png = attached[f"{where}: relative error histogram"]
        assert png["type"] == "image/png"
        assert (allure_dir / png["source"]).read_bytes().startswith(PNG_MAGIC)
        return
    table = attached[f"{where}: relative error histogram (CSV table, matplotlib not installed)"]
    assert table["type"] == "text/csv"
    rows = list(csv.DictReader(io.StringIO((allure_dir / table["source"]).read_text())))
    assert sum(int(row["count"]) for row in rows) == 32
    assert {(row["test_id"], row["output"]) for row in rows} == {(nodeid, where)}
    assert all(row["policy"] and row["tolerance"] for row in rows)
    bins = [row for row in rows if row["rel_err_low"] not in ("0", "inf")]
    assert sum(int(row["count"]) for row in bins) >= 1
    assert all(float(row["rel_err_low"]) < float(row["rel_err_high"]) for row in bins)


@pytest.mark.parametrize("name, executions, module", [(EXECUTE, 1, "test_execute.py"), (HANDLE, 3, "test_handle.py")])
def test_a_failing_comparison_attaches_its_worst_elements_and_histogram_per_execution(allure_dir, results, name,
                                                                                      executions, module):
    result = results[name]
    assert result["status"] == "failed"
    attached = attachments(result)
    for execution in range(1, executions + 1):
        where = f"y execution {execution}"
        table = (allure_dir / attached[f"{where}: worst elements"]["source"]).read_text()
        assert "index" in table and "rel err" in table
        first_row = table.splitlines()[2].split()
        assert first_row[:2] == ["(0,", "0)"], table
        assert first_row[2] in result["statusDetails"]["message"] + result["statusDetails"]["trace"]
        check_histogram(allure_dir, attached, where, f"conformance/{module}::{name}")
    assert not any(f"execution {executions + 1}" in key for key in attached)


@pytest.mark.parametrize("name, module", [(EXECUTE, "test_execute.py"), (HANDLE, "test_handle.py")])
def test_a_failure_attaches_the_reproducing_command(allure_dir, results, name, module):
    command = (allure_dir / attachments(results[name])["reproduce"]["source"]).read_text().strip()
    assert command.startswith(f"pytest 'conformance/{module}::{name}'")
    assert "--backend=tests.suite.faults:changed_output_element" in command


def test_passing_tests_have_no_failure_attachments(results):
    passed = [r for r in results.values() if r["status"] == "passed"]
    assert len(passed) == len(results) - 2
    assert all(not r.get("attachments") for r in passed)
