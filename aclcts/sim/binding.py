"""The pyacl wrapper's argument conventions: PyArg_ParseTuple codes, list checks and its error messages."""

from __future__ import annotations

import math
import operator
import struct
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from aclcts.sim.errors import warn

MASK64 = (1 << 64) - 1
_F32 = struct.Struct("<f")


class _ParseFailed(Exception):
    pass


def _unsigned_long(value: Any) -> int:
    if isinstance(value, int):
        return value & MASK64
    raise _ParseFailed


def _index(value: Any) -> int:
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float) or isinstance(value, (str, bytes)):
        raise _ParseFailed
    try:
        return operator.index(value)
    except TypeError:
        raise _ParseFailed from None


def _int32(value: Any) -> int:
    number = _index(value)
    if not -(1 << 31) <= number < (1 << 31):
        raise _ParseFailed
    return number


def _masked(bits: int) -> Callable[[Any], int]:
    mask = (1 << bits) - 1

    def convert(value: Any) -> int:
        return _index(value) & mask

    return convert


def _int64(value: Any) -> int:
    number = _index(value)
    if not -(1 << 63) <= number < (1 << 63):
        raise _ParseFailed
    return number


def to_float32(number: float) -> float:
    """Round a Python float to the nearest C float, overflowing to infinity like a C cast."""
    try:
        return _F32.unpack(_F32.pack(number))[0]
    except OverflowError:
        return math.copysign(math.inf, number)


def _float(value: Any) -> float:
    if isinstance(value, (str, bytes)):
        raise _ParseFailed
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise _ParseFailed from None
    return to_float32(number)


def _string(value: Any) -> str:
    if not isinstance(value, str) or "\0" in value:
        raise _ParseFailed
    return value


def _object(value: Any) -> Any:
    return value


CONVERTERS: dict[str, Callable[[Any], Any]] = {
    "k": _unsigned_long,
    "K": _unsigned_long,
    "i": _int32,
    "I": _masked(32),
    "B": _masked(8),
    "H": _masked(16),
    "L": _int64,
    "f": _float,
    "s": _string,
    "O": _object,
}


#: Wrappers whose parse-failure message is not "<name> args parse failed" (hicann/runtime python/pyACL: these
#: end it with "!"). docs/sim-contract-additions.md lists the source files read.
PARSE_FAILURE_MESSAGES: dict[str, str] = {name: f"{name} args parse failed!" for name in (
    "acl.set_tensor_dynamic_input", "acl.set_tensor_shape_range", "acl.get_tensor_desc_dim_range",
    "acl.set_tensor_value_range", "acl.rt.stream_query", "acl.rt.peek_at_last_error", "acl.rt.get_last_error",
    "acl.rt.synchronize_device_with_timeout", "acl.rt.synchronize_event_with_timeout", "acl.media.dvpp_malloc",
    "acl.media.dvpp_free",
)}
#: Wrappers that leave CPython's own PyArg_ParseTuple error in place (they only log their message, or, as
#: acl.rt.get_event_id, pass their message to PyArg_ParseTuple instead of CHECK_NULL, which then sets none).
KEEPS_CPYTHON_MESSAGE = frozenset({"acl.util.start_thread", "acl.op.register_compile_func", "acl.rt.get_event_id"})
#: The codes of a wrapper that never parses its arguments: it accepts any positional ones and ignores them.
IGNORES_ARGUMENTS = "*"


def cpython_count_message(required: int, most: int, given: int) -> str:
    """CPython's PyArg_ParseTuple message for a wrong argument count (a format without a function name)."""
    bound = required if given < required else most
    how = "exactly" if required == most else "at least" if given < required else "at most"
    return f"function takes {how} {bound} argument{'' if bound == 1 else 's'} ({given} given)"


def cpython_conversion_error(codes: str, args: tuple) -> Exception:
    """CPython's PyArg_ParseTuple error for the first argument its code rejects (the "k", "K", "s" and "O" codes)."""
    for position, (code, value) in enumerate(zip(codes, args), 1):
        if code in "kK" and not isinstance(value, int):
            kind = "None" if value is None else type(value).__name__
            return TypeError(f"argument {position} must be int, not {kind}")
        if code == "s" and not isinstance(value, str):
            return TypeError(f"argument {position} must be str, not {type(value).__name__}")
        if code == "s" and "\0" in value:
            return ValueError("embedded null character")
    raise AssertionError(f"no argument of {args!r} fails the codes {codes!r} the way CPython words it")


