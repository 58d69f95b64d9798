"""acl.init/finalize, acl.rt devices, run mode and contexts with their default streams
(docs/contract/init-device-context-stream.md)."""

from __future__ import annotations

import json

from aclcts.core.constants import ErrorCode, RunMode
from aclcts.core.inputs import MAX_JSON_BYTES, InputFileError, read_bytes
from aclcts.sim import core
from aclcts.sim.core import INVALID_PARAM, OK, RT_PARAM_INVALID, export, fail, not_initialized
from aclcts.sim.errors import warn
from aclcts.sim.state import Context, Device
from aclcts.sim.streams import Stream

INVALID_DEVICEID = int(ErrorCode.ACL_ERROR_RT_INVALID_DEVICEID)
STREAM_CONTEXT = int(ErrorCode.ACL_ERROR_RT_STREAM_CONTEXT)
REPEAT_INITIALIZE = int(ErrorCode.ACL_ERROR_REPEAT_INITIALIZE)
REPEAT_FINALIZE = int(ErrorCode.ACL_ERROR_REPEAT_FINALIZE)
USER_KINDS = ("stream", "context", "event", "device_mem", "dvpp_mem")
ALL_KINDS = ("desc", "buffer", "attr", "handle", "stream", "context", "event", "device_mem", "dvpp_mem", "host_mem")


def _read_config(path: str) -> bytes | int:
    try:
        content = read_bytes(path, "acl.init config", MAX_JSON_BYTES)
    except InputFileError as exc:
        return fail(int(ErrorCode.ACL_ERROR_INVALID_FILE), f"acl.init: {exc}")
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


def new_stream(context: Context, call: str, is_default: bool) -> Stream:
    """A new stream in context: its default stream, or a tracked stream the user created."""
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
    context.default_stream = new_stream(context, call, True)
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


def drop_stream(stream: Stream, call: str) -> None:
    """Run a stream's queued work, then destroy it."""
    st = core.STATE
    stream.drain()
    stream.destroyed_by = call
    st.release(stream.handle, call)


def _drop_context(context: Context, call: str) -> None:
    st = core.STATE
    for stream in list(context.streams):
        drop_stream(stream, call)
    context.streams.clear()
    drop_stream(context.default_stream, call)
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
    """The calling thread's current context, the default device's context if it never set one, or an error code
    (its current context was destroyed: no fallback, as get_context says)."""
    code = not_initialized(api)
    if code:
        return code
    st = core.STATE
    context = st.current_context()
    if context is None and st.context_lost():
        return fail(st.settings.no_context_code, f"{api}: the calling thread's current context was destroyed "
                                                 "(set_context or set_device to choose another)")
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
        st.lose_current_context()
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
