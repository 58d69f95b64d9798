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
#: The repository's cases (file under cases/, case id) whose models the step tests execute outside `op_case`
#: parametrization: Add int32 [8, 16] (test_execute, test_free, test_handle, test_negative, test_sync, ...), the GEMM
#: and GEMV fp16 16x16 of test_blas and test_blas_gemv, Cast float32 -> float16 [16, 32] of test_cast. Whatever --cases
#: selects, the session's model folder and `aclcts singleop`'s JSON hold them; they are never parametrized.
SUITE_MODEL_CASES = (
    ("elementwise/add.yaml", "Add-int32-8x16_8x16"),
    ("matmul/gemm.yaml", "GEMM-float16-16x16_16x16_16x16_s_s"),
    ("matmul/gemv.yaml", "GEMM-float16-16x16_16x1_16x1_s_s"),
    ("cast/cast_to_float16.yaml", "Cast-float32_float16-16x32"),
)


def golden_folder(config: pytest.Config) -> Path:
    """The golden folder: --golden-dir or the repository's golden/."""
    return Path(config.getoption("--golden-dir") or config.rootpath / "golden")


def library_cases(config: pytest.Config) -> list[Case]:
    """The case library loaded for this run (--cases or cases/)."""
    return config.stash.get(CASES, [])


def dynamic_cases(config: pytest.Config) -> list[Case]:
    """The dynamic-shape cases of this run: the loaded case library's (--cases or cases/) and cases/dynamic's."""
    return config.stash.get(DYNAMIC_CASES, [])


def suite_model_cases(cases_folder: Path) -> list[Case]:
    """The SUITE_MODEL_CASES of cases_folder (the repository's cases/), leaving out those it does not hold."""
    from aclcts.cases import load_cases  # the case library, which an xdist controller never imports

    files = [cases_folder / name for name in dict.fromkeys(name for name, _ in SUITE_MODEL_CASES)]
    found = {case.id: case for case in load_cases([str(f) for f in files if f.is_file()])}
    return [found[case_id] for _, case_id in SUITE_MODEL_CASES if case_id in found]


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
