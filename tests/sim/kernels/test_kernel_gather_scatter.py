"""Gather, scatter and index-building kernels: sums in fp32 rounded once, integer wrap, bit-exact moves of special
values, index range errors, stable Sort with NaN last, value-dependent infer_shape."""

from __future__ import annotations

import subprocess
import sys
import warnings
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from aclcts.sim.kernels import KernelError

F16, F32, F64, I32, I64 = np.float16, np.float32, np.float64, np.int32, np.int64
BF16 = ml_dtypes.bfloat16
ROOT = Path(__file__).resolve().parents[3]


def test_gather_v2_moves_special_values_bit_for_bit(run):
    x = np.array([np.nan, -0.0, np.inf, 6e-8], F16)  # 6e-8: a float16 subnormal
    (y,) = run("GatherV2", [x, np.array([3, 1, 0, 2], I32), np.array(0, I32)], [(F16, (4,))])
    assert y.view(np.uint16).tolist() == x[[3, 1, 0, 2]].view(np.uint16).tolist()


def test_gather_v2_out_of_range_index_is_an_error_unless_negative_support(run):
    x = np.arange(6, dtype=I32).reshape(2, 3)
    with pytest.raises(KernelError, match="outside"):
        run("GatherV2", [x, np.array([3], I32), np.array(1, I32)], [(I32, (2, 1))])
    with pytest.raises(KernelError, match="outside"):
        run("GatherV2", [x, np.array([-1], I32), np.array(1, I32)], [(I32, (2, 1))])
    (y,) = run("GatherV2", [x, np.array([-1], I32), np.array(1, I32)], [(I32, (2, 1))],
               {"negative_index_support": True})
    assert y.tolist() == [[2], [5]]


def test_gather_v2_batch_dims(run):
    x = np.arange(6, dtype=F32).reshape(2, 3)
    (y,) = run("GatherV2", [x, np.array([[2, 2], [0, 1]], I64), np.array(1, I32)], [(F32, (2, 2))],
               {"batch_dims": 1})
    assert y.tolist() == [[2, 2], [3, 4]]


def test_gather_nd_and_gather_elements(run):
    x = np.arange(12, dtype=I64).reshape(3, 4)
    (y,) = run("GatherNd", [x, np.array([[2, 3], [0, 1]], I32)], [(I64, (2,))])
    assert y.tolist() == [11, 1]
    (y,) = run("GatherElements", [x, np.array([[3, 0]], I32)], [(I64, (1, 2))], {"dim": 1})
    assert y.tolist() == [[3, 0]]


def test_scatter_add_float16_sums_in_float32_and_rounds_once(run):
    # float16 steps: 2048 + 1 rounds back to 2048 three times; the float32 sum 2051 rounds once to 2052.
    var = np.array([2048], F16)
    (y,) = run("ScatterAdd", [var, np.array([0, 0, 0], I32), np.ones(3, F16)], [(F16, (1,))])
    assert y.tolist() == [2052.0]


def test_scatter_add_float16_sum_beyond_the_range_is_inf_without_a_warning(run):
    var = np.array([60000, -60000, 1], F16)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        (y,) = run("ScatterAdd", [var, np.array([0, 1, 0, 1], I32), np.array([60000, -60000, 1, 1], F16)],
                   [(F16, (3,))])
    assert y.tolist() == [np.inf, -np.inf, 1.0]


def test_a_float16_scatter_add_run_prints_no_runtime_warning():
    test = ("conformance/test_handle.py::test_execute_with_handle_matches_reference_on_every_execution"
            "[ScatterAdd-float16_int32-3x2x4_2x3_2x3x2x4]")
    done = subprocess.run([sys.executable, "-m", "pytest", test, "--cases", "cases/gather_scatter/scatter_add.yaml", "-q",
                           "-p", "no:cacheprovider", "-p", "no:xdist"], cwd=ROOT, capture_output=True, text=True,
                          timeout=300, check=False)
    assert done.returncode == 0 and "1 passed" in done.stdout, done.stdout[-3000:]
    assert "RuntimeWarning" not in done.stdout + done.stderr, done.stdout[-3000:]


