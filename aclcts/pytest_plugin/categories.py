"""Failure categories: every failed or errored test report says what kind of failure it was (`aclcts_category`).

Categories, decided in this order:
  "timeout"     the test's pytest-timeout timer ended the phase (any phase);
  "setup"       the test failed while its fixtures were set up (session, backend, model loading, case inputs);
  "precision"   PrecisionMismatch: an output outside its precision policy, or GuardBandError: the op wrote outside
                its output tensor (a wrong result of the op's kernel, found on the same read-back and owned by the
                same kernel, which "other" would hide among the suite's own assertion failures);
  "error_code"  ErrorCodeMismatch or AclCallError: a call's outcome differs from the documented one;
  "leak"        LeakedObjects: the test left objects alive;
  "crash"       the xdist worker running the test died (set on the controller, pytest_handlecrashitem);
  "other"       anything else.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache
from typing import Any

import pytest

from aclcts.pytest_plugin import timeouts

#: Every category, in the order summaries print them.
CATEGORIES = ("precision", "error_code", "leak", "setup", "crash", "timeout", "other")
#: The first line of a crashed test's report (and of its JUnit error text): the worker and the test.
CRASH_LINE = "crashed: worker {worker} died while running {nodeid}"
#: The terminal's word and letter for a crashed test.
CRASHED = ("crashed", "C", "CRASHED")


def add_options(group: Any) -> None:
    """No options: categories are always on."""


def configure(config: pytest.Config) -> None:
    """Categorise the reports of the tests this process runs; on an xdist controller, also crashed workers' tests."""
    config.pluginmanager.register(Categoriser(), "aclcts-categories")
    if not hasattr(config, "workerinput") and config.pluginmanager.hasplugin("xdist"):
        config.pluginmanager.register(CrashReports(), "aclcts-crash-reports")


def category(report: pytest.TestReport) -> str | None:
    """The failure category of a report: its `aclcts_category` ("other" if it has none), None when it did not fail
    (a report pytest-rerunfailures turned into "rerun" keeps its category)."""
    if report.passed or report.skipped:
        return None
    found = getattr(report, "aclcts_category", None)
    return found if isinstance(found, str) else "other"


@cache
def _by_type() -> tuple[tuple[type[BaseException], str], ...]:
    """The exception types that name a category (imported on first use: a controller never runs a test)."""
    from aclcts.core.error_codes import ErrorCodeMismatch
    from aclcts.drive.executor import GuardBandError
    from aclcts.drive.flow import AclCallError
    from aclcts.drive.resources import LeakedObjects
    from aclcts.judge.decorator import PrecisionMismatch

    return ((PrecisionMismatch, "precision"), (GuardBandError, "precision"), (ErrorCodeMismatch, "error_code"),
            (AclCallError, "error_code"), (LeakedObjects, "leak"))


def _leaves(error: BaseException) -> Iterator[BaseException]:
    """error itself, or the exceptions inside an exception group, in order."""
    if isinstance(error, BaseExceptionGroup):
        for inner in error.exceptions:
            yield from _leaves(inner)
    else:
        yield error


def of_exception(error: BaseException | None) -> str:
    """The category an exception names (the first one that names one, for a group), "other" if none does."""
    if error is None:
        return "other"
    for leaf in _leaves(error):
        for kind, name in _by_type():
            if isinstance(leaf, kind):
                return name
    return "other"


def classify(item: pytest.Item, call: pytest.CallInfo) -> str:
    """The category of a failed phase of item."""
    if timeouts.timed_out(item, call):
        return "timeout"
    if call.when == "setup":
        return "setup"
    return of_exception(call.excinfo.value if call.excinfo is not None else None)


class Categoriser:
    """Runs in every process that runs tests: sets `aclcts_category` on every failed report."""

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo) -> Iterator[None]:
        """Categorise a failed setup, call or teardown."""
        outcome = yield
        report = outcome.get_result()
        if report.failed:
            report.aclcts_category = classify(item, call)


class CrashReports:
    """On the xdist controller: a test whose worker died is a crash, in the terminal and every report."""

    def __init__(self) -> None:
        self.crashed: list[str] = []

    def pytest_handlecrashitem(self, crashitem: str, report: pytest.TestReport, sched: Any) -> None:
        """Mark the report xdist makes for the test as a crash, its text CRASH_LINE."""
        node = getattr(report, "node", None)
        worker = getattr(node, "workerinput", {}).get("workerid", "?")
        report.aclcts_category = "crash"
        report.longrepr = CRASH_LINE.format(worker=worker, nodeid=crashitem)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """Keep the line of every crash that stays a failure (one a rerun plugin reruns does not)."""
        if report.failed and getattr(report, "aclcts_category", None) == "crash":
            self.crashed.append(str(report.longrepr))

    @pytest.hookimpl(tryfirst=True)
    def pytest_report_teststatus(self, report: pytest.TestReport, config: pytest.Config) -> tuple[str, str, str] | None:
        """A crashed test is counted, lettered and named "crashed", apart from the failures."""
        if report.failed and getattr(report, "aclcts_category", None) == "crash":
            return CRASHED
        return None

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        """List the crashed tests, one line each."""
        if self.crashed:
            terminalreporter.section("aclcts crashed tests")
            for line in self.crashed:
                terminalreporter.write_line(line)
