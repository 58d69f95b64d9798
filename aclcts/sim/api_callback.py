"""acl.rt host callbacks: launch_callback queues a host function on a stream; the thread subscribed to the stream
with subscribe_report runs it when it calls process_report. The exception-info callback is told of each task that
fails on a stream (CANN runtime API; docs/sim-contract-additions.md)."""

from __future__ import annotations

import queue
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from aclcts.core.constants import ErrorCode
from aclcts.sim import core
from aclcts.sim.api_stream import resolve_stream
from aclcts.sim.binding import api_lock
from aclcts.sim.core import INVALID_PARAM, OK, export, fail, not_initialized
from aclcts.sim.errors import SimMisuseError, warn
from aclcts.sim.streams import FAILURE_LISTENERS, LAUNCH_MS, Stream, Task

#: The runtime's codes for callback subscriptions (docs/sim-contract-additions.md gives the source of each).
STREAM_SUBSCRIBE = int(ErrorCode.ACL_ERROR_RT_STREAM_SUBSCRIBE)
THREAD_SUBSCRIBE = int(ErrorCode.ACL_ERROR_RT_THREAD_SUBSCRIBE)
STREAM_NO_CB_REG = int(ErrorCode.ACL_ERROR_RT_STREAM_NO_CB_REG)
REPORT_TIMEOUT = int(ErrorCode.ACL_ERROR_RT_REPORT_TIMEOUT)
#: aclrtCallbackBlockType: the stream goes on at once (0) or after the callback has run (1).
NO_BLOCK, BLOCK = 0, 1
#: How often process_report looks at its streams for callbacks that have come due, in seconds.
POLL_S = 0.001


@dataclass
class Report:
    """One callback that has come due on a stream, for its subscribed thread to run."""

    func: Any
    args: Any
    stream: int
    done: threading.Event = field(default_factory=threading.Event)


@dataclass
class Subscriptions:
    """Which thread serves each subscribed stream, and each thread's callbacks that have come due."""

    thread_of: dict[int, int] = field(default_factory=dict)
    streams: dict[int, Stream] = field(default_factory=dict)
    due: dict[int, queue.SimpleQueue] = field(default_factory=dict)

    def streams_of(self, thread_id: int) -> list[Stream]:
        """The streams a thread serves."""
        return [self.streams[s] for s, t in self.thread_of.items() if t == thread_id]


def subscriptions() -> Subscriptions:
    """The simulated process' subscriptions."""
    return core.STATE.extensions.setdefault("subscriptions", Subscriptions())


def _live_thread(thread_id: int) -> bool:
    return any(thread.ident == thread_id for thread in threading.enumerate())


@export("rt", "subscribe_report", "Kk")
def subscribe_report(thread_id: int, stream_handle: int) -> int:
    """aclrtSubscribeReport: the callbacks launched on the stream run in the thread (a stream has one thread); a
    thread id that is no running thread is taken, with a SimWarning, as the runtime does not check it."""
    api = "acl.rt.subscribe_report"
    stream = resolve_stream(api, stream_handle)
    if isinstance(stream, int):
        return stream
    subs = subscriptions()
    if stream.handle in subs.thread_of:
        return fail(STREAM_SUBSCRIBE, f"{api}: stream {stream.handle:#x} is already subscribed by thread "
                                      f"{subs.thread_of[stream.handle]}")
    if not _live_thread(thread_id):
        warn(f"{api}: {thread_id} is not a running thread, so no thread will run the stream's callbacks "
             "(acl.util.start_thread gives one)")
    subs.thread_of[stream.handle] = thread_id
    subs.streams[stream.handle] = stream
    subs.due.setdefault(thread_id, queue.SimpleQueue())
    return OK


