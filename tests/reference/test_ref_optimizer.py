"""Optimizer-update references against steps worked out by hand: every updated state tensor is an output."""

from __future__ import annotations

import numpy as np
import pytest

from aclcts.reference import reference

F64 = np.float64


def run(op, inputs, outs, attrs=None):
    return reference(op).compute([np.asarray(x, F64) for x in inputs], attrs or {}, [F64] * outs)


#: var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad
ADAM = [[1.0], [0.5], [0.25], [0.5], [0.75], [0.1], [0.5], [0.5], [0.0], [1.0]]


def test_apply_adam_d_steps_var_with_the_updated_moments():
    # m = 0.5 * 0.5 + 0.5 * 1 = 0.75, v = 0.5 * 0.25 + 0.5 * 1 = 0.625, lr_t = 0.1 * sqrt(0.25) / 0.5 = 0.1
    var, m, v = run("ApplyAdamD", ADAM, 3)
    assert m.tolist() == [0.75] and v.tolist() == [0.625]
    assert var.tolist() == pytest.approx([1 - 0.1 * 0.75 / np.sqrt(0.625)], rel=1e-15)


def test_apply_adam_outputs_var_alone_the_d_forms_var():
    (var,) = run("ApplyAdam", ADAM, 1)
    assert var.tolist() == run("ApplyAdamD", ADAM, 3)[0].tolist()


def test_apply_adam_nesterov_looks_ahead_with_the_gradient():
    # direction = 0.5 * 0.75 + 0.5 * 1 = 0.875
    var, _, _ = run("ApplyAdamD", ADAM, 3, {"use_nesterov": True})
    assert var.tolist() == pytest.approx([1 - 0.1 * 0.875 / np.sqrt(0.625)], rel=1e-15)


@pytest.mark.parametrize("nesterov, expected", [(False, 1 - 0.1 * 2.5), (True, 1 - (0.1 * 2 + 0.1 * 0.5 * 2.5))])
def test_apply_momentum_d(nesterov, expected):
    # accum = 1 * 0.5 + 2 = 2.5
    var, accum = run("ApplyMomentumD", [[1.0], [1.0], [0.1], [2.0], [0.5]], 2, {"use_nesterov": nesterov})
    assert accum.tolist() == [2.5] and var.tolist() == pytest.approx([expected], rel=1e-15)


def test_apply_adagrad_d_keeps_accum_without_update_slots():
    var, accum = run("ApplyAdagradD", [[1.0], [4.0], [0.5], [2.0]], 2, {"update_slots": False})
    assert accum.tolist() == [4.0] and var.tolist() == [1 - 0.5 * 2 / 2]
    var, accum = run("ApplyAdagradD", [[1.0], [5.0], [0.5], [2.0]], 2)
    assert accum.tolist() == [9.0] and var.tolist() == pytest.approx([1 - 1 / 3], rel=1e-15)


def test_apply_ftrl_d_zeroes_var_inside_the_l1_band():
    # accum 1 -> 2 with lr_power -0.5: linear = 0 + 1 - (sqrt(2) - 1) / 1 * 1 = 2 - sqrt(2) (about 0.586)
    inputs = [[1.0], [1.0], [0.0], [1.0], [1.0], [0.6], [0.0], [-0.5]]
    var, accum, linear = run("ApplyFtrlD", inputs, 3)
    assert accum.tolist() == [2.0] and linear.tolist() == pytest.approx([2 - np.sqrt(2)], rel=1e-15)
    assert var.tolist() == [0.0]
    inputs[5] = [0.5]  # |linear| > l1: var = (0.5 - linear) / sqrt(2)
    var, _, _ = run("ApplyFtrlD", inputs, 3)
    assert var.tolist() == pytest.approx([(0.5 - (2 - np.sqrt(2))) / np.sqrt(2)], rel=1e-14)


def test_apply_proximal_gradient_descent_soft_thresholds():
    # prox = 1 - 0.5 * 1 = 0.5; shrink by alpha l1 = 0.1, divide by 1 + alpha l2 = 1.25
    (var,) = run("ApplyProximalGradientDescent", [[1.0, -0.05], [0.5], [0.2], [0.5], [1.0, 0.0]], 1)
    assert var.tolist() == pytest.approx([0.4 / 1.25, 0.0], rel=1e-15)


def test_apply_adam_with_amsgrad_d_divides_by_the_running_maximum():
    # m = 0.9 * 0 + 0.1 * 1 = 0.1; v = 0.5 * 0.1 + 0.5 * 1 = 0.55 < vhat 4: the step divides by sqrt(4)
    inputs = [[1.0], [0.0], [0.1], [4.0], [0.0], [0.0], [1.0], [1.0]]
    var, m, v, vhat = run("ApplyAdamWithAmsgradD", inputs, 4, {"beta1": 0.9, "beta2": 0.5, "epsilon": 0.0})
    assert vhat.tolist() == [4.0] and v.tolist() == [0.55]
    assert var.tolist() == pytest.approx([1 - 0.1 / 2], rel=1e-15) and m.tolist() == pytest.approx([0.1], rel=1e-15)


