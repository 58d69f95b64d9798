"""The dynamic-shape and state-machine conformance tests fail against the simulator with one table fault on, and
pass without it."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
#: Only the Add case (the state machine needs its static int32 [8, 16] model) and the dynamic-shape cases are
#: compiled into the child's model dir; the state-machine and data-dependent tests are step tests, run when asked.
LIBRARY = ["--with-step-tests", "--cases", "cases/elementwise/add.yaml", "cases/dynamic"]

#: simulator fault (aclcts/sim/faults) → (conformance selection, tests that must fail).
FAULTS = {
    "infer_shape_ranges_narrowed": (
        ["conformance/test_data_dependent.py"],
        {"test_non_zero_inferred_range_contains_the_real_count", "test_unique_inferred_range_contains_the_real_count",
         "test_non_zero_max_shape_flow_reads_the_real_shape_back", "test_unique_max_shape_flow_reads_the_real_shape_back"},
    ),
    "no_output_shape_write_back": (
        ["conformance/test_dynamic_shapes.py", "conformance/test_data_dependent.py", "-k", "back"],
        {"test_execute_v2_with_outputs_at_the_range_maximum_writes_the_real_shape_back",
         "test_non_zero_max_shape_flow_reads_the_real_shape_back", "test_unique_max_shape_flow_reads_the_real_shape_back",
         "test_top_k_with_k_at_run_time_and_outputs_at_the_size_of_x_reads_k_back"},
    ),
    "dynamic_element_count_wrong": (
        ["conformance/test_dynamic_shapes.py", "conformance/test_data_dependent.py", "-k", "count"],
        {"test_element_count_and_size_are_zero_with_minus_one_dims_and_real_once_set",
         "test_non_zero_inferred_range_contains_the_real_count", "test_unique_inferred_range_contains_the_real_count"},
    ),
}
SELECTIONS = [FAULTS[name][0] for name in FAULTS] + [["conformance/test_state_machine.py"]]


#: The dynamic cases the parametrized tests run over: one elementwise case and the data-dependent ones (each failing
#: example of a faulted run is shrunk by hypothesis, seconds per case, and one case per test shows the fault).
FEW_CASES = "dyn_add or dyn_non_zero or dyn_unique or dyn_top_k or dyn_masked_select or not dyn_"


def narrowed(selection: list[str]) -> list[str]:
    """The selection with its -k expression (if any) limited to FEW_CASES."""
    if "-k" not in selection:
        return [*selection, "-k", FEW_CASES]
    at = selection.index("-k") + 1
    return [*selection[:at], f"({selection[at]}) and ({FEW_CASES})", *selection[at + 1:]]


def run_suite(fault: str, selection: list[str]) -> subprocess.CompletedProcess:
    """Run part of the conformance suite in a child pytest with the named simulator fault on ("" for none)."""
    env = dict(os.environ, ACLCTS_SIM_FAULTS=fault)
    command = [sys.executable, "-m", "pytest", *narrowed(selection), *LIBRARY, "-q", "-p", "no:cacheprovider",
               "-p", "no:xdist", "-p", "no:randomly"]
    return subprocess.run(command, check=False, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)


def failed_tests(output: str) -> set[str]:
    """Names (without parameters) of the tests a pytest run lists as FAILED."""
    return {m.group(1) for m in re.finditer(r"^FAILED \S+::(\w+)", output, re.MULTILINE)}


@pytest.mark.slow
@pytest.mark.parametrize("fault", FAULTS)
def test_dynamic_shape_tests_fail_against_the_planted_fault(fault):
    selection, expected = FAULTS[fault]
    result = run_suite(fault, selection)
    failed = failed_tests(result.stdout)
    assert result.returncode == 1, f"{fault}: exit {result.returncode}\n{result.stdout[-3000:]}"
    assert expected <= failed, f"{fault}: expected {sorted(expected - failed)} to fail too; failed: {sorted(failed)}"


@pytest.mark.slow
def test_state_machine_shrinks_a_leak_in_destroy_handle_to_at_most_five_steps():
    result = run_suite("destroy_handle_leaks_memory", ["conformance/test_state_machine.py"])
    output = result.stdout
    assert "test_api_call_sequences_keep_the_documented_contract" in failed_tests(output), output[-3000:]
    # Each shrunk example is printed as the program of its steps, ending in state.teardown(); hypothesis may
    # report more than one distinct failure, and one of them must be the leak in at most five steps.
    examples = [[c for c in re.findall(r"state\.(\w+)\(", program) if c != "device_memory_is_the_live_allocations"]
                for program in output.split("state.teardown()")[:-1]]
    assert examples, output[-3000:]
    assert any("create_handle" in steps and len(steps) <= 5 for steps in examples), examples


@pytest.mark.slow
@pytest.mark.parametrize("selection", SELECTIONS, ids=["data_dependent", "write_back", "element_count", "state_machine"])
def test_the_same_selections_pass_without_a_fault(selection):
    result = run_suite("", selection)
    assert result.returncode == 0, f"exit {result.returncode}\n{result.stdout[-3000:]}"
