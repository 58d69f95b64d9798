"""Batch-normalisation kernels: float16 x computed in float32, the moving averages, per-channel inputs checked."""

from __future__ import annotations

import numpy as np
import pytest

from aclcts.sim.kernels import KernelError

F16, F32 = np.float16, np.float32
X = np.array([1.0, 2.0, 3.0, 6.0], F16).reshape(2, 2, 1, 1)
CHANNEL = (1, 2, 1, 1)


def _channel(*values: float) -> np.ndarray:
    return np.array(values, F32).reshape(CHANNEL)


def test_training_reduce_gives_float32_sums_of_a_float16_x(run):
    total, squares = run("BNTrainingReduce", [X], [(F32, CHANNEL), (F32, CHANNEL)])
    assert total.dtype == F32 and total.ravel().tolist() == [4.0, 8.0] and squares.ravel().tolist() == [10.0, 40.0]


def test_training_update_moving_variance_is_unbiased(run):
    outputs = [(F16, X.shape)] + [(F32, CHANNEL)] * 4
    y, mean, variance, batch_mean, batch_variance = run(
        "BNTrainingUpdate", [X, _channel(4, 8), _channel(10, 40), _channel(1, 1), _channel(0, 0), _channel(0, 0),
                             _channel(1, 1)], outputs, {"factor": 0.5, "epsilon": 0.0})
    assert y.dtype == F16 and y.ravel().tolist() == [-1.0, -1.0, 1.0, 1.0]
    assert batch_variance.ravel().tolist() == [1.0, 4.0] and variance.ravel().tolist() == [1.5, 4.5]
    assert mean.ravel().tolist() == [1.0, 2.0] and batch_mean.ravel().tolist() == [2.0, 4.0]


def test_a_statistic_of_the_wrong_channel_count_is_refused(run):
    with pytest.raises(KernelError, match="one value per channel"):
        run("BNInfer", [X, _channel(1, 1), _channel(0, 0), _channel(0, 0), np.ones(3, F32)], [(F16, X.shape)],
            {"epsilon": 0.0})


def test_float16_statistics_are_refused(run):
    with pytest.raises(KernelError, match="'scale' has dtype float16"):
        run("BNInferGrad", [X, np.ones(CHANNEL, F16), _channel(1, 1)], [(F16, X.shape)])


def test_infer_shape_gives_per_channel_float32_statistics(infer):
    shapes = infer("BN3DTrainingReduce", [(F16, (2, 16, 3, 4, 5))])
    assert [tuple(s.shape) for s in shapes] == [(1, 16, 1, 1, 1)] * 2
