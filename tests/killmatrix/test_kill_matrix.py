"""Every simulator fault is caught by the conformance suite and every tolerable deviation passes it."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from aclcts.tools import killmatrix
from aclcts.atc import main as atc_main
from aclcts.sim import faults, isolated
from aclcts.sim.faults.kernels import TRANSCENDENTAL
from aclcts.sim.kernels import get_kernel
from aclcts.sim.kernels.base import TensorInfo
from aclcts.sim.settings import Settings, from_environment, updated
from aclcts.tools.singleop import main as singleop_main

ROOT = Path(__file__).resolve().parents[2]
NUMERIC = ["conformance/test_execute.py", "conformance/test_handle.py", "conformance/test_golden.py"]
#: A -k expression selecting the tests of the ops the transcendental deviations change.
TRANSCENDENTAL_K = " or ".join(TRANSCENDENTAL)
ACL_FLOAT, ACL_FLOAT16 = 0, 1

#: For each fault, the conformance tests that are run (with -x) to show it is caught.
FAULT_SELECTIONS = {
    "memcpy_one_byte_short": ["conformance/test_memory.py", "-k", "memcpy_copies_count_bytes"],
    "memcpy_async_one_byte_short": ["conformance/test_memory.py", "conformance/test_sync.py"],
    "gemm_ignores_beta": ["conformance/test_blas.py"],
    "matmul_ignores_transpose": ["conformance/test_blas.py"],
    "cast_truncates_to_float16": ["conformance/test_golden.py", "conformance/test_cast.py"],
    "broadcast_wrong_axis": ["conformance/test_execute.py", "-k", "Add or Mul or Sub"],
    "malloc_size_zero_succeeds": ["conformance/test_memory.py", "-k", "size_0"],
    "unmatched_op_wrong_code": ["conformance/test_negative.py", "conformance/test_dynamic_shapes.py"],
    "memcpy_null_code_swapped": ["conformance/test_memory.py", "-k", "documented_order"],
    "destroy_handle_leaks_memory": ["conformance/test_leaks.py", "-k", "handle"],
    "destroy_handle_keeps_object": ["conformance/test_negative.py", "-k", "destroyed_handle"],
    "async_h2d_lands_late": ["conformance/test_sync.py"],
    "synchronize_stream_no_drain": ["conformance/test_sync.py"],
    "work_on_default_stream": ["conformance/test_sync.py"],
    "infer_shape_ranges_narrowed": ["conformance/test_data_dependent.py", "conformance/test_dynamic_shapes.py"],
    "no_output_shape_write_back": ["conformance/test_dynamic_shapes.py"],
    "bf16_size_wrong": ["conformance/test_descriptors.py", "-k", "data_type_size"],
    "model_dir_no_recurse": ["conformance/test_load.py", "-k", "three_folder_levels"],
    "model_dir_repeat_accepted": ["conformance/test_load.py", "-k", "100002"],
    "execute_overwrites_output": ["conformance/test_execute.py", "-k", "Add"],
    "free_accepts_null": ["conformance/test_negative.py", "-k", "rt.free.null"],
    "double_free_succeeds": ["conformance/test_negative.py", "-k", "double_free"],
    "double_free_crashes": ["conformance/test_negative.py", "-k", "double_free", "--isolate"],
    "handle_input_count_unchecked": ["conformance/test_negative.py", "-k", "execute_with_handle"],
    "get_mem_info_frozen": ["conformance/test_leaks.py", "-k", "moves"],
    "memcpy_keeps_host_copies": ["conformance/test_leaks.py", "-k", "host_memory"],
    "dynamic_element_count_wrong": ["conformance/test_dynamic_shapes.py", "-k", "count"],
    "kernel_hangs": ["conformance/test_execute.py", "-k", "LogicalAnd"],
    "callback_before_prior_work": ["conformance/test_sync.py", "-k", "callback"],
    "event_elapsed_time_negative": ["conformance/test_sync.py", "-k", "elapsed_time"],
    "event_status_complete_too_early": ["conformance/test_sync.py", "-k", "event_status"],
    "negative_index_read_as_python_index": ["conformance/test_descriptors.py", "-k", "negative_or_far"],
    "int64_attrs_truncated": ["conformance/test_handle.py", "-k", "int64_attr"],
    "handle_reads_caller_descs": ["conformance/test_handle.py", "-k", "expectation"],
    "round_half_away_from_zero": ["conformance/test_execute.py", "-k", "Round or Rint"],
    "accumulator_narrowed": ["conformance/test_execute.py", "-k", "MatMul and int32 and wide_sums"],
    "subnormals_flushed_float32": ["conformance/test_execute.py", "-k", "float32 and subnormal"],
    "softmax_without_max_subtraction": ["conformance/test_execute.py", "-k", "SoftmaxV2 and large"],
    "sparse_duplicates_last_wins": ["conformance/test_execute.py", "-k", "SparseTensorDenseMatMul"],
    "floor_mod_truncates": ["conformance/test_execute.py", "-k", "FloorMod"],
    "right_shift_logical_for_signed": ["conformance/test_execute.py", "-k", "RightShift"],
    "scan_ignores_exclusive": ["conformance/test_execute.py", "-k", "Cumsum or Cumprod"],
    "arg_extreme_last_of_ties": ["conformance/test_execute.py", "-k", "ArgMin or ArgMaxD or WithValue"],
    "layer_norm_unbiased_variance": ["conformance/test_execute.py", "-k", "LayerNorm"],
    "avg_pool_counts_padding": ["conformance/test_execute.py", "-k", "AvgPool"],
    "gelu_erf_form": ["conformance/test_execute.py", "-k", "Gelu and not FastGelu"],
    "leaky_relu_slope_on_positive": ["conformance/test_execute.py", "-k", "LeakyRelu"],
    "resize_ignores_half_pixel_centers": ["conformance/test_execute.py", "-k", "Resize"],
    "cast_float_to_int_wraps": ["conformance/test_golden.py", "-k", "boundaries"],
    "cast_int_to_int_saturates": ["conformance/test_golden.py", "-k", "wraps and cast"],
    "cast_flushes_subnormals": ["conformance/test_golden.py", "-k", "cast and subnormals"],
    "subnormals_flushed_bfloat16": ["conformance/test_golden.py", "-k", "bfloat16 and subnormals"],
    "log_softmax_without_max_subtraction": ["conformance/test_golden.py", "-k", "log_softmax"],
    "mirror_pad_reflect_as_symmetric": ["conformance/test_execute.py", "-k", "MirrorPad"],
    "strided_slice_ignores_end_mask": ["conformance/test_execute.py", "-k", "StridedSlice"],
    "scatter_add_last_duplicate_only": ["conformance/test_execute.py", "-k", "ScatterAdd or UnsortedSegmentSum"],
    "sort_unstable": ["conformance/test_execute.py", "-k", "Sort"],
}

#: For each deviation, every numeric conformance test of the ops (and dtypes) it affects, run in full.
DEVIATION_SELECTIONS = {
    "transcendental_float32_one_ulp": NUMERIC + ["-k", f"({TRANSCENDENTAL_K}) and float32"],
    "matmul_reversed_accumulation": NUMERIC + ["conformance/test_blas.py", "-k", "MatMul or GEMM or gemm"],
    "reduce_sequential_sum": NUMERIC + ["-k", "ReduceSum or ReduceMean"],
    "transcendental_float16_one_ulp": NUMERIC + ["-k", f"({TRANSCENDENTAL_K}) and float16"],
    "work_completes_eagerly": ["conformance/test_sync.py", "conformance/test_memory.py", "conformance/test_free.py",
                               "conformance/test_handle.py", "-k", "not matches_reference"],
    "last_block_written": NUMERIC + ["conformance/test_cast.py", "conformance/test_dynamic_shapes.py"],
    "handle_values_recycled": ["conformance/test_handle.py", "conformance/test_negative.py",
                               "conformance/test_leaks.py", "conformance/test_cast.py"],
    "streams_synchronised_in_another_order": ["conformance/test_sync.py"],
}
#: The deviations of numeric results only: each changes the last bits of its op's output.
NUMERIC_DEVIATIONS = ("transcendental_float32_one_ulp", "transcendental_float16_one_ulp",
                      "matmul_reversed_accumulation", "reduce_sequential_sum")


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The case library and golden cases compiled once, shared by every child run of this module."""
    folder = tmp_path_factory.mktemp("killmatrix-models")
    op_list = folder / "op_list.json"
    assert singleop_main([str(ROOT / "cases"), "--golden-dir", str(ROOT / "golden"), "-o", str(op_list)]) == 0
    assert atc_main([f"--singleop={op_list}", f"--output={folder / 'models'}", "--soc_version=Ascend910B1"]) == 0
    return str(folder / "models")


