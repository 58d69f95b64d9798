"""Output descs of a data-dependent op after execution, with an op registered only in the simulator (the documented
max-shape flow runs on real ops in conformance/test_data_dependent.py): reusing written-back descs, and the
deprecated execute, which never updates them."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from opkit import INT32, Device, op, tensor

from aclcts.sim.kernels import InferredShape, TensorInfo

OK = 0


def _dims(acl: Any, desc: int) -> list[int]:
    count = acl.get_tensor_desc_num_dims(desc)
    dims = []
    for index in range(count):
        dim, ret = acl.get_tensor_desc_dim_v2(desc, index)
        assert ret == OK
        dims.append(dim)
    return dims


# ---- data-dependent output shape: the "maximum shape" scenario -------------------------------

POSITIVE = "SimTestPositiveIndices"


def _positive_compute(inputs: list[np.ndarray | None], attrs: dict[str, Any],
                      outputs: list[TensorInfo]) -> list[np.ndarray]:
    (x,) = inputs
    return [np.flatnonzero(x > 0).astype(np.int32)]


def _positive_infer(inputs: list[TensorInfo], values: list[np.ndarray | None],
                    attrs: dict[str, Any]) -> list[InferredShape]:
    (x,) = inputs
    return [InferredShape(INT32, (-1,), ((0, int(np.prod(x.shape))),))]


@pytest.fixture
def positive_loaded(acl: Any, dev: Device, models: Callable[..., Path],
                    kernel_override: Callable[..., None]) -> Device:
    """A dynamic model of an op whose output length depends on the input values (indices of x > 0)."""
    kernel_override(POSITIVE, _positive_compute, _positive_infer)
    model = op(POSITIVE, [tensor("int32", [-1], shape_range=[[1, 64]])],
               [tensor("int32", [-1], shape_range=[[0, 64]])])
    assert acl.op.set_model_dir(str(models([model]))) == OK
    return dev


def test_reusing_written_back_descs_needs_their_dims_reset(positive_loaded: Device) -> None:
    dev = positive_loaded
    out = dev.output(INT32, [8], fill=0)
    assert dev.execute(POSITIVE, [dev.tensor(np.array([1, 0, 0, 0, 0, 0, 0, 0], np.int32))], [out]) == OK
    assert _dims(dev.acl, out[0]) == [1]
    assert dev.acl.set_tensor_origin_shape(out[0], [8]) == OK
    assert dev.execute(POSITIVE, [dev.tensor(np.arange(1, 9, dtype=np.int32))], [out]) == OK
    dev.sync()
    assert _dims(dev.acl, out[0]) == [8]
    np.testing.assert_array_equal(dev.get(out[2], np.int32, [8]), np.arange(8))


def test_execute_deprecated_never_updates_the_output_descs(positive_loaded: Device) -> None:
    dev = positive_loaded
    x = dev.tensor(np.array([0, 5, -1, 7, 0, 2, -3, 0], dtype=np.int32))
    out = dev.output(INT32, [8], fill=0)
    assert dev.acl.op.execute(POSITIVE, [x[0]], [x[1]], [out[0]], [out[1]], 0, dev.stream) == OK
    dev.sync()
    assert _dims(dev.acl, out[0]) == [8]
    np.testing.assert_array_equal(dev.get(out[2], np.int32, [3]), [1, 3, 5])
