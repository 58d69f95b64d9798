"""The negative, leak and lifecycle suites fail against a simulator wrapped with one defect, and pass without it."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
NEGATIVE, LEAKS = "conformance/test_negative.py", "conformance/test_leaks.py"
#: The probes' model (Add int32 [8, 16]); compiling only its case file keeps each child run short.
CASES = ["--cases", "cases/elementwise/add.yaml"]

#: fault factory in faults_negative.py → (the selection to run, the test that must be among the failures).
FAULTS = {
    "free_accepts_null": ([NEGATIVE, "-k", "rt.free"],
                          "test_invalid_call_gets_the_documented_outcome[rt.free.null]"),
    "double_free_succeeds": ([NEGATIVE, "-k", "double_free"],
                             "test_misuse_is_rejected[unsafe.rt.free.double_free]"),
    "destroy_handle_leaks_device_memory": ([LEAKS, "-k", "handle"],
                                           "test_create_destroy_handle_cycles_return_device_memory"),
    "frozen_get_mem_info": ([LEAKS, "-k", "moves"], "test_get_mem_info_moves_on_malloc_and_back_on_free"),
    "handle_runs_with_one_input_too_few": ([NEGATIVE, "-k", "execute_with_handle"],
                                           ("test_invalid_call_gets_the_documented_outcome[op.execute_with_handle."
                                           "one_input_too_few]")),
    "memcpy_keeps_host_copies": ([LEAKS, "-k", "host_memory"],
                                 "test_host_memory_growth_over_binding_cycles_is_bounded[malloc-memcpy-free]"),
}


def run_suite(factory: str, selection: list[str]) -> subprocess.CompletedProcess:
    """Run part of the conformance suite against faults_negative.<factory> in a child pytest."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(HERE), str(ROOT), os.environ.get("PYTHONPATH", "")]))
    command = [sys.executable, "-m", "pytest", *selection, *CASES, f"--backend=faults_negative:{factory}", "-q",
               "-rf", "-p", "no:cacheprovider", "-p", "no:xdist"]
    return subprocess.run(command, check=False, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)


def failed_tests(output: str) -> set[str]:
    """Test names (without the module path) from the FAILED lines of a pytest summary."""
    return set(re.findall(r"^FAILED \S+::(\S+)", output, re.MULTILINE))


@pytest.mark.slow
@pytest.mark.parametrize("factory", FAULTS)
def test_suite_fails_against_injected_fault(factory):
    selection, must_fail = FAULTS[factory]
    result = run_suite(factory, selection)
    tail = result.stdout[-4000:]
    assert result.returncode == 1, f"the suite did not catch {factory} (exit {result.returncode}):\n{tail}"
    assert must_fail in failed_tests(result.stdout), f"{must_fail} did not fail against {factory}:\n{tail}"


@pytest.mark.slow
def test_the_same_selections_pass_against_the_faithful_wrapper():
    files = sorted({path for selection, _ in FAULTS.values() for path in selection[:1]})
    words = sorted({selection[2] for selection, _ in FAULTS.values()})
    result = run_suite("faithful", [*files, "-k", " or ".join(words)])
    tail = result.stdout[-4000:]
    assert result.returncode == 0, f"the selections fail without any fault:\n{tail}"
    assert " passed" in tail
