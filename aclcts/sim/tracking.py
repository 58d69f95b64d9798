"""Live-object tracking: which simulator objects exist, and the user call stack that created each."""

from __future__ import annotations

import os
import sys
from collections import deque

_SIM_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep

KINDS = ("desc", "buffer", "attr", "handle", "stream", "context", "event", "device_mem", "dvpp_mem", "host_mem")
#: How many of the most recently destroyed handles are remembered for use-after-destroy messages; handles are never
#: reused, so an older one is reported as not created by this process (the call still fails the same way).
RELEASED_KEPT = 4096


def capture_stack(depth: int) -> tuple:
    """Return up to depth (code, line) pairs of the caller's frames outside the simulator, innermost first.

    Frames of wrappers that hide themselves from tracebacks (a `__tracebackhide__` local) are left out too.
    """
    frames = []
    frame = sys._getframe(2)
    while frame is not None:
        code = frame.f_code
        if code.co_filename.startswith(_SIM_DIR) or "__tracebackhide__" in code.co_varnames:
            frame = frame.f_back
            continue
        frames.append((code, frame.f_lineno))
        if len(frames) == depth:
            break
        frame = frame.f_back
    return tuple(frames)


def format_stack(call: str, stack: tuple) -> str:
    """Render a creating call and its stack as 'call at file:line in func <- ...'."""
    where = " <- ".join(f"{os.path.basename(code.co_filename)}:{line} in {code.co_name}" for code, line in stack)
    return f"{call} at {where}" if where else call


class LiveObject:
    """One simulator object that has been created and not yet destroyed."""

    __slots__ = ("kind", "handle", "call", "stack")

    def __init__(self, kind: str, handle: int, call: str, stack: tuple) -> None:
        self.kind, self.handle, self.call, self.stack = kind, handle, call, stack

    @property
    def created_at(self) -> str:
        """The creating API call and the user stack at that moment."""
        return format_stack(self.call, self.stack)

    def __str__(self) -> str:
        return f"{self.kind} {self.handle:#x} created by {self.created_at}"


class Tracker:
    """Registry of live objects keyed by handle, plus where destroyed handles were released."""

    def __init__(self, depth: int) -> None:
        self.depth = depth
        self.live: dict[int, LiveObject] = {}
        # A ring, not a dict: a long run destroys millions of objects, and the host memory must not grow with them.
        self.released: deque[tuple[int, str, str]] = deque(maxlen=RELEASED_KEPT)

    def add(self, kind: str, handle: int, call: str) -> None:
        """Record that handle of this kind was created by call."""
        self.live[handle] = LiveObject(kind, handle, call, capture_stack(self.depth) if self.depth else ())

    def remove(self, handle: int, call: str) -> None:
        """Record that handle was released by call."""
        obj = self.live.pop(handle, None)
        if obj is not None:
            self.released.append((handle, obj.kind, call))

    def released_as(self, handle: int) -> tuple[str, str] | None:
        """(kind, releasing call) of a recently destroyed handle, else None."""
        for released, kind, call in reversed(self.released):
            if released == handle:
                return kind, call
        return None

    def objects(self, kind: str | None = None) -> list[LiveObject]:
        """Live objects, optionally of one kind, oldest first."""
        return [o for o in self.live.values() if kind is None or o.kind == kind]
