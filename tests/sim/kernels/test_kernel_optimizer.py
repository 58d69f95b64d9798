"""Optimizer kernels: every updated state tensor in its own output, the planted stale-moment fault, bad shapes."""

from __future__ import annotations

import numpy as np
import pytest

from aclcts.sim import isolated
from aclcts.sim.kernels import KernelError

F16, F32 = np.float16, np.float32
#: var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad (see tests/reference/test_ref_optimizer.py)
ADAM = [[1.0], [0.5], [0.25], [0.5], [0.75], [0.1], [0.5], [0.5], [0.0], [1.0]]


def _adam(run, dtype=F32):
    inputs = [np.array(x, dtype) for x in ADAM]
    return inputs, run("ApplyAdamD", inputs, [(dtype, (1,))] * 3)


def test_apply_adam_d_outputs_var_m_v_and_leaves_the_inputs(run):
    inputs, (var, m, v) = _adam(run)
    assert m.tolist() == [0.75] and v.tolist() == [0.625]
    assert var.tolist() == pytest.approx([1 - 0.1 * 0.75 / np.sqrt(0.625)], rel=1e-6)
    assert inputs[0].tolist() == [1.0] and inputs[1].tolist() == [0.5]


def test_optimizer_uses_old_moment_steps_with_the_stale_m_and_v(run):
    with isolated(faults="optimizer_uses_old_moment"):
        _, (var, m, v) = _adam(run)
    assert m.tolist() == [0.75]  # the state still updates; only the step of var reads the old values
    assert var.tolist() == pytest.approx([1 - 0.1 * 0.5 / np.sqrt(0.25)], rel=1e-6)


def test_apply_ftrl_float16_is_computed_in_float32(run):
    # linear's update subtracts accum powers that are close: in float16 step by step it loses most of its digits
    x = [np.array(v, F16) for v in ([0.3], [0.9], [0.1], [0.05], [0.05], [0.0], [0.0], [-0.5])]
    var, accum, linear = run("ApplyFtrlD", x, [(F16, (1,))] * 3)
    wide = [v.astype(np.float64) for v in x]
    new = wide[1] + wide[3] ** 2
    expected = wide[2] + wide[3] - (np.sqrt(new) - np.sqrt(wide[1])) / wide[4] * wide[0]
    assert linear.tolist() == expected.astype(F16).tolist()


def test_a_hyperparameter_of_another_shape_is_refused(run):
    bad = [np.ones(3, F32), np.ones(2, F32), np.ones(3, F32)]
    with pytest.raises(KernelError, match=r"'alpha' has shape \[2\], expected \[3\]"):
        run("ApplyGradientDescent", bad, [(F32, (3,))])


def test_every_input_shares_var_dtype(run):
    mixed = [np.ones(3, F32), np.ones(1, F16), np.ones(3, F32)]
    with pytest.raises(KernelError, match="'alpha' has dtype float16, expected float32"):
        run("ApplyGradientDescent", mixed, [(F32, (3,))])


def test_the_fused_steps_broadcast_their_inputs(run):
    # AdamApplyOne broadcasts every input (adam_apply_one.py shape_broadcast): beta1 [2] against m [1]
    inputs = [np.array(v, F32) for v in ([2.0], [1.0], [1.0], [1.0], [0.5], [0.5, 0.0], [0.5], [0.5], [0.25], [0.0])]
    v, m, var = run("AdamApplyOne", inputs, [(F32, (2,))] * 3)
    assert v.tolist() == [1.5, 1.5] and m.tolist() == [1.5, 1.0]
