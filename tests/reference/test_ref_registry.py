"""Registry lookup, argument checking, shape functions agreeing with computed shapes."""

import numpy as np
import pytest

from aclcts.reference import OP_TYPES, RefOp, reference

BRIEF_OPS = {
    "Add", "Sub", "Mul", "RealDiv", "Maximum", "Minimum", "Pow", "Equal", "Less", "Greater", "LogicalAnd",
    "Abs", "Neg", "Exp", "Log", "Sqrt", "Rsqrt", "Relu", "Sigmoid", "Tanh", "Square", "Reciprocal", "Cast",
    "MatMul", "BatchMatMul", "GEMM", "ReduceSum", "ReduceMax", "ReduceMean", "SoftmaxV2", "Transpose",
    "Reshape", "ConcatD", "SplitD", "Slice", "Tile", "ArgMaxV2", "TopK", "NonZero", "Unique", "AddN", "Conv2D",
}

F32 = np.float32
RNG = np.random.default_rng(7)


def test_every_suite_op_has_a_reference():
    assert BRIEF_OPS <= set(OP_TYPES)
    assert all(isinstance(reference(op), RefOp) and reference(op).op_type == op for op in OP_TYPES)


def test_unknown_op_lists_the_known_ones():
    with pytest.raises(KeyError, match="no reference for op type 'Addd'; known: Abs, .*Add, .*AddN, "):
        reference("Addd")


def test_arity_and_attribute_errors_name_the_op():
    with pytest.raises(ValueError, match=r"Add: expected inputs \(x1, x2\), got 3"):
        reference("Add").compute([np.ones(1)] * 3, {}, [F32])
    with pytest.raises(ValueError, match="Sub: required input 'x2' is missing"):
        reference("Sub").compute([np.ones(1), None], {}, [F32])
    with pytest.raises(ValueError, match=r"TopK: unknown attribute\(s\) \['k'\]"):
        reference("TopK").compute([np.ones(3), np.array(1)], {"k": 1}, [F32, np.int32])
    with pytest.raises(ValueError, match=r"TopK: expected 2 output dtype\(s\) \(values, indices\), got 1"):
        reference("TopK").compute([np.ones(3), np.array(1)], {}, [F32])


CASES = [
    ("Add", [RNG.random((2, 1, 3)), RNG.random((4, 1))], {}, 1),
    ("Pow", [RNG.random((3,)), RNG.random((2, 3))], {}, 1),
    ("Exp", [RNG.random((2, 3))], {"base": 2.0}, 1),
    ("AddN", [RNG.random((2, 2))] * 3, {"N": 3}, 1),
    ("ReduceMean", [RNG.random((2, 3, 4)), np.array([0, 2])], {"keep_dims": True}, 1),
    ("MatMul", [RNG.random((3, 2)), RNG.random((3, 4)), None], {"transpose_x1": True}, 1),
    ("BatchMatMul", [RNG.random((2, 1, 3, 4)), RNG.random((5, 2, 4))], {"adj_x2": True}, 1),
    ("GEMM", [RNG.random((2, 3)), RNG.random((3, 4)), RNG.random((2, 4)), np.array(1.0), np.array(2.0)], {}, 1),
    ("Transpose", [RNG.random((2, 3, 4)), np.array([2, 0, 1])], {}, 1),
    ("Reshape", [RNG.random((2, 3, 4)), np.array([4, -1])], {}, 1),
    ("ConcatD", [RNG.random((2, 3)), RNG.random((2, 5))], {"concat_dim": 1}, 1),
    ("SplitD", [RNG.random((4, 6))], {"split_dim": 0, "num_split": 2}, 2),
    ("Slice", [RNG.random((4, 6)), np.array([1, 2]), np.array([-1, 3])], {}, 1),
    ("Tile", [RNG.random((2, 3)), np.array([3, 1])], {}, 1),
    ("ArgMaxV2", [RNG.random((2, 3, 4)), np.array(1)], {}, 1),
    ("TopK", [RNG.random((2, 5)), np.array(3)], {}, 2),
    ("NonZero", [RNG.integers(0, 2, (3, 4))], {}, 1),
    ("Unique", [RNG.integers(0, 4, (9,))], {}, 2),
    ("SoftmaxV2", [RNG.random((2, 3))], {"axes": [0]}, 1),
    ("Conv2D", [RNG.random((2, 3, 7, 6)), RNG.random((4, 3, 3, 2))],
     {"strides": [1, 1, 2, 1], "pads": [1, 1, 0, 1], "dilations": [1, 1, 1, 2], "data_format": "NCHW"}, 1),
    ("Cast", [RNG.random((3,))], {"dst_type": 0}, 1),
]


@pytest.mark.parametrize("op, inputs, attrs, n_out", CASES, ids=[c[0] for c in CASES])
def test_shape_function_agrees_with_computed_outputs(op, inputs, attrs, n_out):
    outs = [F32] * n_out if op not in ("TopK", "Unique") else [F32, np.int32]
    results = reference(op).compute(inputs, attrs, outs)
    shapes = reference(op).shape([None if x is None else np.shape(x) for x in inputs], inputs, attrs)
    assert shapes == [r.shape for r in results]
    assert [r.dtype for r in results] == [np.dtype(d) for d in outs]
