"""Kernels of the const-folded twins of issue 35's last wave: the assist inputs as CANN's TBE implementations use
them, the attribute forms through their twins' kernels."""

import numpy as np
import pytest

from aclcts.sim.kernels import KernelError

I32, F16, F32 = np.int32, np.float16, np.float32


def test_range_d_scales_and_shifts_the_positions(run):
    (y,) = run("RangeD", [np.arange(4, dtype=I32)], [(I32, (4,))], {"start": 1.9, "limit": 9.0, "delta": 2.2})
    assert y.tolist() == [1, 3, 5, 7]
    with pytest.raises(KernelError, match=r"^RangeD: attrs start 1.0, limit 1.0"):
        run("RangeD", [np.arange(4, dtype=F32)], [(F32, (4,))], {"start": 1.0, "limit": 1.0, "delta": 1.0})


def test_lin_space_d_steps_in_float32(run):
    (y,) = run("LinSpaceD", [np.arange(3, dtype=F32), np.array([0], F32), np.array([1], F32), np.array([4], I32)],
               [(F32, (3,))])
    assert y.tolist() == [0.0, np.float32(1) / np.float32(3), 2 * (np.float32(1) / np.float32(3))]


def test_diag_d_broadcasts_x_on_the_trailing_half(run, infer):
    (y,) = run("DiagD", [np.array([2, 3], F16), np.array([[1, 1], [0, 1]], F16)], [(F16, (2, 2))])
    assert y.tolist() == [[2, 3], [0, 3]]
    with pytest.raises(KernelError, match=r"^DiagD: input 'assist' \[2, 3\] must be \[D1..Dk, D1..Dk\]"):
        infer("DiagD", [(F16, (2,)), (F16, (2, 3))])


def test_diag_part_d_sums_the_masked_rows(run, infer):
    x = np.arange(9, dtype=I32).reshape(3, 3)
    (y,) = run("DiagPartD", [x, np.eye(3, dtype=I32)], [(I32, (3,))])
    assert y.tolist() == [0, 4, 8]
    (out,) = infer("DiagPartD", [(F32, (2, 5, 2, 5)), (F32, (2, 5, 2, 5))])
    assert out.shape == (2, 5)


def test_tile_with_axis_repeats_along_axis(run, infer):
    (y,) = run("TileWithAxis", [np.array([[1, 2], [3, 4]], F16)], [(F16, (2, 6))], {"tiles": 3})
    assert y.tolist() == [[1, 2, 1, 2, 1, 2], [3, 4, 3, 4, 3, 4]]
    (out,) = infer("TileWithAxis", [(F32, (-1, 5))], attrs={"tiles": 2, "axis": 1})
    assert out.shape == (-1, 10)
    with pytest.raises(KernelError, match=r"^TileWithAxis: attr 'tiles' 0 must be at least 1"):
        run("TileWithAxis", [np.zeros((2, 2), F32)], [(F32, (2, 2))], {"tiles": 0})


def test_matrix_diag_part_d_masks_and_sums(run, infer):
    x = np.arange(6, dtype=I32).reshape(3, 2)
    (y,) = run("MatrixDiagPartD", [x, np.eye(3, 2, dtype=I32)], [(I32, (2,))])
    assert y.tolist() == [0, 3]
    (out,) = infer("MatrixDiagPartD", [(F16, (2, 4, 6)), (F16, (2, 4, 6))])
    assert out.shape == (2, 4)


def test_matrix_diag_part_v3_right_aligns_superdiagonals_by_default(run, infer):
    x = np.arange(1, 13, dtype=F32).reshape(3, 4)
    (y,) = run("MatrixDiagPartV3", [x, np.array([0, 1], I32), np.array(0, F32)], [(F32, (2, 3))])
    assert y.tolist() == [[2, 7, 12], [1, 6, 11]]
    (out,) = infer("MatrixDiagPartV3", [(F32, (5, 3, 4)), (I32, (2,)), (F32, ())], [None, np.array([-2, 0], I32)])
    assert out.shape == (5, 3, 3)


def test_matrix_diag_v3_and_set_diag_v2_place_the_diagonals(run):
    (y,) = run("MatrixDiagV3", [np.array([4, 5], I32), np.array(-1, I32), np.array(3, I32), np.array(-1, I32),
                                np.array(9, I32)], [(I32, (3, 2))])
    assert y.tolist() == [[9, 9], [4, 9], [9, 5]]
    (y,) = run("MatrixSetDiagV2", [np.zeros((2, 3), I32), np.array([[7, 8], [1, 2]], I32), np.array([0, 1], I32)],
               [(I32, (2, 3))])
    assert y.tolist() == [[1, 7, 0], [0, 2, 8]]


def test_space_to_batch_and_back_with_one_block_size(run):
    x = np.arange(16, dtype=F32).reshape(1, 4, 4, 1)
    (y,) = run("SpaceToBatch", [x, np.zeros((2, 2), I32)], [(F32, (4, 2, 2, 1))], {"block_size": 2})
    assert y[1, :, :, 0].tolist() == [[1, 3], [9, 11]]
    (z,) = run("BatchToSpace", [y, np.array([[0, 0], [1, 1]], I32)], [(F32, (1, 4, 2, 1))], {"block_size": 2})
    assert z[0, :, :, 0].tolist() == x[0, :, 1:3, 0].tolist()


def test_slice_last_dim_and_cumulative_logsumexp_d(run, infer):
    (y,) = run("SliceLastDim", [np.arange(8, dtype=F16)], [(F16, (3,))], {"start": 1, "end": 8, "stride": 3})
    assert y.tolist() == [1, 4, 7]
    (out,) = infer("SliceLastDim", [(F32, (4, 24))], attrs={"start": 7, "end": 17})
    assert out.shape == (4, 10)
    (y,) = run("CumulativeLogsumexpD", [np.log(np.array([[1, 3]], F32))], [(F32, (1, 2))], {"axis": 1})
    assert np.exp(y).round(5).tolist() == [[1.0, 4.0]]


def test_gather_runs_gather_v2_along_batch_dims(run):
    x = np.arange(6, dtype=I32).reshape(2, 3)
    (y,) = run("Gather", [x, np.array([[2, 1], [0, 0]], I32)], [(I32, (2, 2))], {"batch_dims": 1})
    assert y.tolist() == [[2, 1], [3, 3]]
