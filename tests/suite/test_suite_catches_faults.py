"""The conformance suite fails against a MODULE:ATTR backend carrying a simulator table fault, and passes the same
backend spelled as the plain simulator."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
#: --ops keeps the child from collecting and compiling the rest of the case library.
SELECTION = ["conformance/test_execute.py", "conformance/test_handle.py", "--ops=Add,Mul", "-k", "Add or Mul"]


def run_suite(backend: str) -> subprocess.CompletedProcess:
    """Run the selection against a backend in a child pytest with no fault named in the environment."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(HERE), str(ROOT), os.environ.get("PYTHONPATH", "")]),
               ACLCTS_SIM_FAULTS="")
    command = [sys.executable, "-m", "pytest", *SELECTION, f"--backend={backend}", "-q", "-x",
               "-p", "no:cacheprovider", "-p", "no:xdist"]
    return subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)


@pytest.mark.slow
def test_suite_fails_against_a_backend_with_a_table_fault():
    result = run_suite("faults:changed_output_element")
    tail = result.stdout[-3000:]
    assert result.returncode == 1, f"the suite did not catch execute_overwrites_output (exit {result.returncode}):\n{tail}"
    assert "1 failed" in tail


@pytest.mark.slow
def test_the_same_selection_passes_against_the_simulator():
    result = run_suite("sim")
    tail = result.stdout[-3000:]
    assert result.returncode == 0, f"the selection fails without a fault:\n{tail}"
    assert " passed" in tail
