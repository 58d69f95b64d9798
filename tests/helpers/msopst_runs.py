"""Runs of the conformance suite's execute tests on one msopst file, with or without a planted simulator fault."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def run_execute(cases: Path, faults: str = "") -> subprocess.CompletedProcess:
    """pytest conformance/test_execute.py -k matches_reference on one msopst file, with ACLCTS_SIM_FAULTS=faults."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_XDIST", "PYTEST_ADDOPTS"))}
    env.pop("PYTEST_CURRENT_TEST", None)
    env["ACLCTS_SIM_FAULTS"] = faults
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly", "-p", "no:xdist",
               "conformance/test_execute.py", "-k", "matches_reference", "--cases", str(cases), "--model-cache=off"]
    return subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600, check=False)


def failed_cases(done: subprocess.CompletedProcess) -> set[str]:
    """The case ids (file stem.case name...) of the execute tests a run reports as FAILED."""
    prefix = "FAILED conformance/test_execute.py::test_execute_v2_matches_reference["
    return {line[len(prefix):].split("]")[0] for line in done.stdout.splitlines() if line.startswith(prefix)}
