"""The kernel table: lookup, the built-in op set, and run-time registration overriding built-ins."""

import numpy as np
import pytest

from aclcts.sim.kernels import (
    InferredShape,
    Kernel,
    KernelError,
    TensorInfo,
    get_kernel,
    register_kernel,
    registered_op_types,
    unregister_kernel,
)

BRIEF_OPS = (
    "Add Sub Mul RealDiv Maximum Minimum Pow Equal Less Greater LogicalAnd Abs Neg Exp Log Sqrt Rsqrt Relu Sigmoid "
    "Tanh Square Reciprocal Cast MatMul BatchMatMul GEMM ReduceSum ReduceMax ReduceMean SoftmaxV2 Transpose Reshape "
    "ConcatD SplitD Slice Tile ArgMaxV2 TopK NonZero Unique Where AddN Conv2D"
).split()


@pytest.mark.parametrize("op_type", BRIEF_OPS)
def test_every_required_op_has_a_kernel_with_shape_inference(op_type):
    kernel = get_kernel(op_type)
    assert isinstance(kernel, Kernel)
    assert kernel.op_type == op_type
    assert callable(kernel.compute) and callable(kernel.infer_shape)


def test_unknown_op_type_has_no_kernel():
    assert get_kernel("NoSuchOp") is None
    assert get_kernel("add") is None  # op types are case-sensitive


def test_registered_op_types_is_sorted_and_complete():
    names = registered_op_types()
    assert names == sorted(names)
    assert set(BRIEF_OPS) <= set(names)


def _double(inputs, attrs, outputs):
    return [np.asarray(inputs[0]) * 2]


def _same_shape(inputs, values, attrs):
    return [InferredShape(inputs[0].dtype, inputs[0].shape, tuple((d, d) for d in inputs[0].shape))]


def test_register_kernel_adds_a_custom_op_and_unregister_removes_it():
    register_kernel("MyDouble", _double, _same_shape)
    try:
        kernel = get_kernel("MyDouble")
        assert kernel.op_type == "MyDouble"
        assert "MyDouble" in registered_op_types()
        (y,) = kernel.compute([np.array([1, 2], np.int32)], {}, [TensorInfo(3, (2,), 2)])
        assert y.tolist() == [2, 4]
        assert kernel.infer_shape([TensorInfo(3, (2,), 2)], [None], {})[0].shape == (2,)
    finally:
        unregister_kernel("MyDouble")
    assert get_kernel("MyDouble") is None
    assert "MyDouble" not in registered_op_types()


def test_register_kernel_overrides_a_builtin_until_unregistered():
    builtin_add = get_kernel("Add")
    register_kernel("Add", _double)
    try:
        kernel = get_kernel("Add")
        assert kernel.compute is _double
        assert kernel.infer_shape is None
    finally:
        unregister_kernel("Add")
    assert get_kernel("Add") == builtin_add
    (y,) = get_kernel("Add").compute([np.array([1], np.int32)] * 2, {}, [TensorInfo(3, (1,), 2)])
    assert y.tolist() == [2]


def test_unregister_without_registration_is_a_key_error():
    with pytest.raises(KeyError, match="Sub"):
        unregister_kernel("Sub")


@pytest.mark.parametrize(
    ("args", "error", "text"),
    [
        (("", _double), ValueError, "non-empty str"),
        ((5, _double), ValueError, "non-empty str"),
        (("X", "not callable"), TypeError, "compute must be callable"),
        (("X", _double, 3), TypeError, "infer_shape must be callable or None"),
    ],
)
def test_register_kernel_rejects_bad_arguments(args, error, text):
    with pytest.raises(error, match=text):
        register_kernel(*args)
    assert get_kernel("X") is None


def test_kernel_error_is_an_exception_with_the_message():
    assert issubclass(KernelError, Exception)
    with pytest.raises(KernelError, match=r"^Add: input 'x2' has dtype float32, expected float16"):
        get_kernel("Add").compute(
            [np.zeros(1, np.float16), np.zeros(1, np.float32)], {}, [TensorInfo(1, (1,), 2)]
        )
