"""Data-movement and index references: Transpose ... Tile, ArgMaxV2, TopK, NonZero, Unique."""

import ml_dtypes
import numpy as np
import pytest

from aclcts.reference import reference

F32, I32, I64 = np.float32, np.int32, np.int64
X = np.arange(6, dtype=F32).reshape(2, 3)


def run(op, inputs, outs, attrs=None):
    """Run a reference op and return its outputs."""
    return reference(op).compute([np.asarray(x) for x in inputs], attrs or {}, outs)


def shape(op, inputs, attrs=None):
    """The reference output shapes computed from the inputs' shapes and values."""
    arrays = [np.asarray(x) for x in inputs]
    return reference(op).shape([a.shape for a in arrays], arrays, attrs or {})


def test_transpose():
    (y,) = run("Transpose", [X, np.array([1, 0])], [F32])
    assert y.tolist() == [[0, 3], [1, 4], [2, 5]] and shape("Transpose", [X, np.array([1, 0])]) == [(3, 2)]
    with pytest.raises(ValueError, match="Transpose: perm"):
        run("Transpose", [X, np.array([0])], [F32])


@pytest.mark.parametrize("target, attrs, expected", [
    ([3, 2], {}, (3, 2)),
    ([-1], {}, (6,)),
    ([0, -1], {}, (2, 3)),
    ([3, 1], {"axis": 1}, (2, 3, 1)),
    ([1, 3], {"axis": 1, "num_axes": 1}, (2, 1, 3)),
])
def test_reshape(target, attrs, expected):
    (y,) = run("Reshape", [X, np.array(target)], [F32], attrs)
    assert y.shape == expected and y.reshape(-1).tolist() == list(range(6))
    assert shape("Reshape", [X, np.array(target)], attrs) == [expected]


def test_reshape_errors():
    with pytest.raises(ValueError, match="Reshape: shape \\[4\\] gives 4 elements, input has 6"):
        run("Reshape", [X, np.array([4])], [F32])
    with pytest.raises(ValueError, match="at most one -1"):
        run("Reshape", [X, np.array([-1, -1])], [F32])


def test_concat_and_split_are_inverse():
    parts = [X[:, :1], X[:, 1:]]
    (y,) = reference("ConcatD").compute(parts, {"concat_dim": -1, "N": 2}, [F32])
    assert y.tolist() == X.tolist()
    assert reference("ConcatD").shape([(2, 1), (2, 2)], [], {"concat_dim": 1}) == [(2, 3)]
    outs = run("SplitD", [X], [F32] * 3, {"split_dim": 1, "num_split": 3})
    assert [o.tolist() for o in outs] == [[[0], [3]], [[1], [4]], [[2], [5]]]
    assert shape("SplitD", [X], {"split_dim": 1, "num_split": 3}) == [(2, 1)] * 3


def test_concat_and_split_errors():
    with pytest.raises(ValueError, match="ConcatD: input x1 shape"):
        reference("ConcatD").compute([X, np.ones((3, 3), F32)], {"concat_dim": 1}, [F32])
    with pytest.raises(ValueError, match="ConcatD: attribute N=3 but 2 inputs"):
        reference("ConcatD").compute([X, X], {"concat_dim": 0, "N": 3}, [F32])
    with pytest.raises(ValueError, match="SplitD: num_split=2 does not divide dim 3"):
        run("SplitD", [X], [F32] * 2, {"split_dim": 1, "num_split": 2})


def test_slice_and_tile():
    (y,) = run("Slice", [X, np.array([1, 1]), np.array([1, -1])], [F32])
    assert y.tolist() == [[4, 5]]
    assert shape("Slice", [X, np.array([0, 1]), np.array([2, 2])]) == [(2, 2)]
    with pytest.raises(ValueError, match="Slice: axis 1: offset 2, size 2 outside dim 3"):
        run("Slice", [X, np.array([0, 2]), np.array([1, 2])], [F32])
    (t,) = run("Tile", [np.array([[1, 2]], I32), np.array([2, 2])], [I32])
    assert t.tolist() == [[1, 2, 1, 2], [1, 2, 1, 2]]
    with pytest.raises(ValueError, match=r"Tile: multiples \[2\] must be at least 2 non-negative ints"):
        run("Tile", [X, np.array([2])], [F32])


