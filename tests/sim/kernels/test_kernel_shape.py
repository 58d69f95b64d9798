"""Data movement: Transpose, Reshape (0 / -1 / axis / num_axes), ConcatD, SplitD, Slice, Tile, and inference."""

import numpy as np
import pytest

from aclcts.sim.kernels import KernelError

I32, I64, F16 = np.int32, np.int64, np.float16


def ints(*values, dtype=I32):
    return np.array(values, dtype)


def test_transpose(run):
    x = np.arange(6, dtype=I32).reshape(2, 3)
    (y,) = run("Transpose", [x, ints(1, 0)], [(I32, (3, 2))])
    assert y.tolist() == [[0, 3], [1, 4], [2, 5]]


def test_transpose_rejects_a_non_permutation(run):
    with pytest.raises(KernelError, match=r"Transpose: input 'perm' \[0, 0\] is not a permutation of 0..1"):
        run("Transpose", [np.zeros((2, 3), I32), ints(0, 0)], [(I32, (2, 3))])


def test_reshape_with_zero_and_minus_one(run):
    x = np.arange(24, dtype=F16).reshape(2, 3, 4)
    (y,) = run("Reshape", [x, ints(0, -1, dtype=I64)], [(F16, (2, 12))])
    assert y.shape == (2, 12) and y[1, 0] == 12


def test_reshape_axis_and_num_axes_replace_a_range_of_dims(run):
    x = np.arange(24, dtype=I32).reshape(2, 3, 4)
    (y,) = run("Reshape", [x, ints(12)], [(I32, (2, 12))], {"axis": 1})
    assert y.shape == (2, 12)
    (y,) = run("Reshape", [x, ints(6)], [(I32, (6, 4))], {"axis": 0, "num_axes": 2})
    assert y.shape == (6, 4)
    (y,) = run("Reshape", [x, ints(1)], [(I32, (2, 3, 4, 1))], {"axis": -1, "num_axes": 0})
    assert y.shape == (2, 3, 4, 1)


def test_reshape_rejects_a_wrong_element_count(run):
    with pytest.raises(KernelError, match=r"Reshape: input 'shape' \[5\] gives 5 elements, but 'x' \[2, 3\] has 6"):
        run("Reshape", [np.zeros((2, 3), I32), ints(5)], [(I32, (5,))])


def test_reshape_rejects_two_minus_ones(run):
    with pytest.raises(KernelError, match=r"Reshape: input 'shape' \[-1, -1\] has more than one -1"):
        run("Reshape", [np.zeros((2, 3), I32), ints(-1, -1)], [(I32, (6,))])


def test_reshape_infer_shape(infer):
    (out,) = infer("Reshape", [(F16, (2, 3, 4)), (I32, (2,))], [None, ints(-1, 4)])
    assert out.shape == (6, 4)
    (out,) = infer("Reshape", [(F16, (2, 3, 4)), (I32, (3,))])
    assert out.shape == (-1, -1, -1) and out.shape_range == ((0, 24),) * 3


def test_concatd(run):
    a, b = np.array([[1, 2]], I32), np.array([[3, 4], [5, 6]], I32)
    (y,) = run("ConcatD", [a, b], [(I32, (3, 2))], {"concat_dim": 0, "N": 2})
    assert y.tolist() == [[1, 2], [3, 4], [5, 6]]
    (y,) = run("ConcatD", [a.T, b.T], [(I32, (2, 3))], {"concat_dim": -1, "N": 2})
    assert y.tolist() == [[1, 3, 5], [2, 4, 6]]


def test_concatd_checks_n_and_shapes(run):
    a = np.zeros((1, 2), I32)
    with pytest.raises(KernelError, match=r"ConcatD: attr 'N' is 3, but 2 dynamic inputs 'x' were given"):
        run("ConcatD", [a, a], [(I32, (2, 2))], {"concat_dim": 0, "N": 3})
    with pytest.raises(KernelError, match=r"ConcatD: input 'x\[1\]' has shape \[1, 3\]; all inputs must match 'x\[0\]' \[1, 2\]"):
        run("ConcatD", [a, np.zeros((1, 3), I32)], [(I32, (2, 2))], {"concat_dim": 0, "N": 2})


def test_concatd_infer_shape(infer):
    (out,) = infer("ConcatD", [(F16, (2, 3)), (F16, (2, 5))], attrs={"concat_dim": 1, "N": 2})
    assert out.shape == (2, 8)
    (out,) = infer("ConcatD", [(F16, (2, -1)), (F16, (2, 5))], attrs={"concat_dim": 1, "N": 2})
    assert out.shape == (2, -1)


