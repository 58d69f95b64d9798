"""Whether a host address range is memory this process may read (or write), asked of the kernel without touching it.

Every page of the range is probed with one byte through process_vm_readv on the process itself, which fails with
EFAULT instead of raising SIGSEGV; a range to be written has each probed byte written back, unchanged, with
process_vm_writev, which fails the same way on a read-only page. Where those calls are missing or refused (not
Linux, a seccomp filter), /proc/self/maps is read instead; where that is missing too, nothing can be told and the
range is taken as usable.
"""

from __future__ import annotations

import ctypes
import mmap
import os
import re
import threading
from collections.abc import Iterator

PAGE = mmap.PAGESIZE
#: Pages probed by one system call (Linux's IOV_MAX).
_BATCH = 1024
#: Addresses at and above this are outside any process's user space on x86-64 and AArch64 (48-bit).
USER_SPACE_END = 1 << 47
_EFAULT = 14
_MAPS_LINE = re.compile(rb"^([0-9a-f]+)-([0-9a-f]+) (\S+)", re.MULTILINE)


class _Iovec(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("length", ctypes.c_size_t)]


def _vm_calls() -> tuple[object, object] | None:
    """process_vm_readv and process_vm_writev of the C library, or None where it has none."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        calls = libc.process_vm_readv, libc.process_vm_writev
    except (OSError, AttributeError):
        return None
    for call in calls:
        call.restype = ctypes.c_ssize_t
        call.argtypes = [ctypes.c_int, ctypes.POINTER(_Iovec), ctypes.c_ulong, ctypes.POINTER(_Iovec),
                         ctypes.c_ulong, ctypes.c_ulong]
    return calls


_CALLS = _vm_calls()


def _probe_points(ptr: int, count: int) -> Iterator[int]:
    """One address in every page of [ptr, ptr + count): ptr itself, then each later page's first byte."""
    yield ptr
    page = (ptr // PAGE + 1) * PAGE
    while page < ptr + count:
        yield page
        page += PAGE


def _batches(ptr: int, count: int) -> Iterator[list[int]]:
    batch: list[int] = []
    for point in _probe_points(ptr, count):
        batch.append(point)
        if len(batch) == _BATCH:
            yield batch
            batch = []
    if batch:
        yield batch


class _Buffers(threading.local):
    """Each thread's iovec arrays and scratch bytes for the probes (built once, not per call)."""

    def __init__(self) -> None:
        self.remote = (_Iovec * _BATCH)()
        self.scratch = ctypes.create_string_buffer(_BATCH)
        self.local = _Iovec(ctypes.addressof(self.scratch), 0)


_BUFFERS = _Buffers()


def _by_system_call(ptr: int, count: int, write: bool) -> str | None | bool:
    """Why the range is unusable, None if usable, False if the system calls cannot tell."""
    read_call, write_call = _CALLS
    pid = os.getpid()
    buffers = _BUFFERS
    for batch in _batches(ptr, count):
        size = len(batch)
        for index, point in enumerate(batch):
            buffers.remote[index].base = point
            buffers.remote[index].length = 1
        buffers.local.length = size
        done = read_call(pid, ctypes.byref(buffers.local), 1, buffers.remote, size, 0)
        if done < 0 and ctypes.get_errno() != _EFAULT:
            return False
        if done < size:
            return f"{batch[max(done, 0)]:#x}"
        if write:
            done = write_call(pid, ctypes.byref(buffers.local), 1, buffers.remote, size, 0)
            if done < 0 and ctypes.get_errno() != _EFAULT:
                return False
            if done < size:
                return f"{batch[max(done, 0)]:#x} (read-only)"
    return None


def _by_maps(ptr: int, count: int, write: bool) -> str | None | bool:
    """As _by_system_call, from the mappings /proc/self/maps lists."""
    try:
        with open("/proc/self/maps", "rb") as handle:
            listing = handle.read()
    except OSError:
        return False
    spans = sorted((int(start, 16), int(end, 16), perms) for start, end, perms in _MAPS_LINE.findall(listing))
    at, end = ptr, ptr + count
    for start, stop, perms in spans:
        if stop <= at:
            continue
        if start > at:
            break
        if not perms.startswith(b"r") or (write and perms[1:2] != b"w"):
            return f"{at:#x}" + (" (read-only)" if perms.startswith(b"r") else "")
        at = stop
        if at >= end:
            return None
    return f"{at:#x}"


def unusable(ptr: int, count: int, write: bool) -> str | None:
    """The first address of [ptr, ptr + count) the process cannot read (or write), as text, or None if it can."""
    if ptr + max(count, 1) > USER_SPACE_END:
        return f"{max(ptr, USER_SPACE_END):#x} (beyond user space)"
    found = _by_system_call(ptr, max(count, 1), write) if _CALLS is not None else False
    if found is False:
        found = _by_maps(ptr, max(count, 1), write)
    return None if found is False else found
