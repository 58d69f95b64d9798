"""The run's outputs checked before any test: writable as what they are, no input of the run, no other output; then
locked against a second run writing them at the same time (aclcts.core.outputs)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from aclcts.core.outputs import OutputError, OutputLock, Target, check_targets
from aclcts.pytest_plugin.library import golden_folder

#: The default error-code table, relative to the run's root folder (as the test side reads it).
DEFAULT_ERROR_CODES = Path("error-codes") / "cann-9.0.yaml"


def _spelled(option: str, value: str) -> str:
    return f"{option}={value}"


def run_targets(config: pytest.Config) -> list[Target]:
    """Every path this run writes, with the option that names it."""
    here = config.invocation_params.dir
    option = config.getoption
    targets = []
    run_report = option("--report", None)  # None also when `-p no:aclcts.run_report` left its option out
    if run_report:
        targets.append(Target(_spelled("--report", run_report), here / run_report))
    st_report = option("--st-report", None)
    if st_report:
        from aclcts.pytest_plugin.st_report import data_folder

        report = here / st_report
        targets += [Target(_spelled("--st-report", st_report), report),
                    Target(f"--st-report={st_report} (its data folder)", data_folder(report), "folder")]
    alluredir = getattr(config.option, "allure_report_dir", None)
    if alluredir:
        targets.append(Target(_spelled("--alluredir", alluredir), here / alluredir, "folder"))
    cache = option("--model-cache")
    if cache and cache != "off" and not option("--model-dir"):
        targets.append(Target(_spelled("--model-cache", cache), here / cache, "folder"))
    junit = getattr(config.option, "xmlpath", None)
    if junit:
        targets.append(Target(_spelled("--junitxml", junit), here / junit, None))
    return targets


def _files_under(path: Path) -> Iterator[Path]:
    if path.is_dir():
        for folder, _, files in os.walk(path):
            for name in files:
                yield Path(folder, name)
    elif path.exists():
        yield path


def run_inputs(config: pytest.Config) -> Iterator[Path]:
    """Every file this run reads that an output could name: case files and whatever lies in the case folders, the
    golden store, the expectations files and the error-code table."""
    here = config.invocation_params.dir
    for given in config.getoption("--cases") or [str(config.rootpath / "cases")]:
        yield from _files_under(here / given)
    yield from _files_under(golden_folder(config))
    for given in config.getoption("--expectations", None) or []:
        yield here / given
    codes = config.getoption("--error-codes")
    yield here / codes if codes else config.rootpath / DEFAULT_ERROR_CODES


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    """On the process that writes the outputs (not an xdist worker), before any plugin writes one (allure-pytest makes
    --alluredir as it is configured): check them all, then lock the report files and the st_report data folder for
    the run; a problem is one usage line before any test."""
    if hasattr(config, "workerinput"):
        return
    targets = run_targets(config)
    try:
        check_targets(targets, run_inputs(config))
        for target in targets:
            if target.kind is not None and target.option.startswith(("--report", "--st-report")):
                lock = OutputLock(target.path, target.option)
                lock.acquire()
                config.add_cleanup(lock.release)
    except OutputError as exc:
        raise pytest.UsageError(str(exc)) from None
