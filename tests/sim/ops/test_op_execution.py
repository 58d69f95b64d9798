"""What execute_v2 and execute do once a model matched (pyacl-api.md §6.1, §9; atc-singleop.md §6)."""

from __future__ import annotations

import ctypes
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from opkit import FLOAT, INT32, Device, binary, op, tensor

from aclcts.core.constants import ErrorCode
from aclcts.sim.kernels import InferredShape, TensorInfo

OK = 0
INVALID_PARAM = int(ErrorCode.ACL_ERROR_INVALID_PARAM)
OP_NOT_FOUND = int(ErrorCode.ACL_ERROR_OP_NOT_FOUND)
SHAPE = [4, 16]
MAX = [32, 16]
DYNAMIC_ADD = op("Add", [tensor("int32", [-1, 16], shape_range=[[1, 32]])] * 2,
                 [tensor("int32", [-1, 16], shape_range=[[1, 32]])])


def _dims(acl: Any, desc: int) -> list[int]:
    count = acl.get_tensor_desc_num_dims(desc)
    dims = []
    for index in range(count):
        dim, ret = acl.get_tensor_desc_dim_v2(desc, index)
        assert ret == OK
        dims.append(dim)
    return dims


@pytest.mark.parametrize("op_type,compute", [("Add", np.add), ("Sub", np.subtract), ("Mul", np.multiply)])
def test_execute_v2_is_asynchronous_until_synchronize_stream(
        acl: Any, dev: Device, models: Callable[..., Path], op_type: str, compute: Callable) -> None:
    assert acl.op.set_model_dir(str(models([binary(op_type, "int32", SHAPE)]))) == OK
    a = np.arange(64, dtype=np.int32).reshape(SHAPE)
    b = np.full(SHAPE, 3, dtype=np.int32)
    out = dev.output(INT32, SHAPE, fill=0x5A)
    assert dev.execute(op_type, [dev.tensor(a), dev.tensor(b)], [out]) == OK
    before = dev.get(out[2], np.uint8, [a.nbytes])
    assert before.tolist() == [0x5A] * a.nbytes
    dev.sync()
    np.testing.assert_array_equal(dev.get(out[2], np.int32, SHAPE), compute(a, b))


def test_execute_v2_reads_its_inputs_when_the_stream_runs(acl: Any, dev: Device, models: Callable[..., Path]) -> None:
    assert acl.op.set_model_dir(str(models([binary("Add", "int32", SHAPE)]))) == OK
    a = dev.tensor(np.zeros(SHAPE, np.int32))
    b = dev.tensor(np.ones(SHAPE, np.int32))
    out = dev.output(INT32, SHAPE)
    assert dev.execute("Add", [a, b], [out]) == OK
    later = np.full(SHAPE, 40, np.int32).tobytes()
    host, ret = acl.rt.malloc_host(len(later))
    assert ret == OK
    ctypes.memmove(host, later, len(later))
    assert acl.rt.memcpy_async(a[2], len(later), host, len(later), 1, dev.stream) == OK
    dev.sync()
    np.testing.assert_array_equal(dev.get(out[2], np.int32, SHAPE), np.ones(SHAPE, np.int32))


def test_static_model_leaves_the_output_descs_unchanged(acl: Any, dev: Device, models: Callable[..., Path]) -> None:
    assert acl.op.set_model_dir(str(models([binary("Add", "int32", SHAPE)]))) == OK
    out = dev.output(INT32, SHAPE)
    assert dev.execute("Add", [dev.tensor(np.ones(SHAPE, np.int32))] * 2, [out]) == OK
    dev.sync()
    assert _dims(acl, out[0]) == SHAPE
    assert acl.get_tensor_desc_size(out[0]) == 4 * 64


@pytest.mark.parametrize("rows", [1, 4, 32])
def test_dynamic_model_writes_the_real_output_dims_into_the_output_desc(
        acl: Any, dev: Device, models: Callable[..., Path], rows: int) -> None:
    assert acl.op.set_model_dir(str(models([DYNAMIC_ADD]))) == OK
    a = np.arange(rows * 16, dtype=np.int32).reshape(rows, 16)
    out = dev.output(INT32, MAX, fill=0)
    assert dev.execute("Add", [dev.tensor(a), dev.tensor(a)], [out]) == OK
    dev.sync()
    assert _dims(acl, out[0]) == [rows, 16]
    assert acl.get_tensor_desc_size(out[0]) == rows * 16 * 4
    np.testing.assert_array_equal(dev.get(out[2], np.int32, [rows, 16]), a * 2)


def test_execute_deprecated_matches_and_checks_like_execute_v2(acl: Any, dev: Device,
                                                               models: Callable[..., Path]) -> None:
    assert acl.op.set_model_dir(str(models([binary("Add", "int32", SHAPE)]))) == OK
    a = np.arange(64, dtype=np.int32).reshape(SHAPE)
    ins = [dev.tensor(a), dev.tensor(a)]
    out = dev.output(INT32, SHAPE)
    wrong = dev.output(FLOAT, SHAPE)
    descs, bufs = [t[0] for t in ins], [t[1] for t in ins]
    assert acl.op.execute("Add", descs, bufs, [wrong[0]], [wrong[1]], 0, dev.stream) == OP_NOT_FOUND
    assert acl.op.execute("Add", [descs[0], 0], bufs, [out[0]], [out[1]], 0, dev.stream) == INVALID_PARAM
    assert acl.op.execute("Add", descs, bufs, [out[0]], [out[1]], 0, dev.stream) == OK
    dev.sync()
    np.testing.assert_array_equal(dev.get(out[2], np.int32, SHAPE), a * 2)


def test_execute_deprecated_list_arguments_must_be_lists(dev: Device) -> None:
    with pytest.raises(TypeError, match=r"^argument 2, 3, 4, or 5 is not list$"):
        dev.acl.op.execute("Add", (), [], [], [], 0, dev.stream)


def test_execute_v2_on_stream_zero_runs_on_the_default_stream(acl: Any, dev: Device,
                                                              models: Callable[..., Path]) -> None:
    assert acl.op.set_model_dir(str(models([binary("Add", "int32", SHAPE)]))) == OK
    a = np.arange(64, dtype=np.int32).reshape(SHAPE)
    ins = [dev.tensor(a), dev.tensor(a)]
    out = dev.output(INT32, SHAPE)
    assert acl.op.execute_v2("Add", [t[0] for t in ins], [t[1] for t in ins], [out[0]], [out[1]], 0, 0) == OK
    assert acl.rt.synchronize_stream(0) == OK
    np.testing.assert_array_equal(dev.get(out[2], np.int32, SHAPE), a * 2)


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


def test_max_shape_execution_is_synchronous_and_writes_back_the_real_shape(positive_loaded: Device) -> None:
    dev = positive_loaded
    x = np.array([0, 5, -1, 7, 0, 2, -3, 0], dtype=np.int32)
    out = dev.output(INT32, [8], fill=0)
    assert dev.execute(POSITIVE, [dev.tensor(x)], [out]) == OK
    assert _dims(dev.acl, out[0]) == [3]
    assert dev.acl.get_tensor_desc_size(out[0]) == 12
    np.testing.assert_array_equal(dev.get(out[2], np.int32, [3]), [1, 3, 5])


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
