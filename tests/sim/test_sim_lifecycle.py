"""pyacl-api.md §2: init/finalize, devices, contexts, streams, run mode, version and events."""

import json
import threading
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest

import aclcts.sim
from aclcts.core.constants import ErrorCode, EventStatus, RunMode, StreamStatus

OK = ErrorCode.ACL_SUCCESS
INVALID_PARAM = ErrorCode.ACL_ERROR_INVALID_PARAM
RT_PARAM_INVALID = ErrorCode.ACL_ERROR_RT_PARAM_INVALID


def run_in_thread(func: Callable[[], Any]) -> Any:
    """Run func in a new thread and return its result (re-raising its exception)."""
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["value"] = func()
        except BaseException as exc:  # re-raised in the calling thread
            box["error"] = exc

    thread = threading.Thread(target=target)
    thread.start()
    thread.join(timeout=10)
    assert not thread.is_alive()
    if "error" in box:
        raise box["error"]
    return box["value"]


def device_buffer(acl: Any, data: bytes) -> int:
    """Allocate device memory holding data (synchronous H2D copy)."""
    ptr, ret = acl.rt.malloc(len(data), 0)
    assert ret == OK
    assert acl.rt.memcpy(ptr, len(data), acl.util.bytes_to_ptr(data), len(data), 1) == OK
    return ptr


def read_device(acl: Any, ptr: int, size: int) -> bytes:
    """Read size bytes of device memory through page-locked host memory (synchronous D2H copy)."""
    host, ret = acl.rt.malloc_host(size)
    assert ret == OK
    assert acl.rt.memcpy(host, size, ptr, size, 2) == OK
    data = acl.util.ptr_to_bytes(host, size)
    assert acl.rt.free_host(host) == OK
    return data


# ---------------------------------------------------------------- init / finalize


def test_init_without_config_is_0(acl):
    assert acl.init() == OK


def test_init_twice_second_is_100002(acl):
    assert acl.init() == OK
    assert acl.init() == ErrorCode.ACL_ERROR_REPEAT_INITIALIZE


def test_init_none_config_is_type_error(acl):
    with pytest.raises(TypeError, match=r"^acl\.init args parse failed$"):
        acl.init(None)


def test_init_with_config_path_is_0(acl, tmp_path):
    config = tmp_path / "acl.json"
    config.write_text(json.dumps({"max_opqueue_num": 20000}))
    assert acl.init(str(config)) == OK


def test_init_again_with_same_config_is_100002(acl, tmp_path):
    config = tmp_path / "acl.json"
    config.write_text(json.dumps({"max_opqueue_num": 20000}))
    assert acl.init(str(config)) == OK
    assert acl.init(str(config)) == ErrorCode.ACL_ERROR_REPEAT_INITIALIZE


def test_init_again_with_different_config_is_100000(acl, tmp_path):
    first = tmp_path / "first.json"
    first.write_text(json.dumps({"max_opqueue_num": 20000}))
    second = tmp_path / "second.json"
    second.write_text(json.dumps({"max_opqueue_num": 100}))
    assert acl.init(str(first)) == OK
    assert acl.init(str(second)) == INVALID_PARAM


def test_finalize_after_init_is_0(acl):
    assert acl.init() == OK
    assert acl.finalize() == OK


def test_finalize_twice_second_is_100037(acl):
    assert acl.init() == OK
    assert acl.finalize() == OK
    assert acl.finalize() == ErrorCode.ACL_ERROR_REPEAT_FINALIZE


def test_finalize_without_init_is_0(acl):
    assert acl.finalize() == OK


def test_finalize_tears_down_regardless_of_init_ref_count(acl):
    assert acl.init() == OK
    assert acl.init() == ErrorCode.ACL_ERROR_REPEAT_INITIALIZE
    assert acl.finalize() == OK
    assert acl.finalize() == ErrorCode.ACL_ERROR_REPEAT_FINALIZE


