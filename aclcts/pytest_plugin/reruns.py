"""--rerun-new-failures=N: rerun failures no expectations entry covers (pytest-rerunfailures) and report the tests
that pass on a rerun as flaky.

Scoping: at collection every test that no unexpired expectations entry matches gets pytest-rerunfailures'
`flaky(reruns=N)` marker, so known failures run once and new ones up to N more times (a crashed xdist worker's test
too). The verdict "flaky" (a test whose final attempt passed after a failed one) is shown by the terminal as the
test's word and in a summary section, and carried into JUnit XML as testcase properties (pytest writes a testcase
per attempt): `aclcts_rerun` on an attempt that failed and was rerun (on the next attempt's testcase for an attempt
that crashed its worker, which gets none), `aclcts_flaky` on the attempt that passed.
The JSON run report and Allure read the rerun reports themselves.
"""

from __future__ import annotations

from typing import Any

import pytest

from aclcts.pytest_plugin.run_report import message

#: The testcase property (JUnit XML) of a failed attempt that was rerun; its value says which attempt and why.
RERUN_PROPERTY = "aclcts_rerun"
#: The testcase property of the attempt that passed after failed ones; its value is the number of failed attempts.
FLAKY_PROPERTY = "aclcts_flaky"
#: The phases of a test run (a crashed worker's report for its test has none of them).
PHASES = ("setup", "call", "teardown")
#: The terminal's word for a flaky test, and its letter in the progress line.
WORD, LETTER = "FLAKY", "K"


def add_options(group: Any) -> None:
    """Add --rerun-new-failures."""
    group.addoption("--rerun-new-failures", type=int, default=0, metavar="N",
                    help="rerun up to N times each failure that no expectations entry covers; a test passing on a "
                         "rerun is reported as flaky (default 0: no reruns)")


def configure(config: pytest.Config) -> None:
    """Check the option and register the hooks when N > 0."""
    reruns = config.getoption("--rerun-new-failures")
    if not reruns:
        return
    if reruns < 0:
        raise pytest.UsageError(f"--rerun-new-failures: expected a number of reruns of 0 or more, got {reruns}")
    if not config.pluginmanager.hasplugin("rerunfailures"):
        raise pytest.UsageError("--rerun-new-failures needs the pytest-rerunfailures plugin (installed with aclcts), "
                                "which -p no:rerunfailures turned off")
    for option in ("--reruns", "--force-reruns"):
        if config.getoption(option, None) is not None:
            raise pytest.UsageError(f"--rerun-new-failures and {option} both set reruns: give one of them")
    if config.getini("reruns"):
        raise pytest.UsageError("--rerun-new-failures and the ini setting reruns both set reruns: give one of them")
    if config.getoption("usepdb"):
        raise pytest.UsageError("--rerun-new-failures cannot be used with --pdb (a rerun would hide the failure)")
    config.pluginmanager.register(NewFailureReruns(reruns, not hasattr(config, "workerinput")), "aclcts-reruns")


def is_flaky(report: pytest.TestReport) -> bool:
    """Whether a report is the passing call of a test that failed on an earlier attempt."""
    return report.when == "call" and report.passed and getattr(report, "rerun", 0) > 0


class NewFailureReruns:
    """The hooks of --rerun-new-failures: scope the reruns at collection, then show flaky tests in every output."""

    def __init__(self, reruns: int, reporting: bool) -> None:
        self.reruns, self.reporting = reruns, reporting
        self.failed_attempt: dict[str, str] = {}
        self.crashed_attempts: dict[str, list[str]] = {}
        self.flaky: dict[str, tuple[int, str]] = {}
        self.first_failure: dict[str, str] = {}

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, config: pytest.Config, items: list[pytest.Item]) -> None:
        """Mark every test no unexpired expectations entry covers to be rerun up to N times."""
        waivers = config.pluginmanager.get_plugin("aclcts-waivers")
        for item in items:
            if item.get_closest_marker("flaky") is None and not (waivers and waivers.covers(item.nodeid)):
                item.add_marker(pytest.mark.flaky(reruns=self.reruns))

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """Where the results are reported (not on xdist workers): note reruns and flaky passes, and put them on the
        test's teardown report as properties for JUnit XML."""
        if not self.reporting:
            return
        if report.outcome == "rerun":
            said = message(report) or "crashed"
            note = f"attempt {getattr(report, 'rerun', 0) + 1} failed: {said}"
            self.first_failure.setdefault(report.nodeid, said)
            if report.when in PHASES:
                self.failed_attempt[report.nodeid] = note
            else:
                self.crashed_attempts.setdefault(report.nodeid, []).append(note)
        elif is_flaky(report):
            self.flaky[report.nodeid] = (report.rerun, self.first_failure.get(report.nodeid, ""))
        if report.when == "teardown":
            found = [(RERUN_PROPERTY, note) for note in self.crashed_attempts.pop(report.nodeid, [])]
            attempt = self.failed_attempt.pop(report.nodeid, None)
            if attempt is not None:
                found.append((RERUN_PROPERTY, attempt))
            elif report.nodeid in self.flaky:
                found.append((FLAKY_PROPERTY, self.flaky[report.nodeid][0]))
            report.user_properties.extend(found)

    def pytest_report_teststatus(self, report: pytest.TestReport) -> tuple[str, str, tuple[str, dict]] | None:
        """A flaky test's word in the terminal."""
        if is_flaky(report):
            return "flaky", LETTER, (WORD, {"yellow": True})
        return None

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        """The "aclcts flaky tests" section: every test that passed on a rerun, with its first failure."""
        if not self.flaky:
            return
        terminalreporter.section("aclcts flaky tests")
        terminalreporter.write_line(f"passed on a rerun after failing (--rerun-new-failures={self.reruns}): "
                                    f"{len(self.flaky)}")
        for nodeid, (reruns, first) in self.flaky.items():
            terminalreporter.write_line(f"  {nodeid} - passed on rerun {reruns}; first failure: {first}")
