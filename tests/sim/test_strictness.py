"""simapi.md strictness: SimMisuseError for crashing misuse, invalid frees, live-object tracking and leak warnings."""

import warnings
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

import aclcts.sim
from aclcts.core.constants import ErrorCode, MemcpyKind

OK = ErrorCode.ACL_SUCCESS
H2D = MemcpyKind.ACL_MEMCPY_HOST_TO_DEVICE
D2H = MemcpyKind.ACL_MEMCPY_DEVICE_TO_HOST
D2D = MemcpyKind.ACL_MEMCPY_DEVICE_TO_DEVICE
SimMisuseError = aclcts.sim.SimMisuseError
SimWarning = aclcts.sim.SimWarning
THIS_FILE = "test_strictness.py"


def malloc(acl: Any, size: int) -> int:
    """acl.rt.malloc that must succeed."""
    ptr, ret = acl.rt.malloc(size, 0)
    assert ret == OK
    return ptr


def malloc_host(acl: Any, size: int) -> int:
    """acl.rt.malloc_host that must succeed."""
    ptr, ret = acl.rt.malloc_host(size)
    assert ret == OK
    return ptr


# ---------------------------------------------------------------- host access to device pointers


HOST_ACCESSES = [
    pytest.param(lambda acl, ptr: acl.util.ptr_to_bytes(ptr, 64), "ptr_to_bytes", id="ptr_to_bytes"),
    pytest.param(lambda acl, ptr: acl.util.ptr_to_numpy(ptr, (64,), 2), "ptr_to_numpy", id="ptr_to_numpy"),
    pytest.param(
        lambda acl, ptr: acl.set_tensor_const(acl.create_tensor_desc(4, [64], 2), ptr, 64),
        "set_tensor_const",
        id="set_tensor_const",
    ),
]


@pytest.mark.sim_settings(run_mode="host")
@pytest.mark.parametrize("access, api", HOST_ACCESSES)
def test_host_access_to_device_pointer_in_host_mode_is_misuse(session, access, api):
    ptr = malloc(session.acl, 64)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", Warning)
        with pytest.raises(SimMisuseError, match=api):
            access(session.acl, ptr)


def device_mode_session(acl: Any) -> int:
    """init + set_device(0) in device run mode; return a device pointer holding bytes 0x5A."""
    aclcts.sim.configure(run_mode="device")
    assert acl.init() == OK
    assert acl.rt.set_device(0) == OK
    ptr = malloc(acl, 64)
    assert acl.rt.memset(ptr, 64, 0x5A, 64) == OK
    return ptr


def test_ptr_to_bytes_of_device_pointer_in_device_mode_reads_memory(acl):
    ptr = device_mode_session(acl)
    assert acl.util.ptr_to_bytes(ptr, 64) == b"\x5a" * 64


def test_ptr_to_numpy_of_device_pointer_in_device_mode_is_view(acl):
    ptr = device_mode_session(acl)
    with pytest.warns(Warning):
        array = acl.util.ptr_to_numpy(ptr, (64,), 2)
    assert array.tolist() == [0x5A] * 64


def test_set_tensor_const_from_device_pointer_in_device_mode_is_0(acl):
    ptr = device_mode_session(acl)
    desc = acl.create_tensor_desc(4, [64], 2)
    assert acl.set_tensor_const(desc, ptr, 64) == OK
    acl.destroy_tensor_desc(desc)


# ---------------------------------------------------------------- out of bounds


@pytest.fixture
def buffers(session: Any) -> Iterator[tuple[int, int, int, int]]:
    """A 64-byte device allocation, a 4096-byte device allocation and a 64-byte malloc_host block."""
    acl = session.acl
    small = malloc(acl, 64)
    big = malloc(acl, 4096)
    host = malloc_host(acl, 64)
    big_host = malloc_host(acl, 4096)
    yield small, big, host, big_host
    for ptr in (small, big):
        acl.rt.free(ptr)
    for ptr in (host, big_host):
        acl.rt.free_host(ptr)


