"""Writing files so that a reader never sees half of one, with the umask's mode, and only inside their folder."""

from __future__ import annotations

import errno
import os
import re
import stat
import tempfile
from pathlib import Path

#: The mode open() gives a new file and mkdir() a new folder before the umask takes bits away.
FILE_MODE, FOLDER_MODE = 0o666, 0o777

_UMASK_LINE = re.compile(r"^Umask:\s*([0-7]+)\s*$", re.MULTILINE)


def current_umask() -> int:
    """The process's umask, read without changing it where the system shows it (Linux /proc), else set back."""
    try:
        found = _UMASK_LINE.search(Path("/proc/self/status").read_text(encoding="ascii", errors="replace"))
    except OSError:
        found = None
    if found:
        return int(found.group(1), 8)
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def file_mode() -> int:
    """The mode of a file aclcts creates: what open() would give it under the current umask."""
    return FILE_MODE & ~current_umask()


def folder_mode() -> int:
    """The mode of a folder aclcts creates: what mkdir() would give it under the current umask."""
    return FOLDER_MODE & ~current_umask()


def inside(folder: Path, path: Path) -> bool:
    """Whether path, with '..' and symbolic links of existing parents resolved, lies inside folder (not folder)."""
    base = Path(os.path.realpath(folder))
    target = Path(os.path.realpath(Path(path).parent)) / Path(os.path.normpath(path)).name
    return target != base and base in target.parents


def unsafe_name(name: str) -> str | None:
    """Why name cannot be one file name inside a folder (a separator, '.', '..', NUL, empty), or None if it can."""
    if not name:
        return "it is empty"
    if name in (".", ".."):
        return f"{name!r} names a folder, not a file"
    if "/" in name or os.sep in name or (os.altsep and os.altsep in name):
        return "it contains a path separator '/'"
    if "\0" in name:
        return "it contains a NUL character"
    return None


def describe_mode(mode: int) -> str:
    """What a file of this st_mode is, as a noun phrase ("a folder", "a character device", ...)."""
    for test, name in ((stat.S_ISDIR, "a folder"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"),
                       (stat.S_ISREG, "a regular file")):
        if test(mode):
            return name
    return "not a regular file"


def refuse_special(path: Path) -> None:
    """OSError if path exists (through symbolic links) and is not a regular file: aclcts replaces only those."""
    try:
        mode = os.stat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):
        return
    if not stat.S_ISREG(mode):
        raise OSError(errno.EEXIST, f"{path} is {describe_mode(mode)}, not a regular file (aclcts replaces only "
                                    "regular files)", str(path))


def write_atomically(path: Path, data: bytes, *, durable: bool = False, mode: int | None = None) -> None:
    """Replace path with data through a temporary file in the same folder and a rename; the mode follows the umask.

    A reader (and a process killed at any moment) sees the old file or the new one, never a part. `durable` also
    flushes the data to the disk before the rename, so that a power cut cannot leave the new name with no data.
    `mode` (default: file_mode()) spares a caller writing many files reading the umask for each.
    OSError (refuse_special) if path is there and is not a regular file.
    """
    refuse_special(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            os.fchmod(handle.fileno(), file_mode() if mode is None else mode)
            handle.write(data)
            if durable:
                handle.flush()
                os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
