"""The rules every input file obeys: a regular file, no larger than its limit, UTF-8 text, bounded nesting, unique keys.

Every limit is a named constant here, generous enough that no real input comes near it; crossing one is a one-line
error naming the file and the limit. Special files (FIFOs, devices, sockets) are never opened for reading: a FIFO
would block the reader until a writer appears, a device may have side effects.
"""

from __future__ import annotations

import os
import stat
from typing import Any

#: Largest YAML file read (case files, expectations, error-code tables, golden definitions).
MAX_YAML_BYTES = 16 * 2 ** 20
#: Largest JSON file read (single-op JSON; its constant values can be long).
MAX_JSON_BYTES = 256 * 2 ** 20
#: Largest simulator model (.om) read; its constants can be long.
MAX_MODEL_BYTES = 1 * 2 ** 30
#: Largest run report read (JSON Lines, one record per case).
MAX_REPORT_BYTES = 4 * 2 ** 30
#: Deepest nesting of mappings and sequences (objects and arrays) in any YAML or JSON input; real ones nest about 5.
MAX_NESTING_DEPTH = 100
#: Most values one YAML file may expand to, aliases counted at every use (a guard against alias bombs).
MAX_YAML_VALUES = 1_000_000


class InputFileError(Exception):
    """An input file is not a readable regular file within its size limit; the message names the file."""


class DuplicateKeyError(ValueError):
    """A mapping (JSON object) holds a key twice; `key` is the key."""

    def __init__(self, key: Any) -> None:
        super().__init__(f"duplicate key {key!r}")
        self.key = key


_SPECIAL_KINDS = ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                  (stat.S_ISSOCK, "a socket"), (stat.S_ISDIR, "a folder"))


def kind_problem(mode: int) -> str | None:
    """Why a file of this st_mode is not read (`a FIFO, not a regular file`), or None for a regular file."""
    if stat.S_ISREG(mode):
        return None
    kind = next((name for test, name in _SPECIAL_KINDS if test(mode)), "a special file")
    return f"{kind}, not a regular file"


def file_problem(path: str | os.PathLike[str]) -> str | None:
    """Why path is not a regular file to read (special kind, missing), or None; the file is not opened."""
    try:
        return kind_problem(os.stat(path).st_mode)
    except OSError as exc:
        return exc.strerror or str(exc)


def read_bytes(path: str | os.PathLike[str], what: str, limit: int,
               error: type[Exception] = InputFileError) -> bytes:
    """The content of a regular file of at most limit bytes; error `<file>: cannot read the <what> file: <why>`."""
    source = os.fspath(path)
    problem = file_problem(source)
    if problem is None:
        try:
            fd = os.open(source, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
        except OSError as exc:
            problem = exc.strerror or str(exc)
    if problem is not None:
        raise error(f"{source}: cannot read the {what} file: {problem}")
    with os.fdopen(fd, "rb") as handle:
        problem = kind_problem(os.fstat(handle.fileno()).st_mode)
        if problem is not None:
            raise error(f"{source}: cannot read the {what} file: {problem}")
        try:
            data = handle.read(limit + 1)
        except OSError as exc:
            raise error(f"{source}: cannot read the {what} file: {exc.strerror or exc}") from None
    if len(data) > limit:
        raise error(f"{source}: the {what} file is larger than the limit of {limit} bytes")
    return data


def decode_utf8(data: bytes, source: str, error: type[Exception] = InputFileError) -> str:
    """data as UTF-8 text; error `<file>:<line>: not UTF-8 text: byte 0x.. at byte offset N` if it is not."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise error(f"{source}:{line}: not UTF-8 text: byte 0x{data[exc.start]:02x} at byte offset {exc.start} "
                    f"({exc.reason})") from None


def read_text(path: str | os.PathLike[str], what: str, limit: int, error: type[Exception] = InputFileError) -> str:
    """read_bytes decoded by decode_utf8: the text of a regular UTF-8 file of at most limit bytes."""
    return decode_utf8(read_bytes(path, what, limit, error), os.fspath(path), error)


def one_line(text: str) -> str:
    """text with every character that is not printable (newlines, tabs, controls) written as its escape."""
    return text if text.isprintable() else "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def unique_keys(pairs: list[tuple[Any, Any]]) -> dict[Any, Any]:
    """A JSON object_pairs_hook: the object as a dict; DuplicateKeyError if a key comes twice."""
    result: dict[Any, Any] = {}
    for key, value in pairs:
        if key in result:
            raise DuplicateKeyError(key)
        result[key] = value
    return result


def too_deep(value: Any, text: str, limit: int = MAX_NESTING_DEPTH) -> bool:
    """Whether decoded JSON value nests objects and arrays deeper than limit (text is its source, for a quick bound)."""
    if text.count("[") + text.count("{") <= limit:
        return False
    level: list[tuple[Any, int]] = [(value, 1)]
    while level:
        node, depth = level.pop()
        if isinstance(node, (dict, list)):
            if depth > limit:
                return True
            level.extend((child, depth + 1) for child in (node.values() if isinstance(node, dict) else node))
    return False
