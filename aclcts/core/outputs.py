"""Where aclcts may write: output targets checked before anything is written, folders it owns, per-output run locks.

An output is a regular file (or a folder, for folder outputs) or a new name in a folder aclcts may create and write;
it is never an input of the run nor another output. A folder aclcts creates holds OWNER_FILE, and aclcts removes or
replaces only folders that hold it. A run writing an output holds an advisory lock (flock) on `.<name>.lock` beside it
for as long as it writes; a second run asking for the same lock is refused with a line naming the holder.
"""

from __future__ import annotations

import datetime
import fcntl
import json
import os
import shutil
import socket
import stat
import tempfile
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from aclcts.core.files import describe_mode, file_mode, folder_mode

#: The file that marks a folder as created by aclcts (and so removable by it).
OWNER_FILE = ".aclcts-owned"
#: How long to wait for a lock holder that has just taken its lock to write who it is.
HOLDER_WAIT_SECONDS = 1.0


class OutputError(Exception):
    """An output aclcts must not write (or cannot lock); the message is one line naming the option and the path."""


@dataclass(frozen=True)
class Target:
    """One output of a run: the option as the user spelled it, its path, and whether it is a file or a folder.

    kind None: an output aclcts does not write itself (pytest's --junitxml), only kept apart from the others.
    """

    option: str
    path: Path
    kind: str | None = "file"


def _existing(path: Path) -> os.stat_result | None:
    try:
        return os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None


def _folder_problem(folder: Path) -> str | None:
    """Why files cannot be created in folder (creating it and its parents first if needed), or None."""
    ancestor = Path(os.path.abspath(folder))
    while True:
        try:
            found = os.stat(ancestor)
        except (FileNotFoundError, NotADirectoryError):
            ancestor = ancestor.parent
            continue
        except OSError as exc:
            return f"cannot be written: its folder {ancestor} cannot be examined ({exc.strerror})"
        break
    if not stat.S_ISDIR(found.st_mode):
        return f"cannot be written: {ancestor} is {describe_mode(found.st_mode)}, not a folder"
    if not os.access(ancestor, os.W_OK | os.X_OK):
        return f"cannot be written: the folder {ancestor} is not writable"
    return None


def target_problem(path: Path, kind: str = "file") -> str | None:
    """Why path cannot be written as an output of this kind ("file" or "folder"), or None if it can."""
    try:
        found = _existing(path)
    except OSError as exc:
        return f"cannot be examined ({exc.strerror})"
    if found is None and os.path.islink(path):
        return f"is a symbolic link to a missing {kind} ({os.readlink(path)}), expected a {kind} or a new name"
    if found is None:
        return _folder_problem(path.parent)
    if kind == "folder":
        if not stat.S_ISDIR(found.st_mode):
            return f"is {describe_mode(found.st_mode)}, expected a folder or a new name"
        return _folder_problem(path)
    if not stat.S_ISREG(found.st_mode):
        return f"is {describe_mode(found.st_mode)}, expected a regular file or a new name"
    return _folder_problem(path.parent)


def same_path(one: Path, other: Path) -> bool:
    """Whether two paths name the same file: the same real path, or (both existing) the same inode."""
    if os.path.realpath(one) == os.path.realpath(other):
        return True
    try:
        return os.path.samefile(one, other)
    except OSError:
        return False


def check_targets(targets: Iterable[Target], inputs: Iterable[Path]) -> None:
    """OutputError for the first target that is not writable as its kind, is an input, or is another target."""
    targets, inputs = list(targets), list(inputs)
    for index, target in enumerate(targets):
        problem = target_problem(target.path, target.kind) if target.kind else None
        if problem:
            raise OutputError(f"{target.option}: {target.path} {problem}")
        clash = next((path for path in inputs if same_path(target.path, path)), None)
        if clash is not None:
            same = "" if os.path.abspath(clash) == os.path.abspath(target.path) else f" ({clash})"
            raise OutputError(f"{target.option}: {target.path} is an input of this run{same}; expected a path that "
                              "no input uses (aclcts never overwrites its inputs)")
        other = next((t for t in targets[:index] if same_path(target.path, t.path)), None)
        if other is not None:
            raise OutputError(f"{target.option}: {target.path} is also the output of {other.option}; expected a "
                              "separate path for each output")