OUT_OF_BOUNDS = [
    pytest.param(lambda acl, s, b, h, bh: acl.rt.memcpy(s, 4096, b, 4096, D2D), "memcpy",
                 id="memcpy_d2d_past_device_allocation"),
    pytest.param(lambda acl, s, b, h, bh: acl.rt.memcpy(b, 4096, s, 4096, D2D), "memcpy",
                 id="memcpy_d2d_reading_past_device_allocation"),
    pytest.param(lambda acl, s, b, h, bh: acl.rt.memcpy(s + 32, 4096, bh, 1024, H2D), "memcpy",
                 id="memcpy_h2d_interior_pointer_past_end"),
    pytest.param(lambda acl, s, b, h, bh: acl.rt.memcpy(h, 4096, b, 4096, D2H), "memcpy",
                 id="memcpy_d2h_past_malloc_host_block"),
    pytest.param(lambda acl, s, b, h, bh: acl.rt.memcpy(b, 4096, h, 4096, H2D), "memcpy",
                 id="memcpy_h2d_reading_past_malloc_host_block"),
    pytest.param(lambda acl, s, b, h, bh: acl.rt.memset(s, 4096, 0, 4096), "memset",
                 id="memset_past_device_allocation"),
    pytest.param(lambda acl, s, b, h, bh: acl.rt.memset(h, 4096, 0, 4096), "memset",
                 id="memset_past_malloc_host_block"),
]


@pytest.mark.parametrize("copy, api", OUT_OF_BOUNDS)
def test_copy_past_end_of_allocation_is_misuse(session, buffers, copy, api):
    with pytest.raises(SimMisuseError, match=api):
        copy(session.acl, *buffers)


ASYNC_OUT_OF_BOUNDS = [
    pytest.param(lambda acl, st, s, b, h, bh: acl.rt.memcpy_async(s, 4096, b, 4096, D2D, st),
                 id="memcpy_async_past_device_allocation"),
    pytest.param(lambda acl, st, s, b, h, bh: acl.rt.memcpy_async(bh, 4096, s, 4096, D2H, st),
                 id="memcpy_async_reading_past_device_allocation"),
    pytest.param(lambda acl, st, s, b, h, bh: acl.rt.memcpy_async(h, 4096, b, 4096, D2H, st),
                 id="memcpy_async_past_malloc_host_block"),
    pytest.param(lambda acl, st, s, b, h, bh: acl.rt.memset_async(s, 4096, 0, 4096, st),
                 id="memset_async_past_device_allocation"),
]


@pytest.mark.parametrize("copy", ASYNC_OUT_OF_BOUNDS)
def test_async_copy_past_end_of_allocation_is_misuse(session, buffers, copy):
    with pytest.raises(SimMisuseError):
        copy(session.acl, session.stream, *buffers)
        session.acl.rt.synchronize_stream(session.stream)


# ---------------------------------------------------------------- use after free


USES_OF_FREED_DEVICE_MEMORY = [
    pytest.param(lambda acl, f, live, host: acl.rt.memcpy(f, 64, host, 64, H2D), "memcpy",
                 id="memcpy_into_freed"),
    pytest.param(lambda acl, f, live, host: acl.rt.memcpy(host, 64, f, 64, D2H), "memcpy",
                 id="memcpy_from_freed"),
    pytest.param(lambda acl, f, live, host: acl.rt.memcpy(live, 64, f, 64, D2D), "memcpy",
                 id="memcpy_d2d_from_freed"),
    pytest.param(lambda acl, f, live, host: acl.rt.memset(f, 64, 0, 64), "memset", id="memset_freed"),
]


@pytest.mark.parametrize("use, api", USES_OF_FREED_DEVICE_MEMORY)
def test_use_of_freed_device_memory_is_misuse(session, use, api):
    acl = session.acl
    freed = malloc(acl, 64)
    live = malloc(acl, 64)
    host = malloc_host(acl, 64)
    assert acl.rt.free(freed) == OK
    with pytest.raises(SimMisuseError, match=api):
        use(acl, freed, live, host)
    assert acl.rt.free(live) == OK
    assert acl.rt.free_host(host) == OK


