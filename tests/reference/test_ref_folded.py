"""References of the const-folded `*D` ops (issue 35), the new twins Expand, PadV2 and Split, and DataFormatDimMap,
against hand-worked values from the TensorFlow/ONNX operators they mirror."""

from __future__ import annotations

import numpy as np
import pytest

from aclcts.reference import reference

I16, I32, I64, F16, F32 = np.int16, np.int32, np.int64, np.float16, np.float32


def run(op, inputs, outs, attrs=None):
    return reference(op).compute([None if x is None else np.asarray(x) for x in inputs], attrs or {}, outs)


def shape(op, shapes, values, attrs=None):
    return reference(op).shape(shapes, values, attrs or {})


def test_tile_d_raises_x_rank_to_the_length_of_multiples():
    (y,) = run("TileD", [np.array([1, 2], I32)], [I32], {"multiples": [2, 3]})
    assert y.tolist() == [[1, 2, 1, 2, 1, 2]] * 2
    assert shape("TileD", [(4, 1)], [None], {"multiples": [2, 1, 3]}) == [(2, 4, 3)]


def test_a_d_op_error_names_the_d_op_and_its_twin():
    with pytest.raises(ValueError, match=r"^TransposeD: Transpose: perm \[0\] must list all 2 axes"):
        run("TransposeD", [np.zeros((2, 3), F32)], [F32], {"perm": [0]})


def test_slice_d_size_minus_one_runs_to_the_end():
    (y,) = run("SliceD", [np.arange(12, dtype=F16).reshape(3, 4)], [F16], {"offsets": [1, 2], "size": [-1, 1]})
    assert y.tolist() == [[6], [10]]


def test_top_k_d_follows_top_k_whatever_the_index_table_holds():
    values, indices = run("TopKD", [np.array([2, 8, 5], F32), np.zeros(3, F16)], [F32, I32],
                          {"k": 2, "largest": False})
    assert values.tolist() == [2, 5] and indices.tolist() == [0, 2]


def test_arg_min_d_first_minimum():
    (y,) = run("ArgMinD", [np.array([[4, 1, 1], [0, 0, 3]], F16)], [I32], {"dimension": -1})
    assert y.tolist() == [1, 0]


def test_expand_broadcasts_both_ways():
    (y,) = run("Expand", [np.array([[1], [2]], I32), np.array([3, 1, 2], I16)], [I32])
    assert y.shape == (3, 2, 2) and y[2].tolist() == [[1, 1], [2, 2]]
    assert shape("ExpandD", [(5, 1)], [None], {"shape": [3]}) == [(5, 3)]
    with pytest.raises(ValueError, match=r"^ExpandD: Expand: x \[2, 3\] and shape \[4\] do not broadcast"):
        run("ExpandD", [np.zeros((2, 3), F32)], [F32], {"shape": [4]})


def test_broadcast_to_d_is_one_directional():
    (y,) = run("BroadcastToD", [np.array([1, 2], F32)], [F32], {"shape": [2, 2]})
    assert y.tolist() == [[1, 2], [1, 2]]
    with pytest.raises(ValueError, match=r"^BroadcastToD: BroadcastTo: x \[2, 3\] cannot be broadcast to \[2, 4\]"):
        run("BroadcastToD", [np.zeros((2, 3), F32)], [F32], {"shape": [2, 4]})


def test_pad_d_and_pad_v2_d():
    (y,) = run("PadD", [np.array([[1, 2]], F32)], [F32], {"paddings": [[0, 1], [1, 0]]})
    assert y.tolist() == [[0, 1, 2], [0, 0, 0]]
    (y,) = run("PadV2D", [np.array([1], I32), np.array([7, 8], I32)], [I32], {"paddings": [[2, 1]]})
    assert y.tolist() == [7, 7, 1, 7]


def test_concat_v2_d_and_split_v_d():
    (y,) = run("ConcatV2D", [np.array([[1]], F32), np.array([[2], [3]], F32)], [F32], {"concat_dim": 0, "N": 2})
    assert y.tolist() == [[1], [2], [3]]
    parts = run("SplitVD", [np.arange(5, dtype=F32)], [F32, F32], {"size_splits": [-1, 2], "split_dim": 0,
                                                                    "num_split": 2})
    assert [p.tolist() for p in parts] == [[0, 1, 2], [3, 4]]


def test_strided_slice_d_shrinks_and_walks_backwards():
    masks = {"shrink_axis_mask": 1}
    (y,) = run("StridedSliceD", [np.arange(12, dtype=F32).reshape(3, 4)], [F32],
               {"begin": [1, 3], "end": [2, 0], "strides": [1, -2], **masks})
    assert y.tolist() == [7, 5]


def test_split_takes_split_dim_as_its_first_input():
    parts = run("Split", [np.array(0, I32), np.arange(4, dtype=I64).reshape(2, 2)], [I64, I64], {"num_split": 2})
    assert [p.tolist() for p in parts] == [[[0, 1]], [[2, 3]]]
    assert shape("Split", [(), (6, 2)], [np.array(0, I32), None], {"num_split": 3}) == [(2, 2)] * 3


def test_gather_v2_d_fill_d_one_hot_d():
    (y,) = run("GatherV2D", [np.array([[1, 2, 3]], F32), np.array([2, 0], I32)], [F32], {"axis": 1})
    assert y.tolist() == [[3, 1]]
    (y,) = run("FillD", [np.array(True)], [np.bool_], {"dims": [1, 2]})
    assert y.tolist() == [[True, True]]
    (y,) = run("OneHotD", [np.array([1, 5], np.uint8), np.array(1, F32), np.array(0, F32)], [F32],
               {"depth": 2, "axis": 0})
    assert y.tolist() == [[0, 0], [1, 0]]


def test_data_format_dim_map_nhwc_to_nchw():
    (y,) = run("DataFormatDimMap", [np.array([0, 1, 2, 3, -1, -3], I32)], [I32])
    assert y.tolist() == [0, 2, 3, 1, 1, 2]


def test_space_to_batch_nd_and_back():
    x = np.arange(1, 5, dtype=F32).reshape(1, 2, 2, 1)
    (y,) = run("SpaceToBatchND", [x, np.array([2, 2], I32), np.zeros((2, 2), I32)], [F32])
    assert y.reshape(-1).tolist() == [1, 2, 3, 4] and y.shape == (4, 1, 1, 1)
    (z,) = run("BatchToSpaceND", [y, np.array([2, 2], I32), np.array([[0, 1], [1, 0]], I32)], [F32])
    assert z.reshape(-1).tolist() == [2]
