"""Resource tracking for any backend: a wrapper around an `acl` module that records every create/destroy pair."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from types import CodeType
from typing import Any

from aclcts.core.listing import bounded_listing, kind_counts

#: Creating calls: path → (kind, whether the handle is the first tuple element rather than the bare result).
CREATORS: dict[str, tuple[str, bool]] = {
    "create_tensor_desc": ("desc", False),
    "create_data_buffer": ("buffer", False),
    "op.create_attr": ("attr", False),
    "rt.malloc": ("device_mem", True),
    "rt.malloc_cached": ("device_mem", True),
    "rt.malloc_align32": ("device_mem", True),
    "rt.malloc_host": ("host_mem", True),
    "media.dvpp_malloc": ("dvpp_mem", True),
    "rt.create_stream": ("stream", True),
    "rt.create_stream_with_config": ("stream", True),
    "rt.create_event": ("event", True),
    "rt.create_event_with_flag": ("event", True),
    "rt.create_event_ex_with_flag": ("event", True),
    "rt.create_context": ("context", True),
    "op.create_handle": ("handle", True),
    "op.create_handle_for_cast": ("handle", True),
    "blas.create_handle_for_gemm_ex": ("handle", True),
    "blas.create_handle_for_hgemm": ("handle", True),
    "blas.create_handle_for_s8gemm": ("handle", True),
    "blas.create_handle_for_gemv_ex": ("handle", True),
}
#: Releasing calls: path → kind.
DESTROYERS: dict[str, str] = {
    "destroy_tensor_desc": "desc",
    "destroy_data_buffer": "buffer",
    "op.destroy_attr": "attr",
    "rt.free": "device_mem",
    "rt.free_host": "host_mem",
    "media.dvpp_free": "dvpp_mem",
    "rt.destroy_stream": "stream",
    "rt.destroy_event": "event",
    "rt.destroy_context": "context",
    "op.destroy_handle": "handle",
}
_THIS_FILE = os.path.abspath(__file__)
#: Modules of the test runner: the creating frames shown end where they begin.
_HARNESS = ("_pytest.", "pluggy.")


class LeakedObjects(AssertionError):
    """A test left objects it created alive."""

    @classmethod
    def of(cls, leaked: list[Tracked]) -> LeakedObjects:
        """The failure for objects left alive: counts per kind, per creating call and place, the first few in full."""
        lines = [f"the test left objects alive: {kind_counts([t.kind for t in leaked])}",
                 *bounded_listing(leaked, lambda obj: obj.site, str)]
        return cls("\n".join(lines))


class Tracked:
    """One object created through the wrapper and not yet released."""

    __slots__ = ("kind", "handle", "call", "stack")

    def __init__(self, kind: str, handle: int, call: str, stack: tuple[tuple[CodeType, int], ...]) -> None:
        self.kind, self.handle, self.call, self.stack = kind, handle, call, stack

    @property
    def where(self) -> str:
        """The creating frames as 'file:line in function <- ...', innermost first."""
        return " <- ".join(f"{os.path.basename(code.co_filename)}:{line} in {code.co_name}" for code, line in self.stack)

    @property
    def site(self) -> str:
        """The kind, the creating call and where it was made, without the handle."""
        return f"{self.kind} from acl.{self.call} at {self.where}"

    def __str__(self) -> str:
        return f"{self.kind} {self.handle:#x} from acl.{self.call} at {self.where}"


def _caller(depth: int = 3) -> tuple[tuple[CodeType, int], ...]:
    """Up to depth (code, line) pairs of the frames that called into the wrapper (formatted only when shown)."""
    frames, frame = [], sys._getframe(2)
    while frame is not None and len(frames) < depth:
        if frame.f_globals.get("__name__", "").startswith(_HARNESS):
            break
        if frame.f_code.co_filename != _THIS_FILE:
            frames.append((frame.f_code, frame.f_lineno))
        frame = frame.f_back
    return tuple(frames)


class ResourceTracker:
    """The live objects created through one TrackingAcl."""

    def __init__(self) -> None:
        self.live: dict[tuple[str, int], Tracked] = {}

    def snapshot(self) -> set[tuple[str, int]]:
        """The keys of everything alive now."""
        return set(self.live)

    def created_since(self, before: set[tuple[str, int]]) -> list[Tracked]:
        """Objects created after a snapshot and still alive, oldest first."""
        return [t for key, t in self.live.items() if key not in before]


def _wrap_creator(function: Callable[..., Any], tracker: ResourceTracker, path: str, kind: str, in_tuple: bool) -> Callable[..., Any]:
    def create(*args: Any) -> Any:
        __tracebackhide__ = True  # an error of the call shows the test's line and the backend's, not this wrapper
        result = function(*args)
        handle = result[0] if in_tuple else result
        ok = (result[-1] == 0) if in_tuple else bool(result)
        if ok and handle:
            tracker.live[(kind, handle)] = Tracked(kind, handle, path, _caller())
        return result

    create.__name__ = getattr(function, "__name__", path)
    return create


def _wrap_destroyer(function: Callable[..., Any], tracker: ResourceTracker, kind: str) -> Callable[..., Any]:
    def destroy(*args: Any) -> Any:
        __tracebackhide__ = True
        result = function(*args)
        if args and (result is None or result == 0):
            tracker.live.pop((kind, args[0]), None)
        return result

    destroy.__name__ = getattr(function, "__name__", kind)
    return destroy


class _Proxy:
    """A module stand-in whose create/destroy functions report to a tracker."""

    def __init__(self, target: Any, prefix: str, tracker: ResourceTracker) -> None:
        self._target, self._prefix, self._tracker = target, prefix, tracker

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._target, name)
        path = f"{self._prefix}{name}"
        if path in CREATORS:
            kind, in_tuple = CREATORS[path]
            value = _wrap_creator(value, self._tracker, path, kind, in_tuple)
        elif path in DESTROYERS:
            value = _wrap_destroyer(value, self._tracker, DESTROYERS[path])
        elif not self._prefix and name in ("rt", "op", "util", "blas", "media"):
            value = _Proxy(value, f"{name}.", self._tracker)
        setattr(self, name, value)  # later look-ups find the attribute without calling __getattr__
        return value

    def __dir__(self) -> list[str]:
        return dir(self._target)

    def __repr__(self) -> str:
        return f"acl.{self._prefix}".rstrip(".")


class TrackingAcl(_Proxy):
    """A pyacl-compatible wrapper around a backend's acl module that tracks every object it creates."""

    def __init__(self, acl: Any) -> None:
        super().__init__(acl, "", ResourceTracker())

    @property
    def tracker(self) -> ResourceTracker:
        """The live objects created through this wrapper."""
        return self._tracker

    @property
    def wrapped(self) -> Any:
        """The backend module itself."""
        return self._target