def test_use_of_long_freed_device_memory_is_still_misuse_and_the_bookkeeping_stays_bounded(session):
    from aclcts.sim import core
    from aclcts.sim.memory import FREED_DEVICE_KEPT

    acl = session.acl
    host = malloc_host(acl, 64)
    oldest = malloc(acl, 64)
    assert acl.rt.free(oldest) == OK
    memory = core.STATE.memory
    for size in (64, 128 << 10) * FREED_DEVICE_KEPT:
        assert acl.rt.free(malloc(acl, size)) == OK
    newest = malloc(acl, 64)
    assert acl.rt.free(newest) == OK
    assert len(memory.device_starts) == len(memory.device_regions) == FREED_DEVICE_KEPT + len(
        memory.live_device_regions())
    assert memory.device_starts == sorted(memory.device_starts)
    with pytest.raises(SimMisuseError, match="points into freed memory"):
        acl.rt.memcpy(host, 64, newest, 64, D2H)
    with pytest.raises(SimMisuseError, match="does not point into any device allocation"):
        acl.rt.memcpy(host, 64, oldest, 64, D2H)
    assert acl.rt.free_host(host) == OK


def test_use_of_a_long_destroyed_handle_is_still_misuse_and_the_bookkeeping_stays_bounded(session):
    from aclcts.sim import core
    from aclcts.sim.tracking import RELEASED_KEPT

    acl = session.acl
    oldest = acl.create_tensor_desc(4, [8], 2)
    acl.destroy_tensor_desc(oldest)
    for _ in range(RELEASED_KEPT):
        acl.destroy_tensor_desc(acl.create_tensor_desc(4, [8], 2))
    newest = acl.op.create_attr()
    acl.op.destroy_attr(newest)
    assert len(core.STATE.tracker.released) == RELEASED_KEPT
    with pytest.raises(SimMisuseError, match="already destroyed .a attr released by acl.op.destroy_attr"):
        acl.op.set_attr_int(newest, "n", 1)
    with pytest.raises(SimMisuseError, match="not a desc handle created by this process"):
        acl.get_tensor_desc_num_dims(oldest)


def test_async_use_of_freed_device_memory_is_misuse(session):
    acl = session.acl
    freed = malloc(acl, 64)
    live = malloc(acl, 64)
    assert acl.rt.free(freed) == OK
    with pytest.raises(SimMisuseError):
        acl.rt.memcpy_async(live, 64, freed, 64, D2D, session.stream)
        acl.rt.synchronize_stream(session.stream)
    assert acl.rt.free(live) == OK


def test_freeing_memory_used_by_queued_work_is_misuse(session):
    acl = session.acl
    src = malloc(acl, 64)
    dst = malloc(acl, 64)
    assert acl.rt.memcpy_async(dst, 64, src, 64, D2D, session.stream) == OK
    with pytest.raises(SimMisuseError):
        acl.rt.free(src)
        acl.rt.synchronize_stream(session.stream)


def test_use_of_freed_host_memory_is_misuse(session):
    acl = session.acl
    host = malloc_host(acl, 64)
    dev = malloc(acl, 64)
    assert acl.rt.free_host(host) == OK
    with pytest.raises(SimMisuseError, match="memcpy"):
        acl.rt.memcpy(host, 64, dev, 64, D2H)
    assert acl.rt.free(dev) == OK


def test_ptr_to_bytes_of_freed_device_memory_in_device_mode_is_misuse(acl):
    ptr = device_mode_session(acl)
    assert acl.rt.free(ptr) == OK
    with pytest.raises(SimMisuseError, match="ptr_to_bytes"):
        acl.util.ptr_to_bytes(ptr, 64)


