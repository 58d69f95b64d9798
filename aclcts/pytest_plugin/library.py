"""The run's case library and golden definitions, which the test side loads into the config's stash."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

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
