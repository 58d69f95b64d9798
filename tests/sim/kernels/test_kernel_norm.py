"""Normalisation kernels: fp16 computed in fp32 and rounded once, output dtypes and shapes, bad inputs refused."""

from __future__ import annotations

import numpy as np
import pytest

from aclcts.sim.kernels import KernelError

F16, F32 = np.float16, np.float32


def test_layer_norm_float16_in_float32(run):
    x = np.array([[1000.0, 1001.0, 1002.0, 1003.0]], F16)  # squares overflow nothing in fp32; the mean is 1001.5
    gamma, beta = np.ones(4, F16), np.zeros(4, F16)
    y, mean, variance = run("LayerNorm", [x, gamma, beta], [(F16, (1, 4)), (F16, (1, 1)), (F16, (1, 1))],
                            {"begin_norm_axis": -1, "epsilon": 0.0})
    assert mean.tolist() == [[1001.5]] and variance.tolist() == [[1.25]]
    np.testing.assert_allclose(y.astype(F32), (x.astype(F32) - 1001.5) / np.sqrt(1.25), rtol=2**-10)


def test_rms_norm_gives_a_float32_rstd(run):
    y, rstd = run("RmsNorm", [np.array([[3, 4]], F16), np.array([1, 1], F16)], [(F16, (1, 2)), (F32, (1, 1))],
                  {"epsilon": 0.0})
    assert rstd.dtype == F32 and rstd.tolist() == [[pytest.approx(1 / np.sqrt(12.5), rel=1e-7)]]
    with pytest.raises(KernelError, match="trailing dims"):
        run("RmsNorm", [np.ones((2, 3), F32), np.ones(2, F32)], [(F32, (2, 3)), (F32, (2, 1))])


def test_lp_norm_keepdim_and_p_zero(run):
    (y,) = run("LpNormV2", [np.array([[3, -4, 0]], F32)], [(F32, (1, 1))], {"p": 0.0, "axes": [1], "keepdim": True})
    assert y.tolist() == [[2.0]]


def test_softmax_cross_entropy_stays_finite_for_large_float16_logits(run):
    features = np.array([[60.0, 0.0]], F16)  # exp(60) overflows float16 and float32 without the max shift
    loss, backprop = run("SoftmaxCrossEntropyWithLogits", [features, np.array([[1.0, 0.0]], F16)],
                         [(F16, (1,)), (F16, (1, 2))])
    assert np.isfinite(loss).all() and np.isfinite(backprop).all()
    assert loss.tolist() == [0.0]


def test_softmax_cross_entropy_broadcasts_1d_labels_over_the_batch(run):
    features = np.array([[0.0, np.log(3.0)], [np.log(3.0), 0.0]], F32)
    loss, backprop = run("SoftmaxCrossEntropyWithLogits", [features, np.array([0.0, 1.0], F32)],
                         [(F32, (2,)), (F32, (2, 2))])
    np.testing.assert_allclose(loss, [-np.log(0.75), -np.log(0.25)], rtol=1e-6)
    np.testing.assert_allclose(backprop, [[0.25, -0.25], [0.75, -0.75]], rtol=1e-6)
    with pytest.raises(KernelError, match="must be 2-D or broadcast to 2-D"):
        run("SoftmaxCrossEntropyWithLogits", [np.zeros(2, F32), np.zeros(2, F32)], [(F32, ()), (F32, (2,))])
    with pytest.raises(KernelError, match="cannot be broadcast"):
        run("SoftmaxCrossEntropyWithLogits", [np.zeros((2, 3), F32), np.zeros(2, F32)], [(F32, (2,)), (F32, (2, 3))])


def test_layer_norm_beta_gamma_backprop_refuses_a_shape_gamma_x_does_not_end_with(run):
    dy = np.ones((2, 4), F32)
    with pytest.raises(KernelError, match="must be the trailing dims"):
        run("LayerNormBetaGammaBackprop", [dy, dy, np.ones((2, 1), F32), np.zeros((2, 1), F32)],
            [(F32, (3,)), (F32, (3,))], {"shape_gamma": [3]})


def test_layer_norm_grad_float16_gives_float16_parameter_gradients(run):
    dy, x = np.ones((2, 2), F16), np.array([[0.0, 2.0], [1.0, 3.0]], F16)
    stats = [np.ones((2, 1), F16), np.array([[1.0], [2.0]], F16)]
    pd_x, pd_gamma, pd_beta = run("LayerNormGrad", [dy, x, *stats, np.ones(2, F16)],
                                  [(F16, (2, 2)), (F16, (2,)), (F16, (2,))])
    assert pd_gamma.dtype == F16 and pd_gamma.tolist() == [-2.0, 2.0] and pd_beta.tolist() == [2.0, 2.0]
    assert np.abs(pd_x.astype(F32)).max() < 1e-3  # a constant dy has no gradient through the normalisation