def owned(folder: Path) -> bool:
    """Whether folder is a real folder (not a symbolic link) that aclcts created: it holds OWNER_FILE."""
    return not folder.is_symlink() and folder.is_dir() and (folder / OWNER_FILE).is_file()


def create_owned(folder: Path) -> None:
    """Make folder as aclcts' own (it appears whole, with OWNER_FILE); keep it if aclcts made it already.

    OutputError if something that aclcts did not create is there.
    """
    if owned(folder):
        return
    folder.parent.mkdir(mode=folder_mode(), parents=True, exist_ok=True)
    build = Path(tempfile.mkdtemp(dir=folder.parent, prefix=f".{folder.name}.", suffix=".tmp"))
    try:
        os.chmod(build, folder_mode())
        (build / OWNER_FILE).write_text(_holder_text(), encoding="utf-8")
        os.rename(build, folder)
    except OSError:
        if not owned(folder):
            raise OutputError(f"{folder} exists and was not created by aclcts (it holds no {OWNER_FILE}); it is "
                              "left as it is: remove it or choose another output path") from None
    finally:
        shutil.rmtree(build, ignore_errors=True)


def remove_owned(folder: Path, option: str) -> None:
    """Remove folder if aclcts created it (nothing if it is absent); OutputError naming option if it did not."""
    if not os.path.lexists(folder):
        return
    if not owned(folder):
        raise OutputError(f"{option}: {folder} exists and was not created by aclcts (it holds no {OWNER_FILE}); it "
                          "is left as it is: remove it yourself or choose another output path")
    shutil.rmtree(folder)


def _holder_text() -> str:
    started = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    return json.dumps({"pid": os.getpid(), "host": socket.gethostname(), "started": started})


def lock_path(target: Path) -> Path:
    """The lock file of an output: `.<name>.lock` beside it."""
    return target.with_name(f".{target.name}.lock")


class OutputLock:
    """An exclusive advisory lock on an output for one run; the lock file names its holder and goes with the run."""

    def __init__(self, target: Path, option: str) -> None:
        self.target, self.option, self.path = target, option, lock_path(target)
        self._fd = -1

    def acquire(self) -> None:
        """Take the lock, or OutputError naming the run (pid, host, start) that holds it."""
        while True:
            try:
                self.path.parent.mkdir(mode=folder_mode(), parents=True, exist_ok=True)
                fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, file_mode())
            except OSError as exc:
                raise OutputError(f"{self.option}: cannot create the lock file {self.path} ({exc.strerror})") \
                    from None
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                holder = _holder(fd)
                os.close(fd)
                raise OutputError(f"{self.option}: another run ({holder}) is writing {self.target}; wait for it to "
                                  "end or choose another path") from None
            if _still_named(fd, self.path):
                break
            os.close(fd)  # the previous holder removed this lock file after we opened it: take the new one
        os.ftruncate(fd, 0)
        os.write(fd, _holder_text().encode("utf-8"))
        self._fd = fd

    def release(self) -> None:
        """Remove the lock file and drop the lock (nothing if not held)."""
        if self._fd < 0:
            return
        try:
            self.path.unlink()
        except OSError:
            pass
        os.close(self._fd)
        self._fd = -1


def _still_named(fd: int, path: Path) -> bool:
    try:
        return os.path.samestat(os.fstat(fd), os.stat(path, follow_symlinks=False))
    except OSError:
        return False


def _holder(fd: int) -> str:
    """'pid N on HOST, started T' as the lock file says (waiting briefly for a holder that is writing it)."""
    deadline = time.monotonic() + HOLDER_WAIT_SECONDS
    while True:
        try:
            found = json.loads(os.pread(fd, 4096, 0).decode("utf-8"))
            return f"pid {found['pid']} on {found['host']}, started {found['started']}"
        except (OSError, ValueError, KeyError, TypeError):
            if time.monotonic() > deadline:
                return "its pid is not recorded yet"
            time.sleep(0.02)
