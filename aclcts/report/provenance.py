"""What a run was set up with: ACLCTS_* settings, files used (with their sha256) and installed dependency versions."""

from __future__ import annotations

import hashlib
import importlib.metadata
import platform
import re
from collections.abc import Mapping
from typing import Any

_NAME = re.compile(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)")
_EXTRA = re.compile(r"\bextra\s*==")


def aclcts_settings(environ: Mapping[str, str]) -> dict[str, str]:
    """Every ACLCTS_* environment variable and its value, sorted by name."""
    return {name: value for name, value in sorted(environ.items()) if name.startswith("ACLCTS_")}


def file_record(path: str) -> dict[str, Any]:
    """{"path", "sha256"} of a file; sha256 is None if it cannot be read."""
    digest = hashlib.sha256()
    try:
        with open(path, "rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
    except OSError:
        return {"path": str(path), "sha256": None}
    return {"path": str(path), "sha256": digest.hexdigest()}


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def dependency_versions(root: str = "aclcts") -> dict[str, str | None]:
    """Python's version and the installed version of every package root requires, directly (extras included;
    None when not installed) or through installed packages (their extras left out)."""
    versions: dict[str, str | None] = {"python": platform.python_version()}
    try:
        pending = [(requirement, True) for requirement in importlib.metadata.requires(root) or []]
    except importlib.metadata.PackageNotFoundError:
        return versions
    while pending:
        requirement, direct = pending.pop(0)
        name, _, marker = requirement.partition(";")
        match = _NAME.match(name)
        if match is None or (not direct and _EXTRA.search(marker)):
            continue
        key = _canonical(match.group(1))
        if key in versions or key == _canonical(root):
            continue
        try:
            distribution = importlib.metadata.distribution(match.group(1))
        except importlib.metadata.PackageNotFoundError:
            if direct:
                versions[key] = None
            continue
        versions[key] = distribution.version
        pending += [(child, False) for child in distribution.requires or []]
    return dict(sorted(versions.items()))
