"""Fixtures of the run-report tests: reports of child pytest runs over a conformance subset."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from report_runs import SUBSET, run_pytest

from aclcts.report.records import Report, read_report


@pytest.fixture(scope="session")
def subset_report(tmp_path_factory: pytest.TempPathFactory) -> Report:
    """The report of one serial run of the conformance subset."""
    path = tmp_path_factory.mktemp("serial") / "serial.jsonl"
    result = run_pytest([*SUBSET, "-p", "no:xdist"], path)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    return read_report(path)


@pytest.fixture
def run_subset(tmp_path: Path) -> Callable[..., Report]:
    """Run the conformance subset with extra pytest arguments; its report (the run must exit with 0)."""

    def run(*args: str, name: str = "run.jsonl") -> Report:
        path = tmp_path / name
        result = run_pytest([*SUBSET, *args], path)
        assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
        return read_report(path)

    return run
