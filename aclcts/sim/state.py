"""The simulated process: init state, devices, contexts, object registries and per-thread state."""

from __future__ import annotations

import itertools
import threading
from dataclasses import dataclass, field
from typing import Any

from aclcts.core.listing import bounded_listing, kind_counts
from aclcts.sim.errors import SimMisuseError, warn
from aclcts.sim.memory import HANDLE_BASE, Memory
from aclcts.sim.settings import Settings
from aclcts.sim.streams import Stream
from aclcts.sim.tracking import Tracker


@dataclass(eq=False)
class Context:
    """A context: current per thread, owning a default stream and the streams created in it."""

    handle: int
    device: Device
    explicit: bool
    default_stream: Stream | None = None
    streams: list = field(default_factory=list)
    destroyed_by: str = ""


@dataclass(eq=False)
class Device:
    """One simulated device that has been set (or bound by create_context)."""

    id: int
    refs: int = 0
    default_context: Context | None = None
    contexts: list = field(default_factory=list)
    clock_ms: float = 0.0


class SimState:
    """Everything one simulated process holds; reset() replaces it with a fresh one."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.initialized = False
        self.init_refs = 0
        self.init_config: bytes | None = None
        self.devices: dict[int, Device] = {}
        self.objects: dict[int, tuple[str, Any]] = {}
        self.tracker = Tracker(settings.stack_depth)
        self.memory = Memory(settings.malloc_fill, settings.host_quarantine_bytes, settings.host_pointers == "mapped")
        self.threads = threading.local()
        self._handles = itertools.count(HANDLE_BASE + 0x1000, 0x10)
        self.extensions: dict[str, Any] = {}

    def new_handle(self) -> int:
        """A fresh handle value, never reused in this process."""
        return next(self._handles)

    def register(self, kind: str, obj: Any, call: str, handle: int | None = None) -> int:
        """Register a new object of a kind and track it as live; return its handle."""
        if handle is None:
            handle = self.new_handle()
        self.objects[handle] = (kind, obj)
        self.tracker.add(kind, handle, call)
        return handle

    def release(self, handle: int, call: str) -> None:
        """Forget an object; later uses of its handle are reported as use after destroy."""
        self.objects.pop(handle, None)
        self.tracker.remove(handle, call)

    def lookup(self, kind: str, handle: int, api: str) -> Any:
        """Return the live object of a kind behind a non-zero handle, or raise SimMisuseError."""
        entry = self.objects.get(handle)
        if entry is not None and entry[0] == kind:
            return entry[1]
        raise SimMisuseError(f"{api}: {self.describe_handle(handle, kind)}")

    def find(self, kind: str, handle: int) -> Any | None:
        """Return the live object of a kind behind a handle, or None."""
        entry = self.objects.get(handle)
        if entry is not None and entry[0] == kind:
            return entry[1]
        return None

    def describe_handle(self, handle: int, expected: str) -> str:
        """Explain why handle is not a live object of the expected kind."""
        entry = self.objects.get(handle)
        if entry is not None:
            return f"{handle:#x} is a {entry[0]} handle, expected a {expected}"
        released = self.tracker.released_as(handle)
        if released:
            return f"{expected} {handle:#x} was already destroyed (a {released[0]} released by {released[1]})"
        return f"{handle:#x} is not a {expected} handle created by this process"

    def current_context(self) -> Context | None:
        """The calling thread's current context, if it is still alive."""
        context = getattr(self.threads, "context", None)
        if context is not None and context.destroyed_by:
            return None
        return context

    def set_current_context(self, context: Context | None) -> None:
        """Make context current for the calling thread."""
        self.threads.context = context
        self.threads.context_lost = False

    def lose_current_context(self) -> None:
        """The calling thread's current context was destroyed: it has none until it sets one."""
        self.threads.context = None
        self.threads.context_lost = True

    def context_lost(self) -> bool:
        """Whether the calling thread's current context was destroyed (here or, while current, by another thread)."""
        context = getattr(self.threads, "context", None)
        return getattr(self.threads, "context_lost", False) or (context is not None and bool(context.destroyed_by))

    def set_error(self, message: str, code: int | None = None) -> None:
        """Record the calling thread's most recent error message and, for a failed call, its error code."""
        self.threads.error = message
        if code is not None:
            self.threads.last_code = code

    def last_error_code(self, clear: bool) -> int:
        """The calling thread's last error code (0 if none since it was last cleared), cleared if asked."""
        code = getattr(self.threads, "last_code", 0)
        if clear:
            self.threads.last_code = 0
        return code

    def take_error(self) -> str | None:
        """Return and clear the calling thread's most recent error message."""
        message = getattr(self.threads, "error", None)
        self.threads.error = None
        return message

    def warn_alive(self, when: str, kinds: tuple[str, ...], device: int | None = None) -> None:
        """Warn (SimWarning) about live objects of the given kinds at a teardown point."""
        alive = []
        for obj in self.tracker.objects():
            if obj.kind not in kinds:
                continue
            if device is not None and self.device_of(obj.handle) not in (device, None):
                continue
            alive.append(obj)
        if alive:
            listing = bounded_listing(alive, lambda obj: f"{obj.kind} created by {obj.created_at}", str)
            warn("\n".join([f"{when}: {len(alive)} object(s) still alive: {kind_counts([o.kind for o in alive])}",
                             *listing]))

    def device_of(self, handle: int) -> int | None:
        """The device an object belongs to, where that is meaningful."""
        entry = self.objects.get(handle)
        if entry is None:
            return None
        kind, obj = entry
        if kind == "stream":
            return obj.device.id
        if kind == "context":
            return obj.device.id
        if kind in ("device_mem", "dvpp_mem"):
            return obj.device
        return None