@pytest.mark.parametrize(
    "work",
    [
        pytest.param(lambda acl, s, p: acl.rt.memset_async(p, 64, 0, 64, s), id="memset_async_on_destroyed_stream"),
        pytest.param(lambda acl, s, p: acl.rt.memcpy_async(p, 64, p + 64, 64, D2D, s),
                     id="memcpy_async_on_destroyed_stream"),
    ],
)
def test_work_on_destroyed_stream_is_misuse(session, work):
    acl = session.acl
    stream, _ = acl.rt.create_stream()
    ptr = malloc(acl, 128)
    assert acl.rt.destroy_stream(stream) == OK
    with pytest.raises(SimMisuseError):
        work(acl, stream, ptr)
        acl.rt.synchronize_device()
    assert acl.rt.free(ptr) == OK


# ---------------------------------------------------------------- invalid frees


def invalid_free_cases() -> list:
    """Builders returning the ret of an invalid free (of an unknown, interior or already-freed pointer)."""

    def double_free(acl: Any) -> int:
        ptr = malloc(acl, 64)
        assert acl.rt.free(ptr) == OK
        return acl.rt.free(ptr)

    def interior_free(acl: Any) -> int:
        ptr = malloc(acl, 256)
        ret = acl.rt.free(ptr + 64)
        assert acl.rt.free(ptr) == OK
        return ret

    def unknown_device_free(acl: Any) -> int:
        return acl.rt.free(2**60 + 64 * 12345)

    def free_of_host_block(acl: Any) -> int:
        host = malloc_host(acl, 64)
        ret = acl.rt.free(host)
        assert acl.rt.free_host(host) == OK
        return ret

    def double_free_host(acl: Any) -> int:
        host = malloc_host(acl, 64)
        assert acl.rt.free_host(host) == OK
        return acl.rt.free_host(host)

    def interior_free_host(acl: Any) -> int:
        host = malloc_host(acl, 256)
        ret = acl.rt.free_host(host + 64)
        assert acl.rt.free_host(host) == OK
        return ret

    def free_host_of_device_memory(acl: Any) -> int:
        ptr = malloc(acl, 64)
        ret = acl.rt.free_host(ptr)
        assert acl.rt.free(ptr) == OK
        return ret

    def free_host_of_python_bytes(acl: Any) -> int:
        data = bytes(64)
        return acl.rt.free_host(acl.util.bytes_to_ptr(data))

    return [
        pytest.param(double_free, id="double_free_is_invalid_free_code"),
        pytest.param(interior_free, id="interior_free_is_invalid_free_code"),
        pytest.param(unknown_device_free, id="unknown_pointer_free_is_invalid_free_code"),
        pytest.param(free_of_host_block, id="free_of_malloc_host_block_is_invalid_free_code"),
        pytest.param(double_free_host, id="double_free_host_is_invalid_free_code"),
        pytest.param(interior_free_host, id="interior_free_host_is_invalid_free_code"),
        pytest.param(free_host_of_device_memory, id="free_host_of_device_pointer_is_invalid_free_code"),
        pytest.param(free_host_of_python_bytes, id="free_host_of_unknown_host_pointer_is_invalid_free_code"),
    ]


@pytest.mark.parametrize("free", invalid_free_cases())
def test_invalid_free(session, free):
    assert free(session.acl) == aclcts.sim.settings().invalid_free_code


@pytest.mark.parametrize(
    "code",
    [
        pytest.param(c, id=f"invalid_free_code_{c}", marks=pytest.mark.sim_settings(invalid_free_code=c))
        for c in (ErrorCode.ACL_ERROR_RT_MEMORY_FREE, ErrorCode.ACL_ERROR_INVALID_PARAM)
    ],
)
def test_invalid_free_code_follows_setting(session, code):
    assert aclcts.sim.settings().invalid_free_code == code
    ptr = malloc(session.acl, 64)
    assert session.acl.rt.free(ptr) == OK
    assert session.acl.rt.free(ptr) == code


def test_invalid_free_default_is_207002():
    assert aclcts.sim.settings().invalid_free_code == ErrorCode.ACL_ERROR_RT_MEMORY_FREE


# ---------------------------------------------------------------- live objects


def live_handles(kind: str) -> set[int]:
    """Handles of the live objects of one kind."""
    return {obj.handle for obj in aclcts.sim.live_objects(kind)}


