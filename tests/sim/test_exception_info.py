"""The exception-info callback is told of each task that fails on a stream (aclcts/sim/api_callback.py)."""

import threading

import pytest

import aclcts.sim
from aclcts.sim import core
from aclcts.sim.api_callback import NO_INFO
from aclcts.sim.streams import Task

AICORE_EXCEPTION = 507015
GETTERS = ("error_code", "task_id", "stream_id", "thread_id", "device_id")


def queue_failing_task(stream_handle: int) -> Task:
    """Queue on a stream a task that fails on the device with 507015."""
    task = Task(lambda: AICORE_EXCEPTION, "test task", (), 0.0)
    core.STATE.lookup("stream", stream_handle, "test").enqueue(task)
    return task


def read_info(acl, info: int) -> dict[str, int]:
    """Every field of an exception info, through the getters."""
    return {name: getattr(acl.rt, f"get_{name}_from_exception_info")(info) for name in GETTERS}


def test_a_failed_task_calls_the_callback_with_its_info_and_its_code_reaches_synchronize(session):
    acl, seen = session.acl, []
    assert acl.rt.set_exception_info_callback(lambda info: seen.append(read_info(acl, info))) == 0
    task = queue_failing_task(session.stream)
    assert acl.rt.synchronize_stream(session.stream) == AICORE_EXCEPTION
    assert seen == [{"error_code": AICORE_EXCEPTION, "task_id": task.seq, "stream_id": session.stream & NO_INFO,
                     "thread_id": threading.get_native_id(), "device_id": 0}]


def test_a_cleared_callback_is_not_called(session):
    acl, seen = session.acl, []
    assert acl.rt.set_exception_info_callback(seen.append) == 0
    assert acl.rt.set_exception_info_callback() == 0
    queue_failing_task(session.stream)
    assert acl.rt.synchronize_stream(session.stream) == AICORE_EXCEPTION
    assert seen == []


def test_the_info_is_gone_once_the_callback_returned(session):
    acl, infos = session.acl, []
    assert acl.rt.set_exception_info_callback(infos.append) == 0
    queue_failing_task(session.stream)
    acl.rt.synchronize_stream(session.stream)
    with pytest.raises(aclcts.sim.SimMisuseError, match="exception_info"):
        acl.rt.get_error_code_from_exception_info(infos[0])


def test_a_callback_that_raises_is_cleared_with_a_warning(session):
    acl, calls = session.acl, []

    def failing(info: int) -> None:
        calls.append(info)
        raise RuntimeError("callback bug")

    assert acl.rt.set_exception_info_callback(failing) == 0
    queue_failing_task(session.stream)
    with pytest.warns(aclcts.sim.SimWarning, match="callback bug"):
        assert acl.rt.synchronize_stream(session.stream) == AICORE_EXCEPTION
    queue_failing_task(session.stream)
    assert acl.rt.synchronize_stream(session.stream) == AICORE_EXCEPTION
    assert len(calls) == 1
