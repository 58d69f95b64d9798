"""The tolerable deviations that are not numeric really deviate: handle values come back, a device synchronises its
streams in another order, and an op writes its output's last 32-byte block (the suite passes them all: kill matrix)."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from aclcts.atc import compile_elements
from aclcts.core.constants import DataType, Format
from aclcts.drive import flow
from aclcts.drive.executor import TailBlockWritten, guarded_malloc, poison, read_guarded
from aclcts.sim import acl, isolated
from aclcts.sim.faults.contract import Recycled

INT32, ND = int(DataType.ACL_INT32), int(Format.ACL_FORMAT_ND)


def test_a_recycled_handle_value_is_the_last_destroyed_one_and_runs_the_handle_behind_it():
    counter = itertools.count(0x100, 0x10)
    ran, destroyed = [], []
    recycled = Recycled()
    create = recycled.create(lambda *args: (next(counter), 0))
    execute = recycled.execute_with_handle(lambda handle, *rest: ran.append(handle) or 0)
    destroy = recycled.destroy_handle(destroyed.append)
    first, _ = create("Add", [], [], 0)
    second, _ = create("Add", [], [], 0)
    destroy(first)
    third, _ = create("Add", [], [], 0)
    assert (first, second, third) == (0x100, 0x110, 0x100)
    execute(third, [], [], 0)
    destroy(third)
    assert ran == [0x120] and destroyed == [0x100, 0x120]


def elapsed_after_synchronize_device() -> float:
    """Milliseconds from an event recorded after work on the first stream to one recorded after work on the second,
    both run by one synchronize_device."""
    assert acl.init() == 0 and acl.rt.set_device(0) == 0
    streams = [acl.rt.create_stream()[0] for _ in range(2)]
    events = [acl.rt.create_event()[0] for _ in range(2)]
    memory = acl.rt.malloc(1 << 20, 0)[0]
    for stream, event in zip(streams, events):
        assert acl.rt.memset_async(memory, 1 << 20, 1, 1 << 20, stream) == 0
        assert acl.rt.record_event(event, stream) == 0
    assert acl.rt.synchronize_device() == 0
    elapsed, ret = acl.rt.event_elapsed_time(events[0], events[1])
    assert ret == 0
    for event in events:
        acl.rt.destroy_event(event)
    for stream in streams:
        acl.rt.destroy_stream(stream)
    acl.rt.free(memory)
    acl.rt.reset_device(0)
    acl.finalize()
    return elapsed


def test_synchronize_device_runs_independent_streams_in_another_order_under_the_deviation():
    with isolated(faults=""):
        assert elapsed_after_synchronize_device() > 0
    with isolated(faults="streams_synchronised_in_another_order"):
        assert elapsed_after_synchronize_device() < 0


@pytest.fixture(scope="module")
def add_model(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """An Add int32 [3] model (12 bytes of output: 20 bytes short of a 32-byte block)."""
    tensor = {"format": "ND", "shape": [3], "type": "int32"}
    result = compile_elements([{"op": "Add", "input_desc": [tensor, tensor], "output_desc": [tensor]}],
                              tmp_path_factory.mktemp("add"), "Ascend910B1")
    assert result.ok, result.errors
    return Path(result.written[0]).read_bytes()


def tail_after_add(model: bytes) -> int:
    """Bytes an execute_v2 of Add int32 [3] wrote between its output's size and its 32-byte aligned end."""
    session = flow.open_session(acl, 0)
    try:
        flow.check(acl.op.load(acl.util.bytes_to_ptr(model), len(model)), "acl.op.load")
        with flow.resources(acl) as res:
            descs = [flow.create_desc(res, INT32, (3,), ND) for _ in range(3)]
            x = flow.malloc(res, 12)
            flow.copy_to_device(acl, x, np.arange(3, dtype=np.int32))
            held = guarded_malloc(res, 12)
            poison(acl, [held])
            buffers = [flow.create_buffer(res, p, 12) for p in (x, x, held.ptr)]
            flow.check(acl.op.execute_v2("Add", descs[:2], buffers[:2], descs[2:], buffers[2:], 0, session.stream),
                       "acl.op.execute_v2")
            flow.check(acl.rt.synchronize_stream(session.stream), "acl.rt.synchronize_stream")
            body, tail = read_guarded(res, held, lambda side: f"bytes {side} y were overwritten")
            assert np.frombuffer(body, np.int32).tolist() == [0, 2, 4]
            return tail
    finally:
        flow.close_session(session)


def test_an_op_writes_its_last_32_byte_block_under_the_deviation(add_model):
    with isolated(faults=""):
        assert tail_after_add(add_model) == 0
    with isolated(faults="last_block_written"), pytest.warns(TailBlockWritten):
        assert tail_after_add(add_model) == 20