LIVE_KINDS = [
    pytest.param("device_mem", lambda acl: malloc(acl, 64), lambda acl, h: acl.rt.free(h), id="device_mem"),
    pytest.param("host_mem", lambda acl: malloc_host(acl, 64), lambda acl, h: acl.rt.free_host(h), id="host_mem"),
    pytest.param("stream", lambda acl: acl.rt.create_stream()[0], lambda acl, h: acl.rt.destroy_stream(h),
                 id="stream"),
    pytest.param("event", lambda acl: acl.rt.create_event()[0], lambda acl, h: acl.rt.destroy_event(h), id="event"),
    pytest.param("context", lambda acl: acl.rt.create_context(0)[0], lambda acl, h: acl.rt.destroy_context(h),
                 id="context"),
    pytest.param("desc", lambda acl: acl.create_tensor_desc(0, [2], 2), lambda acl, h: acl.destroy_tensor_desc(h),
                 id="desc"),
    pytest.param("buffer", lambda acl: acl.create_data_buffer(0, 0), lambda acl, h: acl.destroy_data_buffer(h),
                 id="buffer"),
    pytest.param("attr", lambda acl: acl.op.create_attr(), lambda acl, h: acl.op.destroy_attr(h), id="attr"),
]


@pytest.mark.parametrize("kind, create, destroy", LIVE_KINDS)
def test_live_objects_lists_object_until_destroyed(session, kind, create, destroy):
    acl = session.acl
    before = live_handles(kind)
    handle = create(acl)
    assert handle != 0
    assert live_handles(kind) - before == {handle}
    (obj,) = [o for o in aclcts.sim.live_objects(kind) if o.handle == handle]
    assert obj.kind == kind
    assert THIS_FILE in obj.created_at
    assert obj in aclcts.sim.live_objects()
    destroy(acl, handle)
    assert live_handles(kind) == before
    if kind == "context":
        assert acl.rt.set_context(session.context) == OK


def test_live_objects_names_the_creating_call(session):
    ptr = malloc(session.acl, 64)
    (obj,) = [o for o in aclcts.sim.live_objects("device_mem") if o.handle == ptr]
    assert "malloc" in obj.created_at
    assert session.acl.rt.free(ptr) == OK


def test_live_objects_of_session_are_stream_and_context(session):
    assert session.stream in live_handles("stream")
    assert session.context in live_handles("context")


def test_live_objects_empty_after_reset(session):
    malloc(session.acl, 64)
    aclcts.sim.reset()
    assert aclcts.sim.live_objects() == []


# ---------------------------------------------------------------- leak warnings


def test_device_memory_alive_at_reset_device_warns(acl):
    assert acl.init() == OK
    assert acl.rt.set_device(0) == OK
    malloc(acl, 64)
    with pytest.warns(SimWarning, match="device_mem|alive"):
        assert acl.rt.reset_device(0) == OK


def test_stream_alive_at_reset_device_warns(acl):
    assert acl.init() == OK
    assert acl.rt.set_device(0) == OK
    acl.rt.create_stream()
    with pytest.warns(SimWarning):
        assert acl.rt.reset_device(0) == OK


def test_desc_alive_at_finalize_warns(acl):
    assert acl.init() == OK
    acl.create_tensor_desc(0, [2], 2)
    with pytest.warns(SimWarning, match=THIS_FILE):
        assert acl.finalize() == OK


def test_host_memory_alive_at_finalize_warns(acl):
    assert acl.init() == OK
    assert acl.rt.set_device(0) == OK
    malloc_host(acl, 64)
    with pytest.warns(SimWarning):
        acl.rt.reset_device(0)
        assert acl.finalize() == OK


