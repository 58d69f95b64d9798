"""The conformance suite fails against a backend with an injected defect, and passes a tolerable deviation."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent

#: fault factory in faults.py → the conformance selection that must catch it.
FAULTS = {
    "changed_output_element": ["conformance/test_execute.py", "conformance/test_handle.py", "-k", "Add or Mul"],
    "ignored_gemm_beta": ["conformance/test_execute.py", "conformance/test_blas.py", "-k", "GEMM"],
    "wrong_missing_model_code": ["conformance", "-m", "negative"],
    "short_host_to_device_copy": ["conformance/test_execute.py", "-k", "Add"],
}
TOLERABLE = {
    "one_ulp_float32_exp": ["conformance/test_execute.py", "-k", "Exp and float32"],
}


def run_suite(factory: str, selection: list[str]) -> subprocess.CompletedProcess:
    """Run part of the conformance suite against faults.<factory> in a child pytest."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(HERE), str(ROOT), os.environ.get("PYTHONPATH", "")]))
    command = [sys.executable, "-m", "pytest", *selection, f"--backend=faults:{factory}", "-q", "-x",
               "-p", "no:cacheprovider", "-p", "no:xdist"]
    return subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)


@pytest.mark.slow
@pytest.mark.parametrize("factory", FAULTS)
def test_suite_fails_against_injected_fault(factory):
    result = run_suite(factory, FAULTS[factory])
    tail = result.stdout[-3000:]
    assert result.returncode == 1, f"the suite did not catch {factory} (exit {result.returncode}):\n{tail}"
    assert "passed" in tail or "failed" in tail


@pytest.mark.slow
@pytest.mark.parametrize("factory", TOLERABLE)
def test_suite_passes_a_deviation_inside_the_policy_bound(factory):
    result = run_suite(factory, TOLERABLE[factory])
    tail = result.stdout[-3000:]
    assert result.returncode == 0, f"the suite failed a tolerable deviation {factory}:\n{tail}"
    assert " passed" in tail
