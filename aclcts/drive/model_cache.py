"""The compiled-model cache: a case library's op models compiled once per library, SoC and aclcts source, then reused.

The cache folder may hold other things: aclcts removes only the folders it made there (they hold
aclcts.core.outputs.OWNER_FILE, or an entry's index from before owner files), and removes an entry by renaming it
out of the way first, so that another run sees a whole entry or none.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import socket
import stat
import tempfile
import time
import warnings
from pathlib import Path
from typing import Callable

import aclcts
from aclcts.core.files import folder_mode, write_atomically
from aclcts.core.outputs import OWNER_FILE

#: Entries unused for this long are removed when another entry is added.
MAX_AGE_DAYS = 14
#: At most this many entries are kept (the least recently used go first).
MAX_ENTRIES = 64
#: An entry's index: the SoC and the sha256 of each of its model files; written last, inside the build folder.
MARKER = "complete.json"
#: The elements ATC refused, written by the compile function beside models/ (absent when it refused none); the index
#: holds its checksum, so that a cache hit knows the same refusals as the compilation it replays.
REFUSALS = "refused.json"
ENV = "ACLCTS_MODEL_CACHE"
#: Entries are built in `.build-<host>-<pid>-<random>` folders beside them and renamed into place.
BUILD_PREFIX = ".build-"
#: A build folder this old is a killed build's, whatever its name says (a build takes seconds to minutes).
STALE_BUILD_MINUTES = 60


class ModelCacheError(Exception):
    """The cache folder cannot be created or written."""


class ModelCacheWarning(UserWarning):
    """A cache entry failed its checksums (corrupted, modified or incomplete) and is compiled again."""


def default_root() -> Path:
    """$ACLCTS_MODEL_CACHE, else $XDG_CACHE_HOME/aclcts/models, else ~/.cache/aclcts/models."""
    if os.environ.get(ENV):
        return Path(os.environ[ENV])
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "aclcts" / "models"


def source_fingerprint() -> str:
    """A digest of every Python source file of the installed aclcts package (compiler and simulator included)."""
    package = Path(aclcts.__file__).parent
    digest = hashlib.sha256()
    for path in sorted(package.rglob("*.py")):
        digest.update(path.relative_to(package).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def entry_key(elements: list[dict], soc: str) -> str:
    """The cache key of single-op JSON elements compiled for a SoC by this aclcts source."""
    digest = hashlib.sha256()
    for part in (json.dumps(elements, sort_keys=True), soc, source_fingerprint()):
        digest.update(part.encode() + b"\0")
    return digest.hexdigest()[:32]


def _problem(entry: Path) -> str | None:
    """Why entry cannot be used ('absent' if there is none), or None if its index lists exactly its intact models."""
    if not entry.exists():
        return "absent"
    try:
        index = json.loads((entry / MARKER).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return f"its index {MARKER} is missing"
    except (OSError, ValueError) as exc:
        return f"its index {MARKER} cannot be read ({exc})"
    listed = index.get("models") if isinstance(index, dict) else None
    if not isinstance(listed, dict) or not all(isinstance(v, str) for v in listed.values()):
        return f"its index {MARKER} lists no model checksums (an older or damaged index)"
    problem = _refusals_problem(entry, index.get("refusals"))
    if problem:
        return problem
    try:
        present = sorted(os.listdir(entry / "models"))
    except OSError as exc:
        return f"its models folder cannot be read ({exc.strerror})"
    if present != sorted(listed):
        missing, extra = sorted(set(listed) - set(present)), sorted(set(present) - set(listed))
        return f"its models differ from its index (missing {missing[:3]}, not listed {extra[:3]})"
    for name in present:
        try:
            if not stat.S_ISREG(os.stat(entry / "models" / name).st_mode):
                return f"model {name} is not a regular file"
            digest = _sha256(entry / "models" / name)
        except OSError as exc:
            return f"model {name} cannot be read ({exc.strerror})"
        if digest != listed[name]:
            return f"model {name} does not match its checksum (corrupted or modified)"
    return None


def _refusals_problem(entry: Path, listed: object) -> str | None:
    """Why the entry's REFUSALS file does not match its index's checksum of it (absent in both is a match)."""
    path = entry / REFUSALS
    if not path.exists():
        return None if listed is None else f"its {REFUSALS} is missing"
    try:
        digest = _sha256(path)
    except OSError as exc:
        return f"its {REFUSALS} cannot be read ({exc.strerror})"
    return None if digest == listed else f"its {REFUSALS} does not match its index (corrupted or modified)"


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _index(models: Path, soc: str) -> bytes:
    checksums = {name: _sha256(models / name) for name in sorted(os.listdir(models))}
    index: dict = {"soc": soc, "models": checksums}
    if (models.parent / REFUSALS).exists():
        index["refusals"] = _sha256(models.parent / REFUSALS)
    return json.dumps(index, indent=1, sort_keys=True).encode("utf-8")


def write_refusals(models: Path, refused: dict[int, str]) -> None:
    """Record beside a models folder the elements ATC refused (position -> reason); nothing when it refused none."""
    if refused:
        write_atomically(models.parent / REFUSALS, json.dumps(refused, indent=1, sort_keys=True).encode("utf-8"))


def read_refusals(models: Path) -> dict[int, str]:
    """The elements ATC refused when the models folder was compiled (write_refusals), by position."""
    path = models.parent / REFUSALS
    if not path.exists():
        return {}
    return {int(position): reason for position, reason in json.loads(path.read_text(encoding="utf-8")).items()}


def _host() -> str:
    return re.sub(r"[^A-Za-z0-9.]", "_", socket.gethostname()) or "host"


def _build_prefix() -> str:
    """`.build-<host>-<pid>-`: a build folder names its builder, so that one whose builder is gone can be removed."""
    return f"{BUILD_PREFIX}{_host()}-{os.getpid()}-"


def _builder_gone(name: str) -> bool:
    """Whether a build folder's name says it was made on this host by a process that no longer runs."""
    parts = name[len(BUILD_PREFIX):].rsplit("-", 2)
    if len(parts) != 3 or parts[0] != _host() or not parts[1].isdigit():
        return False
    try:
        os.kill(int(parts[1]), 0)
    except ProcessLookupError:
        return True
    except (OSError, OverflowError):
        return False
    return False


