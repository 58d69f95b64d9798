"""Every simulator fault is caught by the conformance suite and every tolerable deviation passes it."""

from __future__ import annotations

import dataclasses
import fcntl
import importlib.util
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from hypothesis import Phase, settings

from aclcts.tools import killmatrix
from aclcts.sim import faults, isolated
from aclcts.sim.kernels import get_kernel
from aclcts.sim.kernels.base import TensorInfo
from aclcts.sim.settings import Settings, from_environment, updated
from aclcts.tools.killmatrix_selections import DEVIATION_SELECTIONS, FAULT_SELECTIONS

ROOT = Path(__file__).resolve().parents[2]
ACL_FLOAT, ACL_FLOAT16 = 0, 1
#: The deviations of numeric results only: each changes the last bits of its op's output.
NUMERIC_DEVIATIONS = ("transcendental_float32_one_ulp", "transcendental_float16_one_ulp",
                      "matmul_reversed_accumulation", "reduce_sequential_sum")


def run_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder every pytest-xdist worker of this run shares (the run's base temporary folder), or this process's."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def once_per_run(path: Path, produce: Callable[[], dict], wait: bool = True) -> dict | None:
    """produce()'s result (JSON), made by the first process of the run that asks and read from path by the others;
    None, without waiting, when wait is False and another process is making it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.with_name(path.name + ".lock"), "w") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except BlockingIOError:
            return None
        if path.exists():
            return json.loads(path.read_text())
        result = produce()
        path.write_text(json.dumps(result))
        return result


@pytest.fixture(scope="module")
def model_cache(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A model cache shared by every child run of this module in every worker: each library is compiled once."""
    folder = run_folder(tmp_path_factory) / "killmatrix-models"
    folder.mkdir(exist_ok=True)
    return str(folder)


#: The case library of a selection that names no op: the step tests with one case file (the step tests' own Add
#: cases among its cases), so that loading and compiling it costs the same whatever the library's size.
STEP_LIBRARY = ["--with-step-tests", "--cases", "cases/elementwise/add.yaml"]


def narrowed(selection: list[str]) -> bool:
    """Whether a selection narrows the case library to named ops (--ops)."""
    return any(token.startswith("--ops=") for token in selection)


def fixed_cost(selection: list[str]) -> list[str]:
    """The selection as these self-tests run it: one with --ops reads only those ops' case files, one without runs
    over STEP_LIBRARY; `aclcts kill-matrix` runs the selections as given, over the whole library."""
    return selection if narrowed(selection) else [*selection, *STEP_LIBRARY]


def clean_selection(selections: list[list[str]], ops: bool) -> list[str]:
    """One selection, run without faults, holding every test that any of the selections runs: those with --ops
    (ops=True) or those over STEP_LIBRARY (ops=False); their test files in full over the union of their libraries.
    Like the selections, it runs as fixed_cost() makes it."""
    chosen = [selection for selection in selections if narrowed(selection) == ops]
    paths = list(dict.fromkeys(token for selection in chosen for token in selection if token.startswith("conformance/")))
    if not ops:
        return paths  # suite() runs them over STEP_LIBRARY
    named = {op for selection in chosen for token in selection if token.startswith("--ops=")
             for op in token[len("--ops="):].split(",")}
    return [*paths, f"--ops={','.join(sorted(named))}"]


@pytest.fixture(scope="module")
def clean_outcomes(tmp_path_factory: pytest.TempPathFactory, model_cache: str) -> Callable[[list[str]], dict]:
    """Each test's outcome without faults, from the one clean run (per run of this module, shared by the workers) of
    every fault selection's tests over the same kind of library as the selection given."""

    def made(ops: bool, wait: bool) -> dict | None:
        clean = clean_selection(list(FAULT_SELECTIONS.values()), ops)
        return once_per_run(run_folder(tmp_path_factory) / f"killmatrix-clean-{'ops' if ops else 'steps'}.json",
                            lambda: dataclasses.asdict(suite(None, clean, model_cache, timeout=900)), wait)

    def outcomes(selection: list[str]) -> dict:
        ops = narrowed(selection)
        found = made(ops, wait=False)
        if found is None:  # another worker is making it: make the other kind's meanwhile, if nobody has
            made(not ops, wait=False)
            found = made(ops, wait=True)
        return found

    return outcomes


def suite(name: str | None, selection: list[str], model_cache: str, timeout: float) -> killmatrix.Run:
    """Run a conformance selection in a child pytest with the named injection on (none for None)."""
    return killmatrix.run_pytest(name, [*fixed_cost(selection), f"--model-cache={model_cache}"], timeout=timeout,
                                 cwd=ROOT)


def test_every_injection_has_a_selection():
    assert set(FAULT_SELECTIONS) == set(faults.names(faults.FAULT))
    assert set(DEVIATION_SELECTIONS) == set(faults.names(faults.DEVIATION))
    assert len(FAULT_SELECTIONS) >= 15 and len(DEVIATION_SELECTIONS) >= 2


def test_the_clean_runs_hold_every_file_and_op_of_every_fault_selection():
    selections = list(FAULT_SELECTIONS.values())
    for selection in selections:
        clean = clean_selection(selections, narrowed(selection))
        assert {token for token in selection if token.startswith("conformance/")} <= set(clean), selection
        ops = {op for token in fixed_cost(selection) if token.startswith("--ops=") for op in token[6:].split(",")}
        clean_ops = {op for token in clean if token.startswith("--ops=") for op in token[6:].split(",")}
        assert ops <= clean_ops and narrowed(fixed_cost(clean)) == narrowed(selection), selection


def test_a_result_made_once_per_run_is_read_back_by_later_askers_or_left_to_its_maker(tmp_path):
    made = []
    path = tmp_path / "shared" / "result.json"
    assert once_per_run(path, lambda: made.append(1) or {"outcomes": {"t": "passed"}}) == {"outcomes": {"t": "passed"}}
    assert once_per_run(path, lambda: made.append(2) or {}) == {"outcomes": {"t": "passed"}}
    assert made == [1]
    other = tmp_path / "shared" / "other.json"
    with open(tmp_path / "shared" / "other.json.lock", "w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)  # another process making it
        assert once_per_run(other, lambda: made.append(3) or {}, wait=False) is None
    assert once_per_run(other, lambda: made.append(4) or {"outcomes": {}}, wait=False) == {"outcomes": {}}
    assert made == [1, 4]


def test_the_event_machine_shrinks_a_failure_under_every_profile_but_ci(monkeypatch):
    spec = importlib.util.spec_from_file_location("event_states", ROOT / "conformance" / "test_event_states.py")
    machine = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, machine)  # its dataclasses look their module up there
    spec.loader.exec_module(machine)
    for name in ("ci", "default", "qualification"):
        profile = settings.get_profile(name)
        chosen = machine.machine_settings(profile, name)
        assert (Phase.shrink in chosen.phases) == (name != "ci"), name
        assert set(chosen.phases) | {Phase.shrink} == set(profile.phases) | {Phase.shrink}, name
        assert chosen.max_examples == profile.max_examples * machine.EXAMPLES_PER_PROFILE_EXAMPLE


def test_unknown_fault_names_are_rejected_with_the_known_names():
    with pytest.raises(ValueError, match=r"unknown fault name\(s\) no_such_fault; known: .*gemm_ignores_beta"):
        updated(Settings(), faults="gemm_ignores_beta,no_such_fault")


def test_faults_come_from_the_environment_comma_separated(monkeypatch):
    monkeypatch.setenv("ACLCTS_SIM_FAULTS", " gemm_ignores_beta , bf16_size_wrong,")
    assert from_environment().faults == frozenset({"gemm_ignores_beta", "bf16_size_wrong"})
    monkeypatch.setenv("ACLCTS_SIM_FAULTS", "gemm_ignores_bta")
    with pytest.raises(ValueError, match="ACLCTS_SIM_FAULTS.*gemm_ignores_bta"):
        from_environment()


def test_no_fault_is_active_by_default(monkeypatch):
    monkeypatch.delenv("ACLCTS_SIM_FAULTS", raising=False)
    assert from_environment().faults == frozenset()
    with isolated(faults=""):
        assert faults.installed() == frozenset()
    with isolated(faults="bf16_size_wrong"):
        assert faults.installed() == {"bf16_size_wrong"}


def test_a_fault_that_crashes_the_process_runs_with_at_least_two_workers():
    assert [name for name in faults.names() if faults.REGISTRY[name].crashes] == ["double_free_crashes"]
    assert killmatrix.workers_for("double_free_crashes", 1) == 2
    assert killmatrix.workers_for("double_free_crashes", 4) == 4
    assert killmatrix.workers_for("double_free_succeeds", 1) == 1
    assert killmatrix.workers_for(None, 1) == 1


def test_a_fault_that_hangs_runs_with_a_per_test_timeout():
    assert [name for name in faults.names() if faults.REGISTRY[name].hangs] == ["kernel_hangs"]
    assert killmatrix.timeout_args("kernel_hangs") == [f"--timeout={killmatrix.HANG_TIMEOUT}", "-o",
                                                       "timeout_func_only=true"]
    assert killmatrix.timeout_args("double_free_crashes") == []
    assert killmatrix.timeout_args(None) == []


def test_the_command_rejects_an_unknown_fault_in_one_line(capsys):
    with pytest.raises(SystemExit) as stopped:
        killmatrix.main(["--faults", "gemm_ignores_beta,nope"])
    assert stopped.value.code == 2
    error = capsys.readouterr().err
    assert "--faults: unknown fault name(s) nope; known:" in error and "Traceback" not in error


JUNIT = """<testsuites><testsuite name="pytest">
<testcase classname="conformance.test_memory" name="test_a[1]"/>
<testcase classname="conformance.test_memory" name="test_b"><failure message="boom"/></testcase>
<testcase classname="conformance.test_memory" name="test_c"><error message="leak"/></testcase>
<testcase classname="conformance.test_memory" name="test_d"><skipped message="n/a"/></testcase>
</testsuite></testsuites>"""


def test_junit_outcomes_give_node_ids_and_the_matrix_counts_only_new_failures(tmp_path):
    xml = tmp_path / "junit.xml"
    xml.write_text(JUNIT)
    outcomes = killmatrix.junit_outcomes(xml, ROOT)
    assert outcomes == {"conformance/test_memory.py::test_a[1]": "passed", "conformance/test_memory.py::test_b": "failed",
                        "conformance/test_memory.py::test_c": "error", "conformance/test_memory.py::test_d": "skipped"}
    baseline = killmatrix.Run(None, 1, outcomes={**outcomes, "conformance/test_memory.py::test_b": "passed"})
    fault = killmatrix.Run("gemm_ignores_beta", 1, outcomes=outcomes)
    deviation = killmatrix.Run("reduce_sequential_sum", 1,
                               outcomes={**baseline.outcomes, "conformance/test_memory.py::test_a[1]": "failed"})
    assert killmatrix.killers(fault, baseline) == ["conformance/test_memory.py::test_b"]
    runs = {None: baseline, "gemm_ignores_beta": fault, "reduce_sequential_sum": deviation}
    text = killmatrix.render("aclcts kill-matrix", ["gemm_ignores_beta", "bf16_size_wrong", "reduce_sequential_sum"], runs)
    assert "| `gemm_ignores_beta` | " in text and " | yes | 1 | `conformance/test_memory.py::test_b` |" in text
    assert "| `bf16_size_wrong` | " in text and " | pending | | |" in text
    assert " | **no** | 1 | `conformance/test_memory.py::test_a[1]` |" in text
    assert killmatrix.sound(fault, baseline) and not killmatrix.sound(deviation, baseline)
    assert "tests run" not in text


def test_each_injection_runs_its_own_tests_under_the_given_suite_folder():
    assert killmatrix.own_selection("gemm_ignores_beta", "conformance") == FAULT_SELECTIONS["gemm_ignores_beta"]
    assert killmatrix.own_selection("malloc_size_zero_succeeds", "suite") == ["suite/test_memory.py", "-k", "size_0"]
    assert killmatrix.own_selection("reduce_sequential_sum", "conformance") == DEVIATION_SELECTIONS["reduce_sequential_sum"]


def test_the_matrix_names_the_tests_each_injection_ran_over(tmp_path):
    xml = tmp_path / "junit.xml"
    xml.write_text(JUNIT)
    outcomes = killmatrix.junit_outcomes(xml, ROOT)
    runs = {None: killmatrix.Run(None, 0, outcomes={**outcomes, "conformance/test_memory.py::test_b": "passed"}),
            "malloc_size_zero_succeeds": killmatrix.Run("malloc_size_zero_succeeds", 1, outcomes=outcomes)}
    selections = {name: killmatrix.own_selection(name, "conformance")
                  for name in ("malloc_size_zero_succeeds", "bf16_size_wrong")}
    text = killmatrix.render("aclcts kill-matrix", list(selections), runs, selections)
    assert "| fault | defect modelled | tests run | killed |" in text
    assert " | `conformance/test_memory.py -k size_0` | yes | 1 | `conformance/test_memory.py::test_b` |" in text
    assert " | `conformance/test_descriptors.py -k data_type_size` | pending | | |" in text


def test_the_matrix_lists_each_golden_case_with_the_faults_that_fail_it():
    golden = "conformance/test_golden.py::test_golden_case_matches_the_stored_result"
    baseline = killmatrix.Run(None, 0, outcomes={f"{golden}[add_float32_subnormals]": "passed",
                                                 f"{golden}[cast_int8_to_uint8_wraps]": "passed"})
    flushed = killmatrix.Run("subnormals_flushed_float32", 1,
                             outcomes={**baseline.outcomes, f"{golden}[add_float32_subnormals]": "failed"})
    text = killmatrix.render("aclcts kill-matrix", ["subnormals_flushed_float32"],
                             {None: baseline, "subnormals_flushed_float32": flushed})
    assert "| `add_float32_subnormals` | `subnormals_flushed_float32` |" in text
    assert "| `cast_int8_to_uint8_wraps` | none |" in text


def test_select_and_whole_suite_together_are_a_usage_error(capsys):
    with pytest.raises(SystemExit) as stopped:
        killmatrix.main(["--select", "-m sync", "--whole-suite"])
    assert stopped.value.code == 2
    assert "--select and --whole-suite" in capsys.readouterr().err


@pytest.mark.parametrize("workers", ["0", "257", "1000000"])
def test_a_worker_count_outside_1_to_256_is_a_usage_error_before_any_run(capsys, workers):
    with pytest.raises(SystemExit) as stopped:
        killmatrix.main(["-n", workers])
    assert stopped.value.code == 2
    assert f"-n: expected 1 to {killmatrix.MAX_WORKERS} workers, got {workers}" in capsys.readouterr().err


def _compute(op_type: str, inputs: list[np.ndarray | None], attrs: dict, shape: tuple[int, ...]) -> np.ndarray:
    acl_type = ACL_FLOAT16 if inputs[0].dtype == np.float16 else ACL_FLOAT
    return get_kernel(op_type).compute(inputs, attrs, [TensorInfo(acl_type, shape, 2)])[0]


@pytest.mark.parametrize("deviation", NUMERIC_DEVIATIONS)
def test_a_deviation_changes_only_the_last_bits_of_its_op(deviation):
    rng = np.random.default_rng(7)
    x = rng.uniform(0.5, 2.0, (64, 257)).astype(np.float32)
    calls = {
        "transcendental_float32_one_ulp": ("Exp", [x], {}, x.shape),
        "transcendental_float16_one_ulp": ("Tanh", [x.astype(np.float16)], {}, x.shape),
        "reduce_sequential_sum": ("ReduceSumD", [x], {"axes": [1]}, (64,)),
        "matmul_reversed_accumulation": ("MatMul", [x, rng.uniform(-1, 1, (257, 8)).astype(np.float32), None], {}, (64, 8)),
    }
    op_type, inputs, attrs, shape = calls[deviation]
    with isolated(faults=""):
        plain = _compute(op_type, inputs, attrs, shape)
    with isolated(faults=deviation):
        deviated = _compute(op_type, inputs, attrs, shape)
    assert not np.array_equal(plain, deviated)
    tolerance = 1e-5 if plain.dtype == np.float32 else float(np.finfo(plain.dtype).eps)
    np.testing.assert_allclose(deviated, plain, rtol=tolerance, atol=tolerance)


@pytest.mark.slow
@pytest.mark.parametrize("fault", sorted(FAULT_SELECTIONS))
def test_fault_is_caught_by_the_conformance_suite(fault, model_cache, clean_outcomes):
    run = suite(fault, ["-x", *FAULT_SELECTIONS[fault]], model_cache, timeout=300)
    assert run.failing(), f"{fault}: no test in {FAULT_SELECTIONS[fault]} failed (exit {run.returncode}):\n{run.tail}"
    killer = run.failing()[0]
    clean = clean_outcomes(FAULT_SELECTIONS[fault])
    assert clean["outcomes"].get(killer) == "passed", (
        f"{fault}: {killer} {clean['outcomes'].get(killer, 'did not run')} in the clean run of every selection's "
        f"tests (exit {clean['returncode']}):\n{clean['tail']}")


@pytest.mark.slow
@pytest.mark.parametrize("deviation", sorted(DEVIATION_SELECTIONS))
def test_tolerable_deviation_passes_the_numeric_tests(deviation, model_cache):
    run = suite(deviation, DEVIATION_SELECTIONS[deviation], model_cache, timeout=600)
    assert not run.aborted(), f"{deviation}: the run ended abnormally (exit {run.returncode}):\n{run.tail}"
    assert not run.failing(), f"{deviation}: failing tests {run.failing()[:5]}"
    assert sum(outcome == "passed" for outcome in run.outcomes.values()) > 0