def test_scatter_add_int8_wraps_and_update_writes(run):
    (y,) = run("ScatterAdd", [np.array([100], np.int8), np.array([0, 0], I64), np.array([20, 10], np.int8)],
               [(np.int8, (1,))])
    assert y.tolist() == [-126]
    var = np.zeros((3, 2), F32)
    (y,) = run("ScatterUpdate", [var, np.array([2], I32), np.array([[np.nan, -0.0]], F32)], [(F32, (3, 2))])
    assert np.isnan(y[2, 0]) and np.signbit(y[2, 1]) and not var.any()


def test_scatter_nd_and_unsorted_segment_sum_accumulate_in_float32(run):
    x = np.array([2048, 1, 1, 1], BF16)  # bfloat16 steps of 16 at 2048: only the float32 sum reaches 2051 -> 2048
    (y,) = run("ScatterNd", [np.zeros((4, 1), I32), x, np.array([2], I32)], [(BF16, (2,))])
    assert y.astype(F32).tolist() == [2048.0, 0.0]
    x16 = np.array([2048, 1, 1, 1, 5], F16)
    (y,) = run("UnsortedSegmentSum", [x16, np.array([0, 0, 0, 0, -1], I32), np.array(2, I32)], [(F16, (2,))])
    assert y.tolist() == [2052.0, 0.0]  # 2051 rounded once; the negative id's 5 dropped
    with pytest.raises(KernelError, match="num_segments"):
        run("UnsortedSegmentSum", [x16, np.array([0, 0, 0, 0, 2], I32), np.array(2, I32)], [(F16, (2,))])


def test_scatter_elements_reductions(run):
    data = np.ones((2, 2), F32)
    for reduction, expected in (("none", [[5, 1], [1, 1]]), ("add", [[6, 1], [1, 1]]), ("mul", [[5, 1], [1, 1]])):
        (y,) = run("ScatterElements", [data, np.array([[0]], I32), np.array([[5]], F32)], [(F32, (2, 2))],
                   {"reduction": reduction})
        assert y.tolist() == expected
    with pytest.raises(KernelError, match="reduction"):
        run("ScatterElements", [data, np.array([[0]], I32), np.array([[5]], F32)], [(F32, (2, 2))],
            {"reduction": "max"})


def test_scatter_elements_counts_a_negative_index_from_the_end_of_the_axis(run):
    data = np.zeros((2, 3), F32)
    (y,) = run("ScatterElements", [data, np.array([[-1], [-3]], I64), np.array([[7], [9]], F32)], [(F32, (2, 3))],
               {"axis": 1})
    assert y.tolist() == [[0, 0, 7], [9, 0, 0]]
    with pytest.raises(KernelError, match=r"holds -4, outside \[-3, 3\)"):
        run("ScatterElements", [data, np.array([[-4]], I64), np.array([[7]], F32)], [(F32, (2, 3))], {"axis": 1})


def test_one_hot_off_for_outside_indices(run):
    (y,) = run("OneHot", [np.array([2, -1, 3], I32), np.array(3, I32), np.array(1, BF16), np.array(0, BF16)],
               [(BF16, (3, 3))])
    assert y.astype(F32).tolist() == [[0, 0, 1], [0, 0, 0], [0, 0, 0]]


def test_range_float32_is_start_plus_i_delta_in_float32(run):
    (y,) = run("Range", [np.array(0, F32), np.array(1, F32), np.array(0.1, F32)], [(F32, (10,))])
    expected = np.arange(10, dtype=F32) * F32(0.1)
    assert y.tolist() == expected.tolist()
    (y,) = run("Range", [np.array(7, I64), np.array(-5, I64), np.array(-3, I64)], [(I64, (4,))])
    assert y.tolist() == [7, 4, 1, -2]
    with pytest.raises(KernelError, match="delta"):
        run("Range", [np.array(7, I64), np.array(-5, I64), np.array(0, I64)], [(I64, (4,))])


