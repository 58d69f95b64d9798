"""acl.init/finalize and acl.rt devices, contexts, streams, events and synchronisation (pyacl-api.md §2)."""

from __future__ import annotations

import json

from aclcts.core.constants import ErrorCode, EventStatus, RunMode, StreamStatus
from aclcts.sim import core, faults
from aclcts.sim.core import INVALID_PARAM, OK, RT_PARAM_INVALID, export, fail, not_initialized
from aclcts.sim.errors import warn
from aclcts.sim.state import Context, Device
from aclcts.sim.streams import LAUNCH_MS, Event, Stream, Task

INVALID_DEVICEID = int(ErrorCode.ACL_ERROR_RT_INVALID_DEVICEID)
STREAM_CONTEXT = int(ErrorCode.ACL_ERROR_RT_STREAM_CONTEXT)
REPEAT_INITIALIZE = int(ErrorCode.ACL_ERROR_REPEAT_INITIALIZE)
REPEAT_FINALIZE = int(ErrorCode.ACL_ERROR_REPEAT_FINALIZE)
TIMESTAMP_INVALID = int(ErrorCode.ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID)
USER_KINDS = ("stream", "context", "event", "device_mem")
ALL_KINDS = ("desc", "buffer", "attr", "handle", "stream", "context", "event", "device_mem", "host_mem")


def _read_config(path: str) -> bytes | int:
    try:
        with open(path, "rb") as handle:
            content = handle.read()
    except OSError as exc:
        return fail(int(ErrorCode.ACL_ERROR_INVALID_FILE), f"acl.init: cannot read config file {path!r}: {exc.strerror}")
    if content.strip():
        try:
            json.loads(content)
        except ValueError as exc:
            return fail(int(ErrorCode.ACL_ERROR_PARSE_FILE), f"acl.init: config file {path!r} is not JSON: {exc}")
    return content


@export("", "init", "|s")
def init(config_path: str | None = None) -> int:
    """aclInit: the first call initialises; later calls return 100002 (100000 with a different config)."""
    st = core.STATE
    content = b"" if not config_path else _read_config(config_path)
    if isinstance(content, int):
        return content
    if st.initialized:
        st.init_refs += 1
        if content != st.init_config:
            return fail(INVALID_PARAM, "acl.init: repeated with a different configuration")
        return fail(REPEAT_INITIALIZE, "acl.init: already initialised (ignorable)")
    st.initialized = True
    st.init_refs = 1
    st.init_config = content
    return OK


def _teardown_process(api: str) -> None:
    st = core.STATE
    st.warn_alive(api, ALL_KINDS)
    for device_id in list(st.devices):
        _teardown_device(st.devices[device_id], api, warn_leaks=False)
    st.initialized = False
    st.init_refs = 0


@export("", "finalize", "")
def finalize() -> int:
    """aclFinalize: tear everything down whatever the init count; a second call returns 100037."""
    st = core.STATE
    if not st.initialized:
        if st.init_refs == 0 and st.init_config is None:
            return OK
        return fail(REPEAT_FINALIZE, "acl.finalize: already finalised")
    _teardown_process("acl.finalize")
    return OK


@export("", "finalize_reference", "")
def finalize_reference() -> tuple[int, int]:
    """aclFinalizeReference: decrement the init count; tear down at 1 → 0."""
    st = core.STATE
    if not st.initialized:
        return 0, fail(REPEAT_FINALIZE, "acl.finalize_reference: not initialised")
    st.init_refs -= 1
    if st.init_refs == 0:
        _teardown_process("acl.finalize_reference")
    return st.init_refs, OK


@export("", "get_soc_name", "")
def get_soc_name() -> str | None:
    """aclrtGetSocName: the configured SoC name."""
    return core.STATE.settings.soc_name or None


@export("", "get_version", "")
def get_version() -> tuple[int, int, int, int]:
    """aclrtGetVersion: the acl API version."""
    major, minor, patch = core.STATE.settings.version_tuple()
    return major, minor, patch, OK


@export("", "get_recent_err_msg", "")
def get_recent_err_msg() -> str | None:
    """aclGetRecentErrMsg: the calling thread's latest error message (cleared by reading)."""
    return core.STATE.take_error()


def _device_id_error(api: str, device_id: int) -> int:
    count = core.STATE.settings.device_count
    if 0 <= device_id < count:
        return OK
    return fail(INVALID_DEVICEID, f"{api}: device id {device_id} is not in [0, {count - 1}]")


