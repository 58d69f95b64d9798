"""acl.op.cast and acl.op.create_handle_for_cast (pyacl-api.md §6.1, atc-singleop.md §9) over the Cast cases."""

from __future__ import annotations

import pytest

from aclcts.drive import executor
from aclcts.core.constants import DataType, ErrorCode
from aclcts.judge.decorator import compares_with_reference

pytestmark = [pytest.mark.cast]

INVALID_PARAM = int(ErrorCode.ACL_ERROR_INVALID_PARAM)
OP_NOT_FOUND = int(ErrorCode.ACL_ERROR_OP_NOT_FOUND)


@pytest.mark.cases(ops=["Cast"])
@compares_with_reference
def test_op_cast_matches_reference(acl, stream, op_case, case_inputs):
    return executor.run_cast(acl, stream, op_case, case_inputs, handle_form=False)


@pytest.mark.cases(ops=["Cast"], executions=2)
@compares_with_reference
def test_cast_handle_matches_reference_on_every_execution(acl, stream, op_case, case_inputs):
    return executor.run_cast(acl, stream, op_case, case_inputs, handle_form=True)


FP32, FP16, INT16 = int(DataType.ACL_FLOAT), int(DataType.ACL_FLOAT16), int(DataType.ACL_INT16)
#: A pair the case library compiles at this shape (cases/cast/cast_to_float16.yaml) and one it never compiles.
COMPILED = (FP32, FP16, (16, 32))
UNCOMPILED = (FP32, INT16, (16, 32))


@pytest.mark.negative
def test_op_cast_rejects_a_null_dst_desc(acl, stream):
    with executor.cast_tensors(acl, *COMPILED) as t:
        ret = acl.op.cast(t.src_desc, t.src_buffer, 0, t.dst_buffer, 0, stream)
    assert ret == INVALID_PARAM, f"acl.op.cast with dst_desc 0: expected 100000 (ACL_ERROR_INVALID_PARAM), got {ret}"


@pytest.mark.negative
def test_create_handle_for_cast_rejects_a_null_dst_desc(acl):
    with executor.cast_tensors(acl, *COMPILED) as t:
        handle, ret = acl.op.create_handle_for_cast(t.src_desc, 0, 0)
        if ret == 0:
            acl.op.destroy_handle(handle)
    assert (handle, ret) == (0, INVALID_PARAM), f"dst_desc 0: expected (0, 100000), got {(handle, ret)}"


@pytest.mark.negative
def test_op_cast_of_a_pair_without_a_model_is_op_not_found(acl, stream):
    with executor.cast_tensors(acl, *UNCOMPILED) as t:
        ret = acl.op.cast(t.src_desc, t.src_buffer, t.dst_desc, t.dst_buffer, 0, stream)
    assert ret == OP_NOT_FOUND, f"float32 -> int16 (no model): expected 100024 (ACL_ERROR_OP_NOT_FOUND), got {ret}"


@pytest.mark.negative
def test_create_handle_for_cast_of_a_pair_without_a_model_is_op_not_found(acl):
    with executor.cast_tensors(acl, *UNCOMPILED) as t:
        handle, ret = acl.op.create_handle_for_cast(t.src_desc, t.dst_desc, 0)
        if ret == 0:
            acl.op.destroy_handle(handle)
    assert (handle, ret) == (0, OP_NOT_FOUND), f"float32 -> int16 (no model): expected (0, 100024), got {(handle, ret)}"
