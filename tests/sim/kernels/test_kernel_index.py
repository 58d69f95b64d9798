"""ArgMaxV2, TopK, NonZero, Where, Unique: results, dtype attributes, value-dependent shape inference."""

import ml_dtypes
import numpy as np
import pytest

from aclcts.sim.kernels import KernelError

F16, F32, I32, I64 = np.float16, np.float32, np.int32, np.int64


def test_argmax_picks_the_first_maximum(run):
    x = np.array([[1, 7, 7], [9, 2, 9]], F16)
    (y,) = run("ArgMaxV2", [x, np.array([1], I32)], [(I64, (2,))])
    assert y.dtype == I64 and y.tolist() == [1, 0]
    (y,) = run("ArgMaxV2", [x, np.array(0, I32)], [(I32, (3,))])
    assert y.tolist() == [1, 0, 1]


def test_argmax_rank0_result_fits_a_one_element_output(run):
    # the official sample declares output shape [1] for x [1000] and dimension 0
    (y,) = run("ArgMaxV2", [np.array([0.5, 3.0, 1.0], F16), np.array([0], I32)], [(I32, (1,))])
    assert y.shape == (1,) and y.tolist() == [1]


def test_argmax_dtype_attr_must_agree_with_the_output(run):
    with pytest.raises(KernelError, match=r"ArgMaxV2: attr 'dtype' is int64, but output 'y' has int32"):
        run("ArgMaxV2", [np.zeros(3, F32), np.array(0, I32)], [(I32, ())], {"dtype": 9})


def test_argmax_infer_shape(infer):
    (out,) = infer("ArgMaxV2", [(F32, (2, 5, 3)), (I32, ())], [None, np.array(1, I32)])
    assert (out.dtype, out.shape) == (9, (2, 3))
    (out,) = infer("ArgMaxV2", [(F32, (2, 5, 3)), (I32, ())], attrs={"dtype": 3})
    assert (out.dtype, out.shape, out.shape_range) == (3, (-1, -1), ((2, 5), (2, 5)))


def test_topk_largest_sorted_with_ties_in_index_order(run):
    x = np.array([3, 1, 3, 2], F32)
    values, indices = run("TopK", [x, np.array(3, I32)], [(F32, (3,)), (I32, (3,))])
    assert values.tolist() == [3, 3, 2]
    assert indices.tolist() == [0, 2, 3]


def test_topk_smallest_and_unsorted(run):
    x = np.array([5, 1, 4, 2], I32)
    values, indices = run("TopK", [x, np.array(2, I32)], [(I32, (2,)), (I32, (2,))], {"largest": False})
    assert (values.tolist(), indices.tolist()) == ([1, 2], [1, 3])
    values, indices = run("TopK", [x, np.array(2, I32)], [(I32, (2,)), (I32, (2,))], {"sorted": False})
    assert (values.tolist(), indices.tolist()) == ([5, 4], [0, 2])  # the two largest, in index order


def test_topk_along_dim_zero(run):
    x = np.array([[1, 9], [5, 2], [3, 4]], F16)
    values, indices = run("TopK", [x, np.array(1, I32)], [(F16, (1, 2)), (I32, (1, 2))], {"dim": 0})
    assert values.tolist() == [[5, 9]] and indices.tolist() == [[1, 0]]


def test_topk_k_larger_than_the_dim(run):
    with pytest.raises(KernelError, match=r"TopK: input 'k' is 5, expected 0 <= k <= 4"):
        run("TopK", [np.zeros(4, F32), np.array(5, I32)], [(F32, (5,)), (I32, (5,))])


def test_topk_infer_shape_known_and_unknown_k(infer):
    values, indices = infer("TopK", [(F16, (2, 10)), (I32, ())], [None, np.array(3, I32)])
    assert values.shape == (2, 3) and (indices.dtype, indices.shape) == (3, (2, 3))
    values, _ = infer("TopK", [(F16, (2, 10)), (I32, ())])
    assert values.shape == (2, -1) and values.shape_range == ((2, 2), (0, 10))


def test_nonzero_coordinates_and_transpose(run):
    x = np.array([[0, 3], [4, 0], [0, 5]], I32)
    (y,) = run("NonZero", [x], [(I64, (6, 2))])
    assert y.dtype == I64 and y.tolist() == [[0, 1], [1, 0], [2, 1]]
    (y,) = run("NonZero", [x], [(I32, (2, 6))], {"transpose": True, "dtype": 3})
    assert y.dtype == I32 and y.tolist() == [[0, 1, 2], [1, 0, 1]]


def test_nonzero_infer_shape(infer):
    (out,) = infer("NonZero", [(F32, (3, 4))])
    assert (out.dtype, out.shape, out.shape_range) == (9, (-1, 2), ((0, 12), (2, 2)))
    (out,) = infer("NonZero", [(F32, (3, 4))], attrs={"transpose": True})
    assert (out.shape, out.shape_range) == ((2, -1), ((2, 2), (0, 12)))


def test_where_gives_int64_coordinates(run):
    (y,) = run("Where", [np.array([0, 2, 0, 7], I32)], [(I64, (4, 1))])
    assert y.tolist() == [[1], [3]]
    with pytest.raises(KernelError, match=r"Where: output 'y' has dtype int32, expected int64"):
        run("Where", [np.array([1], I32)], [(I32, (1, 1))])


def test_where_infer_shape(infer):
    (out,) = infer("Where", [(I32, (5,))])
    assert (out.shape, out.shape_range) == ((-1, 1), ((0, 5), (1, 1)))


def test_unique_in_first_occurrence_order(run):
    y, idx = run("Unique", [np.array([5, 3, 5, 1, 3], I32)], [(I32, (5,)), (I32, (5,))])
    assert y.tolist() == [5, 3, 1]
    assert idx.tolist() == [0, 1, 0, 2, 1]


def test_unique_out_idx_int64(run):
    _, idx = run("Unique", [np.array([2.0, 2.0], F32)], [(F32, (2,)), (I64, (2,))], {"out_idx": 9})
    assert idx.dtype == I64 and idx.tolist() == [0, 0]


def test_unique_needs_1d_input(run):
    with pytest.raises(KernelError, match=r"Unique: input 'x' must be 1-D, got shape \[2, 2\]"):
        run("Unique", [np.zeros((2, 2), I32)], [(I32, (4,)), (I32, (4,))])


def test_unique_infer_shape(infer):
    y, idx = infer("Unique", [(I32, (7,))])
    assert (y.shape, y.shape_range) == ((-1,), ((1, 7),))
    assert (idx.dtype, idx.shape) == (3, (7,))


def test_topk_orders_bfloat16_nan_above_infinity(run):
    x = np.array([3, np.nan, 1e-7, -np.inf, 2], ml_dtypes.bfloat16)
    values, indices = run("TopK", [x, np.array(5, np.int32)], [(x.dtype, (5,)), (np.int32, (5,))], {"largest": False})
    assert indices.tolist() == [3, 2, 4, 0, 1]
