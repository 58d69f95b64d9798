"""The run's case library and golden definitions, which the test side loads into the config's stash."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
import yaml

if TYPE_CHECKING:
    from aclcts.cases import Case

#: Stash keys of the run's case library (static and dynamic cases) and golden definitions.
CASES = pytest.StashKey[list]()
GOLDEN = pytest.StashKey[list]()
DYNAMIC_CASES = pytest.StashKey[list]()


def golden_folder(config: pytest.Config) -> Path:
    """The golden folder: --golden-dir or the repository's golden/."""
    return Path(config.getoption("--golden-dir") or config.rootpath / "golden")


def library_cases(config: pytest.Config) -> list[Case]:
    """The case library loaded for this run (--cases or cases/)."""
    return config.stash.get(CASES, [])


def dynamic_cases(config: pytest.Config) -> list[Case]:
    """The dynamic-shape cases of this run: the loaded case library's (--cases or cases/) and cases/dynamic's."""
    return config.stash.get(DYNAMIC_CASES, [])


def outside(config: pytest.Config) -> list[str]:
    """The --cases paths that lie outside the run's root folder (the repository)."""
    root = config.rootpath.resolve()
    return [p for p in config.getoption("--cases") or [] if not Path(p).resolve().is_relative_to(root)]


def referenced_modules(paths: list[str]) -> list[tuple[str, str]]:
    """(module, case file) of every `reference: module:ATTR` in the case files under paths, which loading them imports.

    Only regular *.yaml / *.yml files are read; one that cannot be read or parsed is left to the case loader's error.
    """
    files: list[str] = []
    for path in paths:
        if os.path.isdir(path):
            for folder, subfolders, names in os.walk(path):
                subfolders.sort()
                files += [os.path.join(folder, n) for n in sorted(names) if n.endswith((".yaml", ".yml"))]
        else:
            files.append(path)
    found = []
    for name in files:
        if not os.path.isfile(name):  # a FIFO or device named *.yaml would block the read
            continue
        try:
            with open(name, encoding="utf-8") as handle:
                data = yaml.safe_load(handle)
        except (OSError, UnicodeDecodeError, yaml.YAMLError):
            continue
        spec = data.get("reference") if isinstance(data, dict) else None
        if isinstance(spec, str) and ":" in spec:
            found.append((spec.partition(":")[0], name))
    return found
