"""acl.op.infer_shape and the tensor-desc dim and range getters read after it
(docs/contract/op-load-execute.md#infer_shape)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from aclcts.core.constants import DataType, ErrorCode, Format, MemcpyKind
from aclcts.core.dtypes import acl_data_type
from aclcts.drive import flow

pytestmark = pytest.mark.infer_shape

OK = ErrorCode.ACL_SUCCESS
INVALID_PARAM = ErrorCode.ACL_ERROR_INVALID_PARAM
FLOAT, FLOAT16, INT32 = int(DataType.ACL_FLOAT), int(DataType.ACL_FLOAT16), int(DataType.ACL_INT32)
ND, NCHW = int(Format.ACL_FORMAT_ND), int(Format.ACL_FORMAT_NCHW)
H2H = int(MemcpyKind.ACL_MEMCPY_HOST_TO_HOST)
#: Dims no model of the suite is compiled for: inference must not need a loaded model
#: (docs/contract/op-load-execute.md#infer_shape).
UNCOMPILED_DIMS = [7, 999, 3]


def host_input(res: flow.Resources, array: np.ndarray, name: str = "") -> tuple[int, int]:
    """(desc, buffer) of an input whose data is in host memory, where infer_shape reads it
    (docs/contract/op-load-execute.md#infer_shape)."""
    desc = flow.create_desc(res, acl_data_type(array.dtype), array.shape, ND)
    if name:
        res.acl.set_tensor_desc_name(desc, name)
    payload = np.ascontiguousarray(array).tobytes()
    host = flow.malloc_host(res, len(payload))
    flow.check(res.acl.rt.memcpy(host, len(payload), res.acl.util.bytes_to_ptr(payload), len(payload), H2H),
               "acl.rt.memcpy HOST_TO_HOST")
    return desc, flow.create_buffer(res, host, len(payload))


def output_descs(res: flow.Resources, names: list[str]) -> list[int]:
    """Output descs made with a dtype, format and dims infer_shape must overwrite; named where names are given."""
    descs = []
    for name in names:
        desc = flow.create_desc(res, FLOAT, (1,), NCHW)
        if name:
            res.acl.set_tensor_desc_name(desc, name)
        descs.append(desc)
    return descs


def infer(res: flow.Resources, op_type: str, inputs: list[np.ndarray], outputs: list[str] | None = None,
          attr: int = 0) -> tuple[int, list[int]]:
    """acl.op.infer_shape over host inputs; its ret and the output descs (one unnamed output unless named)."""
    pairs = [host_input(res, array) for array in inputs]
    outs = output_descs(res, outputs or [""])
    ret = res.acl.op.infer_shape(op_type, [p[0] for p in pairs], [p[1] for p in pairs], len(outs), outs, attr)
    return ret, outs


def dims_of(acl: Any, desc: int) -> list[int]:
    """The dims of a desc through get_tensor_desc_num_dims and get_tensor_desc_dim_v2."""
    dims = []
    for index in range(acl.get_tensor_desc_num_dims(desc)):
        dims.append(flow.value(acl.get_tensor_desc_dim_v2(desc, index), "acl.get_tensor_desc_dim_v2"))
    return dims


@pytest.mark.parametrize("op_type, shapes, dtype, expected", [
    pytest.param("Add", [[4, 16], [4, 16]], np.int32, [4, 16], id="Add-int32"),
    pytest.param("Add", [[4, 1], [1, 16]], np.float32, [4, 16], id="Add-broadcast"),
    pytest.param("Mul", [[2, 3, 5], [5]], np.float16, [2, 3, 5], id="Mul-float16"),
    pytest.param("MatMul", [[2, 3], [3, 7]], np.float32, [2, 7], id="MatMul"),
    pytest.param("Relu", [[6]], np.float32, [6], id="Relu"),
])
def test_infer_shape_writes_dtype_format_and_dims_into_the_output_desc(acl, res, op_type, shapes, dtype, expected):
    ret, (out,) = infer(res, op_type, [np.ones(shape, dtype) for shape in shapes])
    assert ret == OK
    assert acl.get_tensor_desc_type(out) == acl_data_type(np.dtype(dtype))
    assert acl.get_tensor_desc_format(out) == ND
    assert dims_of(acl, out) == expected


def test_infer_shape_takes_the_output_dtype_from_the_dst_type_attribute(acl, res):
    attr = acl.op.create_attr()
    res.attrs.append(attr)
    flow.check(acl.op.set_attr_int(attr, "dst_type", FLOAT16), "acl.op.set_attr_int")
    ret, (out,) = infer(res, "Cast", [np.ones([3, 2], np.float32)], attr=attr)
    assert ret == OK
    assert acl.get_tensor_desc_type(out) == FLOAT16
    assert dims_of(acl, out) == [3, 2]


def test_infer_shape_needs_no_loaded_model(acl, res):
    ret, (out,) = infer(res, "Sub", [np.ones(UNCOMPILED_DIMS, np.int32)] * 2)
    assert ret == OK
    assert dims_of(acl, out) == UNCOMPILED_DIMS
    assert acl.get_tensor_desc_element_count(out) == int(np.prod(UNCOMPILED_DIMS))
    assert acl.get_tensor_desc_size(out) == 4 * int(np.prod(UNCOMPILED_DIMS))


def test_infer_shape_fills_every_named_output_desc_of_a_dynamic_output(acl, res):
    attr = acl.op.create_attr()
    res.attrs.append(attr)
    flow.check(acl.op.set_attr_int(attr, "split_dim", 0), "acl.op.set_attr_int")
    flow.check(acl.op.set_attr_int(attr, "num_split", 3), "acl.op.set_attr_int")
    x, buf = host_input(res, np.ones([6, 3], np.int32), "x")
    outs = output_descs(res, ["y0", "y1", "y2"])
    assert acl.op.infer_shape("SplitD", [x], [buf], 3, outs, attr) == OK
    assert [dims_of(acl, out) for out in outs] == [[2, 3]] * 3
    assert [acl.get_tensor_desc_type(out) for out in outs] == [INT32] * 3


def test_a_data_dependent_dim_is_minus_1_with_a_range_read_by_get_tensor_desc_dim_range(acl, res):
    x = np.array([[3, -1, 0, 4], [5, 0, 1, 0]], np.int32)
    ret, (out,) = infer(res, "NonZero", [x])
    assert ret == OK
    dims = dims_of(acl, out)
    assert -1 in dims, f"NonZero's output count depends on the data; inferred dims {dims}"
    index = dims.index(-1)
    (low, high, *padding), ret = acl.get_tensor_desc_dim_range(out, index, 4)
    assert ret == OK
    assert padding == [0, 0]
    assert low <= np.count_nonzero(x) and (high == -1 or np.count_nonzero(x) <= high)
    assert (acl.get_tensor_desc_element_count(out), acl.get_tensor_desc_size(out)) == (0, 0)


def test_infer_shape_of_an_op_type_without_a_prototype_fails(acl, res):
    ret, _ = infer(res, "NoSuchOperatorType", [np.ones([2], np.int32)])
    assert ret != OK


@pytest.mark.negative
@pytest.mark.parametrize("position", [0, 1])
def test_infer_shape_with_an_input_buffer_of_size_0_is_100000(acl, res, position):
    pairs = [host_input(res, np.ones([4, 4], np.float32)) for _ in range(2)]
    empty = flow.create_buffer(res, acl.get_data_buffer_addr(pairs[position][1]), 0)
    bufs = [empty if index == position else pair[1] for index, pair in enumerate(pairs)]
    out = output_descs(res, [""])
    assert acl.op.infer_shape("Add", [p[0] for p in pairs], bufs, 1, out, 0) == INVALID_PARAM


@pytest.mark.negative
@pytest.mark.parametrize("op_type", [0, 1, None, b"Add"], ids=["int-0", "int-1", "None", "bytes"])
def test_infer_shape_op_type_must_be_a_str(acl, res, op_type):
    desc, buf = host_input(res, np.ones([2], np.int32))
    out = output_descs(res, [""])
    with pytest.raises(TypeError, match=r"^acl\.op\.infer_shape args parse failed$"):
        acl.op.infer_shape(op_type, [desc, desc], [buf, buf], 1, out, 0)
