"""The memory budget holds for dynamic cases too (issue 34, item 7): every drawn shape, every case file runtime shape
and every output allocated at its range maximum is estimated before anything is allocated, and a test over the budget
is skipped with the estimate and the budget in its one-line reason instead of allocating terabytes."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from aclcts.cases import msopst
from aclcts.drive import budget

ROOT = Path(__file__).resolve().parents[2]
#: Runs pytest as a child and prints the child's peak resident memory in KiB (Linux's ru_maxrss) on the last line.
MEASURED = ("import resource, subprocess, sys; done = subprocess.run(sys.argv[1:]); "
            "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss); sys.exit(done.returncode)")
BIG = 2**31 - 1
#: A verbose outcome line: the test's name with its id, and its outcome.
OUTCOME = re.compile(r"::(test_\S.*?) (PASSED|SKIPPED|FAILED|ERROR)")


def neg_case(name: str, ranges: list[list[int]], typical: list[int]) -> dict:
    """A Neg case over x [-1, 1024] with these ranges for its -1 dim, run first at typical."""
    def desc(tensor: str, **more) -> dict:
        return {"name": tensor, "format": "ND", "type": "float32", "shape": [-1, 1024], "shape_range": ranges, **more}
    return {"case_name": name, "op": "Neg", "input_desc": [desc("x", typical_shape=typical)],
            "output_desc": [desc("y")]}


def write_cases(folder: Path) -> Path:
    """One case whose range reaches 2**31 rows (its maximum is 8 TiB) and one whose smallest shape is 12 GiB."""
    path = folder / "Neg_budget.json"
    path.write_text(json.dumps([neg_case("Test_neg_wide", [[1, BIG]], [2, 1024]),
                                neg_case("Test_neg_huge", [[3_000_000, BIG]], [3_000_000, 1024])]))
    return path


def test_shapes_over_the_budget_are_named_with_the_estimate_before_allocation(tmp_path):
    wide, huge = msopst.load_msopst_cases(str(write_cases(tmp_path)))
    assert budget.shapes_over_budget(wide, [(2, 1024)], 1 << 30) is None
    reason = budget.shapes_over_budget(wide, [(2, 1024)], 1 << 30, outputs=[[BIG, 1024]])
    assert reason.startswith(f"{wide.id}: estimated host memory ") and "above the memory budget 1.0 GiB" in reason
    assert "at input shapes [[2, 1024]]" in reason
    assert budget.shapes_over_budget(huge, [(3_000_000, 1024)], 1 << 30) is not None
    assert budget.shapes_over_budget(huge, [(3_000_000, 1024)], None) is None
    assert budget.at_shapes(huge, [(3_000_000, 1024)]).outputs[0].shape == (3_000_000, 1024)


def test_dynamic_tests_over_the_budget_are_skipped_with_the_reason_and_allocate_nothing_large(tmp_path):
    cases = write_cases(tmp_path)
    command = [sys.executable, "-m", "pytest", "conformance/test_dynamic_shapes.py", "--cases", str(cases),
               "--memory-budget=1GiB", f"--model-cache={tmp_path / 'models'}", "-p", "no:cacheprovider",
               "-p", "no:xdist", "-p", "no:randomly", "-rs", "-v"]
    done = subprocess.run([sys.executable, "-c", MEASURED, *command], cwd=ROOT, capture_output=True, text=True,
                          timeout=300, env=dict(os.environ, PYTHONFAULTHANDLER="1"))
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-3000:]
    *lines, peak = done.stdout.splitlines()
    reasons = [line for line in lines if line.startswith("SKIPPED")]
    assert reasons and all("above the memory budget 1.0 GiB (--memory-budget)" in line for line in reasons), \
        "\n".join(lines[-30:])
    outcomes = dict(OUTCOME.search(line).groups() for line in lines if OUTCOME.search(line))
    executed = [test for test in outcomes if test.startswith("test_execute_v2")]
    assert all(outcomes[test] == "SKIPPED" for test in executed if "Test_neg_huge" in test), outcomes
    assert outcomes["test_execute_v2_with_outputs_at_the_range_maximum_writes_the_real_shape_back"
                    "[Neg_budget.Test_neg_wide_case_001_ND_float32]"] == "SKIPPED"
    assert outcomes["test_execute_v2_at_shapes_inside_the_range_matches_the_reference"
                    "[Neg_budget.Test_neg_wide_case_001_ND_float32]"] == "PASSED"
    assert int(peak) * 1024 < 1 << 30, f"peak resident memory {budget.human(int(peak) * 1024)}"
