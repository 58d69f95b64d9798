"""References of the const-folded twins of issue 35's last wave (assist inputs, attribute forms), against hand-worked
values from the TensorFlow/PyTorch operators they mirror."""

from __future__ import annotations

import numpy as np
import pytest

from aclcts.reference import reference

I32, F16, F32 = np.int32, np.float16, np.float32


def run(op, inputs, outs, attrs=None):
    return reference(op).compute([np.asarray(x) for x in inputs], attrs or {}, outs)


def shape(op, shapes, values, attrs=None):
    return reference(op).shape(shapes, values, attrs or {})


def test_range_d_is_range_at_the_positions_of_x():
    (y,) = run("RangeD", [np.arange(4, dtype=F32)], [F32], {"start": 1.5, "limit": 3.5, "delta": 0.5})
    assert y.tolist() == [1.5, 2.0, 2.5, 3.0]
    (y,) = run("RangeD", [np.array([0, 1, 2], I32)], [I32], {"start": 6.7, "limit": 0.0, "delta": -2.9})
    assert y.tolist() == [6, 4, 2]


def test_range_d_refuses_a_delta_leading_away_from_limit():
    with pytest.raises(ValueError, match=r"^RangeD: delta 1.0 does not lead from start 5.0 to limit 1.0"):
        run("RangeD", [np.arange(3, dtype=F32)], [F32], {"start": 5.0, "limit": 1.0, "delta": 1.0})


def test_lin_space_d_is_lin_space_at_the_positions_of_assist():
    (y,) = run("LinSpaceD", [np.arange(5, dtype=F32), [1.0], [3.0], [5]], [F32])
    assert y.tolist() == [1.0, 1.5, 2.0, 2.5, 3.0]


def test_diag_d_is_diag_with_the_identity_and_scales_by_any_assist():
    (y,) = run("DiagD", [np.array([1, 2, 3], F16), np.eye(3, dtype=F16)], [F16])
    assert y.tolist() == np.diag([1, 2, 3]).tolist()
    (y,) = run("DiagD", [np.array([1, 2], I32), np.array([[1, 2], [3, 4]], I32)], [I32])
    assert y.tolist() == [[1, 4], [3, 8]]
    assert shape("DiagD", [(2, 3), (2, 3, 2, 3)], [None, None]) == [(2, 3, 2, 3)]


def test_diag_part_d_is_diag_part_with_the_identity():
    x = np.arange(16, dtype=F32).reshape(4, 4)
    (y,) = run("DiagPartD", [x, np.eye(4, dtype=F32)], [F32])
    assert y.tolist() == [0, 5, 10, 15]
    (y,) = run("DiagPartD", [x, np.ones((4, 4), F32)], [F32])
    assert y.tolist() == [6, 22, 38, 54]
    with pytest.raises(ValueError, match=r"^DiagPartD: x \[2, 3\] must have an even rank"):
        shape("DiagPartD", [(2, 3), (2, 3)], [None, None])


def test_tile_with_axis_repeats_the_whole_block_along_axis():
    (y,) = run("TileWithAxis", [np.array([[1, 2], [3, 4]], I32)], [I32], {"tiles": 2, "axis": 0})
    assert y.tolist() == [[1, 2], [3, 4], [1, 2], [3, 4]]
    assert shape("TileWithAxis", [(2, 3, 4)], [None], {"tiles": 3, "axis": -2}) == [(2, 9, 4)]


def test_matrix_diag_part_d_sums_along_the_longer_innermost_dim():
    x = np.arange(6, dtype=F32).reshape(2, 3)
    (y,) = run("MatrixDiagPartD", [x, np.eye(2, 3, dtype=F32)], [F32])
    assert y.tolist() == [0, 4]
    (y,) = run("MatrixDiagPartD", [x.T, np.ones((3, 2), F32)], [F32])
    assert y.tolist() == [3, 12]
    assert shape("MatrixDiagPartD", [(5, 4, 7), (5, 4, 7)], [None, None]) == [(5, 4)]