def test_tile_multiples_longer_than_the_rank_put_ones_in_front_of_x():
    """CANN's TileInferShape and TBE tile give x leading 1s up to the length of multiples."""
    (t,) = run("Tile", [np.array([1, 2], I32), np.array([2, 1, 2])], [I32])
    assert t.tolist() == [[[1, 2, 1, 2]], [[1, 2, 1, 2]]]
    assert shape("Tile", [np.array([5], I32), np.array([16, 16, 16, 16])]) == [(16, 16, 16, 16)]


def test_movement_keeps_bits():
    x = np.array([0x7FC00123, 0x80000000], np.uint32).view(F32)
    (y,) = run("Transpose", [x, np.array([0])], [F32])
    assert y.view(np.uint32).tolist() == [0x7FC00123, 0x80000000]


def test_argmax_first_maximum_and_nan():
    (y,) = run("ArgMaxV2", [np.array([[1, 3, 3], [2, 0, 1]], F32), np.array([1], I32)], [I32])
    assert y.tolist() == [1, 0] and y.dtype == I32
    (z,) = run("ArgMaxV2", [np.array([1, np.nan, 5, np.nan], F32), np.array(0, I32)], [I64])
    assert z.tolist() == 1
    assert shape("ArgMaxV2", [np.zeros((2, 3, 4)), np.array([-2])]) == [(2, 4)]


def test_topk_order_ties_and_nan():
    x = np.array([3, 1, np.nan, 3, 2], F32)
    values, indices = run("TopK", [x, np.array(3, I32)], [F32, I32])
    assert np.isnan(values[0]) and values[1:].tolist() == [3, 3] and indices.tolist() == [2, 0, 3]
    values, indices = run("TopK", [x, np.array(2, I32)], [F32, I32], {"largest": False})
    assert values.tolist() == [1, 2] and indices.tolist() == [1, 4]


def test_topk_along_other_dim_and_integers():
    x = np.array([[5, 1], [2, 7], [9, 0]], I64)
    values, indices = run("TopK", [x, np.array(2)], [I64, I32], {"dim": 0})
    assert values.tolist() == [[9, 7], [5, 1]] and indices.tolist() == [[2, 1], [0, 0]]
    big = np.array([np.iinfo(I64).min, np.iinfo(I64).max, 0], I64)
    values, _ = run("TopK", [big, np.array(3)], [I64, I32])
    assert values.tolist() == [np.iinfo(I64).max, 0, np.iinfo(I64).min]
    assert shape("TopK", [x, np.array(1)], {"dim": 0}) == [(1, 2), (1, 2)]
    with pytest.raises(ValueError, match="TopK: k=4 outside"):
        run("TopK", [x, np.array(4)], [I64, I32], {"dim": 0})


def test_topk_bfloat16():
    values, indices = run("TopK", [np.array([1, 3, 2], ml_dtypes.bfloat16), np.array(1)], [ml_dtypes.bfloat16, I32])
    assert float(values[0]) == 3.0 and indices.tolist() == [1]


def test_nonzero():
    x = np.array([[0, 1.5, np.nan], [-0.0, 0, 0]], F32)
    (y,) = run("NonZero", [x], [I64])
    assert y.tolist() == [[0, 1], [0, 2]]
    (t,) = run("NonZero", [x], [I32], {"transpose": True})
    assert t.tolist() == [[0, 0], [1, 2]] and t.dtype == I32
    assert shape("NonZero", [np.array([0, 2, 3])]) == [(2, 1)]
    with pytest.raises(ValueError, match="depends on the value of input 'x'"):
        reference("NonZero").shape([(3,)], [None], {})


def test_unique_first_occurrence_order_nan_distinct_signed_zero_merged():
    y, idx = run("Unique", [np.array([2, 1, 2, np.nan, np.nan, -0.0, 0.0])], [np.float64, I32])
    assert y[:2].tolist() == [2, 1] and np.isnan(y[2:4]).all() and np.signbit(y[4]) and len(y) == 5
    assert idx.tolist() == [0, 1, 0, 2, 3, 4, 4]
    assert shape("Unique", [np.array([3, 3, 1], I32)]) == [(2,), (3,)]
