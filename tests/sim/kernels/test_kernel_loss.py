"""Loss kernels: L2Loss's scalar, the mean and sum reductions and the sign of MseLossGrad and L1LossGrad, bad
inputs refused in one line."""

from __future__ import annotations

import numpy as np
import pytest

from aclcts.reference import reference
from aclcts.sim.kernels import KernelError

F16, F32 = np.float16, np.float32


def test_l2_loss_is_half_the_sum_of_squares(run):
    (y,) = run("L2Loss", [np.array([[3.0, 4.0], [1.0, -1.0]], F32)], [(F32, ())])
    assert y.shape == () and y.tolist() == 13.5


@pytest.mark.parametrize(("reduction", "divisor"), [("mean", 4.0), ("sum", 1.0), ("none", 1.0)])
def test_mse_and_l1_loss_grads_point_from_label_to_predict(run, reduction, divisor):
    predict, label = np.array([[1.0, -2.0], [0.5, 3.0]], F32), np.array([[0.0, 0.0], [1.5, 3.0]], F32)
    dout = np.array([[1.0, 2.0], [4.0, 8.0]], F32)
    attrs = {"reduction": reduction}
    (mse,) = run("MseLossGrad", [predict, label, dout], [(F32, (2, 2))], attrs)
    assert mse.tolist() == (np.array([[2.0, -8.0], [-8.0, 0.0]]) / divisor).tolist()
    (l1,) = run("L1LossGrad", [dout, predict, label], [(F32, (2, 2))], attrs)
    assert l1.tolist() == (np.array([[1.0, -2.0], [-4.0, 0.0]]) / divisor).tolist()
    (expected,) = reference("MseLossGrad").compute([predict, label, dout], attrs, [F32])
    assert expected.tolist() == mse.tolist()


def test_loss_grads_refuse_a_bad_reduction_and_mismatched_shapes(run):
    x = np.zeros((2, 2), F16)
    with pytest.raises(KernelError, match="reduction' must be one of mean, sum, none, got 'avg'"):
        run("MseLossGrad", [x, x, x], [(F16, (2, 2))], {"reduction": "avg"})
    with pytest.raises(KernelError, match=r"every input must have one shape, got 'grads' \[2, 2\], 'predict' \[2\]"):
        run("L1LossGrad", [x, np.zeros(2, F16), x], [(F16, (2, 2))])


@pytest.mark.parametrize(("op", "reduced"), [("SoftMarginLoss", (1,)), ("KLDiv", ())])
def test_a_reduced_loss_has_the_shape_cann_infers(run, op, reduced):
    # CANN's infer shapes: SoftMarginLoss gives (1,) for sum and mean (nn_norm_ops.cc), KLDiv a scalar
    # (elewise_calculation_ops.cc)
    x, y = np.array([[0.5, -1.0], [2.0, 0.25]], F32), np.array([[1.0, -1.0], [-1.0, 1.0]], F32)
    y = np.abs(y) / 2 if op == "KLDiv" else y
    (got,) = run(op, [x, y], [(F32, reduced)], {"reduction": "sum"})
    (expected,) = reference(op).compute([x, y], {"reduction": "sum"}, [F32])
    assert got.shape == reduced and np.shape(expected) == reduced
    assert np.allclose(got, expected, rtol=1e-5)
