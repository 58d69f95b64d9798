"""Handle mode over the case library: one create_handle, execute_with_handle with fresh data each time."""

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from aclcts.core.constants import DataType, ErrorCode, Format, MemcpyKind, MemType
from aclcts.drive import executor, flow
from aclcts.judge.decorator import compares_with_reference

pytestmark = [pytest.mark.handle]


@pytest.mark.cases(mode="handle", executions=3)
@compares_with_reference
def test_execute_with_handle_matches_reference_on_every_execution(acl, stream, op_case, case_inputs):
    return executor.run(acl, stream, op_case, case_inputs, "handle")


# ---------------------------------------------------------------- create_handle and execute_with_handle rules (§6.1)


OK, API_NOT_SUPPORT = ErrorCode.ACL_SUCCESS, ErrorCode.ACL_ERROR_API_NOT_SUPPORT
INT32, ND = int(DataType.ACL_INT32), int(Format.ACL_FORMAT_ND)
#: Add int32 [8, 16] is in the case library; [3, 47] with x2 constant is compiled by the test that needs it.
ADD_SHAPE, CONST_SHAPE = (8, 16), (3, 47)
CONST = np.arange(3 * 47, dtype=np.int32).reshape(CONST_SHAPE) - 70


def add_handle(acl: Any, res: flow.Resources) -> tuple[int, int]:
    """A handle of the case library's Add int32 [8, 16]; (handle, its byte size)."""
    descs = [flow.create_desc(res, INT32, ADD_SHAPE, ND) for _ in range(3)]
    handle = flow.value(acl.op.create_handle("Add", descs[:2], descs[2:], 0), "acl.op.create_handle")
    res.handles.append(handle)
    return handle, 8 * 16 * 4


@pytest.mark.negative
@pytest.mark.parametrize("mem_type", [int(MemType.ACL_MEMTYPE_HOST), int(MemType.ACL_MEMTYPE_HOST_COMPILE_INDEPENDENT)],
                         ids=["HOST", "HOST_COMPILE_INDEPENDENT"])
@pytest.mark.parametrize("position", [0, 1, 2], ids=["input0", "input1", "output"])
def test_create_handle_with_a_host_placed_desc_that_is_not_const_is_200001(acl, res, mem_type, position):
    descs = [flow.create_desc(res, INT32, ADD_SHAPE, ND) for _ in range(3)]
    flow.check(acl.set_tensor_place_ment(descs[position], mem_type), "acl.set_tensor_place_ment")
    assert acl.op.create_handle("Add", descs[:2], descs[2:], 0) == (0, API_NOT_SUPPORT)


def test_create_handle_with_a_host_placed_const_desc_runs(acl, res, stream, compile_ops: Callable):
    tensor = {"format": "ND", "shape": list(CONST_SHAPE), "type": "int32"}
    const = {**tensor, "is_const": True, "const_value": CONST.ravel().tolist()}
    (image,) = compile_ops([{"op": "Add", "name": "add_const_x2", "input_desc": [tensor, const],
                             "output_desc": [tensor]}]).values()
    flow.check(acl.op.load(acl.util.bytes_to_ptr(image), len(image)), "acl.op.load")
    descs = [flow.create_desc(res, INT32, CONST_SHAPE, ND) for _ in range(3)]
    host = flow.malloc_host(res, CONST.nbytes)
    flow.check(acl.rt.memcpy(host, CONST.nbytes, acl.util.bytes_to_ptr(CONST.tobytes()), CONST.nbytes,
                              int(MemcpyKind.ACL_MEMCPY_HOST_TO_HOST)), "acl.rt.memcpy")
    flow.check(acl.set_tensor_const(descs[1], host, CONST.nbytes), "acl.set_tensor_const")
    flow.check(acl.set_tensor_place_ment(descs[1], int(MemType.ACL_MEMTYPE_HOST)), "acl.set_tensor_place_ment")
    handle = flow.value(acl.op.create_handle("Add", descs[:2], descs[2:], 0), "acl.op.create_handle")
    res.handles.append(handle)
    x, y = flow.malloc(res, CONST.nbytes), flow.malloc(res, CONST.nbytes)
    flow.copy_to_device(acl, x, np.ones(CONST_SHAPE, np.int32))
    buffers = [flow.create_buffer(res, x, CONST.nbytes), flow.create_buffer(res, 0, 0)]
    assert acl.op.execute_with_handle(handle, buffers, [flow.create_buffer(res, y, CONST.nbytes)], stream) == OK
    assert acl.rt.synchronize_stream(stream) == OK
    got = flow.array_from(flow.copy_to_host(res, y, CONST.nbytes), INT32, CONST_SHAPE)
    np.testing.assert_array_equal(got, CONST + 1)


@pytest.mark.parametrize("inputs", [2, 1], ids=["two-inputs", "before-the-input-count-check"])
def test_execute_with_handle_with_every_output_buffer_of_size_0_runs_nothing(acl, res, stream, inputs):
    handle, size = add_handle(acl, res)
    x, y = flow.malloc(res, size), flow.malloc(res, size)
    flow.check(acl.rt.memset(y, size, 0x77, size), "acl.rt.memset")
    ins = [flow.create_buffer(res, x, size)] * inputs
    assert acl.op.execute_with_handle(handle, ins, [flow.create_buffer(res, y, 0)], stream) == OK
    assert acl.rt.synchronize_stream(stream) == OK
    assert flow.copy_to_host(res, y, size) == b"\x77" * size


def test_destroy_handle_returns_none(acl, res):
    handle, _ = add_handle(acl, res)
    res.handles.remove(handle)
    assert acl.op.destroy_handle(handle) is None
