"""acl.rt streams, events and synchronisation: queued work runs when something synchronises
(docs/contract/sync-events-callbacks.md)."""

from __future__ import annotations

import itertools

from aclcts.core.constants import ErrorCode, EventRecordedStatus, EventStatus, EventWaitStatus, StreamStatus
from aclcts.sim import core
from aclcts.sim.api_device import STREAM_CONTEXT, context_or_error, drop_stream, new_stream
from aclcts.sim.binding import IGNORES_ARGUMENTS
from aclcts.sim.core import INVALID_PARAM, OK, RT_PARAM_INVALID, export, fail, not_initialized
from aclcts.sim.errors import warn
from aclcts.sim.seams import Seam
from aclcts.sim.streams import LAUNCH_MS, Event, NotReady, Stream, Task, drain_within

TIMESTAMP_INVALID = int(ErrorCode.ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID)
NO_STREAM_RESOURCE = int(ErrorCode.ACL_ERROR_RT_NO_STREAM_RESOURCE)
STREAM_SYNC_TIMEOUT = int(ErrorCode.ACL_ERROR_RT_STREAM_SYNC_TIMEOUT)
EVENT_SYNC_TIMEOUT = int(ErrorCode.ACL_ERROR_RT_EVENT_SYNC_TIMEOUT)
#: The most events a device holds (CANN aclrtCreateEvent: 65535 on Atlas A2, whose Ascend910B1 is simulated).
MAX_EVENTS = 65535


def _create_stream(api: str) -> tuple[int, int]:
    context = context_or_error(api)
    if isinstance(context, int):
        return 0, context
    device, most = context.device, core.STATE.settings.max_streams
    streams = sum(1 + len(ctx.streams) for ctx in device.contexts)  # each context's default stream, then its own
    if streams >= most:
        return 0, fail(NO_STREAM_RESOURCE, f"{api}: device {device.id} already has {streams} streams, the most it "
                                           f"supports (setting max_streams, {most})")
    return new_stream(context, api, False).handle, OK


@export("rt", "create_stream", "")
def create_stream() -> tuple[int, int]:
    """aclrtCreateStream: a stream in the current context."""
    return _create_stream("acl.rt.create_stream")


@export("rt", "get_stream_available_num", "")
def get_stream_available_num() -> tuple[int, int]:
    """aclrtGetStreamAvailableNum: how many more streams the current device can hold (max_streams less its streams)."""
    context = context_or_error("acl.rt.get_stream_available_num")
    if isinstance(context, int):
        return 0, context
    streams = sum(1 + len(ctx.streams) for ctx in context.device.contexts)
    return max(0, core.STATE.settings.max_streams - streams), OK


@export("rt", "create_stream_with_config", "II")
def create_stream_with_config(priority: int, flag: int) -> tuple[int, int]:
    """aclrtCreateStreamWithConfig: priority and flag are accepted and not modelled."""
    return _create_stream("acl.rt.create_stream_with_config")


def _resolve_stream(api: str, stream_handle: int) -> Stream | int:
    """The stream behind a handle (0 = current default stream) usable by the current context, or an error code."""
    context = context_or_error(api)
    if isinstance(context, int):
        return context
    if stream_handle == 0:
        return context.default_stream
    stream = core.STATE.lookup("stream", stream_handle, api)
    if stream.device is not context.device:
        return fail(STREAM_CONTEXT, f"{api}: stream {stream_handle:#x} belongs to device {stream.device.id}, the current context to device {context.device.id}")
    return stream


#: The stream an API call works on, from its stream handle.
resolve_stream = Seam("stream resolution", _resolve_stream)


@export("rt", "destroy_stream", "k")
def destroy_stream(stream_handle: int) -> int:
    """aclrtDestroyStream: waits for queued work (warned), then destroys."""
    api = "acl.rt.destroy_stream"
    code = not_initialized(api)
    if code:
        return code
    if stream_handle == 0:
        return fail(INVALID_PARAM, f"{api}: stream is null")
    st = core.STATE
    stream = st.lookup("stream", stream_handle, api)
    context = st.current_context()
    if stream.is_default:
        return fail(RT_PARAM_INVALID, f"{api}: {stream_handle:#x} is a default stream")
    if context is None or stream.context is not context:
        return fail(STREAM_CONTEXT, f"{api}: stream {stream_handle:#x} does not belong to the current context")
    if stream.queue:
        warn(
            f"{api}: stream {stream_handle:#x} still has {len(stream.queue)} queued task(s) "
            f"(first: {stream.queue[0].call}); destroy_stream waits for them — synchronise first"
        )
    context.streams.remove(stream)
    drop_stream(stream, api)
    return OK


