"""Every pointer the simulator touches is checked first: a wild, stale or read-only one is a SimMisuseError naming the
call, never a SIGSEGV; overlapping copies are refused and a kind contradicting the pointers is named (issue 37)."""

import ctypes
import mmap
from typing import Any

import numpy as np
import pytest

import aclcts.sim
from aclcts.core.constants import MemcpyKind, MemMallocPolicy
from aclcts.sim import SimMisuseError, SimWarning
from aclcts.sim import memory as sim_memory

H2H, H2D, D2H, D2D = (MemcpyKind.ACL_MEMCPY_HOST_TO_HOST, MemcpyKind.ACL_MEMCPY_HOST_TO_DEVICE,
                      MemcpyKind.ACL_MEMCPY_DEVICE_TO_HOST, MemcpyKind.ACL_MEMCPY_DEVICE_TO_DEVICE)
DEFAULT = MemcpyKind.ACL_MEMCPY_DEFAULT
HUGE_FIRST = MemMallocPolicy.ACL_MEM_MALLOC_HUGE_FIRST
SIZE = 256


def unmapped_address() -> int:
    """The address of a mapping that has just been removed: no page of it is there any more."""
    area = mmap.mmap(-1, 4 * mmap.PAGESIZE)
    address = ctypes.addressof(ctypes.c_char.from_buffer(area))  # the export ends with the temporary
    area.close()
    return address


def read_only_area() -> tuple[mmap.mmap, int]:
    """A mapping the process may read but not write, and its address."""
    area = mmap.mmap(-1, mmap.PAGESIZE, prot=mmap.PROT_READ)
    return area, np.frombuffer(area, np.uint8).ctypes.data


def device(acl: Any, size: int = SIZE) -> int:
    ptr, ret = acl.rt.malloc(size, HUGE_FIRST)
    assert ret == 0
    return ptr


WILD = [pytest.param(lambda: 0xDEAD_BEEF_000, id="never-mapped"), pytest.param(unmapped_address, id="unmapped")]


@pytest.mark.parametrize("wild", WILD)
def test_a_wild_source_of_memcpy_is_named_not_a_crash(session, wild):
    acl, address = session.acl, wild()
    with pytest.raises(SimMisuseError, match=r"acl\.rt\.memcpy: src range .* is not memory this process can read"):
        acl.rt.memcpy(device(acl), SIZE, address, SIZE, H2D)


@pytest.mark.parametrize("wild", WILD)
def test_a_wild_destination_of_memcpy_is_named_not_a_crash(session, wild):
    acl, address = session.acl, wild()
    with pytest.raises(SimMisuseError, match=r"acl\.rt\.memcpy: dst range .* is not memory this process can write"):
        acl.rt.memcpy(address, SIZE, device(acl), SIZE, D2H)


def test_a_read_only_destination_is_named_not_a_crash(session):
    acl = session.acl
    area, address = read_only_area()
    with pytest.raises(SimMisuseError, match=r"dst range .* can write: .* \(read-only\) is not writeable"):
        acl.rt.memcpy(address, SIZE, device(acl), SIZE, D2H)
    area.close()


def test_a_source_that_runs_off_its_mapping_is_named(session):
    acl = session.acl
    area = mmap.mmap(-1, 2 * mmap.PAGESIZE)
    address = ctypes.addressof(ctypes.c_char.from_buffer(area))
    libc = ctypes.CDLL(None, use_errno=True)
    assert libc.munmap(ctypes.c_void_p(address + mmap.PAGESIZE), ctypes.c_size_t(mmap.PAGESIZE)) == 0
    target = device(acl, 2 * mmap.PAGESIZE)
    assert acl.rt.memcpy(target, mmap.PAGESIZE, address, mmap.PAGESIZE, H2D) == 0
    with pytest.raises(SimMisuseError, match=rf"src range .*: {address + mmap.PAGESIZE:#x} is not readable"):
        acl.rt.memcpy(target, 2 * mmap.PAGESIZE, address, 2 * mmap.PAGESIZE, H2D)
    area.close()


@pytest.mark.parametrize("call", [
    pytest.param(lambda acl, s, p: acl.rt.memset(p, SIZE, 7, SIZE), id="memset"),
    pytest.param(lambda acl, s, p: acl.rt.memset_async(p, SIZE, 7, SIZE, s), id="memset_async"),
    pytest.param(lambda acl, s, p: acl.rt.memcpy_async(device(acl), SIZE, p, SIZE, H2D, s), id="memcpy_async-src"),
    pytest.param(lambda acl, s, p: acl.rt.memcpy_async(p, SIZE, device(acl), SIZE, D2H, s), id="memcpy_async-dst"),
    pytest.param(lambda acl, s, p: acl.rt.memcpy2d(p, 64, device(acl), 64, 64, 2, D2H), id="memcpy2d-dst"),
    pytest.param(lambda acl, s, p: acl.util.ptr_to_bytes(p, SIZE), id="ptr_to_bytes"),
    pytest.param(lambda acl, s, p: acl.op.load(p, SIZE), id="op.load"),
    pytest.param(lambda acl, s, p: acl.set_tensor_const(acl.create_tensor_desc(0, [64], 2), p, SIZE),
                 id="set_tensor_const"),
])
def test_every_pointer_taking_call_names_a_wild_host_pointer(session, call):
    with pytest.raises(SimMisuseError, match=r"is not memory this process can"):
        call(session.acl, session.stream, 0xDEAD_BEEF_000)