def test_finalize_reference_tears_down_only_at_last_reference(acl):
    assert acl.init() == OK
    assert acl.init() == ErrorCode.ACL_ERROR_REPEAT_INITIALIZE
    first_count, ret = acl.finalize_reference()
    assert ret == OK
    assert acl.rt.set_device(0) == OK
    assert acl.rt.reset_device(0) == OK
    second_count, ret = acl.finalize_reference()
    assert ret == OK
    assert second_count < first_count
    aclcts.sim.configure(require_init=True)
    assert acl.rt.set_device(0) == ErrorCode.ACL_ERROR_UNINITIALIZE
    _, ret = acl.finalize_reference()
    assert ret == ErrorCode.ACL_ERROR_REPEAT_FINALIZE


RT_CALLS_RETURNING_ACL_ERROR = [
    pytest.param(lambda acl: acl.rt.set_device(0), id="set_device"),
    pytest.param(lambda acl: acl.rt.get_device_count()[-1], id="get_device_count"),
    pytest.param(lambda acl: acl.rt.get_run_mode()[-1], id="get_run_mode"),
    pytest.param(lambda acl: acl.rt.create_context(0)[-1], id="create_context"),
    pytest.param(lambda acl: acl.rt.malloc(64, 0)[-1], id="malloc"),
    pytest.param(lambda acl: acl.rt.synchronize_device(), id="synchronize_device"),
]


@pytest.mark.parametrize("call", RT_CALLS_RETURNING_ACL_ERROR)
def test_rt_call_before_init_is_uninitialize_when_init_required(acl, call):
    aclcts.sim.configure(require_init=True)
    assert call(acl) == ErrorCode.ACL_ERROR_UNINITIALIZE


@pytest.mark.parametrize("call", RT_CALLS_RETURNING_ACL_ERROR)
def test_rt_call_after_finalize_is_uninitialize_when_init_required(acl, call):
    aclcts.sim.configure(require_init=True)
    assert acl.init() == OK
    assert acl.finalize() == OK
    assert call(acl) == ErrorCode.ACL_ERROR_UNINITIALIZE


def test_set_device_before_init_succeeds_when_init_not_required(acl):
    aclcts.sim.configure(require_init=False)
    assert acl.rt.set_device(0) == OK


def test_tensor_desc_before_init_needs_no_init(acl):
    aclcts.sim.configure(require_init=True)
    desc = acl.create_tensor_desc(0, [2, 3], 2)
    assert desc != 0
    assert acl.get_tensor_desc_element_count(desc) == 6
    acl.destroy_tensor_desc(desc)


# ---------------------------------------------------------------- devices


@pytest.fixture
def initialised(acl: Any) -> Iterator[Any]:
    """acl.init() done, nothing else."""
    assert acl.init() == OK
    yield acl
    acl.finalize()


@pytest.mark.parametrize(
    "device_id, expected",
    [
        pytest.param(lambda n: 0, OK, id="set_device_0_is_0"),
        pytest.param(lambda n: n - 1, OK, id="set_device_last_is_0"),
        pytest.param(lambda n: n, ErrorCode.ACL_ERROR_RT_INVALID_DEVICEID, id="set_device_count_is_107001"),
        pytest.param(lambda n: 999, ErrorCode.ACL_ERROR_RT_INVALID_DEVICEID, id="set_device_999_is_107001"),
        pytest.param(lambda n: -1, ErrorCode.ACL_ERROR_RT_INVALID_DEVICEID, id="set_device_negative_is_107001"),
    ],
)
def test_set_device_id_range(initialised, device_id, expected):
    acl = initialised
    assert acl.rt.set_device(device_id(aclcts.sim.settings().device_count)) == expected


def test_set_device_follows_device_count_setting(acl):
    aclcts.sim.configure(device_count=4)
    assert acl.init() == OK
    assert acl.rt.set_device(3) == OK
    assert acl.rt.set_device(4) == ErrorCode.ACL_ERROR_RT_INVALID_DEVICEID