def suite(name: str | None, selection: list[str], model_dir: str, timeout: float) -> killmatrix.Run:
    """Run a conformance selection in a child pytest with the named injection on (none for None)."""
    return killmatrix.run_pytest(name, [*selection, f"--model-dir={model_dir}"], timeout=timeout, cwd=ROOT)


def test_every_injection_has_a_selection():
    assert set(FAULT_SELECTIONS) == set(faults.names(faults.FAULT))
    assert set(DEVIATION_SELECTIONS) == set(faults.names(faults.DEVIATION))
    assert len(FAULT_SELECTIONS) >= 15 and len(DEVIATION_SELECTIONS) >= 2


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
    assert " | **no** | `conformance/test_memory.py::test_a[1]` |" in text
    assert killmatrix.sound(fault, baseline) and not killmatrix.sound(deviation, baseline)


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
def test_fault_is_caught_by_the_conformance_suite(fault, model_dir):
    run = suite(fault, ["-x", *FAULT_SELECTIONS[fault]], model_dir, timeout=300)
    assert run.failing(), f"{fault}: no test in {FAULT_SELECTIONS[fault]} failed (exit {run.returncode}):\n{run.tail}"
    killer = run.failing()[0]
    clean = suite(None, [killer], model_dir, timeout=300)
    assert clean.outcomes.get(killer) == "passed", (
        f"{fault}: {killer} fails without the fault too (exit {clean.returncode}):\n{clean.tail}")


@pytest.mark.slow
@pytest.mark.parametrize("deviation", sorted(DEVIATION_SELECTIONS))
def test_tolerable_deviation_passes_the_numeric_tests(deviation, model_dir):
    run = suite(deviation, DEVIATION_SELECTIONS[deviation], model_dir, timeout=600)
    assert not run.aborted(), f"{deviation}: the run ended abnormally (exit {run.returncode}):\n{run.tail}"
    assert not run.failing(), f"{deviation}: failing tests {run.failing()[:5]}"
    assert sum(outcome == "passed" for outcome in run.outcomes.values()) > 0
