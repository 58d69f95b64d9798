"""acl.op.cast and acl.op.create_handle_for_cast (pyacl-api.md §6.1, atc-singleop.md §9) over the Cast cases."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

from aclcts.drive import flow

from aclcts.drive import runner
from aclcts.cases import Case
from aclcts.core.constants import DataType, ErrorCode, Format
from aclcts.core.dtypes import numpy_dtype
from aclcts.judge.decorator import compares_with_reference

pytestmark = [pytest.mark.cast]

INVALID_PARAM = int(ErrorCode.ACL_ERROR_INVALID_PARAM)
OP_NOT_FOUND = int(ErrorCode.ACL_ERROR_OP_NOT_FOUND)
ND = int(Format.ACL_FORMAT_ND)


@dataclass(frozen=True)
class CastTensors:
    """Descs and data buffers of one cast: x on the device, y between two guard bands."""

    src_desc: int
    src_buffer: int
    src: int
    dst_desc: int
    dst_buffer: int
    dst: int
    dst_size: int


@contextmanager
def _tensors(acl: Any, src_type: int, dst_type: int, shape: tuple[int, ...], fmt: int = ND) -> Iterator[CastTensors]:
    """Create x and y of one cast, released when the block ends."""
    count = int(np.prod(shape, dtype=np.int64))
    src_size, dst_size = count * numpy_dtype(src_type).itemsize, count * numpy_dtype(dst_type).itemsize
    with flow.resources(acl) as res:
        src_desc = flow.create_desc(res, src_type, shape, fmt)
        dst_desc = flow.create_desc(res, dst_type, shape, fmt)
        src = flow.malloc(res, src_size)
        dst = flow.malloc(res, dst_size + 2 * runner.GUARD) + runner.GUARD
        yield CastTensors(src_desc, flow.create_buffer(res, src, src_size), src, dst_desc,
                          flow.create_buffer(res, dst, dst_size), dst, dst_size)


def _collect(acl: Any, t: CastTensors, case: Case) -> runner.Outputs:
    """y after the cast; raises GuardBandError if the cast wrote outside it."""
    y = case.outputs[0]
    with flow.resources(acl) as res:
        raw = flow.copy_to_host(res, t.dst - runner.GUARD, t.dst_size + 2 * runner.GUARD)
    poison = bytes([runner.POISON]) * runner.GUARD
    if raw[:runner.GUARD] != poison or raw[runner.GUARD + t.dst_size:] != poison:
        raise runner.GuardBandError(f"{case.id}: bytes around the {t.dst_size}-byte output y were overwritten")
    body = raw[runner.GUARD:runner.GUARD + t.dst_size]
    itemsize = y.np_dtype.itemsize
    unwritten = np.all(np.frombuffer(body, np.uint8).reshape(-1, itemsize) == runner.POISON, axis=1)
    return runner.Outputs([flow.array_from(body, y.dtype, y.shape)], [unwritten.reshape(y.shape)])


def _launcher(acl: Any, res: flow.Resources, t: CastTensors, handle_form: bool) -> Callable[[int], int]:
    """A function stream -> ret: acl.op.cast, or execute_with_handle of a create_handle_for_cast handle."""
    if not handle_form:
        return lambda stream: acl.op.cast(t.src_desc, t.src_buffer, t.dst_desc, t.dst_buffer, 0, stream)
    handle = flow.value(acl.op.create_handle_for_cast(t.src_desc, t.dst_desc, 0), "acl.op.create_handle_for_cast")
    res.handles.append(handle)
    return lambda stream: acl.op.execute_with_handle(handle, [t.src_buffer], [t.dst_buffer], stream)


def _run(acl: Any, stream: int, case: Case, input_sets: list[list[np.ndarray]],
         handle_form: bool) -> list[runner.Outputs]:
    """Run a Cast case once per input set, poisoning y (and its guard bands) before each execution."""
    x, y = case.inputs[0], case.outputs[0]
    api = "acl.op.execute_with_handle" if handle_form else "acl.op.cast"
    results = []
    with _tensors(acl, x.dtype, y.dtype, x.shape, case.format) as t, flow.resources(acl) as res:
        launch = _launcher(acl, res, t, handle_form)
        total = t.dst_size + 2 * runner.GUARD
        for (array,) in input_sets:
            flow.copy_to_device(acl, t.src, array)
            flow.check(acl.rt.memset(t.dst - runner.GUARD, total, runner.POISON, total), "acl.rt.memset")
            flow.check(launch(stream), api)
            flow.check(acl.rt.synchronize_stream(stream), "acl.rt.synchronize_stream")
            results.append(_collect(acl, t, case))
    return results


@pytest.mark.cases(ops=["Cast"])
@compares_with_reference
def test_op_cast_matches_reference(acl, stream, op_case, case_inputs):
    return _run(acl, stream, op_case, case_inputs, handle_form=False)


@pytest.mark.cases(ops=["Cast"], executions=2)
@compares_with_reference
def test_cast_handle_matches_reference_on_every_execution(acl, stream, op_case, case_inputs):
    return _run(acl, stream, op_case, case_inputs, handle_form=True)


FP32, FP16, INT16 = int(DataType.ACL_FLOAT), int(DataType.ACL_FLOAT16), int(DataType.ACL_INT16)
#: A pair the case library compiles at this shape (cases/cast/cast_to_float16.yaml) and one it never compiles.
COMPILED = (FP32, FP16, (16, 32))
UNCOMPILED = (FP32, INT16, (16, 32))


@pytest.mark.negative
def test_op_cast_rejects_a_null_dst_desc(acl, stream):
    with _tensors(acl, *COMPILED) as t:
        ret = acl.op.cast(t.src_desc, t.src_buffer, 0, t.dst_buffer, 0, stream)
    assert ret == INVALID_PARAM, f"acl.op.cast with dst_desc 0: expected 100000 (ACL_ERROR_INVALID_PARAM), got {ret}"


@pytest.mark.negative
def test_create_handle_for_cast_rejects_a_null_dst_desc(acl):
    with _tensors(acl, *COMPILED) as t:
        handle, ret = acl.op.create_handle_for_cast(t.src_desc, 0, 0)
        if ret == 0:
            acl.op.destroy_handle(handle)
    assert (handle, ret) == (0, INVALID_PARAM), f"dst_desc 0: expected (0, 100000), got {(handle, ret)}"


@pytest.mark.negative
def test_op_cast_of_a_pair_without_a_model_is_op_not_found(acl, stream):
    with _tensors(acl, *UNCOMPILED) as t:
        ret = acl.op.cast(t.src_desc, t.src_buffer, t.dst_desc, t.dst_buffer, 0, stream)
    assert ret == OP_NOT_FOUND, f"float32 -> int16 (no model): expected 100024 (ACL_ERROR_OP_NOT_FOUND), got {ret}"


@pytest.mark.negative
def test_create_handle_for_cast_of_a_pair_without_a_model_is_op_not_found(acl):
    with _tensors(acl, *UNCOMPILED) as t:
        handle, ret = acl.op.create_handle_for_cast(t.src_desc, t.dst_desc, 0)
        if ret == 0:
            acl.op.destroy_handle(handle)
    assert (handle, ret) == (0, OP_NOT_FOUND), f"float32 -> int16 (no model): expected (0, 100024), got {(handle, ret)}"