def test_lin_space_float32_within_an_ulp_of_float64(run):
    (y,) = run("LinSpace", [np.array(-1, F32), np.array(1, F32), np.array(7, I32)], [(F32, (7,))])
    exact = np.linspace(-1, 1, 7)
    assert y.dtype == F32 and np.max(np.abs(y - exact)) <= 2 * np.spacing(F32(1))


def test_sort_stable_nan_last_ascending_first_descending(run):
    x = np.array([1, np.nan, -np.inf, 1, -0.0, 0.0], F16)
    y, order = run("Sort", [x], [(F16, (6,)), (I32, (6,))], {"stable": True})
    assert order.tolist() == [2, 4, 5, 0, 3, 1] and np.signbit(y[1]) and np.isnan(y[5])
    y, order = run("Sort", [x], [(F16, (6,)), (I32, (6,))], {"descending": True})
    assert order.tolist() == [1, 0, 3, 4, 5, 2]
    with pytest.raises(KernelError, match="int32"):
        run("Sort", [x], [(F16, (6,)), (I64, (6,))])


def test_sort_bfloat16_puts_nan_last(run):
    x = np.array([np.nan, 3, 1e-7, -np.inf], BF16)
    _, order = run("Sort", [x], [(BF16, (4,)), (I32, (4,))], {"stable": True})
    assert order.tolist() == [3, 2, 1, 0]


def test_top_k_v2_matches_top_k_order(run):
    x = np.array([[1, 5, 3, 5]], F32)
    values, idx = run("TopKV2", [x, np.array(2, I32)], [(F32, (1, 2)), (I32, (1, 2))])
    assert values.tolist() == [[5, 5]] and idx.tolist() == [[1, 3]]


def test_masked_fill_and_masked_select(run):
    x = np.array([[1, 2], [3, 4]], np.int8)
    (y,) = run("MaskedFill", [x, np.array([False, True]), np.array(-128, np.int8)], [(np.int8, (2, 2))])
    assert y.tolist() == [[1, -128], [3, -128]]
    (y,) = run("MaskedSelect", [x, np.array([[True, False], [False, True]])], [(np.int8, (4,))])
    assert y.tolist() == [1, 4]


def test_search_sorted_and_bincount(run):
    seq = np.array([1, 2, 2, 3], I32)
    (out,) = run("SearchSorted", [seq, np.array([2, 9], I32)], [(I64, (2,))], {"right": True})
    assert out.tolist() == [3, 4]
    with pytest.raises(KernelError, match="dtype"):
        run("SearchSorted", [seq, np.array([2], I32)], [(I32, (1,))])
    (bins,) = run("Bincount", [np.array([0, 0, 7, -2], I32), np.array(2, I32), np.array([0.5, 0.25, 1, 1], F32)],
                  [(F32, (2,))])
    assert bins.tolist() == [0.75, 0]


def test_value_dependent_shapes_are_inferred_from_const_values(infer):
    i32, f32 = I32, F32
    (shape,) = infer("Range", [(f32, ()), (f32, ()), (f32, ())],
                     [np.array(3, F32), np.array(1, F32), np.array(-0.5, F32)])
    assert shape.shape == (4,)
    (shape,) = infer("OneHot", [(i32, (2, 3)), (i32, ()), (f32, ()), (f32, ())], [None, np.array(5, I32), None, None],
                     {"axis": 1})
    assert shape.shape == (2, 5, 3)
    (shape,) = infer("MaskedSelect", [(f32, (2, 3)), (np.bool_, (3,))], [None, None])
    assert shape.shape == (-1,) and shape.shape_range == ((0, 6),)