@export("rt", "unsubscribe_report", "Kk")
def unsubscribe_report(thread_id: int, stream_handle: int) -> int:
    """aclrtUnSubscribeReport: end the subscription; callbacks of the stream still queued or not yet run are dropped
    (with a SimWarning) and work waiting behind them goes on."""
    api = "acl.rt.unsubscribe_report"
    stream = resolve_stream(api, stream_handle)
    if isinstance(stream, int):
        return stream
    subs = subscriptions()
    serving = subs.thread_of.get(stream.handle)
    if serving is None:
        return fail(STREAM_SUBSCRIBE, f"{api}: stream {stream.handle:#x} is not subscribed by any thread")
    if serving != thread_id:
        return fail(THREAD_SUBSCRIBE, f"{api}: stream {stream.handle:#x} is subscribed by thread {serving}, "
                                      f"not {thread_id}")
    del subs.thread_of[stream.handle], subs.streams[stream.handle]
    dropped = _drop_due(subs, thread_id, stream.handle)
    if dropped:
        warn(f"{api}: {dropped} callback(s) of stream {stream.handle:#x} had not run and are dropped")
    return OK


def _drop_due(subs: Subscriptions, thread_id: int, stream_handle: int) -> int:
    """Drop the due callbacks of one stream from a thread's queue, letting work behind them go on; how many."""
    due = subs.due.get(thread_id)
    kept, dropped = [], 0
    while due is not None and not due.empty():
        report = due.get_nowait()
        if report.stream == stream_handle:
            report.done.set()
            dropped += 1
        else:
            kept.append(report)
    for report in kept:
        due.put(report)
    return dropped


@export("rt", "launch_callback", "OOik")
def launch_callback(func: Any, args: Any, block_type: int, stream_handle: int) -> int:
    """aclrtLaunchCallback: queue func(args) on the stream; with BLOCK the stream's later work waits for it."""
    api = "acl.rt.launch_callback"
    if not callable(func):
        raise TypeError("parameter must be callable")
    code = not_initialized(api)
    if code:
        return code
    if block_type not in (NO_BLOCK, BLOCK):
        return fail(INVALID_PARAM, f"{api}: block type {block_type} is neither ACL_CALLBACK_NO_BLOCK (0) nor "
                                   "ACL_CALLBACK_BLOCK (1)")
    stream = resolve_stream(api, stream_handle)
    if isinstance(stream, int):
        return stream
    subs = subscriptions()
    if stream.handle not in subs.thread_of:
        return fail(STREAM_NO_CB_REG, f"{api}: stream {stream.handle:#x} has no thread subscribed "
                                      "(acl.rt.subscribe_report first)")
    report = Report(func, args, stream.handle)

    def come_due() -> int:
        thread_id = subs.thread_of.get(stream.handle)
        if thread_id is None:
            warn(f"{api}: stream {stream.handle:#x} was unsubscribed before its callback came due; it is dropped")
            report.done.set()
        else:
            subs.due[thread_id].put(report)
        return OK

    stream.enqueue(Task(come_due, api, (), LAUNCH_MS, gate=report.done if block_type == BLOCK else None))
    return OK


@export("rt", "process_report", "i", locked=False)
def process_report(timeout: int) -> int:
    """aclrtProcessReport: run one callback that has come due on a stream this thread serves, waiting up to
    timeout ms (-1: for ever); 507012 when none came in time, 107012 in a thread that serves no stream."""
    api = "acl.rt.process_report"
    thread_id = threading.get_ident()
    with api_lock():
        code = not_initialized(api)
        if code:
            return code
        if timeout == 0 or timeout < -1:
            return fail(INVALID_PARAM, f"{api}: timeout {timeout} must be -1 or > 0")
        subs = subscriptions()
        if not subs.streams_of(thread_id):
            return fail(THREAD_SUBSCRIBE, f"{api}: this thread serves no stream (acl.rt.subscribe_report)")
        due = subs.due[thread_id]
    deadline = None if timeout == -1 else time.monotonic() + timeout / 1000
    while True:
        report = _next_due(subs, thread_id, due)
        if report is not None:
            try:
                report.func(report.args)
            finally:
                report.done.set()
            return OK
        if deadline is not None and time.monotonic() >= deadline:
            with api_lock():
                return fail(REPORT_TIMEOUT, f"{api}: no callback came due in {timeout} ms")
        time.sleep(POLL_S)


