"""The run's case library and golden definitions, which the test side loads into the config's stash."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
import yaml

from aclcts.core.prototypes.vendors import VendorRecordError, read_record, records_under

if TYPE_CHECKING:
    from aclcts.cases import Case

#: Stash keys of the run's case library (static and dynamic cases) and golden definitions.
CASES = pytest.StashKey[list]()
GOLDEN = pytest.StashKey[list]()
DYNAMIC_CASES = pytest.StashKey[list]()
#: Stash key of the ids of the cases the run's case files hold (--cases, or the repository's cases/).
SELECTED = pytest.StashKey[frozenset]()
#: The marker of the placeholder test an empty parametrization leaves; the run deselects it.
NOTHING_TO_RUN = "aclcts_nothing_to_run"
#: The repository's cases (file under cases/, case id) whose models the step tests execute outside `op_case`
#: parametrization: Add int32 [8, 16] (test_execute, test_free, test_handle, test_negative, test_sync, ...), the GEMM
#: and GEMV fp16 16x16 of test_blas and test_blas_gemv, Cast float32 -> float16 [16, 32] of test_cast. Whatever --cases
#: selects, the session's model folder and `aclcts singleop`'s JSON hold them; they are never parametrized, and a
#: --cases run runs their tests only with --with-step-tests.
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
    """The dynamic-shape cases of this run: the loaded case library's (--cases or cases/) and, when the step tests run,
    cases/dynamic's."""
    return config.stash.get(DYNAMIC_CASES, [])


def step_tests_run(config: pytest.Config) -> bool:
    """Whether the run includes the step tests, which run none of the case files' cases: without --cases, or with
    --with-step-tests."""
    return not config.getoption("--cases") or bool(config.getoption("--with-step-tests"))


def case_of(item: pytest.Item, params: tuple[str, ...] = ("op_case", "model")) -> Case | None:
    """The case a test is parametrized over (its `op_case`, a dynamic test's `model`, or another of params), or None."""
    from aclcts.cases import Case  # the case library, which an xdist controller never imports

    callspec = getattr(item, "callspec", None)
    for name in params:
        found = callspec.params.get(name) if callspec is not None else None
        if isinstance(found, Case):
            return found
    return None


def selected_case(item: pytest.Item, params: tuple[str, ...] = ("op_case", "model")) -> Case | None:
    """The case of the run's case files a test is parametrized over, or None (a step test's own case too)."""
    case = case_of(item, params)
    return case if case is not None and case.id in item.config.stash.get(SELECTED, frozenset()) else None


def parametrize_or_deselect(metafunc: pytest.Metafunc, argnames: str, values: list, ids: list[str]) -> None:
    """Parametrize argnames over values; without values, over one placeholder that the run deselects (instead of
    pytest's skipped "got empty parameter set" test)."""
    if values:
        metafunc.parametrize(argnames, values, ids=ids)
        return
    width = len([name for name in argnames.split(",") if name.strip()])
    placeholder = pytest.param(*[None] * width, marks=getattr(pytest.mark, NOTHING_TO_RUN))
    metafunc.parametrize(argnames, [placeholder], ids=["nothing-to-run"])


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
    """(module, file) of every `reference: module:ATTR` in the case files under paths, and of every reference and
    kernel module an operator record under them names, which loading them imports.

    Only regular *.yaml / *.yml files and records are read; one that cannot be read or parsed is left to the case
    loader's error.
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
    return found + _record_modules([Path(p) for p in paths if os.path.isdir(p)])


def _record_modules(folders: list[Path]) -> list[tuple[str, str]]:
    """(module, record file) of the reference and kernel modules the operator records under folders name."""
    found = []
    for path in (p for folder in folders for p in records_under(folder)):
        try:
            record = read_record(path)
        except VendorRecordError:
            continue
        found += [(module, str(path)) for module in (record.reference.partition(":")[0], record.kernel) if module]
    return found
