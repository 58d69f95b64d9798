"""The compiled-model cache: a case library's op models compiled once per library, SoC and aclcts source, then reused."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
import time
from pathlib import Path
from typing import Callable

import aclcts

#: Entries unused for this long are removed when another entry is added.
MAX_AGE_DAYS = 14
#: At most this many entries are kept (the least recently used go first).
MAX_ENTRIES = 64
MARKER = "complete.json"
ENV = "ACLCTS_MODEL_CACHE"


class ModelCacheError(Exception):
    """The cache folder cannot be created or written."""


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


def _complete(entry: Path) -> bool:
    try:
        expected = json.loads((entry / MARKER).read_text(encoding="utf-8"))["models"]
        return len(os.listdir(entry / "models")) == expected
    except (OSError, ValueError, KeyError, TypeError):
        return False


def cached_models(elements: list[dict], soc: str, root: Path,
                  compile_into: Callable[[list[dict], Path, str], Path]) -> Path:
    """The models folder for `elements`: the cached one, or `compile_into(elements, folder, soc)`'s, then cached."""
    entry = root / entry_key(elements, soc)
    if _complete(entry):
        try:
            os.utime(entry)  # the last use, for pruning; a read-only cache is still usable
        except OSError:
            pass
        return entry / "models"
    try:
        root.mkdir(parents=True, exist_ok=True)
        build = Path(tempfile.mkdtemp(prefix=".build-", dir=root))
    except OSError as exc:
        raise ModelCacheError(f"model cache {root}: cannot create a folder there ({exc.strerror})") from None
    try:
        models = compile_into(elements, build, soc)
        (build / MARKER).write_text(json.dumps({"models": len(os.listdir(models)), "soc": soc}), encoding="utf-8")
        if entry.exists() and not _complete(entry):
            shutil.rmtree(entry, ignore_errors=True)
        try:
            os.rename(build, entry)
        except OSError:
            if not _complete(entry):  # else another process stored the same entry first
                raise
    except OSError as exc:
        raise ModelCacheError(f"model cache {root}: cannot store the compiled models ({exc.strerror})") from None
    finally:
        shutil.rmtree(build, ignore_errors=True)
    prune(root, keep=entry)
    return entry / "models"


def prune(root: Path, keep: Path, now: float | None = None) -> list[Path]:
    """Remove entries unused for MAX_AGE_DAYS, the least recently used beyond MAX_ENTRIES, and day-old builds."""
    now = time.time() if now is None else now
    entries = []
    for path in root.iterdir():
        try:
            age = now - path.stat().st_mtime
        except OSError:
            continue
        if path.name.startswith(".build-"):
            if age > 86400:
                entries.append((float("inf"), path))
        elif path != keep:
            entries.append((age, path))
    entries.sort()
    doomed = [path for rank, (age, path) in enumerate(entries)
              if age > MAX_AGE_DAYS * 86400 or rank >= MAX_ENTRIES - 1]
    for path in doomed:
        shutil.rmtree(path, ignore_errors=True)
    return doomed