def test_set_device_repeated_without_reset_is_0(initialised):
    acl = initialised
    assert acl.rt.set_device(0) == OK
    assert acl.rt.set_device(0) == OK


def test_get_device_returns_the_set_device(initialised):
    acl = initialised
    assert acl.rt.set_device(1) == OK
    assert acl.rt.get_device() == (1, OK)


@pytest.mark.parametrize("count", [1, 2, 8])
def test_get_device_count_is_device_count_setting(acl, count):
    aclcts.sim.configure(device_count=count)
    assert acl.init() == OK
    assert acl.rt.get_device_count() == (count, OK)


def test_reset_device_after_set_device_is_0(initialised):
    acl = initialised
    assert acl.rt.set_device(0) == OK
    assert acl.rt.reset_device(0) == OK


@pytest.mark.parametrize(
    "run_mode, expected",
    [
        pytest.param("host", RunMode.ACL_HOST, id="host_setting_gives_run_mode_1"),
        pytest.param("device", RunMode.ACL_DEVICE, id="device_setting_gives_run_mode_0"),
    ],
)
def test_get_run_mode_follows_setting(acl, run_mode, expected):
    aclcts.sim.configure(run_mode=run_mode)
    assert acl.init() == OK
    assert acl.rt.set_device(0) == OK
    assert acl.rt.get_run_mode() == (expected, OK)


def test_get_run_mode_default_is_host(session):
    assert aclcts.sim.settings().run_mode == "host"
    assert session.acl.rt.get_run_mode() == (RunMode.ACL_HOST, OK)


# ---------------------------------------------------------------- soc name, version, error message


@pytest.mark.parametrize("soc", ["Ascend910B1", "Ascend310P3"])
def test_get_soc_name_is_soc_name_setting(acl, soc):
    aclcts.sim.configure(soc_name=soc)
    assert acl.init() == OK
    assert acl.rt.set_device(0) == OK
    assert acl.get_soc_name() == soc


def test_get_soc_name_is_top_level_not_rt(acl):
    assert callable(acl.get_soc_name)
    assert not hasattr(acl.rt, "get_soc_name")


@pytest.mark.parametrize(
    "version, expected",
    [
        pytest.param("1.0.0", (1, 0, 0, OK), id="version_1_0_0"),
        pytest.param("2.13.7", (2, 13, 7, OK), id="version_2_13_7"),
    ],
)
def test_get_version_is_major_minor_patch_ret(acl, version, expected):
    aclcts.sim.configure(version=version)
    assert acl.init() == OK
    assert acl.get_version() == expected


def test_get_version_is_top_level_not_rt(acl):
    assert not hasattr(acl.rt, "get_version")


def test_get_recent_err_msg_is_str_or_none(session):
    _, ret = session.acl.rt.malloc(0, 0)
    assert ret == INVALID_PARAM
    msg = session.acl.get_recent_err_msg()
    assert msg is None or isinstance(msg, str)


# ---------------------------------------------------------------- contexts


def test_get_context_after_set_device_is_default_context(initialised):
    acl = initialised
    assert acl.rt.set_device(0) == OK
    context, ret = acl.rt.get_context()
    assert ret == OK
    assert context != 0


def test_create_context_makes_it_current(initialised):
    acl = initialised
    assert acl.rt.set_device(0) == OK
    default_context, _ = acl.rt.get_context()
    context, ret = acl.rt.create_context(0)
    assert ret == OK
    assert context not in (0, default_context)
    assert acl.rt.get_context() == (context, OK)
    assert acl.rt.destroy_context(context) == OK