def _stale_build(path: Path, age: float) -> bool:
    return (path.name.startswith(BUILD_PREFIX) and (age > STALE_BUILD_MINUTES * 60 or _builder_gone(path.name))
            and (_made_here(path) or _empty_folder(path)))


def _made_here(path: Path) -> bool:
    """Whether path is a folder this cache made: a real folder holding OWNER_FILE (or, from before, an index)."""
    if path.is_symlink() or not path.is_dir():
        return False
    return (path / OWNER_FILE).is_file() or (path / MARKER).is_file()


def _empty_folder(path: Path) -> bool:
    try:
        return not path.is_symlink() and path.is_dir() and not os.listdir(path)
    except OSError:
        return False


def remove_stale_builds(root: Path, now: float | None = None) -> list[Path]:
    """Remove the build folders of killed builders: older than STALE_BUILD_MINUTES, or their process is gone."""
    now = time.time() if now is None else now
    removed = []
    try:
        names = os.listdir(root)
    except OSError:
        return removed
    for name in names:
        path = root / name
        try:
            age = now - path.stat().st_mtime
        except OSError:
            continue
        if _stale_build(path, age):
            shutil.rmtree(path, ignore_errors=True)
            removed.append(path)
    return removed


def _make_build(root: Path) -> Path:
    """A new build folder, marked as the cache's own (the mark goes with it when it becomes an entry)."""
    build = Path(tempfile.mkdtemp(prefix=_build_prefix(), dir=root))
    os.chmod(build, folder_mode())
    (build / OWNER_FILE).touch()
    return build


def _discard(entry: Path, root: Path) -> None:
    """Take a damaged entry out of use in one rename, then remove it (a kill leaves a stale build folder)."""
    doomed = _make_build(root)
    try:
        os.rename(entry, doomed / "entry")
    except FileNotFoundError:
        pass
    shutil.rmtree(doomed, ignore_errors=True)


def cached_models(elements: list[dict], soc: str, root: Path,
                  compile_into: Callable[[list[dict], Path, str], Path]) -> Path:
    """The models folder for `elements`: the cached one, or `compile_into(elements, folder, soc)`'s, then cached.

    An entry is complete or absent: it is built in a build folder and renamed into place with an index of its
    models' checksums. An entry that fails its index (a model corrupted, missing or added) is rebuilt with a
    ModelCacheWarning; build folders of killed builders are removed.
    """
    entry = root / entry_key(elements, soc)
    remove_stale_builds(root)
    problem = _problem(entry)
    if problem is None:
        try:
            os.utime(entry)  # the last use, for pruning; a read-only cache is still usable
        except OSError:
            pass
        return entry / "models"
    if problem != "absent" and not _made_here(entry):
        raise ModelCacheError(f"model cache {root}: {entry} is there and was not made by aclcts (it holds no "
                              f"{OWNER_FILE}); it is left as it is: remove it or choose another cache")
    if problem != "absent":
        warnings.warn(ModelCacheWarning(f"model cache entry {entry}: {problem}; compiling it again"), stacklevel=2)
    try:
        root.mkdir(parents=True, exist_ok=True)
        build = _make_build(root)
    except OSError as exc:
        raise ModelCacheError(f"model cache {root}: cannot create a folder there ({exc.strerror})") from None
    try:
        models = compile_into(elements, build, soc)
        write_atomically(build / MARKER, _index(models, soc))
        if _problem(entry) not in (None, "absent"):
            _discard(entry, root)
        try:
            os.rename(build, entry)
        except OSError:
            if _problem(entry) is not None:  # else another process stored the same entry first
                raise
    except OSError as exc:
        raise ModelCacheError(f"model cache {root}: cannot store the compiled models ({exc.strerror})") from None
    finally:
        shutil.rmtree(build, ignore_errors=True)
    prune(root, keep=entry)
    return entry / "models"


def prune(root: Path, keep: Path, now: float | None = None) -> list[Path]:
    """Remove entries unused for MAX_AGE_DAYS, the least recently used beyond MAX_ENTRIES, and stale builds; only
    folders the cache made count (anything else in the folder is left as it is)."""
    now = time.time() if now is None else now
    entries = []
    for path in root.iterdir():
        try:
            age = now - path.stat().st_mtime
        except OSError:
            continue
        if path.name.startswith(BUILD_PREFIX):
            if _stale_build(path, age):
                entries.append((float("inf"), path))
        elif path != keep and _made_here(path):
            entries.append((age, path))
    entries.sort()
    doomed = [path for rank, (age, path) in enumerate(entries)
              if age > MAX_AGE_DAYS * 86400 or rank >= MAX_ENTRIES - 1]
    for path in doomed:
        if path.name.startswith(BUILD_PREFIX):
            shutil.rmtree(path, ignore_errors=True)
        else:
            _discard(path, root)
    return doomed
