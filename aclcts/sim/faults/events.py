"""Faulty events, stream queries and host callbacks: substitutes for the acl.rt event, stream and report entry points
(issue 40; written before any was run against the suite)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from aclcts.sim import seams

Function = Callable[..., Any]
#: aclrtEventRecordedStatus COMPLETE, aclrtStreamStatus COMPLETE, ACL_CALLBACK_NO_BLOCK / ACL_CALLBACK_BLOCK.
RECORDED_COMPLETE, STREAM_COMPLETE, NO_BLOCK, BLOCK = 1, 0, 0, 1
TIMESTAMP_INVALID, STREAM_SYNC_TIMEOUT, STREAM_SUBSCRIBE = 107006, 507046, 107011


def _event(handle: int) -> Any:
    """The simulator's event behind a live handle (the simulator's event lookup)."""
    return seams.get("event lookup")("fault lookup", handle)


def _stream(handle: int) -> Any:
    """The simulator's stream behind a handle (0: the current context's default stream), or an error code."""
    return seams.get("stream resolution")("fault lookup", handle)


def unrecorded_status_complete(query: Function) -> Function:
    """acl.rt.query_event_status answering COMPLETE for an event never recorded (or reset)."""

    def faulty(handle: int) -> tuple[int, int]:
        event = _event(handle)
        if not isinstance(event, int) and event.stream is None:
            return RECORDED_COMPLETE, 0
        return query(handle)

    return faulty


def record_completes_at_once(record: Function) -> Function:
    """acl.rt.record_event marking the event complete at the call, not when the work queued before it has run."""

    def faulty(event_handle: int, stream_handle: int) -> int:
        ret = record(event_handle, stream_handle)
        event = _event(event_handle)
        if ret == 0 and not isinstance(event, int):
            event.completed = True
        return ret

    return faulty


def rerecord_ignored(record: Function) -> Function:
    """acl.rt.record_event of an event that already has a record returning 0 and keeping the first record."""

    def faulty(event_handle: int, stream_handle: int) -> int:
        event = _event(event_handle)
        if not isinstance(event, int) and event.stream is not None:
            return 0
        return record(event_handle, stream_handle)

    return faulty


def returns_zero(_: Function) -> Function:
    """An entry point that returns 0 and does nothing."""
    return lambda *args: 0


def recorded_status_numbered_as_event_status(query: Function) -> Function:
    """acl.rt.query_event_status numbering its answer as aclrtEventStatus (COMPLETE 0, NOT_READY 1) instead of
    aclrtEventRecordedStatus (NOT_READY 0, COMPLETE 1)."""

    def faulty(handle: int) -> tuple[int, int]:
        status, ret = query(handle)
        return (1 - status if ret == 0 else status), ret

    return faulty


def stream_query_ignores_blocking_callbacks(query: Function) -> Function:
    """acl.rt.stream_query answering COMPLETE once nothing is queued, while a blocking callback already reached has not
    been run by its report thread."""

    def faulty(handle: int) -> tuple[int, int]:
        stream = _stream(handle)
        status, ret = query(handle)
        if ret == 0 and not isinstance(stream, int) and not stream.queue:
            return STREAM_COMPLETE, ret
        return status, ret

    return faulty


def code_as_success(code: int) -> Callable[[Function], Function]:
    """An entry point answering 0 where it returns code (a failure reported as success)."""

    def substitute(entry: Function) -> Function:
        def faulty(*args: Any) -> int:
            ret = entry(*args)
            return 0 if ret == code else ret

        return faulty

    return substitute


#: acl.rt.synchronize_stream_with_timeout returning 0 when the time ran out before the stream's work was done.
timeout_reported_as_success = code_as_success(STREAM_SYNC_TIMEOUT)
#: acl.rt.subscribe_report of a stream another subscription serves returning 0 (the first one kept).
second_subscription_accepted = code_as_success(STREAM_SUBSCRIBE)


def blocking_callbacks_do_not_block(launch: Function) -> Function:
    """acl.rt.launch_callback treating ACL_CALLBACK_BLOCK as NO_BLOCK: the stream's later work goes on before the
    callback has run."""
    return lambda func, args, block_type, stream: launch(func, args, NO_BLOCK if block_type == BLOCK else block_type,
                                                         stream)


def callback_args_dropped(launch: Function) -> Function:
    """acl.rt.launch_callback calling the callback with None instead of the args given."""
    return lambda func, args, block_type, stream: launch(func, None, block_type, stream)


def callback_runs_at_launch(launch: Function) -> Function:
    """acl.rt.launch_callback running the callback at once in the launching thread (a do-nothing callback is queued
    in its place)."""

    def faulty(func: Any, args: Any, block_type: int, stream: int) -> int:
        ret = launch(lambda _: None, args, block_type, stream)
        if ret == 0:
            func(args)
        return ret

    return faulty


def elapsed_time_of_unrecorded_is_zero(elapsed: Function) -> Function:
    """acl.rt.event_elapsed_time answering (0.0, 0) where a record has not run (or there is none)."""

    def faulty(start: int, end: int) -> tuple[float, int]:
        ms, ret = elapsed(start, end)
        return (0.0, 0) if ret == TIMESTAMP_INVALID else (ms, ret)

    return faulty


def event_ids_all_zero(get_event_id: Function) -> Function:
    """acl.rt.get_event_id giving every event the id 0."""

    def faulty(handle: int) -> tuple[int, int]:
        _, ret = get_event_id(handle)
        return 0, ret

    return faulty
