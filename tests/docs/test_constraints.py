"""constraints.txt, the pinned set for qualification runs: every pin within pyproject.toml's ranges, every direct
dependency pinned, one exact pin per line."""

from __future__ import annotations

from pathlib import Path

import pytest
from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

tomllib = pytest.importorskip("tomllib")

ROOT = Path(__file__).resolve().parents[2]


def direct_dependencies(pyproject: dict) -> list[Requirement]:
    """The project's dependencies and its test extra's, as requirements."""
    project = pyproject["project"]
    return [Requirement(text) for text in [*project["dependencies"], *project["optional-dependencies"]["test"]]]


def problems(constraints: str, pyproject: dict) -> list[str]:
    """What is wrong with a constraints file for a pyproject: one line each, naming the constraints line."""
    found: list[str] = []
    pins: dict[str, str] = {}
    for number, line in enumerate(constraints.splitlines(), 1):
        text = line.split("#", 1)[0].strip()
        if not text:
            continue
        try:
            requirement = Requirement(text)
        except InvalidRequirement as exc:
            found.append(f"constraints.txt:{number}: {text!r} is not a requirement ({exc})")
            continue
        specifiers = list(requirement.specifier)
        if len(specifiers) != 1 or specifiers[0].operator != "==" or "*" in specifiers[0].version:
            found.append(f"constraints.txt:{number}: {text!r}: expected one exact pin NAME==VERSION")
            continue
        name = canonicalize_name(requirement.name)
        if name in pins:
            found.append(f"constraints.txt:{number}: {requirement.name} is pinned twice")
        pins[name] = specifiers[0].version
    for requirement in direct_dependencies(pyproject):
        if requirement.marker is not None and not requirement.marker.evaluate():
            continue
        version = pins.get(canonicalize_name(requirement.name))
        if version is None:
            found.append(f"constraints.txt: no pin for the direct dependency {requirement}")
        elif not requirement.specifier.contains(version, prereleases=True):
            found.append(f"constraints.txt: {requirement.name}=={version} is outside pyproject.toml's {requirement}")
    return found


def test_the_constraints_pin_every_direct_dependency_within_its_range():
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert problems((ROOT / "constraints.txt").read_text(encoding="utf-8"), pyproject) == []


PYPROJECT = {"project": {"dependencies": ["numpy>=1.24", "ml_dtypes>=0.5,<0.7", "PyYAML>=6"],
                         "optional-dependencies": {"test": ["import-linter>=2.17"]}}}


def test_a_pin_outside_a_range_a_missing_pin_and_a_loose_line_are_each_named():
    constraints = "numpy==2.4.6\nml-dtypes==0.7.0\nimport_linter>=2.17\nnumpy==2.4.6\n"
    assert problems(constraints, PYPROJECT) == [
        "constraints.txt:3: 'import_linter>=2.17': expected one exact pin NAME==VERSION",
        "constraints.txt:4: numpy is pinned twice",
        "constraints.txt: ml_dtypes==0.7.0 is outside pyproject.toml's ml_dtypes<0.7,>=0.5",
        "constraints.txt: no pin for the direct dependency PyYAML>=6",
        "constraints.txt: no pin for the direct dependency import-linter>=2.17",
    ]