def test_set_context_last_call_wins(initialised):
    acl = initialised
    assert acl.rt.set_device(0) == OK
    default_context, _ = acl.rt.get_context()
    first, _ = acl.rt.create_context(0)
    second, _ = acl.rt.create_context(0)
    assert acl.rt.set_context(first) == OK
    assert acl.rt.set_context(default_context) == OK
    assert acl.rt.get_context() == (default_context, OK)
    assert acl.rt.set_context(second) == OK
    assert acl.rt.get_context() == (second, OK)
    assert acl.rt.destroy_context(first) == OK
    assert acl.rt.destroy_context(second) == OK


@pytest.mark.parametrize(
    "call",
    [
        pytest.param(lambda acl: acl.rt.destroy_context(0), id="destroy_context_0_is_100000"),
        pytest.param(lambda acl: acl.rt.set_context(0), id="set_context_0_is_100000"),
    ],
)
def test_null_context_is_invalid_param(initialised, call):
    acl = initialised
    assert acl.rt.set_device(0) == OK
    assert call(acl) == INVALID_PARAM


@pytest.mark.parametrize(
    "call",
    [
        pytest.param(lambda acl: acl.rt.get_context()[-1], id="get_context"),
        pytest.param(lambda acl: acl.rt.create_stream()[-1], id="create_stream"),
        pytest.param(lambda acl: acl.rt.malloc(64, 0)[-1], id="malloc"),
        pytest.param(lambda acl: acl.rt.get_mem_info(1)[-1], id="get_mem_info"),
        pytest.param(
            lambda acl: acl.rt.memcpy(acl.util.bytes_to_ptr(bytes(8)), 8, acl.util.bytes_to_ptr(bytes(8)), 8, 0),
            id="memcpy",
        ),
    ],
)
@pytest.mark.sim_settings(default_device=None)
def test_call_without_current_context_is_no_context_code(initialised, call):
    assert call(initialised) == aclcts.sim.settings().no_context_code


@pytest.mark.sim_settings(default_device=None)
def test_create_stream_without_context_returns_handle_0(initialised):
    assert initialised.rt.create_stream() == (0, aclcts.sim.settings().no_context_code)


@pytest.mark.parametrize("create, release", [
    pytest.param(lambda acl: acl.rt.create_stream(), lambda acl, s: acl.rt.destroy_stream(s), id="create_stream"),
    pytest.param(lambda acl: acl.rt.malloc(64, 0), lambda acl, p: acl.rt.free(p), id="malloc"),
])
def test_call_without_current_context_binds_the_default_device(initialised, create, release):
    handle, ret = create(initialised)
    assert ret == OK
    assert initialised.rt.get_device() == (aclcts.sim.settings().default_device, OK)
    assert release(initialised, handle) == OK


def test_first_create_context_without_set_device_binds_default_stream(initialised):
    acl = initialised
    context, ret = acl.rt.create_context(0)
    assert ret == OK
    assert acl.rt.synchronize_stream(0) == OK
    assert acl.rt.destroy_context(context) == OK


def test_new_thread_has_no_current_context(session):
    acl = session.acl
    assert run_in_thread(lambda: acl.rt.get_context()[-1]) == aclcts.sim.settings().no_context_code
    assert acl.rt.get_context() == (session.context, OK)


def test_set_context_in_thread_is_current_only_there(session):
    acl = session.acl
    assert acl.rt.set_device(0) == OK
    default_context, _ = acl.rt.get_context()
    assert acl.rt.set_context(session.context) == OK

    def worker() -> tuple:
        assert acl.rt.set_context(default_context) == OK
        return acl.rt.get_context()

    assert run_in_thread(worker) == (default_context, OK)
    assert acl.rt.get_context() == (session.context, OK)


def test_create_context_in_thread_is_current_only_there(session):
    acl = session.acl

    def worker() -> tuple:
        context, ret = acl.rt.create_context(0)
        assert ret == OK
        current = acl.rt.get_context()
        assert acl.rt.destroy_context(context) == OK
        return context, current

    context, current = run_in_thread(worker)
    assert current == (context, OK)
    assert acl.rt.get_context() == (session.context, OK)


