"""Simulated memory: per-device address spaces, page-locked host blocks, bounds and use-after-free checks."""

from __future__ import annotations

import bisect
import ctypes
from collections import deque
from dataclasses import dataclass, field

import numpy as np

from aclcts.sim.errors import SimMisuseError
from aclcts.sim.hostprobe import unusable

#: Device pointers live at and above this address, which no host process can map on x86-64 or AArch64.
DEVICE_BASE = 1 << 60
#: Device d's allocations start at DEVICE_BASE + d * DEVICE_SPAN.
DEVICE_SPAN = 1 << 52
#: Simulator handles (descs, buffers, streams...) live at and above this address: never valid pointers.
HANDLE_BASE = 1 << 61
#: Host addresses below this are the null page: never valid.
NULL_PAGE = 1 << 16
_GAP = 4096
#: Device allocations up to SMALL_ALLOCATION bytes share CHUNK-byte blocks of host storage.
SMALL_ALLOCATION = 64 << 10
CHUNK = 4 << 20
#: Freed device regions kept for use-after-free messages; device addresses are never reused, so a pointer into an
#: older one is reported as pointing into no allocation (the call still fails the same way).
FREED_DEVICE_KEPT = 4096


def align_up(value: int, alignment: int) -> int:
    """Round value up to a multiple of alignment."""
    return (value + alignment - 1) // alignment * alignment


def is_device_pointer(ptr: int) -> bool:
    """Whether ptr lies in the simulated device address space."""
    return DEVICE_BASE <= ptr < HANDLE_BASE


def device_of_pointer(ptr: int) -> int:
    """The device id whose address space contains ptr."""
    return (ptr - DEVICE_BASE) // DEVICE_SPAN


class Chunk:
    """A block of host storage that holds several small device allocations."""

    __slots__ = ("storage", "real", "used")

    def __init__(self, fill: int | None) -> None:
        self.storage = np.empty(CHUNK, np.uint8)
        if fill is not None:
            self.storage.fill(fill)
        self.real = self.storage.ctypes.data
        self.used = 0


@dataclass(eq=False, slots=True)
class Region:
    """One allocation: device memory from rt.malloc or page-locked host memory from rt.malloc_host."""

    start: int
    size: int
    reserved: int
    storage: np.ndarray | None
    real: int
    device: int | None
    call: str
    freed_by: str = ""
    queued: int = field(default=0)
    storage_offset: int = 0
    chunk: Chunk | None = None

    @property
    def end(self) -> int:
        """One past the last usable address."""
        return self.start + self.reserved

    def describe(self) -> str:
        """Say what this region is, for diagnostics."""
        where = f"device {self.device}" if self.device is not None else "host (malloc_host)"
        return f"{where} allocation {self.start:#x} of {self.size} bytes ({self.reserved} reserved) from {self.call}"


