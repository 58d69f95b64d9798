"""Allure's environment.properties for an aclcts run: backend, SoC, CANN and acl versions, devices, seed, injected
simulator faults, every ACLCTS_* setting, and the versions of the suite and of what it runs on."""

from __future__ import annotations

import importlib.metadata
import os
import platform
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import pytest

from aclcts.core.files import write_atomically
from aclcts.pytest_plugin.run_report import suite_version

FILE_NAME = "environment.properties"
#: Distributions whose installed versions the file records (python's own is added).
PACKAGES = ("numpy", "pytest", "pytest-xdist", "allure-pytest", "hypothesis")
#: Fields of aclcts.report.environment.describe by property name.
SESSION_FIELDS = {"soc": "soc_name", "cann.version": "cann_version", "acl.version": "acl_version",
                  "device.count": "device_count"}
UNKNOWN = "unknown"


def _joined(values: Iterable[Any]) -> str:
    """The distinct known values in order of first appearance, comma-separated ("unknown" when there are none)."""
    found = [str(v) for v in dict.fromkeys(values) if v is not None]
    return ", ".join(found) if found else UNKNOWN


def _version(package: str) -> str:
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def properties(config: pytest.Config, sessions: list[Mapping[str, Any]],
               environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The run's properties from its options, the environment records of its test processes' sessions (each as
    aclcts.report.environment.describe gives it) and the process environment (default os.environ)."""
    environ = os.environ if environ is None else environ
    option = config.getoption
    values: dict[str, str] = {
        "backend": str(option("--backend")),
        **{name: _joined(s.get(key) for s in sessions) for name, key in SESSION_FIELDS.items()},
        "devices": _joined(sorted({s["device_id"] for s in sessions if s.get("device_id") is not None})),
        "seed": str(option("--aclcts-seed")),
        "sim.faults": environ.get("ACLCTS_SIM_FAULTS") or "none",
        "model.dir": str(option("--model-dir") or "none"),
        "cases": " ".join(option("--cases") or []) or "default",
        "workers": str(option("numprocesses", None) or 0),
        "aclcts.version": suite_version(),
        "python.version": platform.python_version(),
        **{f"{package}.version": _version(package) for package in PACKAGES},
    }
    values.update({f"env.{name}": value for name, value in sorted(environ.items()) if name.startswith("ACLCTS_")})
    return values


def _unicode_escaped(char: str) -> str:
    if ord(char) < 128:
        return char
    units = char.encode("utf-16-be")
    return "".join(f"\\u{int.from_bytes(units[i:i + 2], 'big'):04x}" for i in range(0, len(units), 2))


def _escaped(text: str, key: bool = False) -> str:
    """text in .properties syntax: backslashes, line breaks, a leading space, non-ASCII characters (as \\uXXXX) and
    (in keys) separators escaped."""
    out = text.replace("\\", "\\\\").replace("\n", "\\n").replace("\r", "\\r").replace("\t", "\\t")
    out = "".join(map(_unicode_escaped, out))
    if key:
        for char in " =:#!":
            out = out.replace(char, "\\" + char)
    elif out.startswith(" "):
        out = "\\" + out
    return out


def render(values: Mapping[str, str]) -> str:
    """The .properties text of values, one key=value line each, in the given order."""
    return "".join(f"{_escaped(k, key=True)}={_escaped(v)}\n" for k, v in values.items())


def write_environment(folder: str | Path, values: Mapping[str, str]) -> Path:
    """Write environment.properties into an allure-results folder; its path."""
    path = Path(folder) / FILE_NAME
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(path, render(values).encode("ascii"))
    return path
