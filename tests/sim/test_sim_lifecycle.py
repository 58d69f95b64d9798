"""The simulator's device settings and strictness (the contract of devices, contexts and streams:
conformance/test_sync.py): require_init, device_count, run_mode, soc_name, version, the no-context code, the
default device, finalize_reference (UNCONFIRMED in 9.0.0) and the event that is not ready until a synchronisation."""

from collections.abc import Iterator
from typing import Any

import pytest

import aclcts.sim
from aclcts.core.constants import ErrorCode, EventStatus, RunMode

OK = ErrorCode.ACL_SUCCESS


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


def test_set_device_follows_device_count_setting(acl):
    aclcts.sim.configure(device_count=4)
    assert acl.init() == OK
    assert acl.rt.set_device(3) == OK
    assert acl.rt.set_device(4) == ErrorCode.ACL_ERROR_RT_INVALID_DEVICEID


@pytest.mark.parametrize("count", [1, 2, 8])
def test_get_device_count_is_device_count_setting(acl, count):
    aclcts.sim.configure(device_count=count)
    assert acl.init() == OK
    assert acl.rt.get_device_count() == (count, OK)


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


# ---------------------------------------------------------------- contexts


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


# ---------------------------------------------------------------- events


@pytest.fixture
def event(session: Any) -> Iterator[int]:
    """An event created in the session."""
    handle, ret = session.acl.rt.create_event()
    assert ret == OK
    assert handle != 0
    yield handle
    session.acl.rt.destroy_event(handle)


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
