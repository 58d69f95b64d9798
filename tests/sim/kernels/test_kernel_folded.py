"""The const-folded `*D` kernels (issue 35): each runs its twin's kernel with its attributes as the twin's const
inputs; the new twins Expand, PadV2 and Split; and DataFormatDimMap."""

import numpy as np
import pytest

from aclcts.sim.kernels import KernelError

I16, I32, I64, F16, F32 = np.int16, np.int32, np.int64, np.float16, np.float32


def test_tile_d_raises_x_rank_to_the_length_of_multiples(run):
    (y,) = run("TileD", [np.array([1, 2, 3], I32)], [(I32, (2, 6))], {"multiples": [2, 2]})
    assert y.tolist() == [[1, 2, 3, 1, 2, 3]] * 2


def test_tile_d_errors_name_the_d_op_and_the_twin(run):
    with pytest.raises(KernelError, match=r"^TileD: as Tile: input 'multiples' \[2, -1\] must hold at least 2 non-negative"):
        run("TileD", [np.zeros((2, 3), F32)], [(F32, (4, 3))], {"multiples": [2, -1]})


def test_tile_d_checks_its_own_dtypes(run):
    with pytest.raises(KernelError, match=r"^TileD: input 'x' has dtype int64, expected one of"):
        run("TileD", [np.zeros((2,), I64)], [(I64, (4,))], {"multiples": [2]})


def test_tile_d_infer_shape_from_the_attribute(infer):
    (out,) = infer("TileD", [(F16, (3, 1))], attrs={"multiples": [2, 1, 4]})
    assert out.shape == (2, 3, 4)


def test_transpose_d_and_slice_d(run):
    x = np.arange(6, dtype=F16).reshape(2, 3)
    (y,) = run("TransposeD", [x], [(F16, (3, 2))], {"perm": [1, 0]})
    assert y.tolist() == x.T.tolist()
    (y,) = run("SliceD", [x], [(F16, (1, 2))], {"offsets": [1, 1], "size": [1, -1]})
    assert y.tolist() == [[4, 5]]


def test_top_k_d_reads_k_and_ignores_the_index_table(run):
    x = np.array([[3, 9, 1, 7]], F16)
    table = np.full(4, 100, F16)
    values, indices = run("TopKD", [x, table], [(F16, (1, 2)), (I32, (1, 2))], {"k": 2})
    assert values.tolist() == [[9, 7]] and indices.tolist() == [[1, 3]]


def test_arg_min_d_is_int32(run):
    (y,) = run("ArgMinD", [np.array([[3, 1, 2], [0, 5, 0]], F32)], [(I32, (2,))], {"dimension": 1})
    assert y.dtype == I32 and y.tolist() == [1, 0]


def test_concat_v2_d_takes_concat_dim_after_the_dynamic_inputs(run):
    a, b = np.array([[1, 2]], I32), np.array([[3]], I32)
    (y,) = run("ConcatV2D", [a, b], [(I32, (1, 3))], {"concat_dim": -1, "N": 2})
    assert y.tolist() == [[1, 2, 3]]


def test_split_v_d_and_strided_slice_d(run):
    x = np.arange(10, dtype=F32).reshape(2, 5)
    parts = run("SplitVD", [x], [(F32, (2, 1)), (F32, (2, 4))], {"size_splits": [1, -1], "split_dim": 1, "num_split": 2})
    assert parts[0].tolist() == [[0], [5]] and parts[1].shape == (2, 4)
    (y,) = run("StridedSliceD", [x], [(F32, (2, 2))], {"begin": [0, 4], "end": [2, 0], "strides": [1, -2]})
    assert y.tolist() == [[4, 2], [9, 7]]