def _new_stream(context: Context, call: str, is_default: bool) -> Stream:
    st = core.STATE
    stream = Stream(st.new_handle(), context, context.device, is_default=is_default)
    if is_default:
        st.objects[stream.handle] = ("stream", stream)
    else:
        st.register("stream", stream, call, stream.handle)
        context.streams.append(stream)
    return stream


def _new_context(device: Device, explicit: bool, call: str) -> Context:
    st = core.STATE
    handle = st.new_handle()
    context = Context(handle, device, explicit)
    if explicit:
        st.register("context", context, call, handle)
    else:
        st.objects[handle] = ("context", context)
    context.default_stream = _new_stream(context, call, True)
    device.contexts.append(context)
    return context


def _activate(device_id: int, call: str) -> Device:
    st = core.STATE
    device = st.devices.get(device_id)
    if device is None:
        device = Device(device_id)
        st.devices[device_id] = device
        device.default_context = _new_context(device, False, call)
    return device


def _drop_stream(stream: Stream, call: str) -> None:
    st = core.STATE
    stream.drain()
    stream.destroyed_by = call
    st.release(stream.handle, call)


def _drop_context(context: Context, call: str) -> None:
    st = core.STATE
    for stream in list(context.streams):
        _drop_stream(stream, call)
    context.streams.clear()
    _drop_stream(context.default_stream, call)
    context.destroyed_by = call
    context.device.contexts.remove(context)
    st.release(context.handle, call)


def _teardown_device(device: Device, call: str, warn_leaks: bool = True) -> None:
    st = core.STATE
    if warn_leaks:
        st.warn_alive(call, USER_KINDS, device.id)
    for context in list(device.contexts):
        _drop_context(context, call)
    for region in st.memory.live_device_regions(device.id):
        st.memory.free_device(region, call)
        st.release(region.start, call)
    for handle, (kind, obj) in list(st.objects.items()):
        if kind == "event" and obj.stream is not None and obj.stream.device is device:
            obj.stream = None
    del st.devices[device.id]


@export("rt", "set_device", "i")
def set_device(device_id: int) -> int:
    """aclrtSetDevice: bind the device (reference counted) and make its default context current."""
    api = "acl.rt.set_device"
    code = not_initialized(api) or _device_id_error(api, device_id)
    if code:
        return code
    device = _activate(device_id, api)
    device.refs += 1
    core.STATE.set_current_context(device.default_context)
    return OK


def _reset(device_id: int, api: str, force: bool) -> int:
    code = not_initialized(api) or _device_id_error(api, device_id)
    if code:
        return code
    st = core.STATE
    device = st.devices.get(device_id)
    if device is None:
        return OK
    device.refs = 0 if force else max(0, device.refs - 1)
    if device.refs == 0:
        _teardown_device(device, api)
    return OK


@export("rt", "reset_device", "i")
def reset_device(device_id: int) -> int:
    """aclrtResetDevice: drop one reference; at zero wait for work and release the device's resources."""
    return _reset(device_id, "acl.rt.reset_device", False)


@export("rt", "reset_device_force", "i")
def reset_device_force(device_id: int) -> int:
    """aclrtResetDeviceForce: release the device whatever its reference count."""
    return _reset(device_id, "acl.rt.reset_device_force", True)


def context_or_error(api: str) -> Context | int:
    """The calling thread's current context, the default device's context if none is set, or an error code."""
    code = not_initialized(api)
    if code:
        return code
    st = core.STATE
    context = st.current_context()
    if context is None:
        default = st.settings.default_device
        if default is None or not 0 <= default < st.settings.device_count:
            return fail(st.settings.no_context_code, f"{api}: the calling thread has no current context (set_device first)")
        context = _activate(default, api).default_context
        st.set_current_context(context)
    return context


@export("rt", "get_device", "")
def get_device() -> tuple[int, int]:
    """aclrtGetDevice: the device of the current context."""
    context = context_or_error("acl.rt.get_device")
    if isinstance(context, int):
        return 0, context
    return context.device.id, OK


@export("rt", "get_device_count", "")
def get_device_count() -> tuple[int, int]:
    """aclrtGetDeviceCount."""
    code = not_initialized("acl.rt.get_device_count")
    return (0, code) if code else (core.STATE.settings.device_count, OK)


@export("rt", "get_run_mode", "")
def get_run_mode() -> tuple[int, int]:
    """aclrtGetRunMode: ACL_HOST (1) for a host with a PCIe card, ACL_DEVICE (0) on the board."""
    code = not_initialized("acl.rt.get_run_mode")
    if code:
        return 0, code
    mode = RunMode.ACL_HOST if core.STATE.settings.run_mode == "host" else RunMode.ACL_DEVICE
    return int(mode), OK