def test_splitd(run):
    x = np.arange(6, dtype=I32).reshape(2, 3)
    ys = run("SplitD", [x], [(I32, (2, 1))] * 3, {"split_dim": 1, "num_split": 3})
    assert [y.tolist() for y in ys] == [[[0], [3]], [[1], [4]], [[2], [5]]]


def test_splitd_needs_a_divisible_dim_and_matching_outputs(run):
    with pytest.raises(KernelError, match=r"SplitD: dim 1 of 'x' \[2, 3\] is not divisible by num_split 2"):
        run("SplitD", [np.zeros((2, 3), I32)], [(I32, (2, 1))] * 2, {"split_dim": 1, "num_split": 2})
    with pytest.raises(KernelError, match=r"SplitD: expected 3 outputs \(y0, y1, y2\), got 2"):
        run("SplitD", [np.zeros((2, 3), I32)], [(I32, (2, 1))] * 2, {"split_dim": 1, "num_split": 3})


def test_splitd_infer_shape(infer):
    outs = infer("SplitD", [(F16, (4, 6))], attrs={"split_dim": 0, "num_split": 2})
    assert [o.shape for o in outs] == [(2, 6), (2, 6)]


def test_slice_with_size_minus_one(run):
    x = np.arange(12, dtype=I32).reshape(3, 4)
    (y,) = run("Slice", [x, ints(1, 1), ints(2, -1)], [(I32, (2, 3))])
    assert y.tolist() == [[5, 6, 7], [9, 10, 11]]


def test_slice_out_of_bounds(run):
    with pytest.raises(KernelError, match=r"Slice: dim 1: offset 3 with size 2 does not fit in 'x' dim 4"):
        run("Slice", [np.zeros((3, 4), I32), ints(0, 3), ints(1, 2)], [(I32, (1, 2))])


def test_slice_infer_shape(infer):
    (out,) = infer("Slice", [(F16, (3, 4)), (I32, (2,)), (I32, (2,))], [None, ints(1, 0), ints(2, -1)])
    assert out.shape == (2, 4)
    (out,) = infer("Slice", [(F16, (3, 4)), (I32, (2,)), (I32, (2,))], [None, None, ints(2, -1)])
    assert out.shape == (2, -1) and out.shape_range == ((2, 2), (0, 4))
    (out,) = infer("Slice", [(F16, (3, 4)), (I32, (2,)), (I32, (2,))])
    assert out.shape == (-1, -1) and out.shape_range == ((0, 3), (0, 4))


def test_tile(run):
    (y,) = run("Tile", [np.array([[1, 2]], I32), ints(2, 2)], [(I32, (2, 4))])
    assert y.tolist() == [[1, 2, 1, 2], [1, 2, 1, 2]]


def test_tile_multiples_must_cover_the_rank(run):
    with pytest.raises(KernelError, match=r"Tile: input 'multiples' \[2\] must hold at least 2 non-negative values"):
        run("Tile", [np.zeros((1, 2), I32), ints(2)], [(I32, (2, 2))])


def test_tile_multiples_longer_than_the_rank_put_ones_in_front_of_x(run, infer):
    """CANN's TileInferShape and TBE tile give x leading 1s up to the length of multiples."""
    (y,) = run("Tile", [np.array([7, 8], I32), ints(2, 1, 3)], [(I32, (2, 1, 6))])
    assert y.tolist() == [[[7, 8, 7, 8, 7, 8]], [[7, 8, 7, 8, 7, 8]]]
    (out,) = infer("Tile", [(I32, (2,)), (I32, (3,))], [None, ints(2, 1, 3)])
    assert out.shape == (2, 1, 6)
    (out,) = infer("Tile", [(I32, (-1,)), (I32, (4,))])
    assert out.shape == (-1,) * 4
    (out,) = infer("Tile", [(I32, (-2,)), (I32, (2,))], [None, ints(3, 1)])
    assert out.shape == (-1, -1) and out.shape_range == ((3, -1), (1, -1))


def test_tile_and_transpose_infer_shape(infer):
    (out,) = infer("Tile", [(F16, (2, 3)), (I32, (2,))], [None, ints(3, 1)])
    assert out.shape == (6, 3)
    (out,) = infer("Tile", [(F16, (2, 3)), (I32, (2,))])
    assert out.shape == (-1, -1)
    (out,) = infer("Transpose", [(F16, (2, 3, 5)), (I32, (3,))], [None, ints(2, 0, 1)])
    assert out.shape == (5, 2, 3)
    (out,) = infer("Transpose", [(F16, (2, 3, 5)), (I32, (3,))])
    assert out.shape == (-1, -1, -1) and out.shape_range == ((2, 5),) * 3
