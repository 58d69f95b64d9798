"""Child pytest runs of the run-report tests: the repository's conformance subset, writing reports."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from aclcts.report.records import Report

ROOT = Path(__file__).resolve().parents[2]
#: A conformance subset covering eight op families (elementwise, matmul, reduction, movement, nn, cast, index,
#: compare); the case files keep the per-session model compile small.
SUBSET_CASES = ["cases/elementwise/add.yaml", "cases/matmul/mat_mul.yaml", "cases/reduction/reduce_sum.yaml",
                "cases/shape/transpose.yaml", "cases/softmax/softmax_v2.yaml", "cases/cast/cast_to_float16.yaml",
                "cases/index/top_k.yaml", "cases/elementwise/less.yaml"]
SUBSET = ["conformance/test_execute.py", "--cases", *SUBSET_CASES, "-k", "float32"]


def child_environment(**extra: str) -> dict[str, str]:
    """This process's environment without the outer xdist worker's variables, plus extra."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_XDIST", "PYTEST_ADDOPTS"))}
    env.pop("PYTEST_CURRENT_TEST", None)
    env.update(extra)
    return env


def run_pytest(args: list[str], report: Path, **env: str) -> subprocess.CompletedProcess:
    """Run pytest in the repository with --report=report; the completed process."""
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly", *args,
               f"--report={report}"]
    return subprocess.run(command, cwd=ROOT, env=child_environment(**env), capture_output=True, text=True,
                          timeout=600, check=False)


def outcomes(report: Report) -> dict[str, tuple[str, dict]]:
    """Case id -> (status, metrics) of a report."""
    return {case_id: (case["status"], case["metrics"]) for case_id, case in report.cases.items()}