def test_memset_async_rechecks_host_memory_released_before_the_stream_ran(session):
    acl = session.acl
    area = mmap.mmap(-1, mmap.PAGESIZE)
    address = np.frombuffer(area, np.uint8).ctypes.data
    assert acl.rt.memset_async(address, SIZE, 7, SIZE, session.stream) == 0
    area.close()
    with pytest.raises(SimMisuseError, match=r"acl\.rt\.memset_async: dev_ptr range"):
        acl.rt.synchronize_stream(session.stream)


def test_the_program_s_own_host_memory_stays_usable(session):
    acl = session.acl
    target = device(acl)
    payload = bytes(range(SIZE))
    array = np.arange(SIZE, dtype=np.uint8)
    raw = ctypes.create_string_buffer(payload, SIZE)
    with pytest.warns(Warning):
        numpy_pointer = acl.util.numpy_to_ptr(array)
    for source in (acl.util.bytes_to_ptr(payload), array.ctypes.data, numpy_pointer, ctypes.addressof(raw)):
        assert acl.rt.memcpy(target, SIZE, source, SIZE, H2D) == 0
    back = np.zeros(SIZE, np.uint8)
    assert acl.rt.memcpy(back.ctypes.data, SIZE, target, SIZE, D2H) == 0
    assert back.tobytes() == payload


@pytest.mark.parametrize("where", ["device", "host"])
def test_an_overlapping_copy_is_refused(session, where):
    acl = session.acl
    if where == "device":
        base = device(acl, 2 * SIZE)
    else:
        keep = np.zeros(2 * SIZE, np.uint8)
        base = keep.ctypes.data
    kind = D2D if where == "device" else H2H
    with pytest.raises(SimMisuseError, match=r"acl\.rt\.memcpy: src .* and dst .* overlap"):
        acl.rt.memcpy(base + 16, SIZE, base, SIZE, kind)
    assert acl.rt.memcpy(base + SIZE, SIZE, base, SIZE, kind) == 0  # adjacent ranges do not overlap
    assert acl.rt.memcpy(base, SIZE, base, SIZE, kind) == 0  # dst == src: the documented no-op


CONTRADICTIONS = [
    pytest.param("device", "device", H2D, id="device-source-with-HOST_TO_DEVICE"),
    pytest.param("host", "malloc_host", H2D, id="malloc_host-destination-with-HOST_TO_DEVICE"),
    pytest.param("device", "device", D2H, id="device-destination-with-DEVICE_TO_HOST"),
    pytest.param("host", "device", H2H, id="device-destination-with-HOST_TO_HOST"),
]


def pointers(acl: Any, src: str, dst: str, keep: list) -> tuple[int, int]:
    def one(where: str) -> int:
        if where == "device":
            return device(acl)
        if where == "malloc_host":
            ptr, ret = acl.rt.malloc_host(SIZE)
            assert ret == 0
            return ptr
        keep.append(np.zeros(SIZE + 64, np.uint8))
        return keep[-1].ctypes.data + (-keep[-1].ctypes.data) % 64  # memcpy_async wants 64-byte alignment

    return one(src), one(dst)


@pytest.mark.parametrize("src_where, dst_where, kind", CONTRADICTIONS)
def test_a_kind_contradicting_the_pointers_warns_and_copies_by_the_addresses(session, src_where, dst_where, kind):
    keep: list = []
    src, dst = pointers(session.acl, src_where, dst_where, keep)
    with pytest.warns(SimWarning, match=rf"acl\.rt\.memcpy: kind {kind.name} \({int(kind)}\) but src"):
        assert session.acl.rt.memcpy(dst, SIZE, src, SIZE, kind) == 0
    if kind != H2H:  # asynchronous HOST_TO_HOST is not supported in host run mode
        with pytest.warns(SimWarning, match=r"acl\.rt\.memcpy_async: kind"):
            assert session.acl.rt.memcpy_async(dst, SIZE, src, SIZE, kind, session.stream) == 0
        assert session.acl.rt.synchronize_stream(session.stream) == 0


@pytest.mark.sim_settings(memcpy_kind_mismatch="error")
@pytest.mark.parametrize("src_where, dst_where, kind", CONTRADICTIONS)
def test_with_memcpy_kind_mismatch_error_a_contradicting_kind_is_misuse(session, src_where, dst_where, kind):
    keep: list = []
    src, dst = pointers(session.acl, src_where, dst_where, keep)
    with pytest.raises(SimMisuseError, match=rf"acl\.rt\.memcpy: kind {kind.name}"):
        session.acl.rt.memcpy(dst, SIZE, src, SIZE, kind)
    assert session.acl.rt.memcpy(dst, SIZE, src, SIZE, DEFAULT) == 0


@pytest.mark.sim_settings(host_pointers="trusted")
def test_with_host_pointers_trusted_the_kernel_is_not_asked(session, monkeypatch):
    def refuse(*_args: object) -> str:
        raise AssertionError("probed")

    monkeypatch.setattr(sim_memory, "unusable", refuse)
    payload = bytes(SIZE)
    assert session.acl.rt.memcpy(device(session.acl), SIZE, session.acl.util.bytes_to_ptr(payload), SIZE, H2D) == 0


def test_the_new_settings_take_only_their_choices():
    for name in ("host_pointers", "memcpy_kind_mismatch"):
        with pytest.raises(ValueError, match=rf"simulator setting {name}='nope': expected one of"):
            aclcts.sim.configure(**{name: "nope"})