def test_pad_d_takes_pairs_and_refuses_anything_else(run):
    (y,) = run("PadD", [np.array([[7]], I32)], [(I32, (2, 3))], {"paddings": [[1, 0], [0, 2]]})
    assert y.tolist() == [[0, 0, 0], [7, 0, 0]]
    with pytest.raises(KernelError, match=r"^PadD: attr 'paddings' must be a list of \[before, after\] int pairs"):
        run("PadD", [np.array([[7]], I32)], [(I32, (2, 3))], {"paddings": [1, 0, 0, 2]})


def test_pad_v2_pads_with_the_first_padding_value(run):
    (y,) = run("PadV2", [np.array([1, 2], F16), np.array([1, 1], I32), np.array([9, 4], F16)], [(F16, (4,))])
    assert y.tolist() == [9, 1, 2, 9]
    (y,) = run("PadV2D", [np.array([1, 2], F16), np.array(5, F16)], [(F16, (3,))], {"paddings": [[0, 1]]})
    assert y.tolist() == [1, 2, 5]


def test_expand_broadcasts_both_ways_with_an_int16_shape(run):
    x = np.array([[1], [2], [3]], I32)
    (y,) = run("Expand", [x, np.array([2, 1, 4], I16)], [(I32, (2, 3, 4))])
    assert y.shape == (2, 3, 4) and y[1, 2].tolist() == [3, 3, 3, 3]
    with pytest.raises(KernelError, match=r"^ExpandD: as Expand: 'x' \[3, 1\] and input 'shape' \[2, 2\] do not broadcast"):
        run("ExpandD", [x], [(I32, (3, 2))], {"shape": [2, 2]})


def test_split_reads_split_dim_from_its_first_input(run):
    x = np.arange(6, dtype=F32).reshape(2, 3)
    parts = run("Split", [np.array(1, I32), x], [(F32, (2, 1))] * 3, {"num_split": 3})
    assert [p.tolist() for p in parts] == [[[0], [3]], [[1], [4]], [[2], [5]]]


def test_split_infer_shape_without_the_split_dim_value(infer):
    outs = infer("Split", [(I32, ()), (F32, (4, 6))], [None, None], {"num_split": 2})
    assert [o.shape for o in outs] == [(-1, -1)] * 2


def test_gather_v2_d_fill_d_and_one_hot_d(run):
    (y,) = run("GatherV2D", [np.array([[1, 2], [3, 4]], F32), np.array([1, 1], I32)], [(F32, (2, 2))], {"axis": 1})
    assert y.tolist() == [[2, 2], [4, 4]]
    (y,) = run("FillD", [np.array(7, I64)], [(I64, (2, 2))], {"dims": [2, 2]})
    assert y.tolist() == [[7, 7], [7, 7]]
    (y,) = run("OneHotD", [np.array([0, 2], I32), np.array(5, F16), np.array(-1, F16)], [(F16, (2, 3))],
               {"depth": 3})
    assert y.tolist() == [[5, -1, -1], [-1, -1, 5]]


def test_data_format_dim_map_reads_negative_indices_from_the_end(run):
    (y,) = run("DataFormatDimMap", [np.array([[0, -1], [3, -4]], I64)], [(I64, (2, 2))],
               {"src_format": "NCHW", "dst_format": "NHWC"})
    assert y.tolist() == [[0, 2], [2, 0]]
    with pytest.raises(KernelError, match=r"^DataFormatDimMap: input 'x' holds values outside \[-4, 4\)"):
        run("DataFormatDimMap", [np.array([4], I32)], [(I32, (1,))])


def test_space_to_batch_nd_pads_then_moves_blocks_into_the_batch(run):
    x = np.arange(1, 4, dtype=F32).reshape(1, 3, 1)
    (y,) = run("SpaceToBatchND", [x, np.array([2], I32), np.array([[1, 0]], I32)], [(F32, (2, 2, 1))])
    assert y[:, :, 0].tolist() == [[0, 2], [1, 3]]
    (z,) = run("BatchToSpaceND", [y, np.array([2], I32), np.array([[1, 0]], I32)], [(F32, (1, 3, 1))])
    assert z.reshape(-1).tolist() == [1, 2, 3]
