"""The negative, leak and lifecycle suites fail against the simulator with one table fault on, and pass without it."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NEGATIVE, LEAKS = "conformance/test_negative.py", "conformance/test_leaks.py"
#: The probes' model (Add int32 [8, 16]); compiling only its case file keeps each child run short, and the probes are
#: step tests, which a --cases run runs only when asked.
CASES = ["--with-step-tests", "--cases", "cases/elementwise/add.yaml"]

#: simulator fault (aclcts/sim/faults) → (the selection to run, the test that must be among the failures).
FAULTS = {
    "free_accepts_null": ([NEGATIVE, "-k", "rt.free"],
                          "test_invalid_call_gets_the_documented_outcome[rt.free.null]"),
    "double_free_succeeds": ([NEGATIVE, "-k", "double_free"],
                             "test_misuse_is_rejected[unsafe.rt.free.double_free]"),
    "destroy_handle_leaks_memory": ([LEAKS, "-k", "handle"],
                                    "test_create_destroy_handle_cycles_return_device_memory"),
    "get_mem_info_frozen": ([LEAKS, "-k", "moves"], "test_get_mem_info_moves_on_malloc_and_back_on_free"),
    "handle_input_count_unchecked": ([NEGATIVE, "-k", "execute_with_handle"],
                                     ("test_invalid_call_gets_the_documented_outcome[op.execute_with_handle."
                                      "one_input_too_few]")),
    "memcpy_keeps_host_copies": ([LEAKS, "-k", "host_memory"],
                                 "test_host_memory_growth_over_binding_cycles_is_bounded[malloc-memcpy-free]"),
}


def run_suite(fault: str, selection: list[str]) -> subprocess.CompletedProcess:
    """Run part of the conformance suite in a child pytest with the named simulator fault on ("" for none)."""
    env = dict(os.environ, ACLCTS_SIM_FAULTS=fault)
    command = [sys.executable, "-m", "pytest", *selection, *CASES, "-q", "-rf", "-p", "no:cacheprovider",
               "-p", "no:xdist"]
    return subprocess.run(command, check=False, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)


def failed_tests(output: str) -> set[str]:
    """Test names (without the module path) from the FAILED lines of a pytest summary."""
    return set(re.findall(r"^FAILED \S+::(\S+)", output, re.MULTILINE))


@pytest.mark.slow
@pytest.mark.parametrize("fault", FAULTS)
def test_suite_fails_against_injected_fault(fault):
    selection, must_fail = FAULTS[fault]
    result = run_suite(fault, selection)
    tail = result.stdout[-4000:]
    assert result.returncode == 1, f"the suite did not catch {fault} (exit {result.returncode}):\n{tail}"
    assert must_fail in failed_tests(result.stdout), f"{must_fail} did not fail against {fault}:\n{tail}"


@pytest.mark.slow
def test_the_same_selections_pass_without_a_fault():
    files = sorted({path for selection, _ in FAULTS.values() for path in selection[:1]})
    words = sorted({selection[2] for selection, _ in FAULTS.values()})
    result = run_suite("", [*files, "-k", " or ".join(words)])
    tail = result.stdout[-4000:]
    assert result.returncode == 0, f"the selections fail without any fault:\n{tail}"
    assert " passed" in tail