def _finish(api: str, stream: Stream) -> int:
    """Run everything queued on a stream for api and return its first deferred error."""
    stream.drain()
    code = stream.take_error()
    if code:
        return fail(code, stream.error_message)
    return OK


#: Synchronisation of one stream by an API call.
finish = Seam("stream synchronisation", _finish)


@export("rt", "synchronize_stream", "k")
def synchronize_stream(stream_handle: int) -> int:
    """aclrtSynchronizeStream: run the stream's queued work; deferred errors surface here."""
    api = "acl.rt.synchronize_stream"
    stream = resolve_stream(api, stream_handle)
    return stream if isinstance(stream, int) else finish(api, stream)


@export("rt", "synchronize_stream_with_timeout", "ki")
def synchronize_stream_with_timeout(stream_handle: int, timeout: int) -> int:
    """aclrtSynchronizeStreamWithTimeout: timeout -1 = forever, > 0 ms (507046 when the work is not done by then); 0 or
    < -1 → 107000."""
    api = "acl.rt.synchronize_stream_with_timeout"
    stream = resolve_stream(api, stream_handle)
    if isinstance(stream, int):
        return stream
    if timeout == 0 or timeout < -1:
        return fail(RT_PARAM_INVALID, f"{api}: timeout {timeout} must be -1 or > 0")
    if timeout > 0 and not drain_within(lambda: stream.drain(wait=False), timeout):
        return fail(STREAM_SYNC_TIMEOUT, f"{api}: the stream's work was not done within {timeout} ms")
    return finish(api, stream)


@export("rt", "synchronize_device", "")
def synchronize_device() -> int:
    """aclrtSynchronizeDevice: run the queued work of every stream of the current device."""
    api = "acl.rt.synchronize_device"
    context = context_or_error(api)
    if isinstance(context, int):
        return context
    first = OK
    for ctx in list(context.device.contexts):
        for stream in [ctx.default_stream, *ctx.streams]:
            code = finish(api, stream)
            first = first or code
    return first


@export("rt", "synchronize_device_with_timeout", "i")
def synchronize_device_with_timeout(timeout: int) -> int:
    """aclrtSynchronizeDeviceWithTimeout: synchronize_device with synchronize_stream_with_timeout's timeout rule."""
    api = "acl.rt.synchronize_device_with_timeout"
    code = not_initialized(api)
    if code:
        return code
    if timeout == 0 or timeout < -1:
        return fail(RT_PARAM_INVALID, f"{api}: timeout {timeout} must be -1 or > 0")
    return synchronize_device()


@export("rt", "stream_query", "k")
def stream_query(stream_handle: int) -> tuple[int, int]:
    """aclrtStreamQuery: NOT_READY while work is queued or a blocking callback run on it has not been run by its report
    thread (after which the work is let run as far as it goes without waiting: a query never blocks), else
    COMPLETE."""
    stream = resolve_stream("acl.rt.stream_query", stream_handle)
    if isinstance(stream, int):
        return 0, stream
    if stream.queue or (stream.gate is not None and not stream.gate.is_set()):
        stream.drain(wait=False)
        return int(StreamStatus.ACL_STREAM_STATUS_NOT_READY), OK
    return int(StreamStatus.ACL_STREAM_STATUS_COMPLETE), OK


def _create_event(api: str, flag: int) -> tuple[int, int]:
    context = context_or_error(api)
    if isinstance(context, int):
        return 0, context
    st = core.STATE
    event = Event(st.new_handle(), flag, _next_event_id())
    st.register("event", event, api, event.handle)
    return event.handle, OK


def _next_event_id() -> int:
    """A new event's id: the process' events numbered from 0 in creation order (uint32)."""
    ids = core.STATE.extensions.setdefault("event_ids", itertools.count())
    return next(ids) & 0xFFFFFFFF


@export("rt", "create_event", "")
def create_event() -> tuple[int, int]:
    """aclrtCreateEvent."""
    return _create_event("acl.rt.create_event", 0)


