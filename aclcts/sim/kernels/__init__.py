"""The simulator's device-numerics kernel library: one NumPy kernel per op type, looked up by the runtime."""

from aclcts.sim.kernels import (  # noqa: F401  (importing them registers the built-in kernels)
    activation,
    binary_math,
    cast,
    conv,
    elementwise,
    gather_scatter,
    layout,
    logic,
    matmul,
    norm,
    pooling,
    reduce,
    reshaping,
    resize,
    scan,
    selection,
    softmax,
    sparse,
    unary,
    unary_math,
)
from aclcts.sim.kernels.base import InferredShape, Kernel, KernelError, TensorInfo
from aclcts.sim.kernels.registry import get_kernel, register_kernel, registered_op_types, unregister_kernel

__all__ = [
    "InferredShape",
    "Kernel",
    "KernelError",
    "TensorInfo",
    "get_kernel",
    "register_kernel",
    "registered_op_types",
    "unregister_kernel",
]