def test_threads_setting_same_device_share_default_context(initialised):
    acl = initialised
    assert acl.rt.set_device(0) == OK
    main_default, _ = acl.rt.get_context()

    def worker() -> tuple:
        assert acl.rt.set_device(0) == OK
        return acl.rt.get_context()

    assert run_in_thread(worker) == (main_default, OK)


def test_context_from_one_thread_usable_in_another(session):
    acl = session.acl
    data = bytes(range(64))
    ptr = device_buffer(acl, data)

    def worker() -> bytes:
        assert acl.rt.set_context(session.context) == OK
        return read_device(acl, ptr, len(data))

    assert run_in_thread(worker) == data
    assert acl.rt.free(ptr) == OK


# ---------------------------------------------------------------- streams


def test_create_stream_returns_distinct_nonzero_handles(session):
    acl = session.acl
    first, ret1 = acl.rt.create_stream()
    second, ret2 = acl.rt.create_stream()
    assert (ret1, ret2) == (OK, OK)
    assert 0 not in (first, second)
    assert len({first, second, session.stream}) == 3
    assert acl.rt.destroy_stream(first) == OK
    assert acl.rt.destroy_stream(second) == OK


def test_create_stream_with_config_returns_stream(session):
    acl = session.acl
    stream, ret = acl.rt.create_stream_with_config(0, 0)
    assert ret == OK
    assert stream != 0
    assert acl.rt.synchronize_stream(stream) == OK
    assert acl.rt.destroy_stream(stream) == OK


def test_destroy_stream_0_is_100000(session):
    assert session.acl.rt.destroy_stream(0) == INVALID_PARAM


@pytest.mark.parametrize(
    "stream_of",
    [
        pytest.param(lambda s: s.stream, id="created_stream"),
        pytest.param(lambda s: 0, id="stream_0_is_default_stream"),
    ],
)
def test_synchronize_stream_is_0(session, stream_of):
    assert session.acl.rt.synchronize_stream(stream_of(session)) == OK


def test_stream_0_is_default_stream_of_current_context(session):
    acl = session.acl
    ptr = device_buffer(acl, bytes(64))
    assert acl.rt.memset_async(ptr, 64, 0x5A, 64, 0) == OK
    assert acl.rt.synchronize_stream(0) == OK
    assert read_device(acl, ptr, 64) == b"\x5a" * 64
    assert acl.rt.free(ptr) == OK


def test_ctx_get_current_default_stream_returns_stream_and_0(session):
    stream, ret = session.acl.rt.ctx_get_current_default_stream()
    assert ret == OK
    assert isinstance(stream, int)


@pytest.mark.parametrize(
    "timeout, expected",
    [
        pytest.param(0, RT_PARAM_INVALID, id="timeout_0_is_107000"),
        pytest.param(-2, RT_PARAM_INVALID, id="timeout_minus_2_is_107000"),
        pytest.param(-1000, RT_PARAM_INVALID, id="timeout_minus_1000_is_107000"),
        pytest.param(-1, OK, id="timeout_minus_1_waits_forever"),
        pytest.param(1, OK, id="timeout_1_ms_is_0"),
        pytest.param(5000, OK, id="timeout_5000_ms_is_0"),
    ],
)
def test_synchronize_stream_with_timeout(session, timeout, expected):
    assert session.acl.rt.synchronize_stream_with_timeout(session.stream, timeout) == expected


def test_synchronize_device_is_0(session):
    assert session.acl.rt.synchronize_device() == OK


def test_stream_query_of_idle_stream_is_complete(session):
    assert session.acl.rt.stream_query(session.stream) == (StreamStatus.ACL_STREAM_STATUS_COMPLETE, OK)


# ---------------------------------------------------------------- events


@pytest.fixture
def event(session: Any) -> Iterator[int]:
    """An event created in the session."""
    handle, ret = session.acl.rt.create_event()
    assert ret == OK
    assert handle != 0
    yield handle
    session.acl.rt.destroy_event(handle)