@export("rt", "create_event_with_flag", "I")
def create_event_with_flag(flag: int) -> tuple[int, int]:
    """aclrtCreateEventWithFlag: the flag is recorded, timing is always available."""
    return _create_event("acl.rt.create_event_with_flag", flag)


@export("rt", "create_event_ex_with_flag", "I")
def create_event_ex_with_flag(flag: int) -> tuple[int, int]:
    """aclrtCreateEventExWithFlag: as create_event_with_flag (the flag is recorded, timing always available)."""
    return _create_event("acl.rt.create_event_ex_with_flag", flag)


def _find_event(api: str, event_handle: int) -> Event | int:
    code = not_initialized(api)
    if code:
        return code
    if event_handle == 0:
        return fail(INVALID_PARAM, f"{api}: event is null")
    return core.STATE.lookup("event", event_handle, api)


#: The event an API call works on, from its event handle.
_event = Seam("event lookup", _find_event)


@export("rt", "destroy_event", "k")
def destroy_event(event_handle: int) -> int:
    """aclrtDestroyEvent."""
    api = "acl.rt.destroy_event"
    event = _event(api, event_handle)
    if isinstance(event, int):
        return event
    core.STATE.release(event_handle, api)
    return OK


def _event_on_stream(api: str, event_handle: int, stream_handle: int) -> tuple[Event, Stream] | int:
    event = _event(api, event_handle)
    if isinstance(event, int):
        return event
    stream = resolve_stream(api, stream_handle)
    return stream if isinstance(stream, int) else (event, stream)


@export("rt", "record_event", "kk")
def record_event(event_handle: int, stream_handle: int) -> int:
    """aclrtRecordEvent: queue a record of the event on the stream; it replaces any earlier record not yet run."""
    api = "acl.rt.record_event"
    found = _event_on_stream(api, event_handle, stream_handle)
    if isinstance(found, int):
        return found
    event, stream = found

    def run() -> int:
        if event.record is task:  # else a later record or a reset replaced this one
            event.completed = True
            event.timestamp_ms = stream.device.clock_ms
        return OK

    task = Task(run, api, (), 0.0)
    event.completed = False
    event.stream = stream
    event.record = task
    event.seq = stream.enqueue(task)
    return OK


@export("rt", "reset_event", "kk")
def reset_event(event_handle: int, stream_handle: int) -> int:
    """aclrtResetEvent: return the event to the not-recorded state."""
    found = _event_on_stream("acl.rt.reset_event", event_handle, stream_handle)
    if isinstance(found, int):
        return found
    event = found[0]
    event.stream, event.seq, event.completed, event.record = None, 0, False, None
    return OK


@export("rt", "query_event", "k")
def query_event(event_handle: int) -> tuple[int, int]:
    """aclrtQueryEvent: NOT_READY while the record is queued (after which it is let run as far as it goes without
    waiting: a query never blocks), else COMPLETE."""
    event = _event("acl.rt.query_event", event_handle)
    if isinstance(event, int):
        return 0, event
    if event.stream is not None and not event.completed:
        event.poll()
        return int(EventStatus.ACL_EVENT_STATUS_NOT_READY), OK
    return int(EventStatus.ACL_EVENT_STATUS_COMPLETE), OK


@export("rt", "query_event_status", "k")
def query_event_status(event_handle: int) -> tuple[int, int]:
    """aclrtQueryEventStatus: COMPLETE once a record of the event has run, else NOT_READY (never recorded too).

    Like query_event, a query of a queued record lets the stream run up to it afterwards, so that polling ends.
    """
    event = _event("acl.rt.query_event_status", event_handle)
    if isinstance(event, int):
        return int(EventRecordedStatus.ACL_EVENT_RECORDED_STATUS_NOT_READY), event
    if event.completed:
        return int(EventRecordedStatus.ACL_EVENT_RECORDED_STATUS_COMPLETE), OK
    event.poll()
    return int(EventRecordedStatus.ACL_EVENT_RECORDED_STATUS_NOT_READY), OK


@export("rt", "query_event_wait_status", "k")
def query_event_wait_status(event_handle: int) -> tuple[int, int]:
    """aclrtQueryEventWaitStatus: COMPLETE once what waits on the event may go on (its record has run), else
    NOT_READY; a failed query gives the wrapper's initial COMPLETE (0) with the error."""
    event = _event("acl.rt.query_event_wait_status", event_handle)
    if isinstance(event, int):
        return int(EventWaitStatus.ACL_EVENT_WAIT_STATUS_COMPLETE), event
    if event.completed:
        return int(EventWaitStatus.ACL_EVENT_WAIT_STATUS_COMPLETE), OK
    event.poll()
    return int(EventWaitStatus.ACL_EVENT_WAIT_STATUS_NOT_READY), OK