@export("rt", "create_context", "i")
def create_context(device_id: int) -> tuple[int, int]:
    """aclrtCreateContext: a new explicit context on the device, made current for this thread."""
    api = "acl.rt.create_context"
    code = not_initialized(api) or _device_id_error(api, device_id)
    if code:
        return 0, code
    context = _new_context(_activate(device_id, api), True, api)
    core.STATE.set_current_context(context)
    return context.handle, OK


@export("rt", "destroy_context", "k")
def destroy_context(context_handle: int) -> int:
    """aclrtDestroyContext: only contexts from create_context."""
    api = "acl.rt.destroy_context"
    code = not_initialized(api)
    if code:
        return code
    if context_handle == 0:
        return fail(INVALID_PARAM, f"{api}: context is null")
    st = core.STATE
    context = st.lookup("context", context_handle, api)
    if not context.explicit:
        return fail(RT_PARAM_INVALID, f"{api}: {context_handle:#x} is a device default context, not one from create_context")
    if context.streams:
        warn(f"{api}: context {context_handle:#x} still has {len(context.streams)} stream(s); they are destroyed with it")
    if st.current_context() is context:
        st.set_current_context(None)
    _drop_context(context, api)
    return OK


@export("rt", "set_context", "k")
def set_context(context_handle: int) -> int:
    """aclrtSetCurrentContext: make a context current for the calling thread."""
    api = "acl.rt.set_context"
    code = not_initialized(api)
    if code:
        return code
    if context_handle == 0:
        return fail(INVALID_PARAM, f"{api}: context is null")
    core.STATE.set_current_context(core.STATE.lookup("context", context_handle, api))
    return OK


@export("rt", "get_context", "")
def get_context() -> tuple[int, int]:
    """aclrtGetCurrentContext: no current context → 107002 (never binds the default device)."""
    api = "acl.rt.get_context"
    code = not_initialized(api)
    if code:
        return 0, code
    context = core.STATE.current_context()
    if context is None:
        return 0, fail(core.STATE.settings.no_context_code, f"{api}: the calling thread has no current context")
    return context.handle, OK


@export("rt", "ctx_get_current_default_stream", "")
def ctx_get_current_default_stream() -> tuple[int, int]:
    """aclrtCtxGetCurrentDefaultStream: the current context's default stream."""
    context = context_or_error("acl.rt.ctx_get_current_default_stream")
    if isinstance(context, int):
        return 0, context
    return context.default_stream.handle, OK


def _create_stream(api: str) -> tuple[int, int]:
    context = context_or_error(api)
    if isinstance(context, int):
        return 0, context
    return _new_stream(context, api, False).handle, OK


@export("rt", "create_stream", "")
def create_stream() -> tuple[int, int]:
    """aclrtCreateStream: a stream in the current context."""
    return _create_stream("acl.rt.create_stream")


@export("rt", "create_stream_with_config", "II")
def create_stream_with_config(priority: int, flag: int) -> tuple[int, int]:
    """aclrtCreateStreamWithConfig: priority and flag are accepted and not modelled."""
    return _create_stream("acl.rt.create_stream_with_config")


def resolve_stream(api: str, stream_handle: int) -> Stream | int:
    """The stream behind a handle (0 = current default stream) usable by the current context, or an error code."""
    context = context_or_error(api)
    if isinstance(context, int):
        return context
    if stream_handle == 0:
        return context.default_stream
    stream = core.STATE.lookup("stream", stream_handle, api)
    if stream.device is not context.device:
        return fail(STREAM_CONTEXT, f"{api}: stream {stream_handle:#x} belongs to device {stream.device.id}, the current context to device {context.device.id}")
    if faults.active("work_on_default_stream") and not api.startswith(_STREAM_APIS):
        return context.default_stream
    return stream


#: Calls that act on the stream itself rather than queue work (work_on_default_stream leaves them alone).
_STREAM_APIS = ("acl.rt.synchronize_stream", "acl.rt.stream_query", "acl.rt.stream_wait_event")


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
    _drop_stream(stream, api)
    return OK


def finish(stream: Stream) -> int:
    """Run everything queued on a stream and return its first deferred error."""
    stream.drain()
    code = stream.take_error()
    if code:
        return fail(code, stream.error_message)
    return OK


@export("rt", "synchronize_stream", "k")
def synchronize_stream(stream_handle: int) -> int:
    """aclrtSynchronizeStream: run the stream's queued work; deferred errors surface here."""
    stream = resolve_stream("acl.rt.synchronize_stream", stream_handle)
    if not isinstance(stream, int) and faults.active("synchronize_stream_no_drain"):
        return OK
    return stream if isinstance(stream, int) else finish(stream)


