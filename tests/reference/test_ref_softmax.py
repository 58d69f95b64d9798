"""SoftmaxV2 reference over its default and given axes, and half_to_float."""

import numpy as np
import pytest

from aclcts.reference import reference

F16, F32 = np.float16, np.float32

def run(op, inputs, outs, attrs=None):
    """Run a reference op and return its outputs."""
    return reference(op).compute([None if x is None else np.asarray(x) for x in inputs], attrs or {}, outs)


def test_softmax_over_default_and_given_axes():
    x = np.array([[0.0, np.log(3.0)], [1.0, 1.0]])
    (y,) = run("SoftmaxV2", [x], [np.float64])
    assert y.reshape(-1).tolist() == pytest.approx([0.25, 0.75, 0.5, 0.5])
    (z,) = run("SoftmaxV2", [x], [np.float64], {"axes": [0, 1]})
    assert z.sum() == pytest.approx(1.0)
    (h,) = run("SoftmaxV2", [np.array([1000.0, 1000.0], F16)], [F32], {"half_to_float": True})
    assert h.dtype == F32 and h.tolist() == [0.5, 0.5]
