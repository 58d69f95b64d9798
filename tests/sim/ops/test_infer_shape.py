"""acl.op.infer_shape and the dynamic-shape flow built on it (pyacl-api.md §6.1, §9, §13)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from opkit import FLOAT, FLOAT16, INT32, ND, Device, op, tensor

from aclcts.core.constants import ErrorCode, Format
from aclcts.core.dtypes import acl_data_type
from aclcts.sim.kernels import InferredShape, TensorInfo

OK = 0
INVALID_PARAM = int(ErrorCode.ACL_ERROR_INVALID_PARAM)
INVALID_OPP_PATH = int(ErrorCode.ACL_ERROR_INVALID_OPP_PATH)
NCHW = int(Format.ACL_FORMAT_NCHW)
POSITIVE = "SimTestPositiveIndices"


@pytest.fixture(autouse=True)
def opp_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """ASCEND_OPP_PATH set to an existing folder, as the documented environment requires for infer_shape."""
    folder = tmp_path / "opp"
    folder.mkdir()
    monkeypatch.setenv("ASCEND_OPP_PATH", str(folder))
    return folder


def _host_buffer(dev: Device, array: np.ndarray) -> tuple[int, int]:
    """(desc, buffer) for an input whose data lives in host memory (infer_shape reads it on the host)."""
    desc = dev.desc(acl_data_type(array.dtype), list(array.shape))
    return desc, dev.acl.create_data_buffer(dev.host_ptr(array), max(array.nbytes, 1))


def _dims(acl: Any, desc: int) -> list[int]:
    dims = []
    for index in range(acl.get_tensor_desc_num_dims(desc)):
        dim, ret = acl.get_tensor_desc_dim_v2(desc, index)
        assert ret == OK
        dims.append(dim)
    return dims


def _infer(dev: Device, op_type: str, inputs: list[np.ndarray], num_outputs: int = 1,
           attr: int = 0) -> tuple[int, list[int]]:
    pairs = [_host_buffer(dev, a) for a in inputs]
    outs = [dev.desc(FLOAT, [1], NCHW) for _ in range(num_outputs)]
    ret = dev.acl.op.infer_shape(op_type, [p[0] for p in pairs], [p[1] for p in pairs], num_outputs, outs, attr)
    return ret, outs


@pytest.mark.parametrize("op_type,shapes,dtype,expected", [
    ("Add", [[4, 16], [4, 16]], np.int32, [4, 16]),
    ("Add", [[4, 1], [1, 16]], np.float32, [4, 16]),
    ("Mul", [[2, 3, 5], [5]], np.float16, [2, 3, 5]),
    ("MatMul", [[2, 3], [3, 7]], np.float32, [2, 7]),
    ("Relu", [[6]], np.float32, [6]),
])
def test_infer_shape_writes_dtype_format_and_dims_into_the_output_desc(
        dev: Device, op_type: str, shapes: list[list[int]], dtype: Any, expected: list[int]) -> None:
    ret, (out,) = _infer(dev, op_type, [np.ones(s, dtype) for s in shapes])
    assert ret == OK
    assert dev.acl.get_tensor_desc_type(out) == {np.int32: INT32, np.float32: FLOAT, np.float16: FLOAT16}[dtype]
    assert dev.acl.get_tensor_desc_format(out) == ND
    assert _dims(dev.acl, out) == expected


def test_infer_shape_takes_the_output_dtype_from_the_attributes(dev: Device) -> None:
    attr = dev.acl.op.create_attr()
    assert dev.acl.op.set_attr_int(attr, "dst_type", FLOAT16) == OK
    ret, (out,) = _infer(dev, "Cast", [np.ones([3, 2], np.float32)], attr=attr)
    assert ret == OK
    assert dev.acl.get_tensor_desc_type(out) == FLOAT16
    assert _dims(dev.acl, out) == [3, 2]


def test_infer_shape_needs_no_loaded_model(acl: Any, dev: Device) -> None:
    ret, (out,) = _infer(dev, "Sub", [np.ones([5], np.int32), np.ones([5], np.int32)])
    assert ret == OK
    assert acl.get_tensor_desc_size(out) == 20


def _positive_compute(inputs: list[np.ndarray | None], attrs: dict[str, Any],
                      outputs: list[TensorInfo]) -> list[np.ndarray]:
    return [np.flatnonzero(inputs[0] > 0).astype(np.int32)]


def _positive_infer(inputs: list[TensorInfo], values: list[np.ndarray | None],
                    attrs: dict[str, Any]) -> list[InferredShape]:
    return [InferredShape(INT32, (-1,), ((0, int(np.prod(inputs[0].shape))),))]


@pytest.fixture
def positive(kernel_override: Callable[..., None]) -> str:
    """An op whose output length depends on the input values (indices of x > 0), with a kernel."""
    kernel_override(POSITIVE, _positive_compute, _positive_infer)
    return POSITIVE


def test_infer_shape_gives_minus_one_and_a_range_for_a_data_dependent_dim(dev: Device, positive: str) -> None:
    acl = dev.acl
    ret, (out,) = _infer(dev, positive, [np.array([3, -1, 0, 4, 5, 0, 1], np.int32)])
    assert ret == OK
    assert acl.get_tensor_desc_num_dims(out) == 1
    assert acl.get_tensor_desc_dim_v2(out, 0) == (-1, OK)
    assert acl.get_tensor_desc_dim_range(out, 0, 2) == ([0, 7], OK)
    assert acl.get_tensor_desc_dim_range(out, 0, 4) == ([0, 7, 0, 0], OK)
    assert acl.get_tensor_desc_size(out) == 0
    assert acl.get_tensor_desc_type(out) == INT32


@pytest.mark.parametrize("position", [0, 1])
def test_infer_shape_with_an_input_buffer_of_size_zero_is_invalid_param(dev: Device, position: int) -> None:
    a = np.ones([4, 4], np.float32)
    pairs = [_host_buffer(dev, a), _host_buffer(dev, a)]
    pairs[position] = (pairs[position][0], dev.acl.create_data_buffer(dev.host_ptr(a), 0))
    out = dev.desc(FLOAT, [1])
    assert dev.acl.op.infer_shape("Add", [p[0] for p in pairs], [p[1] for p in pairs], 1, [out], 0) == INVALID_PARAM


@pytest.mark.sim_settings(require_opp_path=True)
def test_infer_shape_without_ascend_opp_path_returns_invalid_opp_path(dev: Device,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ASCEND_OPP_PATH")
    ret, _ = _infer(dev, "Add", [np.ones([2], np.int32)] * 2)
    assert ret == INVALID_OPP_PATH


def test_the_simulator_does_not_need_ascend_opp_path_by_default(dev: Device, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ASCEND_OPP_PATH")
    ret, _ = _infer(dev, "Add", [np.ones([2], np.int32)] * 2)
    assert ret == 0


@pytest.mark.parametrize("op_type", [0, 1, None, b"Add"], ids=["int-0", "int-1", "None", "bytes"])
def test_infer_shape_op_type_is_a_str(dev: Device, op_type: Any) -> None:
    pair = _host_buffer(dev, np.ones([2], np.int32))
    out = dev.desc(INT32, [2])
    with pytest.raises(TypeError, match=r"^acl\.op\.infer_shape args parse failed$"):
        dev.acl.op.infer_shape(op_type, [pair[0]] * 2, [pair[1]] * 2, 1, [out], 0)


def test_infer_shape_of_an_op_without_a_shape_function_fails(dev: Device) -> None:
    ret, _ = _infer(dev, "NoSuchOperatorType", [np.ones([2], np.int32)])
    assert ret != OK


def test_infer_shape_fills_every_output_desc(dev: Device, kernel_override: Callable[..., None]) -> None:
    def split_infer(inputs: list[TensorInfo], values: list[np.ndarray | None],
                    attrs: dict[str, Any]) -> list[InferredShape]:
        rows, cols = inputs[0].shape
        return [InferredShape(INT32, (rows, cols // 2), ((rows, rows), (cols // 2, cols // 2))),
                InferredShape(FLOAT, (rows,), ((rows, rows),))]

    kernel_override("SimTestTwoOutputs", lambda i, a, o: [], split_infer)
    ret, outs = _infer(dev, "SimTestTwoOutputs", [np.ones([3, 8], np.int32)], num_outputs=2)
    assert ret == OK
    assert [_dims(dev.acl, d) for d in outs] == [[3, 4], [3]]
    assert [dev.acl.get_tensor_desc_type(d) for d in outs] == [INT32, FLOAT]


def test_dynamic_shape_flow_infer_allocate_by_range_max_execute_read_real_dims(
        acl: Any, dev: Device, positive: str, models: Callable[..., Path]) -> None:
    model = op(positive, [tensor("int32", [-1], shape_range=[[1, 64]])],
               [tensor("int32", [-1], shape_range=[[0, 64]])])
    assert acl.op.set_model_dir(str(models([model]))) == OK
    x = np.array([0, 9, 0, 0, 4, -2, 8, 1, 0, 3], np.int32)
    ret, (inferred,) = _infer(dev, positive, [x])
    assert ret == OK
    dims = []
    for index in range(acl.get_tensor_desc_num_dims(inferred)):
        dim, ret = acl.get_tensor_desc_dim_v2(inferred, index)
        if dim == -1:
            rng, ret = acl.get_tensor_desc_dim_range(inferred, index, 2)
            assert ret == OK
            dim = rng[1]
        dims.append(dim)
    assert dims == [10]
    out = dev.output(acl.get_tensor_desc_type(inferred), dims, fill=0xFF)
    assert dev.execute(positive, [dev.tensor(x)], [out]) == OK
    dev.sync()
    real = _dims(acl, out[0])
    assert real == [5]
    size = acl.get_tensor_desc_size(out[0])
    assert size == 20
    np.testing.assert_array_equal(dev.get(out[2], np.int32, real), [1, 4, 6, 7, 9])