def test_create_and_destroy_event_are_0(session):
    event, ret = session.acl.rt.create_event()
    assert ret == OK
    assert event != 0
    assert session.acl.rt.destroy_event(event) == OK


def test_record_then_synchronize_event_is_0(session, event):
    acl = session.acl
    assert acl.rt.record_event(event, session.stream) == OK
    assert acl.rt.synchronize_event(event) == OK
    assert acl.rt.query_event(event) == (EventStatus.ACL_EVENT_STATUS_COMPLETE, OK)


def test_record_event_on_default_stream_is_0(session, event):
    acl = session.acl
    assert acl.rt.record_event(event, 0) == OK
    assert acl.rt.synchronize_event(event) == OK


def test_reset_event_is_0(session, event):
    acl = session.acl
    assert acl.rt.record_event(event, session.stream) == OK
    assert acl.rt.synchronize_stream(session.stream) == OK
    assert acl.rt.reset_event(event, session.stream) == OK


def test_event_elapsed_time_is_nonnegative_float_ms(session):
    acl = session.acl
    start, _ = acl.rt.create_event()
    end, _ = acl.rt.create_event()
    assert acl.rt.record_event(start, session.stream) == OK
    assert acl.rt.record_event(end, session.stream) == OK
    assert acl.rt.synchronize_event(end) == OK
    ms, ret = acl.rt.event_elapsed_time(start, end)
    assert ret == OK
    assert isinstance(ms, float)
    assert ms >= 0.0
    assert acl.rt.destroy_event(start) == OK
    assert acl.rt.destroy_event(end) == OK


def test_query_event_reports_not_ready_then_complete(session, event):
    acl = session.acl
    ptr = device_buffer(acl, bytes(64))
    assert acl.rt.memset_async(ptr, 64, 1, 64, session.stream) == OK
    assert acl.rt.record_event(event, session.stream) == OK
    statuses = []
    for _ in range(100):
        status, ret = acl.rt.query_event(event)
        assert ret == OK
        statuses.append(status)
        if status == EventStatus.ACL_EVENT_STATUS_COMPLETE:
            break
    assert statuses[0] == EventStatus.ACL_EVENT_STATUS_NOT_READY
    assert statuses[-1] == EventStatus.ACL_EVENT_STATUS_COMPLETE
    assert read_device(acl, ptr, 64) == b"\x01" * 64
    assert acl.rt.free(ptr) == OK


def test_synchronize_event_runs_work_recorded_before_it(session, event):
    acl = session.acl
    ptr = device_buffer(acl, bytes(64))
    assert acl.rt.memset_async(ptr, 64, 7, 64, session.stream) == OK
    assert acl.rt.record_event(event, session.stream) == OK
    assert acl.rt.synchronize_event(event) == OK
    assert read_device(acl, ptr, 64) == b"\x07" * 64
    assert acl.rt.free(ptr) == OK


def test_stream_wait_event_is_0(session, event):
    acl = session.acl
    other, _ = acl.rt.create_stream()
    assert acl.rt.record_event(event, session.stream) == OK
    assert acl.rt.stream_wait_event(other, event) == OK
    assert acl.rt.synchronize_stream(other) == OK
    assert acl.rt.destroy_stream(other) == OK


def test_stream_wait_event_orders_work_across_streams(session, event):
    acl = session.acl
    producer = session.stream
    consumer, _ = acl.rt.create_stream()
    src = device_buffer(acl, bytes(64))
    dst = device_buffer(acl, bytes(64))
    assert acl.rt.memset_async(src, 64, 0xAB, 64, producer) == OK
    assert acl.rt.record_event(event, producer) == OK
    assert acl.rt.stream_wait_event(consumer, event) == OK
    assert acl.rt.memcpy_async(dst, 64, src, 64, 3, consumer) == OK
    assert acl.rt.synchronize_stream(consumer) == OK
    assert read_device(acl, dst, 64) == b"\xab" * 64
    assert acl.rt.synchronize_stream(producer) == OK
    assert acl.rt.destroy_stream(consumer) == OK
    assert acl.rt.free(src) == OK
    assert acl.rt.free(dst) == OK