def test_matrix_diag_part_v3_packs_and_aligns_the_band():
    x = np.arange(1, 13, dtype=I32).reshape(3, 4)
    (y,) = run("MatrixDiagPartV3", [x, np.array([-1, 1], I32), np.array(0, I32)], [I32], {"align": "RIGHT_LEFT"})
    assert y.tolist() == [[2, 7, 12], [1, 6, 11], [5, 10, 0]]
    (y,) = run("MatrixDiagPartV3", [x, np.array([-1, 1], I32), np.array(9, I32)], [I32], {"align": "LEFT_RIGHT"})
    assert y.tolist() == [[2, 7, 12], [1, 6, 11], [9, 5, 10]]
    assert shape("MatrixDiagPartV3", [(2, 3, 4), (), ()], [None, np.array(1, I32), None]) == [(2, 3)]


def test_matrix_diag_v3_builds_the_smallest_matrix_for_the_band():
    (y,) = run("MatrixDiagV3", [np.array([[0, 2], [1, 3]], F32), np.array([-1, 0], I32), np.array(-1, I32),
                                np.array(-1, I32), np.array(7, F32)], [F32], {"align": "LEFT_LEFT"})
    assert y.tolist() == [[0, 7], [1, 2]]
    (y,) = run("MatrixDiagV3", [np.array([1, 2], F32), np.array(1, I32), np.array(-1, I32), np.array(-1, I32),
                                np.array(0, F32)], [F32])
    assert y.tolist() == [[0, 1, 0], [0, 0, 2], [0, 0, 0]]


def test_matrix_set_diag_v2_replaces_the_band_left_aligned():
    x = np.zeros((3, 3), I32)
    (y,) = run("MatrixSetDiagV2", [x, np.array([[1, 2, 0], [4, 5, 6]], I32), np.array([0, 1], I32)], [I32])
    assert y.tolist() == [[4, 1, 0], [0, 5, 2], [0, 0, 6]]
    with pytest.raises(ValueError, match=r"^MatrixSetDiagV2: k \[1, 0\]: the lower diagonal 1 is above the upper 0"):
        run("MatrixSetDiagV2", [x, np.zeros((2, 3), I32), np.array([1, 0], I32)], [I32])


def test_space_to_batch_is_space_to_batch_nd_with_a_square_block():
    x = np.arange(16, dtype=F32).reshape(1, 4, 4, 1)
    (y,) = run("SpaceToBatch", [x, np.zeros((2, 2), I32)], [F32], {"block_size": 2})
    assert y[:, :, :, 0].tolist() == [[[0, 2], [8, 10]], [[1, 3], [9, 11]], [[4, 6], [12, 14]], [[5, 7], [13, 15]]]
    (z,) = run("BatchToSpace", [y, np.zeros((2, 2), I32)], [F32], {"block_size": 2})
    assert z.tolist() == x.tolist()


def test_slice_last_dim_and_cumulative_logsumexp_d():
    (y,) = run("SliceLastDim", [np.arange(14, dtype=I32).reshape(2, 7)], [I32], {"start": -6, "end": 6, "stride": 2})
    assert y.tolist() == [[1, 3, 5], [8, 10, 12]]
    (y,) = run("CumulativeLogsumexpD", [np.log(np.array([1.0, 2.0, 3.0]))], [np.float64],
               {"axis": 0, "exclusive": True, "reverse": True})
    assert np.allclose(np.exp(y), [5.0, 3.0, 0.0])


def test_gather_gathers_along_its_batch_dims():
    x = np.arange(6, dtype=F32).reshape(2, 3)
    (y,) = run("Gather", [x, np.array([1, 1, 0], I32)], [F32])
    assert y.tolist() == [[3, 4, 5], [3, 4, 5], [0, 1, 2]]
    (y,) = run("Gather", [x, np.array([[2], [0]], I32)], [F32], {"batch_dims": 1})
    assert y.tolist() == [[2], [3]]
