"""Batch-normalisation step references against values worked out by hand, and the gradient steps against central
differences of the forward reference (a second oracle)."""

from __future__ import annotations

import numpy as np

from aclcts.reference import reference

F32, F64 = np.float32, np.float64
#: x [2, 2, 1, 1]: channel 0 holds {1, 3} (mean 2, biased variance 1), channel 1 {2, 6} (mean 4, biased variance 4).
X = np.array([1.0, 2.0, 3.0, 6.0]).reshape(2, 2, 1, 1)
SUM, SQUARE_SUM = np.array([4.0, 8.0]).reshape(1, 2, 1, 1), np.array([10.0, 40.0]).reshape(1, 2, 1, 1)
ONES, ZEROS = np.ones((1, 2, 1, 1)), np.zeros((1, 2, 1, 1))


def run(op, inputs, outs, attrs=None):
    return reference(op).compute([np.asarray(x) for x in inputs], attrs or {}, outs)


def test_training_reduce_sums_every_axis_but_the_channel():
    total, squares = run("BNTrainingReduce", [X], [F32, F32])
    assert total.ravel().tolist() == [4.0, 8.0] and squares.ravel().tolist() == [10.0, 40.0]


def test_training_update_moves_the_variance_with_the_unbiased_batch_variance():
    y, mean, variance, batch_mean, batch_variance = run(
        "BNTrainingUpdate", [X, SUM, SQUARE_SUM, ONES, ZEROS, ZEROS, ONES], [F64] * 5, {"factor": 0.5, "epsilon": 0.0})
    assert y.ravel().tolist() == [-1.0, -1.0, 1.0, 1.0]
    assert batch_mean.ravel().tolist() == [2.0, 4.0] and batch_variance.ravel().tolist() == [1.0, 4.0]
    # unbiased batch variance [2, 8]: 0.5 * [2, 8] + 0.5 * [1, 1]; moving mean 0.5 * [2, 4] + 0.5 * 0
    assert mean.ravel().tolist() == [1.0, 2.0] and variance.ravel().tolist() == [1.5, 4.5]


def test_training_update_v3_gives_both_variances():
    _, _, unbiased, reserve_mean, biased = run("BNTrainingUpdateV3", [X, SUM, SQUARE_SUM, ONES, ZEROS], [F64] * 5,
                                               {"epsilon": 0.0})
    assert unbiased.ravel().tolist() == [2.0, 8.0] and biased.ravel().tolist() == [1.0, 4.0]
    assert reserve_mean.ravel().tolist() == [2.0, 4.0]


def test_infer_accepts_one_dimensional_statistics():
    (y,) = run("BNInfer", [X, np.array([2.0, 1.0]), np.array([1.0, 0.0]), np.array([2.0, 4.0]), np.array([1.0, 4.0])],
               [F64], {"epsilon": 0.0})
    assert y.ravel().tolist() == [-1.0, -1.0, 3.0, 1.0]


def _forward(x: np.ndarray, scale: np.ndarray, offset: np.ndarray, epsilon: float) -> np.ndarray:
    """BatchNorm's training forward as the references give it: BNTrainingReduce, then BNTrainingUpdateV2's y."""
    total, squares = run("BNTrainingReduce", [x], [F64, F64])
    return run("BNTrainingUpdateV2", [x, total, squares, scale, offset], [F64] * 3, {"epsilon": epsilon})[0]


def test_gradient_steps_match_central_differences_of_the_forward():
    rng = np.random.default_rng(7)
    x, dy = rng.uniform(-2, 2, (2, 3, 2, 2)), rng.uniform(-1, 1, (2, 3, 2, 2))
    scale, offset, epsilon = rng.uniform(0.5, 2, (1, 3, 1, 1)), rng.uniform(-1, 1, (1, 3, 1, 1)), 1e-3
    loss = lambda a, s, o: float(np.sum(dy * _forward(a, s, o, epsilon)))  # noqa: E731
    h = 1e-6
    numeric_x = np.zeros_like(x)
    for index in np.ndindex(x.shape):
        step = np.zeros_like(x)
        step[index] = h
        numeric_x[index] = (loss(x + step, scale, offset) - loss(x - step, scale, offset)) / (2 * h)
    numeric_scale = np.array([(loss(x, scale + e, offset) - loss(x, scale - e, offset)) / (2 * h)
                              for e in np.eye(3).reshape(3, 1, 3, 1, 1) * h])
    total, squares = run("BNTrainingReduce", [x], [F64, F64])
    _, mean, variance = run("BNTrainingUpdateV2", [x, total, squares, scale, offset], [F64] * 3, {"epsilon": 0.0})
    diff_scale, diff_offset = run("BNTrainingUpdateGrad", [dy, x, mean, variance], [F64, F64], {"epsilon": epsilon})
    (dx,) = run("BNTrainingReduceGrad", [dy, x, diff_scale, diff_offset, scale, mean, variance], [F64],
                {"epsilon": epsilon})
    np.testing.assert_allclose(diff_scale.ravel(), numeric_scale, rtol=1e-6)
    np.testing.assert_allclose(diff_offset.ravel(), dy.sum(axis=(0, 2, 3)), rtol=1e-12)
    np.testing.assert_allclose(dx, numeric_x, rtol=1e-5, atol=1e-8)