@export("rt", "synchronize_stream_with_timeout", "ki")
def synchronize_stream_with_timeout(stream_handle: int, timeout: int) -> int:
    """aclrtSynchronizeStreamWithTimeout: timeout -1 = forever, > 0 ms; 0 or < -1 → 107000."""
    api = "acl.rt.synchronize_stream_with_timeout"
    stream = resolve_stream(api, stream_handle)
    if isinstance(stream, int):
        return stream
    if timeout == 0 or timeout < -1:
        return fail(RT_PARAM_INVALID, f"{api}: timeout {timeout} must be -1 or > 0")
    return finish(stream)


@export("rt", "synchronize_device", "")
def synchronize_device() -> int:
    """aclrtSynchronizeDevice: run the queued work of every stream of the current device."""
    context = context_or_error("acl.rt.synchronize_device")
    if isinstance(context, int):
        return context
    first = OK
    for ctx in list(context.device.contexts):
        for stream in [ctx.default_stream, *ctx.streams]:
            code = finish(stream)
            first = first or code
    return first


@export("rt", "stream_query", "k")
def stream_query(stream_handle: int) -> tuple[int, int]:
    """aclrtStreamQuery: NOT_READY while work is queued (after which the work is let run), else COMPLETE."""
    stream = resolve_stream("acl.rt.stream_query", stream_handle)
    if isinstance(stream, int):
        return 0, stream
    if stream.queue:
        stream.drain()
        return int(StreamStatus.ACL_STREAM_STATUS_NOT_READY), OK
    return int(StreamStatus.ACL_STREAM_STATUS_COMPLETE), OK


def _create_event(api: str, flag: int) -> tuple[int, int]:
    context = context_or_error(api)
    if isinstance(context, int):
        return 0, context
    st = core.STATE
    event = Event(st.new_handle(), flag)
    st.register("event", event, api, event.handle)
    return event.handle, OK


@export("rt", "create_event", "")
def create_event() -> tuple[int, int]:
    """aclrtCreateEvent."""
    return _create_event("acl.rt.create_event", 0)


@export("rt", "create_event_with_flag", "I")
def create_event_with_flag(flag: int) -> tuple[int, int]:
    """aclrtCreateEventWithFlag: the flag is recorded, timing is always available."""
    return _create_event("acl.rt.create_event_with_flag", flag)


def _event(api: str, event_handle: int) -> Event | int:
    code = not_initialized(api)
    if code:
        return code
    if event_handle == 0:
        return fail(INVALID_PARAM, f"{api}: event is null")
    return core.STATE.lookup("event", event_handle, api)


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
    """aclrtRecordEvent: queue a record of the event on the stream."""
    api = "acl.rt.record_event"
    found = _event_on_stream(api, event_handle, stream_handle)
    if isinstance(found, int):
        return found
    event, stream = found

    def run() -> int:
        event.completed = True
        event.timestamp_ms = stream.device.clock_ms
        return OK

    event.completed = False
    event.stream = stream
    event.seq = stream.enqueue(Task(run, api, (), 0.0))
    return OK


@export("rt", "reset_event", "kk")
def reset_event(event_handle: int, stream_handle: int) -> int:
    """aclrtResetEvent: return the event to the not-recorded state."""
    found = _event_on_stream("acl.rt.reset_event", event_handle, stream_handle)
    if isinstance(found, int):
        return found
    event = found[0]
    event.stream, event.seq, event.completed = None, 0, False
    return OK


@export("rt", "query_event", "k")
def query_event(event_handle: int) -> tuple[int, int]:
    """aclrtQueryEvent: NOT_READY while the record is queued (after which it is let run), else COMPLETE."""
    event = _event("acl.rt.query_event", event_handle)
    if isinstance(event, int):
        return 0, event
    if event.stream is not None and not event.completed:
        event.wait()
        return int(EventStatus.ACL_EVENT_STATUS_NOT_READY), OK
    return int(EventStatus.ACL_EVENT_STATUS_COMPLETE), OK


@export("rt", "synchronize_event", "k")
def synchronize_event(event_handle: int) -> int:
    """aclrtSynchronizeEvent: wait until the event's record has run."""
    event = _event("acl.rt.synchronize_event", event_handle)
    if isinstance(event, int):
        return event
    event.wait()
    return OK


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
        if recorded_on is not None and recorded_on is not stream:
            recorded_on.drain(seq)
        return OK

    stream.enqueue(Task(run, api, (), LAUNCH_MS))
    return OK