def test_hyperparameters_broadcast_over_var():
    var, accum = run("ApplyKerasMomentumD", [np.ones((2, 3)), np.zeros((2, 3)), [0.5], np.ones((2, 3)), [0.9]], 2)
    assert var.shape == accum.shape == (2, 3) and np.all(accum == -0.5) and np.all(var == 0.5)


def test_sgd_dampens_the_gradient_except_at_the_first_step():
    # g = 1 + 0.5 * 2 = 2; accum = 0.5 * 1 + 2 - 0.25 * (1 - stat) * 2; var = 2 - 0.1 * accum
    inputs = [[2.0, 2.0], [1.0, 1.0], [0.1], [1.0, 1.0], [0.5], [1.0, 0.0]]
    (var,) = run("SGD", inputs, 1, {"weight_decay": 0.5, "dampening": 0.25})
    assert var.tolist() == pytest.approx([2 - 0.1 * 2.5, 2 - 0.1 * 2.0], rel=1e-15)
    (var,) = run("SGD", inputs, 1, {"weight_decay": 0.5, "dampening": 0.25, "nesterov": True})
    assert var.tolist() == pytest.approx([2 - 0.1 * (2 + 0.5 * 2.5), 2 - 0.1 * (2 + 0.5 * 2.0)], rel=1e-15)


@pytest.mark.parametrize("clip, expected", [(False, 0.5 * 2 / (1 + 0.5 * 2 + 0)), (True, 1.0)])
def test_lars_v2_update_scales_by_the_trust_ratio(clip, expected):
    # ||w|| = 2, ||g|| = 1, weight decay 0.5: ratio = hyperpara ||w|| / (||g|| + 0.5 ||w||) = 0.5; with use_clip
    # ratio / lr = 5 is clipped to 1; g_new = ratio (g + 0.5 w) = ratio (1 + 0.5)
    (g_new,) = run("LarsV2Update", [[1.0], [1.0], [4.0], [1.0], [0.5], [0.1]], 1,
                   {"hyperpara": 0.5, "epsilon": 0.0, "use_clip": clip})
    assert g_new.tolist() == pytest.approx([expected * 1.5], rel=1e-15)


#: grad, v, m, var, lr, beta1, 1 - beta1, beta2, 1 - beta2, eps
ADAM_ONE = [[2.0], [1.0], [1.0], [1.0], [0.5], [0.5], [0.5], [0.5], [0.25], [0.0]]


def test_adam_apply_one_outputs_v_m_and_var():
    # v = 0.5 * 1 + 0.25 * 4 = 1.5, m = 0.5 * 1 + 0.5 * 2 = 1.5, var = 1 - 0.5 * 1.5 / sqrt(1.5)
    v, m, var = run("AdamApplyOne", ADAM_ONE, 3)
    assert v.tolist() == [1.5] and m.tolist() == [1.5]
    assert var.tolist() == pytest.approx([1 - 0.5 * 1.5 / np.sqrt(1.5)], rel=1e-15)
    inputs = ADAM_ONE[:9] + [[0.1]] + ADAM_ONE[9:]  # decay 0.1 adds 0.1 var to the direction
    _, _, var = run("AdamApplyOneWithDecay", inputs, 3)
    assert var.tolist() == pytest.approx([1 - 0.5 * (1.5 / np.sqrt(1.5) + 0.1)], rel=1e-15)


def test_lamb_next_right_gives_v_and_the_corrected_root():
    # v = 0.5 * 1 + 0.25 * 4 = 1.5; y2 = 0.01 + sqrt(1.5 * 2)
    v, root = run("LambNextRight", [[2.0], [1.0], [0.5], [0.25], [2.0], [0.01]], 2)
    assert v.tolist() == [1.5] and root.tolist() == pytest.approx([0.01 + np.sqrt(3.0)], rel=1e-15)


def test_lamb_next_mv_bias_corrects_both_moments():
    # m = 0.5 * 1 + 0.5 * 3 = 2, v = 0.5 * 2 + 0.5 * 6 = 4; m_hat = 2 / 0.5 = 4, v_hat = 4 / 0.25 = 16
    inputs = [[6.0], [2.0], [0.25], [3.0], [1.0], [0.5], [1.0], [0.5], [0.5], [0.5], [0.5], [0.1], [0.0]]
    y1, m, v, y4 = run("LambNextMV", inputs, 4)
    assert m.tolist() == [2.0] and v.tolist() == [4.0]
    assert y1.tolist() == pytest.approx([0.1 + 4 / 4], rel=1e-15) and y4.tolist() == [1.0]
    assert run("LambNextMVWithDecay", inputs, 4)[3].tolist() == pytest.approx([0.1 + 1.0], rel=1e-15)


def test_lamb_update_with_lr_falls_back_below_the_threshold_and_clips():
    # element 0: both norms above 0.2, ratio 0.8 / 0.1 = 8 clipped to 5; element 1: weight norm below, ratio 1.5
    inputs = [[1.0, 0.1], [0.8, 0.8], [0.1, 0.1], [0.1], [1.0, 1.0], [1.0, 1.0], [0.2], [1.5], [5.0]]
    (y,) = run("LambUpdateWithLr", inputs, 1)
    assert y.tolist() == pytest.approx([1 - 5 * 0.1, 1 - 1.5 * 0.1], rel=1e-15)
