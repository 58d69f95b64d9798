"""Gather, scatter and index-building references against hand-worked values (TensorFlow/PyTorch/ONNX documentation
examples where the op follows one)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from aclcts.reference import reference

I32, I64, F16, F32, F64 = np.int32, np.int64, np.float16, np.float32, np.float64
X = np.array([[1, 2, 3], [4, 5, 6], [7, 8, 9]], F32)


def run(op, inputs, outs, attrs=None):
    return reference(op).compute([None if x is None else np.asarray(x) for x in inputs], attrs or {}, outs)


def test_gather_v2_axis_batch_dims_and_negative_indices():
    assert run("GatherV2", [X, np.array([2, 0], I32), np.array(1, I32)], [F32])[0].tolist() == \
        [[3, 1], [6, 4], [9, 7]]
    assert run("GatherV2", [X, np.array([[2], [0], [1]], I32), np.array(1, I32)], [F32],
               {"batch_dims": 1})[0].tolist() == [[3], [4], [8]]
    assert run("GatherV2", [X, np.array(-1, I32), np.array(0, I32)], [F32],
               {"negative_index_support": True})[0].tolist() == [7, 8, 9]
    with pytest.raises(ValueError, match="outside"):
        run("GatherV2", [X, np.array([3], I32), np.array(0, I32)], [F32])
    with pytest.raises(ValueError, match="outside"):
        run("GatherV2", [X, np.array([-1], I32), np.array(0, I32)], [F32])


def test_gather_nd_rows_and_elements():
    # TensorFlow's example: indices [[0, 0], [1, 1]] of [['a', 'b'], ['c', 'd']] give ['a', 'd'].
    x = np.array([[1, 2], [3, 4]], I32)
    assert run("GatherNd", [x, np.array([[0, 0], [1, 1]], I64)], [I32])[0].tolist() == [1, 4]
    assert run("GatherNd", [x, np.array([[1], [0]], I32)], [I32])[0].tolist() == [[3, 4], [1, 2]]
    assert run("GatherNd", [x, np.array([1, 0], I32)], [I32])[0].tolist() == 3


def test_gather_elements_follows_pytorch_gather():
    # torch.gather(t, 1, [[0, 0], [1, 0]]) of [[1, 2], [3, 4]] is [[1, 1], [4, 3]].
    t = np.array([[1, 2], [3, 4]], F16)
    assert run("GatherElements", [t, np.array([[0, 0], [1, 0]], I64)], [F16], {"dim": 1})[0].tolist() == \
        [[1, 1], [4, 3]]
    assert run("GatherElements", [X, np.array([[2, 0]], I32)], [F32])[0].tolist() == [[7, 2]]


def test_scatter_nd_adds_repeated_indices():
    # TensorFlow's example: indices [[4], [3], [1], [7]], updates [9, 10, 11, 12], shape [8].
    y = run("ScatterNd", [np.array([[4], [3], [1], [7]], I32), np.array([9, 10, 11, 12], F32), np.array([8], I32)],
            [F32])[0]
    assert y.tolist() == [0, 11, 0, 10, 9, 0, 0, 12]
    y = run("ScatterNd", [np.array([[1], [1]], I32), np.array([0.5, 0.25], F32), np.array([3], I32)], [F32])[0]
    assert y.tolist() == [0, 0.75, 0]


def test_scatter_update_and_nd_update_write_rows():
    var = np.zeros((3, 2), I32)
    y = run("ScatterUpdate", [var, np.array([2, 0], I32), np.array([[1, 2], [3, 4]], I32)], [I32])[0]
    assert y.tolist() == [[3, 4], [0, 0], [1, 2]]
    y = run("ScatterNdUpdate", [var, np.array([[1, 1]], I64), np.array([7], I32)], [I32])[0]
    assert y.tolist() == [[0, 0], [0, 7], [0, 0]]


def test_scatter_add_accumulates_every_duplicate_and_int8_wraps():
    var = np.array([1, 1, 1], F32)
    y = run("ScatterAdd", [var, np.array([0, 2, 0, 0], I32), np.array([1, 2, 3, 4], F32)], [F32])[0]
    assert y.tolist() == [9, 1, 3]
    y = run("ScatterAdd", [np.array([100], np.int8), np.array([0, 0], I32), np.array([20, 10], np.int8)],
            [np.int8])[0]
    assert y.tolist() == [-126]


def test_scatter_elements_follows_onnx():
    # ONNX example 1: data zeros 3x3, indices [[1, 0, 2], [0, 2, 1]], updates [[1.0, 1.1, 1.2], [2.0, 2.1, 2.2]].
    idx = np.array([[1, 0, 2], [0, 2, 1]], I64)
    upd = np.array([[1.0, 1.1, 1.2], [2.0, 2.1, 2.2]], F64)
    y = run("ScatterElements", [np.zeros((3, 3), F64), idx, upd], [F64])[0]
    assert y.tolist() == [[2.0, 1.1, 0.0], [1.0, 0.0, 2.2], [0.0, 2.1, 1.2]]
    # ONNX example 2: axis 1 on [[1, 2, 3, 4, 5]], indices [[1, 3]], updates [[1.1, 2.1]].
    y = run("ScatterElements", [np.array([[1, 2, 3, 4, 5]], F64), np.array([[1, 3]], I64),
                                np.array([[1.1, 2.1]], F64)], [F64], {"axis": 1})[0]
    assert y.tolist() == [[1.0, 1.1, 3.0, 2.1, 5.0]]
    y = run("ScatterElements", [np.array([2, 3], I32), np.array([0, 0], I32), np.array([5, 7], I32)], [I32],
            {"reduction": "mul"})[0]
    assert y.tolist() == [70, 3]


def test_one_hot_off_rows_for_indices_outside_depth_and_axis_0():
    # TensorFlow's example: indices [0, 2, -1, 1], depth 3, on 5.0, off 0.0.
    y = run("OneHot", [np.array([0, 2, -1, 1], I32), np.array(3, I32), np.array(5, F32), np.array(0, F32)], [F32])[0]
    assert y.tolist() == [[5, 0, 0], [0, 0, 5], [0, 0, 0], [0, 5, 0]]
    y = run("OneHot", [np.array([1, 3], I64), np.array(2, I32), np.array(1, I32), np.array(-1, I32)], [I32],
            {"axis": 0})[0]
    assert y.tolist() == [[-1, -1], [1, -1]]


def test_one_hot_refuses_a_negative_depth_naming_it():
    inputs = [np.array([0, 1], I32), np.array(-1, I32), np.array(1, F32), np.array(0, F32)]
    message = r"OneHot: input 'depth' is -1, expected >= 0 \(the length of the new axis\)"
    with pytest.raises(ValueError, match=message):
        run("OneHot", inputs, [F32])
    with pytest.raises(ValueError, match=message):
        reference("OneHot").shape([(2,), (), (), ()], inputs, {})


@pytest.mark.parametrize("start, limit, delta, expected", [
    (3, 18, 3, [3, 6, 9, 12, 15]),           # TensorFlow's example
    (3, 1, -0.5, [3, 2.5, 2, 1.5]),          # TensorFlow's example
    (7, -5, -3, [7, 4, 1, -2]),
    (1, 1, 2, []),
    (0, 5, -1, []),
])
def test_range(start, limit, delta, expected):
    dt = F32 if any(isinstance(v, float) for v in (start, limit, delta)) else I32
    values = [np.array(v, dt) for v in (start, limit, delta)]
    assert run("Range", values, [dt])[0].tolist() == expected
    assert reference("Range").shape([(), (), ()], values, {}) == [(len(expected),)]


def test_range_delta_zero_is_an_error():
    with pytest.raises(ValueError, match="delta"):
        run("Range", [np.array(1, I32), np.array(5, I32), np.array(0, I32)], [I32])


def test_lin_space():
    # TensorFlow's example: linspace(10.0, 12.0, 3) = [10.0, 11.0, 12.0].
    assert run("LinSpace", [np.array(10, F32), np.array(12, F32), np.array(3, I32)], [F32])[0].tolist() == \
        [10, 11, 12]
    assert run("LinSpace", [np.array(-1, F64), np.array(1, F64), np.array(1, I32)], [F64])[0].tolist() == [-1]
    y = run("LinSpace", [np.array(0, F64), np.array(1, F64), np.array(4, I64)], [F64])[0]
    assert y.tolist() == [0, 1 / 3, 2 / 3, 1]


def test_sort_is_stable_with_nan_above_inf():
    x = np.array([2, np.nan, -np.inf, 2, -0.0, 0.0, 1], F32)
    values, order = run("Sort", [x], [F32, I32])
    assert order.tolist() == [2, 4, 5, 6, 0, 3, 1]
    assert math.copysign(1, values[1]) == -1 and math.isnan(values[-1])
    values, order = run("Sort", [x], [F32, I32], {"descending": True})
    assert order.tolist() == [1, 0, 3, 6, 4, 5, 2]
    values, order = run("Sort", [np.array([[3, 1], [2, 5]], I32)], [I32, I32], {"axis": 0})
    assert values.tolist() == [[2, 1], [3, 5]] and order.tolist() == [[1, 0], [0, 1]]


def test_top_k_v2_largest_and_smallest_with_ties():
    x = np.array([1, 5, 3, 5, 2], I32)
    values, idx = run("TopKV2", [x, np.array(3, I32)], [I32, I32])
    assert values.tolist() == [5, 5, 3] and idx.tolist() == [1, 3, 2]
    values, idx = run("TopKV2", [x, np.array(2, I32)], [I32, I32], {"largest": False})
    assert values.tolist() == [1, 2] and idx.tolist() == [0, 4]


def test_unsorted_segment_sum_drops_negative_ids():
    # TensorFlow's example: c = [[1,2,3,4], [5,6,7,8], [4,3,2,1]], ids [0, 1, 0] give [[5,5,5,5], [5,6,7,8]].
    c = np.array([[1, 2, 3, 4], [5, 6, 7, 8], [4, 3, 2, 1]], I32)
    assert run("UnsortedSegmentSum", [c, np.array([0, 1, 0], I32), np.array(2, I32)], [I32])[0].tolist() == \
        [[5, 5, 5, 5], [5, 6, 7, 8]]
    y = run("UnsortedSegmentSum", [c, np.array([-1, 2, 2], I32), np.array(3, I32)], [I32])[0]
    assert y.tolist() == [[0, 0, 0, 0], [0, 0, 0, 0], [9, 9, 9, 9]]
    with pytest.raises(ValueError, match="num_segments"):
        run("UnsortedSegmentSum", [c, np.array([0, 3, 0], I32), np.array(3, I32)], [I32])


def test_masked_fill_broadcasts_the_mask():
    x = np.array([[1, 2, 3], [4, 5, 6]], F16)
    y = run("MaskedFill", [x, np.array([True, False, True]), np.array(-1, F16)], [F16])[0]
    assert y.tolist() == [[-1, 2, -1], [-1, 5, -1]]


def test_masked_select_in_row_major_order():
    x = np.array([[1, 2, 3], [4, 5, 6]], I32)
    mask = np.array([[True, False, True], [False, False, True]])
    assert run("MaskedSelect", [x, mask], [I32])[0].tolist() == [1, 3, 6]
    assert reference("MaskedSelect").shape([(2, 3), (2, 3)], [x, mask], {}) == [(3,)]


def test_search_sorted_left_right_and_sorter():
    # torch.searchsorted example: sequence [[1, 3, 5, 7, 9], [2, 4, 6, 8, 10]], values [[3, 6, 9], [3, 6, 9]].
    seq = np.array([[1, 3, 5, 7, 9], [2, 4, 6, 8, 10]], I32)
    vals = np.array([[3, 6, 9], [3, 6, 9]], I32)
    assert run("SearchSorted", [seq, vals, None], [I64])[0].tolist() == [[1, 3, 4], [1, 2, 4]]
    assert run("SearchSorted", [seq, vals, None], [I64], {"right": True})[0].tolist() == [[2, 3, 5], [1, 3, 4]]
    shuffled = np.array([5, 1, 3], F32)
    out = run("SearchSorted", [shuffled, np.array([2, 5], F32), np.array([1, 2, 0], I64)], [I32], {"dtype": 3})[0]
    assert out.tolist() == [1, 2] and out.dtype == I32


def test_bincount_ignores_values_outside_size_and_counts_with_empty_weights():
    arr = np.array([1, 1, 3, -1, 5, 4], I32)
    w = np.array([0.5, 0.25, 2, 9, 9, 1], F32)
    assert run("Bincount", [arr, np.array(5, I32), w], [F32])[0].tolist() == [0, 0.75, 0, 2, 1]
    assert run("Bincount", [arr, np.array(3, I32), np.zeros(0, I64)], [I64])[0].tolist() == [0, 2, 0]


def test_scatter_elements_counts_a_negative_index_from_the_end_of_the_axis():
    # ONNX bounds indices by [-s, s-1]; -1 and -3 on an axis of 3 are the last and the first position.
    y = run("ScatterElements", [np.zeros((2, 3), F64), np.array([[-1], [-3]], I64), np.array([[7.0], [9.0]], F64)],
            [F64], {"axis": 1})[0]
    assert y.tolist() == [[0.0, 0.0, 7.0], [9.0, 0.0, 0.0]]
    with pytest.raises(ValueError, match="outside"):
        run("ScatterElements", [np.zeros((2, 3), F64), np.array([[-4]], I64), np.array([[7.0]], F64)], [F64],
            {"axis": 1})


def test_scatter_variants_apply_every_repeat_in_turn():
    var, idx = np.array([[8.0, -9.0], [1.0, 1.0]], F32), np.array([0, 0], I32)
    upd = np.array([[2.0, 2.0], [-4.0, 3.0]], F32)
    assert run("ScatterSub", [var, idx, upd], [F32])[0].tolist() == [[10.0, -14.0], [1.0, 1.0]]
    assert run("ScatterMul", [var, idx, upd], [F32])[0].tolist() == [[-64.0, -54.0], [1.0, 1.0]]
    assert run("ScatterDiv", [var, idx, upd], [F32])[0].tolist() == [[-1.0, -1.5], [1.0, 1.0]]
    assert run("ScatterMax", [var, idx, upd], [F32])[0].tolist() == [[8.0, 3.0], [1.0, 1.0]]
    assert run("ScatterMin", [var, idx, upd], [F32])[0].tolist() == [[-4.0, -9.0], [1.0, 1.0]]
    # integers divide truncating toward zero (TensorFlow), in either order: trunc(trunc(-7 / 2) / 2) = -1
    assert run("ScatterDiv", [np.array([-7, 7], I32), np.array([0, 0, 1], I32), np.array([2, 2, -2], I32)],
               [I32])[0].tolist() == [-1, -3]


def test_tensor_scatter_and_scatter_nd_add_address_leading_dims():
    x = np.zeros((2, 2), F32)
    assert run("ScatterNdAdd", [x, np.array([[1, 0], [1, 0]], I32), np.array([1.0, 2.0], F32)],
               [F32])[0].tolist() == [[0, 0], [3, 0]]
    assert run("TensorScatterMax", [x, np.array([[1], [1]], I32), np.array([[5, -1], [2, 7]], F32)],
               [F32])[0].tolist() == [[0, 0], [5, 7]]


def test_unsorted_segment_reductions_fill_empty_segments_and_drop_negative_ids():
    x, ids = np.array([3, -2, 5, 9], F16), np.array([0, 0, 2, -1], I32)
    assert run("UnsortedSegmentMax", [x, ids, np.array(3, I32)], [F16])[0].tolist() == [3, -65504, 5]
    assert run("UnsortedSegmentMin", [x, ids, np.array(3, I32)], [F16])[0].tolist() == [-2, 65504, 5]
    assert run("UnsortedSegmentProdD", [x, ids], [F16], {"num_segments": 3})[0].tolist() == [-6, 1, 5]
    assert run("UnsortedSegmentMinD", [x.astype(I32), ids], [I32], {"num_segments": 3})[0].tolist() == \
        [-2, 2147483647, 5]
    with pytest.raises(ValueError, match="segment id 2 >= num_segments 2"):
        run("UnsortedSegmentMaxD", [x, ids], [F16], {"num_segments": 2})


def test_segment_sum_needs_sorted_ids_and_sizes_y_by_the_last():
    x = np.array([[1, 2], [3, 4], [5, 6]], F32)
    assert run("SegmentSum", [x, np.array([0, 0, 2], I32)], [F32])[0].tolist() == [[4, 6], [0, 0], [5, 6]]
    with pytest.raises(ValueError, match="sorted"):
        run("SegmentSum", [x, np.array([1, 0, 2], I32)], [F32])


def test_bucketize_in_top_k_and_index_add():
    x = np.array([[-5, 10000, 150], [10, 5, 100]], I32)  # TensorFlow's Bucketize example
    assert run("Bucketize", [x], [I32], {"boundaries": [0.0, 10.0, 100.0]})[0].tolist() == [[0, 3, 3], [2, 1, 3]]
    pred = np.array([[0.1, 0.9, 0.9, 0.3], [0.5, 0.2, np.inf, 0.1]], F32)
    # ties count in: 0.9 at class 1 or 2 is in the top 1; a target outside the row or a non-finite row is false
    assert run("InTopKD", [pred, np.array([2, 0], I32)], [np.bool_], {"k": 1})[0].tolist() == [True, False]
    assert run("InTopKD", [pred[:1], np.array([4], I32)], [np.bool_], {"k": 4})[0].tolist() == [False]
    var = np.zeros((2, 3), F32)
    assert run("InplaceIndexAdd", [var, np.array([2, 2, 0], I32), np.array([[1, 2, 3], [4, 5, 6]], F32)], [F32],
               {"axis": 1})[0].tolist() == [[3, 0, 3], [6, 0, 9]]
