"""Normalisation references against values worked out by hand."""

from __future__ import annotations

import numpy as np
import pytest

from aclcts.reference import reference

F32, F64 = np.float32, np.float64


def run(op, inputs, outs, attrs=None):
    return reference(op).compute([np.asarray(x) for x in inputs], attrs or {}, outs)


def test_layer_norm_uses_the_biased_variance():
    # x = [1, 3]: mean 2, variance ((1-2)^2 + (3-2)^2) / 2 = 1; y = (x - 2) / sqrt(1 + eps) * 2 + 1 = [-1, 3]
    y, mean, variance = run("LayerNorm", [np.array([[1.0, 3.0]]), np.array([2.0, 2.0]), np.array([1.0, 1.0])],
                            [F64] * 3, {"begin_norm_axis": -1, "epsilon": 0.0})
    assert y.tolist() == [[-1.0, 3.0]] and mean.tolist() == [[2.0]] and variance.tolist() == [[1.0]]


def test_rms_norm_over_the_axes_gamma_covers():
    # x = [3, 4]: mean of squares 12.5, rstd = 1 / sqrt(12.5)
    y, rstd = run("RmsNorm", [np.array([[3.0, 4.0]]), np.array([1.0, 2.0])], [F64, F32], {"epsilon": 0.0})
    np.testing.assert_allclose(rstd, [[1 / np.sqrt(12.5)]], rtol=1e-7)
    np.testing.assert_allclose(y, [[3 / np.sqrt(12.5), 8 / np.sqrt(12.5)]], rtol=1e-15)


def test_l2_normalize_divides_by_the_norm_or_eps():
    (y,) = run("L2Normalize", [np.array([[3.0, 4.0], [1e-6, 0.0]])], [F64], {"axis": [-1], "eps": 1e-4})
    np.testing.assert_allclose(y, [[0.6, 0.8], [1e-2, 0.0]], rtol=1e-15)


@pytest.mark.parametrize("p, expected", [(2.0, 5.0), (1.0, 7.0), (0.0, 2.0), (3.0, 91.0 ** (1 / 3))])
def test_lp_norm(p, expected):
    (y,) = run("LpNormV2", [np.array([3.0, -4.0, 0.0])], [F64], {"p": p})
    assert y.tolist() == pytest.approx(expected, rel=1e-15)


def test_softmax_cross_entropy_loss_and_backprop():
    # features [0, ln 3]: softmax [1/4, 3/4]; labels [0, 1]: loss = -ln(3/4), backprop [1/4, -1/4]
    loss, backprop = run("SoftmaxCrossEntropyWithLogits", [np.array([[0.0, np.log(3.0)]]), np.array([[0.0, 1.0]])],
                         [F64, F64])
    np.testing.assert_allclose(loss, [-np.log(0.75)], rtol=1e-15)
    np.testing.assert_allclose(backprop, [[0.25, -0.25]], rtol=1e-14, atol=1e-16)


def test_softmax_cross_entropy_broadcasts_1d_labels_over_the_batch():
    # labels [0, 1] for every row (the TBE implementation broadcasts a 1-D input, as TensorFlow's op does)
    features = np.array([[0.0, np.log(3.0)], [np.log(3.0), 0.0]])
    loss, backprop = run("SoftmaxCrossEntropyWithLogits", [features, np.array([0.0, 1.0])], [F64, F64])
    np.testing.assert_allclose(loss, [-np.log(0.75), -np.log(0.25)], rtol=1e-15)
    np.testing.assert_allclose(backprop, [[0.25, -0.25], [0.75, -0.75]], rtol=1e-14, atol=1e-16)
    assert reference("SoftmaxCrossEntropyWithLogits").shape([(2, 2), (2,)], [None, None], {}) == [(2,), (2, 2)]
    with pytest.raises(ValueError, match="broadcast to 2-D"):
        run("SoftmaxCrossEntropyWithLogits", [np.zeros(2), np.zeros(2)], [F64, F64])


