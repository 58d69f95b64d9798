"""Fixtures for calling kernels the way the runtime does: NumPy inputs, attrs, and output TensorInfos."""

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pytest

from aclcts.core.constants import Format
from aclcts.core.dtypes import acl_data_type
from aclcts.sim.kernels import InferredShape, TensorInfo, get_kernel

OutputSpec = tuple[Any, Sequence[int]]


def tensor_info(dtype: Any, shape: Sequence[int], fmt: int = Format.ACL_FORMAT_ND) -> TensorInfo:
    """A TensorInfo from a NumPy dtype and a shape."""
    return TensorInfo(acl_data_type(np.dtype(dtype)), tuple(shape), int(fmt))


@pytest.fixture
def run() -> Callable[..., list[np.ndarray]]:
    """run(op_type, inputs, outputs=[(dtype, shape), ...], attrs={...}) -> the kernel's output arrays."""

    def call(op_type: str, inputs: list[Any], outputs: list[OutputSpec], attrs: dict[str, Any] | None = None) -> list[np.ndarray]:
        kernel = get_kernel(op_type)
        assert kernel is not None, f"no kernel for {op_type}"
        arrays = [None if x is None else np.asarray(x) for x in inputs]
        return kernel.compute(arrays, dict(attrs or {}), [tensor_info(d, s) for d, s in outputs])

    return call


@pytest.fixture
def infer() -> Callable[..., list[InferredShape]]:
    """infer(op_type, inputs=[(dtype, shape), ...], values=[array or None, ...], attrs={...}) -> InferredShapes."""

    def call(
        op_type: str, inputs: list[OutputSpec], values: list[Any] | None = None, attrs: dict[str, Any] | None = None
    ) -> list[InferredShape]:
        kernel = get_kernel(op_type)
        assert kernel is not None and kernel.infer_shape is not None, f"no infer_shape for {op_type}"
        values = values if values is not None else [None] * len(inputs)
        arrays = [None if v is None else np.asarray(v) for v in values]
        return kernel.infer_shape([tensor_info(d, s) for d, s in inputs], arrays, dict(attrs or {}))

    return call
