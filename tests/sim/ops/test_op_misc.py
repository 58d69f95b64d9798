"""The smaller acl.op calls of §6.1: set_max_op_queue_num, update_params, register_compile_func (pyacl-api.md §13)."""

from __future__ import annotations

from typing import Any

import pytest

from aclcts.core.constants import ErrorCode

OK = 0
INVALID_PARAM = int(ErrorCode.ACL_ERROR_INVALID_PARAM)
BIN_SELECTOR_ALREADY_REGISTERED = int(ErrorCode.ACL_ERROR_BIN_SELECTOR_ALREADY_REGISTERED)


def test_set_max_op_queue_num_zero_is_invalid_param(session: Any) -> None:
    assert session.acl.op.set_max_op_queue_num(0) == INVALID_PARAM


@pytest.mark.parametrize("count", [1, 20000, 2 ** 40])
def test_set_max_op_queue_num_positive_succeeds(session: Any, count: int) -> None:
    assert session.acl.op.set_max_op_queue_num(count) == OK


def test_update_params_takes_lists_of_descs(session: Any) -> None:
    acl = session.acl
    desc = acl.create_tensor_desc(0, [2], 2)
    with pytest.raises(TypeError):
        acl.op.update_params("Add", (desc, desc), [desc], 0)
    with pytest.raises(TypeError, match=r"^acl\.op\.update_params args parse failed$"):
        acl.op.update_params(1, [desc, desc], [desc], 0)


def _compile_func(num_inputs: int, input_desc: list, num_outputs: int, output_desc: list, op_attr: int,
                  kernel_desc: int) -> None:
    """A compile callback with the documented parameters; never called by these tests."""


def test_register_compile_func_twice_for_one_op_returns_already_registered(session: Any) -> None:
    acl = session.acl
    assert acl.op.register_compile_func("SimTestSelected", _compile_func) == OK
    assert acl.op.register_compile_func("SimTestSelected", _compile_func) == BIN_SELECTOR_ALREADY_REGISTERED
    assert acl.op.unregister_compile_func("SimTestSelected") == OK


def test_register_compile_func_needs_a_callable(session: Any) -> None:
    with pytest.raises(TypeError):
        session.acl.op.register_compile_func("SimTestSelected", 42)