def test_softmax_cross_entropy_keeps_the_differences_of_large_features():
    """CANN's dynamic case drew 177 features of 2**47 in a row: a running logaddexp rounded each step to the
    features' ulp (1/32) and gave a softmax of 1/64 where every one of the 177 equal features has 1/177."""
    features = np.full((1, 177), 2.0 ** 47)
    loss, backprop = run("SoftmaxCrossEntropyWithLogits", [features, np.zeros((1, 177))], [F64, F64])
    np.testing.assert_allclose(backprop, np.full((1, 177), 1 / 177), rtol=1e-12)
    assert loss.tolist() == [0.0]
    shifted = features + np.arange(177.0)
    _, backprop = run("SoftmaxCrossEntropyWithLogits", [shifted, np.zeros((1, 177))], [F64, F64])
    np.testing.assert_allclose(backprop[0, -1], 1 / np.sum(np.exp(-np.arange(177.0))), rtol=1e-12)


def test_softmax_cross_entropy_of_a_row_holding_plus_inf_is_nan():
    # inf - inf after the maximum is subtracted, as in TensorFlow's kernel and CANN's TBE implementation
    loss, backprop = run("SoftmaxCrossEntropyWithLogits", [np.array([[0.0, np.inf, 1.0], [0.0, 1.0, 2.0]]),
                                                           np.zeros((2, 3))], [F64, F64])
    assert np.isnan(backprop[0]).all() and np.isnan(loss[0]) and np.isfinite(backprop[1]).all()


def _layer_norm_loss(x, gamma, beta, dy, epsilon):
    y = run("LayerNorm", [x, gamma, beta], [F64] * 3, {"begin_norm_axis": -1, "epsilon": epsilon})[0]
    return float(np.sum(dy * y))


def test_layer_norm_grad_matches_central_differences_of_layer_norm():
    # with the batch's own mean and variance, pd_x, pd_gamma and pd_beta are the gradients of sum(dy * LayerNorm(x))
    rng = np.random.default_rng(3)
    x, dy = rng.uniform(-2, 2, (3, 5)), rng.uniform(-1, 1, (3, 5))
    gamma, beta, epsilon, h = rng.uniform(0.5, 2, 5), rng.uniform(-1, 1, 5), 1e-12, 1e-6
    _, mean, variance = run("LayerNorm", [x, gamma, beta], [F64] * 3, {"begin_norm_axis": -1, "epsilon": epsilon})
    pd_x, pd_gamma, pd_beta = run("LayerNormGrad", [dy, x, variance, mean, gamma], [F64] * 3)

    def central(f, a):
        grad = np.zeros_like(a)
        for index in np.ndindex(a.shape):
            step = np.zeros_like(a)
            step[index] = h
            grad[index] = (f(a + step) - f(a - step)) / (2 * h)
        return grad

    np.testing.assert_allclose(pd_x, central(lambda a: _layer_norm_loss(a, gamma, beta, dy, epsilon), x), rtol=1e-5,
                               atol=1e-8)
    np.testing.assert_allclose(pd_gamma, central(lambda g: _layer_norm_loss(x, g, beta, dy, epsilon), gamma), rtol=1e-6)
    np.testing.assert_allclose(pd_beta, dy.sum(axis=0), rtol=1e-12)
    (pd_x_only,) = run("LayerNormXBackprop", [dy, x, variance, mean, gamma], [F64])
    np.testing.assert_array_equal(pd_x_only, pd_x)


def test_layer_norm_beta_gamma_backprop_v2_sums_over_the_axes_gamma_leaves_out():
    dy, res = np.arange(6.0).reshape(3, 2), np.full((3, 2), 2.0)
    pd_gamma, pd_beta = run("LayerNormBetaGammaBackpropV2", [dy, res], [F64, F64], {"shape_gamma": [2]})
    assert pd_gamma.tolist() == [12.0, 18.0] and pd_beta.tolist() == [6.0, 9.0]


def test_layer_norm_x_backprop_v2_uses_a_larger_epsilon_for_float16():
    inputs = [np.ones((1, 2), np.float16), np.array([[0.0, 2.0]], np.float16), np.zeros((1, 1), np.float16),
              np.ones((1, 1), np.float16), np.ones(2, np.float16)]
    _, res = run("LayerNormXBackpropV2", inputs, [np.float16, F32])
    np.testing.assert_allclose(res, [[-1 / np.sqrt(1e-5), 1 / np.sqrt(1e-5)]], rtol=1e-6)