@export("rt", "synchronize_event", "k")
def synchronize_event(event_handle: int) -> int:
    """aclrtSynchronizeEvent: wait until the event's record has run."""
    event = _event("acl.rt.synchronize_event", event_handle)
    if isinstance(event, int):
        return event
    event.wait()
    return OK


@export("rt", "synchronize_event_with_timeout", "ki")
def synchronize_event_with_timeout(event_handle: int, timeout: int) -> int:
    """aclrtSynchronizeEventWithTimeout: synchronize_event with timeout -1 = forever, > 0 ms (507047 when the record
    has not run by then); 0 or < -1 → 107000."""
    api = "acl.rt.synchronize_event_with_timeout"
    event = _event(api, event_handle)
    if isinstance(event, int):
        return event
    if timeout == 0 or timeout < -1:
        return fail(RT_PARAM_INVALID, f"{api}: timeout {timeout} must be -1 or > 0")
    if timeout == -1:
        event.wait()
    elif not drain_within(event.poll, timeout):
        return fail(EVENT_SYNC_TIMEOUT, f"{api}: the event's record had not run within {timeout} ms")
    return OK


@export("rt", "get_event_id", "k")
def get_event_id(event_handle: int) -> tuple[int, int]:
    """aclrtGetEventId: the event's id (uint32)."""
    event = _event("acl.rt.get_event_id", event_handle)
    if isinstance(event, int):
        return 0, event
    return event.event_id, OK


@export("rt", "get_event_avail_num", IGNORES_ARGUMENTS)
def get_event_avail_num() -> tuple[int, int]:
    """aclrtGetEventAvailNum: how many more events the current device can hold (MAX_EVENTS less those holding a
    record, as a device takes an event's resource at record_event)."""
    context = context_or_error("acl.rt.get_event_avail_num")
    if isinstance(context, int):
        return 0, context
    holding = sum(1 for kind, obj in core.STATE.objects.values()
                  if kind == "event" and obj.stream is not None and obj.stream.device is context.device)
    return max(0, MAX_EVENTS - holding), OK


@export("rt", "event_elapsed_time", "kk")
def event_elapsed_time(start_handle: int, end_handle: int) -> tuple[float, int]:
    """aclrtEventElapsedTime: simulated device milliseconds between two completed records."""
    api = "acl.rt.event_elapsed_time"
    start = _event(api, start_handle)
    if isinstance(start, int):
        return 0.0, start
    end = _event(api, end_handle)
    if isinstance(end, int):
        return 0.0, end
    if not (start.completed and end.completed):
        return 0.0, fail(TIMESTAMP_INVALID, f"{api}: both events must have been recorded and completed")
    return end.timestamp_ms - start.timestamp_ms, OK


@export("rt", "event_get_timestamp", "k")
def event_get_timestamp(event_handle: int) -> tuple[int, int]:
    """aclrtEventGetTimestamp: when the event's record ran, in simulated device microseconds; 107006
    (timestamp invalid) if it has not run."""
    api = "acl.rt.event_get_timestamp"
    event = _event(api, event_handle)
    if isinstance(event, int):
        return 0, event
    if not event.completed:
        return 0, fail(TIMESTAMP_INVALID, f"{api}: the event has not been recorded and completed")
    return round(event.timestamp_ms * 1000), OK


@export("rt", "stream_wait_event", "kk")
def stream_wait_event(stream_handle: int, event_handle: int) -> int:
    """aclrtStreamWaitEvent: later work on the stream waits for the event's record."""
    api = "acl.rt.stream_wait_event"
    found = _event_on_stream(api, event_handle, stream_handle)
    if isinstance(found, int):
        return found
    event, stream = found
    recorded_on, seq = event.stream, event.seq

    def run() -> int:
        if recorded_on is not None and recorded_on is not stream and not recorded_on.drain(seq):
            raise NotReady(f"{api}: the record of the event has not run")
        return OK

    stream.enqueue(Task(run, api, (), LAUNCH_MS))
    return OK

