"""create_handle, execute_with_handle and destroy_handle (pyacl-api.md §6.1, §13; atc-singleop.md §9 handle mode)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from opkit import FLOAT, INT32, Device, binary, op, tensor

import aclcts.sim
from aclcts.core.constants import ErrorCode, MemType

OK = 0
INVALID_PARAM = int(ErrorCode.ACL_ERROR_INVALID_PARAM)
OP_NOT_FOUND = int(ErrorCode.ACL_ERROR_OP_NOT_FOUND)
API_NOT_SUPPORT = int(ErrorCode.ACL_ERROR_API_NOT_SUPPORT)
INPUT_NOT_MATCH = int(ErrorCode.ACL_ERROR_OP_INPUT_NOT_MATCH)
OUTPUT_NOT_MATCH = int(ErrorCode.ACL_ERROR_OP_OUTPUT_NOT_MATCH)
SHAPE = [3, 5]


@pytest.fixture
def add_loaded(acl: Any, dev: Device, models: Callable[..., Path]) -> Device:
    """A session with the int32 [3, 5] Add model loaded."""
    assert acl.op.set_model_dir(str(models([binary("Add", "int32", SHAPE)]))) == OK
    return dev


def _descs(dev: Device, count: int = 3, data_type: int = INT32) -> list[int]:
    return [dev.desc(data_type, SHAPE) for _ in range(count)]


def _handle(dev: Device) -> int:
    descs = _descs(dev)
    handle, ret = dev.acl.op.create_handle("Add", descs[:2], descs[2:], 0)
    assert ret == OK and handle != 0
    return handle


def test_create_handle_without_a_matching_model_returns_op_not_found(dev: Device) -> None:
    descs = _descs(dev)
    assert dev.acl.op.create_handle("Add", descs[:2], descs[2:], 0) == (0, OP_NOT_FOUND)


def test_create_handle_matches_when_it_is_called(add_loaded: Device) -> None:
    descs = _descs(add_loaded, data_type=FLOAT)
    assert add_loaded.acl.op.create_handle("Add", descs[:2], descs[2:], 0) == (0, OP_NOT_FOUND)
    attr = add_loaded.acl.op.create_attr()
    assert add_loaded.acl.op.set_attr_int(attr, "extra", 1) == OK
    descs = _descs(add_loaded)
    assert add_loaded.acl.op.create_handle("Add", descs[:2], descs[2:], attr) == (0, OP_NOT_FOUND)


@pytest.mark.parametrize("mem_type", [int(MemType.ACL_MEMTYPE_HOST), int(MemType.ACL_MEMTYPE_HOST_COMPILE_INDEPENDENT)])
@pytest.mark.parametrize("position", [0, 1, 2], ids=["input0", "input1", "output"])
def test_create_handle_with_a_host_placed_non_const_desc_is_not_supported(
        add_loaded: Device, mem_type: int, position: int) -> None:
    descs = _descs(add_loaded)
    assert add_loaded.acl.set_tensor_place_ment(descs[position], mem_type) == OK
    assert add_loaded.acl.op.create_handle("Add", descs[:2], descs[2:], 0) == (0, API_NOT_SUPPORT)


def test_create_handle_with_a_host_placed_const_desc_is_allowed(acl: Any, dev: Device,
                                                                models: Callable[..., Path]) -> None:
    const = np.arange(15, dtype=np.int32).reshape(SHAPE)
    constant = tensor("int32", SHAPE, is_const=True, const_value=const.ravel().tolist())
    model = op("Add", [tensor("int32", SHAPE), constant],
               [tensor("int32", SHAPE)])
    assert acl.op.set_model_dir(str(models([model]))) == OK
    descs = _descs(dev)
    assert acl.set_tensor_const(descs[1], dev.host_ptr(const), const.nbytes) == OK
    assert acl.set_tensor_place_ment(descs[1], int(MemType.ACL_MEMTYPE_HOST)) == OK
    handle, ret = acl.op.create_handle("Add", descs[:2], descs[2:], 0)
    assert ret == OK and handle != 0
    x = dev.tensor(np.ones(SHAPE, np.int32))
    out = dev.output(INT32, SHAPE)
    assert acl.op.execute_with_handle(handle, [x[1], acl.create_data_buffer(0, 0)], [out[1]], dev.stream) == OK
    dev.sync()
    np.testing.assert_array_equal(dev.get(out[2], np.int32, SHAPE), const + 1)


@pytest.mark.parametrize("position", [0, 1, 2], ids=["input0", "input1", "output"])
def test_create_handle_with_a_null_desc_element_is_invalid_param(add_loaded: Device, position: int) -> None:
    descs = _descs(add_loaded)
    descs[position] = 0
    assert add_loaded.acl.op.create_handle("Add", descs[:2], descs[2:], 0) == (0, INVALID_PARAM)


def test_create_handle_list_arguments_must_be_lists_of_ints(add_loaded: Device) -> None:
    descs = _descs(add_loaded)
    with pytest.raises(TypeError):
        add_loaded.acl.op.create_handle("Add", tuple(descs[:2]), descs[2:], 0)
    with pytest.raises(TypeError, match=r"^the list argument is not list of int$"):
        add_loaded.acl.op.create_handle("Add", [descs[0], None], descs[2:], 0)


def test_execute_with_handle_computes_and_is_asynchronous(add_loaded: Device) -> None:
    dev = add_loaded
    handle = _handle(dev)
    a = np.arange(15, dtype=np.int32).reshape(SHAPE)
    x, y = dev.tensor(a), dev.tensor(a * 100)
    out = dev.output(INT32, SHAPE, fill=0x33)
    assert dev.acl.op.execute_with_handle(handle, [x[1], y[1]], [out[1]], dev.stream) == OK
    assert dev.get(out[2], np.uint8, [a.nbytes]).tolist() == [0x33] * a.nbytes
    dev.sync()
    np.testing.assert_array_equal(dev.get(out[2], np.int32, SHAPE), a * 101)


def test_one_handle_runs_many_times_with_fresh_data(add_loaded: Device) -> None:
    dev = add_loaded
    handle = _handle(dev)
    results = []
    for step in range(6):
        a = np.full(SHAPE, step, np.int32)
        b = np.arange(15, dtype=np.int32).reshape(SHAPE) * step
        out = dev.output(INT32, SHAPE)
        assert dev.acl.op.execute_with_handle(handle, [dev.tensor(a)[1], dev.tensor(b)[1]], [out[1]],
                                              dev.stream) == OK
        results.append((out[2], a + b))
    dev.sync()
    for ptr, expected in results:
        np.testing.assert_array_equal(dev.get(ptr, np.int32, SHAPE), expected)


def test_a_handle_keeps_working_after_its_descs_are_destroyed(add_loaded: Device) -> None:
    dev = add_loaded
    descs = _descs(dev)
    handle, ret = dev.acl.op.create_handle("Add", descs[:2], descs[2:], 0)
    assert ret == OK
    for desc in descs:
        dev.acl.destroy_tensor_desc(desc)
    a = np.arange(15, dtype=np.int32).reshape(SHAPE)
    out = dev.output(INT32, SHAPE)
    assert dev.acl.op.execute_with_handle(handle, [dev.tensor(a)[1], dev.tensor(a)[1]], [out[1]], dev.stream) == OK
    dev.sync()
    np.testing.assert_array_equal(dev.get(out[2], np.int32, SHAPE), a * 2)


def test_execute_with_handle_zero_is_invalid_param(add_loaded: Device) -> None:
    dev = add_loaded
    x = dev.tensor(np.ones(SHAPE, np.int32))
    out = dev.output(INT32, SHAPE)
    assert dev.acl.op.execute_with_handle(0, [x[1], x[1]], [out[1]], dev.stream) == INVALID_PARAM


@pytest.mark.parametrize("inputs,expected", [(1, INPUT_NOT_MATCH), (3, INPUT_NOT_MATCH), (0, INPUT_NOT_MATCH)])
def test_execute_with_handle_with_another_input_count_is_input_not_match(
        add_loaded: Device, inputs: int, expected: int) -> None:
    dev = add_loaded
    handle = _handle(dev)
    x = dev.tensor(np.ones(SHAPE, np.int32))
    out = dev.output(INT32, SHAPE)
    assert dev.acl.op.execute_with_handle(handle, [x[1]] * inputs, [out[1]], dev.stream) == expected


@pytest.mark.parametrize("outputs", [2, 3])
def test_execute_with_handle_with_another_output_count_is_output_not_match(add_loaded: Device, outputs: int) -> None:
    dev = add_loaded
    handle = _handle(dev)
    x = dev.tensor(np.ones(SHAPE, np.int32))
    outs = [dev.output(INT32, SHAPE)[1] for _ in range(outputs)]
    assert dev.acl.op.execute_with_handle(handle, [x[1], x[1]], outs, dev.stream) == OUTPUT_NOT_MATCH


@pytest.mark.parametrize("position", [0, 1, 2], ids=["input0", "input1", "output"])
def test_execute_with_handle_with_a_null_buffer_element_is_invalid_param(add_loaded: Device, position: int) -> None:
    dev = add_loaded
    handle = _handle(dev)
    x = dev.tensor(np.ones(SHAPE, np.int32))
    bufs = [x[1], x[1], dev.output(INT32, SHAPE)[1]]
    bufs[position] = 0
    assert dev.acl.op.execute_with_handle(handle, bufs[:2], bufs[2:], dev.stream) == INVALID_PARAM


def test_execute_with_handle_with_every_output_buffer_of_size_zero_runs_nothing(add_loaded: Device) -> None:
    dev = add_loaded
    handle = _handle(dev)
    x = dev.tensor(np.ones(SHAPE, np.int32))
    ptr = dev.alloc(60)
    assert dev.acl.rt.memset(ptr, 60, 0x77, 60) == OK
    assert dev.acl.op.execute_with_handle(handle, [x[1], x[1]], [dev.acl.create_data_buffer(ptr, 0)],
                                          dev.stream) == OK
    dev.sync()
    assert dev.get(ptr, np.uint8, [60]).tolist() == [0x77] * 60


def test_the_size_zero_shortcut_comes_before_the_count_checks(add_loaded: Device) -> None:
    dev = add_loaded
    handle = _handle(dev)
    x = dev.tensor(np.ones(SHAPE, np.int32))
    empty = dev.acl.create_data_buffer(dev.alloc(60), 0)
    assert dev.acl.op.execute_with_handle(handle, [x[1]], [empty], dev.stream) == OK


def test_destroy_handle_returns_none(add_loaded: Device) -> None:
    assert add_loaded.acl.op.destroy_handle(_handle(add_loaded)) is None


def test_a_destroyed_handle_cannot_be_used(add_loaded: Device) -> None:
    dev = add_loaded
    handle = _handle(dev)
    dev.acl.op.destroy_handle(handle)
    x = dev.tensor(np.ones(SHAPE, np.int32))
    out = dev.output(INT32, SHAPE)
    with pytest.raises(aclcts.sim.SimMisuseError):
        dev.acl.op.execute_with_handle(handle, [x[1], x[1]], [out[1]], dev.stream)


def test_a_handle_is_a_live_object_until_destroyed(add_loaded: Device) -> None:
    handle = _handle(add_loaded)
    assert handle in [o.handle for o in aclcts.sim.live_objects("handle")]
    add_loaded.acl.op.destroy_handle(handle)
    assert handle not in [o.handle for o in aclcts.sim.live_objects("handle")]


def test_execute_with_handle_list_arguments_must_be_lists(add_loaded: Device) -> None:
    dev = add_loaded
    handle = _handle(dev)
    x = dev.tensor(np.ones(SHAPE, np.int32))
    with pytest.raises(TypeError):
        dev.acl.op.execute_with_handle(handle, (x[1], x[1]), [x[1]], dev.stream)
