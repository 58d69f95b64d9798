"""Relu, Sigmoid and Tanh references at their special points."""

import numpy as np

from aclcts.reference import reference

F32, I32 = np.float32, np.int32

def run(op, inputs, outs, attrs=None):
    """Run a reference op and return its outputs."""
    return reference(op).compute([None if x is None else np.asarray(x) for x in inputs], attrs or {}, outs)


def test_relu_sigmoid_tanh():
    (r,) = run("Relu", [np.array([-1.0, 2.0, np.nan, -0.0])], [F32])
    assert r[[0, 1]].tolist() == [0, 2] and np.isnan(r[2]) and not np.signbit(r[3])
    assert run("Relu", [np.array([-3, 4], I32)], [I32])[0].tolist() == [0, 4]
    assert run("Sigmoid", [np.array([0.0, -np.inf, np.inf])], [F32])[0].tolist() == [0.5, 0.0, 1.0]
    assert run("Tanh", [np.array([0.0, np.inf])], [F32])[0].tolist() == [0.0, 1.0]
