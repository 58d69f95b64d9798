"""The memory budget: a case whose estimated host memory is above --memory-budget is skipped, with the estimate and
the budget in the reason, before anything is allocated (issue 22, scope 6)."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from aclcts.cases import load_cases
from add_case import ADD_CASE
from aclcts.drive import budget

ROOT = Path(__file__).resolve().parents[3]
#: One small case and one of 40000 x 40000 float32 elements per tensor (6.0 GiB each; 11.9 GiB in float64).
CASES = ADD_CASE + "  - [[40000, 40000], [40000, 40000]]\n"
#: Runs pytest as a child and prints the child's peak resident memory in KiB (Linux's ru_maxrss) on the last line.
MEASURED = ("import resource, subprocess, sys; done = subprocess.run(sys.argv[1:]); "
            "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss); sys.exit(done.returncode)")


@pytest.fixture(scope="module")
def cases(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("budget")
    (folder / "add.yaml").write_text(CASES)
    return folder


def test_a_case_above_the_budget_is_skipped_with_its_estimate_and_the_budget_without_allocating(cases, tmp_path):
    command = [sys.executable, "-m", "pytest", "conformance/test_execute.py::test_execute_v2_matches_reference",
               "--cases", str(cases), "--memory-budget=1GiB", f"--model-cache={tmp_path / 'models'}",
               "-p", "no:cacheprovider", "-p", "no:xdist", "-rs", "-q"]
    done = subprocess.run([sys.executable, "-c", MEASURED, *command], cwd=ROOT, capture_output=True, text=True,
                          timeout=300, env=dict(os.environ, PYTHONFAULTHANDLER="1"))
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    *lines, peak = done.stdout.splitlines()
    [reason] = [line for line in lines if "Add-float32-40000x40000_40000x40000: estimated host memory" in line]
    assert "above the memory budget 1.0 GiB" in reason
    assert "float64 reference 35.8 GiB" in reason  # x1, x2 and y: 3 x 1.6e9 elements x 8 bytes
    # One input alone would be 6.0 GiB; the run's peak stays that of a small run.
    assert int(peak) * 1024 < 1 << 30, f"peak resident memory {budget.human(int(peak) * 1024)}"


def test_the_estimate_counts_inputs_reference_outputs_guard_bands_device_copies_and_working_arrays(cases):
    small, huge = load_cases([str(cases)])
    elements = 40000 * 40000
    found = budget.estimate(huge, executions=2)
    assert found.inputs == 2 * (2 * elements * 4) + elements * 8  # two input sets, one float64 draw
    assert found.reference == 3 * elements * 8
    assert found.outputs == 2 * (elements * 4 + elements) + elements * 4  # arrays and masks, one raw read-back
    assert found.guards == 2 * 64
    assert found.device == 3 * elements * 4 + 2 * 64
    assert found.working == budget.WORKING_ARRAYS * elements * 8  # the kernel's and the comparison's float64 arrays
    assert budget.estimate(huge, device_on_host=False).device == 0
    assert budget.over_budget(small, 1 << 20) is None
    assert budget.over_budget(huge, 1 << 40) is None


@pytest.mark.parametrize(("text", "size"), [("4GiB", 4 << 30), ("512 MiB", 512 << 20), ("2GB", 2 * 10**9),
                                            ("1000000", 10**6), ("1.5g", 3 << 29), ("50%", 500), ("100%", 1000)])
def test_a_budget_is_a_size_or_a_share_of_the_available_memory(text, size):
    assert budget.parse_budget(text, available=1000) == size


@pytest.mark.parametrize("text", ["lots", "4GiBs", "-1GiB", "0", "0%", "150%", "%", ""])
def test_a_budget_that_is_neither_is_refused(text):
    with pytest.raises(ValueError):
        budget.parse_budget(text, available=1000)


def test_the_available_memory_is_known():
    assert budget.available_memory() > 0
