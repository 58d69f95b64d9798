"""The simulator's device-numerics kernel library: one NumPy kernel per op type, looked up by the runtime.

The built-in kernels live in the modules named after the record families (aclcts/sim/kernels/<family>.py); they
are found by those names and importing one registers its kernels.
"""

import importlib
import importlib.util

from aclcts.core.prototypes import families
from aclcts.sim.kernels.base import InferredShape, Kernel, KernelError, TensorInfo
from aclcts.sim.kernels.registry import (
    get_kernel, register_kernel, registered_op_types, simulation_gap, unregister_kernel,
)

for _family in families():
    if importlib.util.find_spec(f"{__name__}.{_family}") is not None:
        importlib.import_module(f"{__name__}.{_family}")

__all__ = [
    "InferredShape",
    "Kernel",
    "simulation_gap",
    "KernelError",
    "TensorInfo",
    "get_kernel",
    "register_kernel",
    "registered_op_types",
    "unregister_kernel",
]