def parser(full_name: str, codes: str) -> Callable[[tuple], tuple]:
    """Build the argument parser of one binding function from its PyArg_ParseTuple format string."""
    if codes == IGNORES_ARGUMENTS:
        return lambda args: []
    required = codes.index("|") if "|" in codes else len(codes)
    converters = tuple(CONVERTERS[c] for c in codes.replace("|", ""))
    most = len(converters)
    message = PARSE_FAILURE_MESSAGES.get(full_name, f"{full_name} args parse failed")
    cpython = full_name in KEEPS_CPYTHON_MESSAGE

    def parse(args: tuple) -> list:
        if not required <= len(args) <= most:
            raise TypeError(cpython_count_message(required, most, len(args)) if cpython else message)
        try:
            return [convert(value) for convert, value in zip(converters, args)]
        except _ParseFailed:
            if cpython:
                raise cpython_conversion_error(codes.replace("|", ""), args) from None
            raise TypeError(message) from None

    if codes == "k":

        def parse_one_pointer(args: tuple) -> tuple:
            if len(args) == 1 and type(args[0]) is int:
                return (args[0] & MASK64,)
            return parse(args)

        return parse_one_pointer
    return parse


def require_list(value: Any, message: str) -> list:
    """Return value if it is a list (tuples are rejected as by the wrapper), else raise TypeError(message)."""
    if not isinstance(value, list):
        raise TypeError(message)
    return value


def require_int_list(value: Any, not_list_message: str, element_message: str) -> list[int]:
    """Return the elements of a list of ints masked to 64 bits; TypeError with the wrapper's messages otherwise."""
    require_list(value, not_list_message)
    for element in value:
        if not isinstance(element, int):
            raise TypeError(element_message)
    return [element & MASK64 for element in value]


class ApiLock:
    """A reentrant lock whose owner can set it aside while it waits, as the binding releases the GIL."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._owner: int | None = None
        self._depth = 0

    def __enter__(self) -> ApiLock:
        me = threading.get_ident()
        if self._owner == me:
            self._depth += 1
        else:
            self._lock.acquire()
            self._owner, self._depth = me, 1
        return self

    def __exit__(self, *exc: object) -> None:
        self._depth -= 1
        if self._depth == 0:
            self._owner = None
            self._lock.release()

    @contextmanager
    def suspended(self) -> Iterator[None]:
        """Release the lock entirely for the block if this thread holds it, then take it back as deep as before."""
        if self._owner != threading.get_ident():
            yield
            return
        depth, self._owner, self._depth = self._depth, None, 0
        self._lock.release()
        try:
            yield
        finally:
            self._lock.acquire()
            self._owner, self._depth = threading.get_ident(), depth


_LOCK = ApiLock()


def api_lock() -> ApiLock:
    """The one lock every simulated API call holds while it changes simulator state."""
    return _LOCK


def binding(full_name: str, codes: str, impl: Callable[..., Any], locked: bool = True,
            deprecation: str = "") -> Callable[..., Any]:
    """Wrap an implementation as a positional-only binding function with pyacl's parsing and locking; a deprecated
    one warns (base Warning, at the caller's line) before it parses, as the binding's PyErr_WarnEx does."""
    parse = parser(full_name, codes)
    short = full_name.rsplit(".", 1)[-1]

    def function(*args: Any, **kwargs: Any) -> Any:
        if deprecation:
            warn(deprecation, Warning)
        if kwargs:
            raise TypeError(f"{short}() takes no keyword arguments")
        values = parse(args)
        if not locked:
            return impl(*values)
        with _LOCK:
            return impl(*values)

    function.__name__ = short
    function.__qualname__ = full_name
    function.__doc__ = f"Simulated {full_name}{impl.__doc__ and ': ' + impl.__doc__ or ''}"
    return function