# ---------------------------------------------------------------- binding level (§1) for these functions


@pytest.mark.parametrize(
    "call, message",
    [
        pytest.param(lambda acl, s: acl.rt.set_device(), "acl.rt.set_device", id="set_device_no_args"),
        pytest.param(lambda acl, s: acl.rt.set_device(None), "acl.rt.set_device", id="set_device_none"),
        pytest.param(lambda acl, s: acl.rt.set_device(2**40), "acl.rt.set_device", id="set_device_out_of_int32"),
        pytest.param(lambda acl, s: acl.rt.set_device(0, 1), "acl.rt.set_device", id="set_device_two_args"),
        pytest.param(lambda acl, s: acl.rt.create_context("0"), "acl.rt.create_context", id="create_context_str"),
        pytest.param(lambda acl, s: acl.rt.destroy_stream(None), "acl.rt.destroy_stream", id="destroy_stream_none"),
        pytest.param(lambda acl, s: acl.rt.synchronize_stream(np.int64(s)), "acl.rt.synchronize_stream",
                     id="synchronize_stream_numpy_int64_rejected_for_k"),
        pytest.param(lambda acl, s: acl.rt.synchronize_stream_with_timeout(s, 2**31),
                     "acl.rt.synchronize_stream_with_timeout", id="timeout_out_of_int32"),
        pytest.param(lambda acl, s: acl.rt.record_event(s), "acl.rt.record_event", id="record_event_one_arg"),
        pytest.param(lambda acl, s: acl.init(b"cfg.json"), "acl.init", id="init_bytes_path"),
    ],
)
def test_binding_parse_failure_is_type_error(session, call, message):
    with pytest.raises(TypeError) as info:
        call(session.acl, session.stream)
    assert str(info.value) == f"{message} args parse failed"


@pytest.mark.parametrize(
    "call",
    [
        pytest.param(lambda acl, s: acl.rt.set_device(device_id=0), id="set_device_keyword"),
        pytest.param(lambda acl, s: acl.rt.synchronize_stream(stream=s), id="synchronize_stream_keyword"),
        pytest.param(lambda acl, s: acl.init(config_path="x.json"), id="init_keyword"),
    ],
)
def test_keywords_are_rejected_with_type_error(session, call):
    with pytest.raises(TypeError):
        call(session.acl, session.stream)


def test_set_device_accepts_numpy_int_for_i(session):
    assert session.acl.rt.set_device(np.int32(0)) == OK


def test_synchronize_stream_accepts_bool_for_k(session):
    assert session.acl.rt.synchronize_stream(False) == OK


@pytest.mark.parametrize(
    "value",
    [
        pytest.param(lambda acl: acl.rt.set_device(0), id="set_device_ret_is_bare_int"),
        pytest.param(lambda acl: acl.rt.synchronize_device(), id="synchronize_device_ret_is_bare_int"),
    ],
)
def test_ret_only_calls_return_bare_int(session, value):
    result = value(session.acl)
    assert type(result) is int


@pytest.mark.parametrize(
    "value, length",
    [
        pytest.param(lambda acl: acl.rt.get_device(), 2, id="get_device_is_pair"),
        pytest.param(lambda acl: acl.rt.get_run_mode(), 2, id="get_run_mode_is_pair"),
        pytest.param(lambda acl: acl.rt.create_stream(), 2, id="create_stream_is_pair"),
        pytest.param(lambda acl: acl.get_version(), 4, id="get_version_is_4_tuple"),
    ],
)
def test_out_parameter_calls_return_tuple_with_ret_last(session, value, length):
    result = value(session.acl)
    assert type(result) is tuple
    assert len(result) == length
    assert result[-1] == OK
    assert all(type(item) is int for item in result)