def test_clean_teardown_does_not_warn(acl):
    with warnings.catch_warnings():
        warnings.simplefilter("error", SimWarning)
        assert acl.init() == OK
        assert acl.rt.set_device(0) == OK
        context, _ = acl.rt.create_context(0)
        stream, _ = acl.rt.create_stream()
        ptr = malloc(acl, 64)
        host = malloc_host(acl, 64)
        desc = acl.create_tensor_desc(0, [2], 2)
        assert acl.rt.memcpy(host, 64, ptr, 64, D2H) == OK
        acl.destroy_tensor_desc(desc)
        assert acl.rt.free_host(host) == OK
        assert acl.rt.free(ptr) == OK
        assert acl.rt.destroy_stream(stream) == OK
        assert acl.rt.destroy_context(context) == OK
        assert acl.rt.reset_device(0) == OK
        assert acl.finalize() == OK
    assert aclcts.sim.live_objects() == []


def test_leak_at_finalize_warns_exactly_once(acl):
    assert acl.init() == OK
    assert acl.rt.set_device(0) == OK
    malloc(acl, 64)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert acl.finalize() == OK
    assert [issubclass(w.category, SimWarning) for w in caught] == [True]


def test_leak_at_reset_device_warns_exactly_once(acl):
    assert acl.init() == OK
    assert acl.rt.set_device(0) == OK
    malloc(acl, 64)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert acl.rt.reset_device(0) == OK
    assert [issubclass(w.category, SimWarning) for w in caught] == [True]


def test_reset_device_releases_streams_of_default_context(acl):
    assert acl.init() == OK
    assert acl.rt.set_device(0) == OK
    stream, _ = acl.rt.create_stream()
    assert stream in live_handles("stream")
    with pytest.warns(SimWarning):
        assert acl.rt.reset_device(0) == OK
    assert stream not in live_handles("stream")


@pytest.mark.parametrize("kind", ["device_mem", "stream", "context"])
def test_finalize_tears_down_runtime_objects(acl, kind):
    assert acl.init() == OK
    assert acl.rt.set_device(0) == OK
    acl.rt.create_context(0)
    acl.rt.create_stream()
    malloc(acl, 64)
    assert live_handles(kind)
    with pytest.warns(SimWarning):
        assert acl.finalize() == OK
    assert live_handles(kind) == set()


# ---------------------------------------------------------------- host memory as op data, by run mode


def _add_on_host_memory(acl: Any, stream: int, tmp_path: Any) -> bytes:
    """Execute Add int32 [4] with inputs and output in malloc_host memory; the output's bytes."""
    from aclcts.atc import compile_elements

    tensor = {"format": "ND", "shape": [4], "type": "int32"}
    result = compile_elements([{"op": "Add", "name": "add", "input_desc": [tensor, tensor], "output_desc": [tensor]}],
                              tmp_path, acl.get_soc_name())
    model = result.written[0].read_bytes()
    assert acl.op.load(acl.util.bytes_to_ptr(model), len(model)) == OK
    x = bytes(range(16))
    pointers = [malloc_host(acl, 16) for _ in range(3)]
    for ptr in pointers[:2]:
        assert acl.rt.memcpy(ptr, 16, acl.util.bytes_to_ptr(x), 16, MemcpyKind.ACL_MEMCPY_HOST_TO_HOST) == OK
    descs = [acl.create_tensor_desc(3, [4], 2) for _ in range(3)]
    buffers = [acl.create_data_buffer(ptr, 16) for ptr in pointers]
    assert acl.op.execute_v2("Add", descs[:2], buffers[:2], descs[2:], buffers[2:], 0, stream) == OK
    assert acl.rt.synchronize_stream(stream) == OK
    return acl.util.ptr_to_bytes(pointers[2], 16)


@pytest.mark.sim_settings(run_mode="device")
def test_in_device_run_mode_malloc_host_memory_is_device_memory_for_ops(session, tmp_path):
    # Ascend RC form: host and device are one, and aclrtMallocHost allocates device memory.
    out = np.frombuffer(_add_on_host_memory(session.acl, session.stream, tmp_path), np.int32)
    np.testing.assert_array_equal(out, 2 * np.frombuffer(bytes(range(16)), np.int32))


def test_in_host_run_mode_malloc_host_memory_is_refused_as_op_data(session, tmp_path):
    with pytest.raises(SimMisuseError, match="is host memory; op inputs and outputs live in device memory"):
        _add_on_host_memory(session.acl, session.stream, tmp_path)