def test_a_record_dtype_the_simulator_does_not_implement_is_named_not_simulated(run):
    x = np.array([1 + 2j, 3 - 1j], np.complex64)
    with pytest.raises(KernelError, match=r"GatherV2: input 'x' has dtype complex64, which is not simulated"):
        run("GatherV2", [x, np.array([1], I32), np.array(0, I32)], [(np.complex64, (1,))])
    with pytest.raises(KernelError, match=r"ScatterNd: input 'x' has dtype bool, which is not simulated"):
        run("ScatterNd", [np.array([[0]], I32), np.array([True]), np.array([2], I32)], [(np.bool_, (2,))])


def test_messages_name_tensors_from_the_record(run):
    with pytest.raises(KernelError, match=r"SearchSorted: input 'values' has dtype float16, expected float32 \(the "
                                          r"dtype of 'sorted_sequence'\)"):
        run("SearchSorted", [np.array([1, 2], F32), np.array([1], F16)], [(I64, (1,))])
    with pytest.raises(KernelError, match=r"UnsortedSegmentSum: input 'num_segments' must hold one value"):
        run("UnsortedSegmentSum", [np.zeros(2, F32), np.array([0, 1], I32), np.array([2, 2], I32)], [(F32, (2,))])


def test_scatter_variants_combine_repeats_in_the_compute_type(run):
    var, idx = np.array([[8, -9], [1, 1]], F16), np.array([0, 0], I32)
    upd = np.array([[2, 2], [-4, 3]], F16)
    (y,) = run("ScatterMax", [var, idx, upd], [(F16, (2, 2))])
    assert y.tolist() == [[8, 3], [1, 1]]
    (y,) = run("ScatterDiv", [np.array([-7, 7], I32), np.array([0, 0, 1], I32), np.array([2, 2, -2], I32)],
               [(I32, (2,))])
    assert y.tolist() == [-1, -3]  # truncated toward zero
    with pytest.raises(KernelError, match="division by zero"):
        run("ScatterDiv", [np.array([1], I32), np.array([0], I32), np.array([0], I32)], [(I32, (1,))])
    (y,) = run("TensorScatterMin", [np.zeros((2, 2), F32), np.array([[1], [1]], I32),
                                    np.array([[5, -1], [-2, 7]], F32)], [(F32, (2, 2))])
    assert y.tolist() == [[0, 0], [-2, -1]]


def test_unsorted_segment_max_fills_empty_segments_with_the_lowest_value(run):
    x, ids = np.array([3, -2, 5, 9], F16), np.array([0, 0, 2, -1], I32)
    (y,) = run("UnsortedSegmentMax", [x, ids, np.array(3, I32)], [(F16, (3,))])
    assert y.tolist() == [3, -65504, 5]
    (y,) = run("UnsortedSegmentProdD", [x, ids], [(F16, (3,))], {"num_segments": 3})
    assert y.tolist() == [-6, 1, 5]
    with pytest.raises(KernelError, match="sorted"):
        run("SegmentSum", [x, np.array([1, 0, 2, 3], I32)], [(F16, (4,))])


def test_bucketize_in_top_k_and_index_add_kernels(run):
    (y,) = run("Bucketize", [np.array([-5, 10, 150], I32)], [(I32, (3,))], {"boundaries": [0.0, 10.0, 100.0]})
    assert y.tolist() == [0, 2, 3]
    with pytest.raises(KernelError, match="sorted"):
        run("Bucketize", [np.array([1], I32)], [(I32, (1,))], {"boundaries": [1.0, 0.0]})
    pred = np.array([[0.1, 0.9, 0.9, 0.3]], F32)
    (y,) = run("InTopKD", [pred, np.array([2], I32)], [(np.bool_, (1,))], {"k": 1})
    assert y.tolist() == [True]
    (y,) = run("InplaceIndexAdd", [np.full((2, 3), 120, np.int8), np.array([2, 2], I32), np.full((2, 2), 5, np.int8)],
               [(np.int8, (2, 3))], {"axis": 1})
    assert y.tolist() == [[120, 120, -126], [120, 120, -126]]  # both repeats add, int8 wraps