def _next_due(subs: Subscriptions, thread_id: int, due: queue.SimpleQueue) -> Report | None:
    """A due callback of this thread: one already due, else one that running its streams' work brings due."""
    if not due.empty():
        return due.get_nowait()
    with api_lock():
        for stream in subs.streams_of(thread_id):
            first = next((task for task in stream.queue if task.call == "acl.rt.launch_callback"), None)
            if first is not None:
                stream.drain(first.seq, wait=False)  # never waits on the stream: its due callbacks may be ours to run
                break
    return None if due.empty() else due.get_nowait()


#: What the exception-info getters give for a null info (CANN pyACL documentation: 0xFFFFFFFF, no information).
NO_INFO = 0xFFFFFFFF
SET_EXCEPTION_CALLBACK = "acl.rt.set_exception_info_callback"


@dataclass(frozen=True)
class ExceptionInfo:
    """What aclrtExceptionInfo holds about a task that failed on a stream."""

    task_id: int
    stream_id: int
    thread_id: int
    device_id: int
    error_code: int


@export("rt", "set_exception_info_callback", "|O")
def set_exception_info_callback(func: Any = None) -> int:
    """aclrtSetExceptionInfoCallback: func(info) runs for each task that fails on a stream; None or no argument
    clears it; the last call wins."""
    if func is None:
        core.STATE.extensions.pop("exception_callback", None)
        return OK
    if not callable(func):
        raise TypeError(f"{SET_EXCEPTION_CALLBACK} args parse failed")
    core.STATE.extensions["exception_callback"] = func
    return OK


def _tell_exception_callback(stream: Stream, task: Task, code: int) -> None:
    """Run the exception-info callback, if one is set, with the info of a task that failed on a stream."""
    callback = core.STATE.extensions.get("exception_callback")
    if callback is None:
        return
    info = ExceptionInfo(task.seq & NO_INFO, stream.handle & NO_INFO, task.thread & NO_INFO, stream.device.id, code)
    handle = core.STATE.register("exception_info", info, task.call)
    try:
        callback(handle)
    except SimMisuseError:
        raise
    except Exception as exc:  # noqa: BLE001 - the binding drops a callback that raised, and goes on
        core.STATE.extensions.pop("exception_callback", None)
        warn(f"{SET_EXCEPTION_CALLBACK}: the exception-info callback raised {exc!r}; it is cleared, as the "
             "binding does")
    finally:
        core.STATE.release(handle, f"{task.call} (its exception-info callback returned)")


FAILURE_LISTENERS.append(_tell_exception_callback)


def _info_field(api: str, info_handle: int, field_name: str) -> int:
    """One field of the exception info behind a handle; NO_INFO for a null one."""
    if info_handle == 0:
        return NO_INFO
    return getattr(core.STATE.lookup("exception_info", info_handle, api), field_name)


@export("rt", "get_error_code_from_exception_info", "k")
def get_error_code_from_exception_info(info_handle: int) -> int:
    """aclrtGetErrorCodeFromExceptionInfo: the failed task's error code."""
    return _info_field("acl.rt.get_error_code_from_exception_info", info_handle, "error_code")


@export("rt", "get_task_id_from_exception_info", "k")
def get_task_id_from_exception_info(info_handle: int) -> int:
    """aclrtGetTaskIdFromExceptionInfo: the failed task's id (its place on its stream)."""
    return _info_field("acl.rt.get_task_id_from_exception_info", info_handle, "task_id")


@export("rt", "get_stream_id_from_exception_info", "k")
def get_stream_id_from_exception_info(info_handle: int) -> int:
    """aclrtGetStreamIdFromExceptionInfo: the id of the failed task's stream."""
    return _info_field("acl.rt.get_stream_id_from_exception_info", info_handle, "stream_id")


@export("rt", "get_thread_id_from_exception_info", "k")
def get_thread_id_from_exception_info(info_handle: int) -> int:
    """aclrtGetThreadIdFromExceptionInfo: the native id of the thread that queued the failed task."""
    return _info_field("acl.rt.get_thread_id_from_exception_info", info_handle, "thread_id")


@export("rt", "get_device_id_from_exception_info", "k")
def get_device_id_from_exception_info(info_handle: int) -> int:
    """aclrtGetDeviceIdFromExceptionInfo: the failed task's device."""
    return _info_field("acl.rt.get_device_id_from_exception_info", info_handle, "device_id")