class Memory:
    """All simulated memory of the process: device allocations by device, malloc_host blocks, checks."""

    def __init__(self, fill: int | None, quarantine_bytes: int, probe_host: bool = True) -> None:
        self.fill = fill
        self.quarantine_bytes = quarantine_bytes
        self.probe_host = probe_host
        self.next_device_address: dict[int, int] = {}
        self.device_starts: list[int] = []
        self.device_regions: list[Region] = []
        self.device_freed: deque[Region] = deque()
        self.host_starts: list[int] = []
        self.host_regions: list[Region] = []
        self.quarantine: deque[Region] = deque()
        self.quarantined = 0
        self.used: dict[int, int] = {}
        self.chunks: dict[int, Chunk] = {}

    def allocate_device(self, device: int, size: int, reserved: int, call: str) -> Region:
        """Reserve device memory; the content is a fill pattern standing for uninitialised memory."""
        base = DEVICE_BASE + device * DEVICE_SPAN
        start = self.next_device_address.get(device, base + _GAP)
        if reserved <= SMALL_ALLOCATION:
            chunk = self.chunks.get(device)
            if chunk is None or chunk.used + reserved > CHUNK:
                chunk = self.chunks[device] = Chunk(self.fill)
            offset = chunk.used
            chunk.used = align_up(offset + reserved, 64)
            region = Region(start, size, reserved, chunk.storage, chunk.real + offset, device, call, "", 0, offset, chunk)
        else:
            storage = np.empty(reserved, np.uint8)
            if self.fill is not None:
                storage.fill(self.fill)
            region = Region(start, size, reserved, storage, storage.ctypes.data, device, call)
        self.next_device_address[device] = align_up(start + reserved + _GAP, _GAP)
        index = bisect.bisect_left(self.device_starts, start)
        self.device_starts.insert(index, start)
        self.device_regions.insert(index, region)
        self.used[device] = self.used.get(device, 0) + reserved
        return region

    def allocate_host(self, size: int, call: str) -> Region:
        """Allocate real, 64-byte-aligned process memory standing for page-locked host memory."""
        storage = np.empty(size + 64, np.uint8)
        real = storage.ctypes.data
        offset = (-real) % 64
        start = real + offset
        region = Region(start, size, size, storage, start, None, call, storage_offset=offset)
        index = bisect.bisect_left(self.host_starts, start)
        self.host_starts.insert(index, start)
        self.host_regions.insert(index, region)
        return region

    def find_device(self, ptr: int) -> Region | None:
        """The device region (live or freed) whose span contains ptr."""
        index = bisect.bisect_right(self.device_starts, ptr) - 1
        if index >= 0:
            region = self.device_regions[index]
            if ptr < region.end:
                return region
        return None

    def find_host(self, ptr: int) -> Region | None:
        """The malloc_host region (live or quarantined) whose span contains ptr."""
        index = bisect.bisect_right(self.host_starts, ptr) - 1
        if index >= 0:
            region = self.host_regions[index]
            if ptr < region.end:
                return region
        return None

    def free_device(self, region: Region, call: str) -> None:
        """Release a device region; its addresses are never handed out again, and the last freed are remembered."""
        region.freed_by = call
        region.storage = None
        region.chunk = None
        self.used[region.device] -= region.reserved
        self.device_freed.append(region)
        if len(self.device_freed) > FREED_DEVICE_KEPT:
            _forget(self.device_freed.popleft(), self.device_starts, self.device_regions)

    def free_host(self, region: Region, call: str) -> None:
        """Release a malloc_host block into a quarantine so a stale pointer to it is still recognised."""
        region.freed_by = call
        self.quarantine.append(region)
        self.quarantined += region.reserved
        while self.quarantined > self.quarantine_bytes and self.quarantine:
            old = self.quarantine.popleft()
            self.quarantined -= old.reserved
            _forget(old, self.host_starts, self.host_regions)

    def live_device_regions(self, device: int | None = None) -> list[Region]:
        """Device regions not yet freed, optionally of one device."""
        return [r for r in self.device_regions if not r.freed_by and (device is None or r.device == device)]

    def resolve(self, api: str, ptr: int, count: int, role: str, host_access: bool,
                write: bool = False) -> tuple[int, Region | None]:
        """Check that [ptr, ptr+count) is usable memory (to be written, with write) and return (real address, region).

        A host pointer outside every malloc_host block is the program's own memory (bytes_to_ptr, a NumPy array):
        with probe_host, every page of it must be one the process may read, and to be written, write.
        """
        if ptr >= HANDLE_BASE:
            raise SimMisuseError(f"{api}: {role} {ptr:#x} is a simulator object handle, not a memory address")
        if ptr >= DEVICE_BASE:
            if host_access:
                raise SimMisuseError(
                    f"{api}: {role} {ptr:#x} is a device pointer; in host run mode (get_run_mode() == ACL_HOST) the "
                    "host cannot read or write device memory directly (the real process would crash) — copy it to "
                    "host memory with acl.rt.memcpy first"
                )
            region = self.find_device(ptr)
            if region is None:
                raise SimMisuseError(f"{api}: {role} {ptr:#x} does not point into any device allocation")
        elif ptr < NULL_PAGE:
            raise SimMisuseError(f"{api}: {role} {ptr:#x} is not a valid host address")
        else:
            region = self.find_host(ptr)
            if region is None:
                self.check_host(api, ptr, count, role, write)
                return ptr, None
        if region.freed_by:
            raise SimMisuseError(f"{api}: {role} {ptr:#x} points into freed memory: {region.describe()}, freed by {region.freed_by}")
        if ptr + count > region.end:
            over = ptr + count - region.end
            raise SimMisuseError(
                f"{api}: {role} range [{ptr:#x}, +{count}) runs {over} bytes past the end of {region.describe()}"
            )
        return region.real + (ptr - region.start), region

    def check_host(self, api: str, ptr: int, count: int, role: str, write: bool) -> None:
        """SimMisuseError if the program's host range [ptr, ptr+count) is not memory it may read (or write)."""
        if not self.probe_host:
            return
        where = unusable(ptr, count, write)
        if where is not None:
            verb = "write" if write else "read"
            raise SimMisuseError(f"{api}: {role} range [{ptr:#x}, +{count}) is not memory this process can {verb}: "
                                 f"{where} is not {verb}able (a wild or stale host pointer; the real process would "
                                 "crash)")


def _forget(region: Region, starts: list[int], regions: list[Region]) -> None:
    """Remove a region from a sorted start list and its parallel region list."""
    index = bisect.bisect_left(starts, region.start)
    del starts[index]
    del regions[index]


def copy_bytes(dst_real: int, src_real: int, count: int) -> None:
    """Copy count bytes between two real addresses (overlap allowed)."""
    ctypes.memmove(dst_real, src_real, count)


def fill_bytes(dst_real: int, value: int, count: int) -> None:
    """Set count bytes at a real address to value."""
    ctypes.memset(dst_real, value, count)


def read_bytes(src_real: int, count: int) -> bytes:
    """Copy count bytes at a real address into a new bytes object."""
    return ctypes.string_at(src_real, count)
