"""The --report option: a JSON Lines run report written by the controlling pytest process as results arrive."""

from __future__ import annotations

import datetime
import importlib.metadata
import os
import socket
import time
from collections.abc import Iterator
from typing import Any

import pytest

import aclcts
from aclcts.pytest_plugin import stages, timeouts
from aclcts.pytest_plugin.library import selected_case
from aclcts.report.environment import describe
from aclcts.report.provenance import aclcts_settings, dependency_versions, file_record
from aclcts.report.records import ReportError, ReportWriter, count_statuses

MESSAGE_LIMIT = 300


def add_options(group: Any) -> None:
    """Add --report."""
    group.addoption("--report", default=None, metavar="FILE",
                    help="write a JSON Lines run report (run, environment, one record per case, summary) to FILE")


def configure(config: pytest.Config) -> None:
    """With --report, mark every report with its device and environment; on the controller, write the file."""
    path = config.getoption("--report")
    if not path:
        return
    config.pluginmanager.register(ReportMarker(), "aclcts-report-marker")
    stages.register(config)
    if hasattr(config, "workerinput"):
        return
    try:
        writer = ReportWriter(path)
    except ReportError as exc:
        raise pytest.UsageError(f"--report: {exc}") from None
    config.pluginmanager.register(RunReporter(config, writer), "aclcts-report")


def suite_version() -> str:
    """The installed aclcts version."""
    try:
        return importlib.metadata.version("aclcts")
    except importlib.metadata.PackageNotFoundError:
        return aclcts.__version__


class ReportMarker:
    """Runs in every test process: puts the device, and once the environment, on the test reports."""

    def __init__(self) -> None:
        self.environment: dict[str, Any] | None = None

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo) -> Iterator[None]:
        """Set report.aclcts_device, and report.aclcts_environment on the first report after the session opened."""
        outcome = yield
        report = outcome.get_result()
        report.aclcts_device = item.config.getoption("--device-id")
        case = selected_case(item)
        if case is not None and case.msopst is not None and case.msopst.op_params.get("reference_note"):
            report.aclcts_reference_note = case.msopst.op_params["reference_note"]
        if self.environment is None and call.when in ("setup", "call"):
            backend, session = item.funcargs.get("aclcts_backend"), item.funcargs.get("session")
            if backend is not None and session is not None and hasattr(session, "device_id"):
                self.environment = describe(backend.spec, backend.acl, session.device_id)
                report.aclcts_environment = self.environment


def _first_line(text: str) -> str:
    """The text's first non-blank line, continued by the next while it ends in a colon (a heading such as "... differs
    from the reference:" is followed by its numbers), cut to MESSAGE_LIMIT."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    taken = 1
    while taken < len(lines) and lines[taken - 1].endswith(":"):
        taken += 1
    line = " ".join(lines[:taken])
    return line if len(line) <= MESSAGE_LIMIT else line[: MESSAGE_LIMIT - 3] + "..."


def message(report: pytest.TestReport) -> str:
    """A short first line saying why a phase did not pass (empty when it passed)."""
    if getattr(report, "wasxfail", None):
        return _first_line(str(report.wasxfail))
    longrepr = report.longrepr
    if report.passed or longrepr is None:
        return ""
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        return _first_line(str(longrepr[2]))
    crash = getattr(longrepr, "reprcrash", None)
    if crash is not None and getattr(crash, "message", None):
        return _first_line(crash.message)
    return _first_line(str(longrepr))


def _status(phases: dict[str, pytest.TestReport]) -> tuple[str, pytest.TestReport | None]:
    setup, call, teardown = phases.get("setup"), phases.get("call"), phases.get("teardown")
    others = [r for when, r in phases.items() if when not in ("setup", "call", "teardown") and not r.passed]
    if setup is not None and setup.failed:
        return "error", setup
    if setup is not None and setup.skipped:
        return ("xfailed" if getattr(setup, "wasxfail", None) else "skipped"), setup
    if others:
        return "error", others[0]
    if call is None:
        if teardown is not None and teardown.failed:
            return "error", teardown
        return "error", None
    if call.failed:
        return "failed", call
    if teardown is not None and teardown.failed:
        return "error", teardown
    if call.skipped:
        return ("xfailed" if getattr(call, "wasxfail", None) else "skipped"), call
    return ("xpassed" if getattr(call, "wasxfail", None) else "passed"), call


def category(report: pytest.TestReport | None) -> str | None:
    """The failure category a report carries (aclcts.pytest_plugin.categories sets it), None if it has none."""
    found = getattr(report, "aclcts_category", None)
    return found if isinstance(found, str) else None


def case_record(nodeid: str, phases: dict[str, pytest.TestReport],
                reruns: list[pytest.TestReport] | None = None) -> dict[str, Any]:
    """One case record from the setup / call / teardown reports of a test's last attempt and the reports of the
    attempts before it that were rerun (flaky when it then passed)."""
    reruns = reruns or []
    status, deciding = _status(phases)
    crashed = next((r for r in phases.values() if category(r) == "crash"), None)
    cut_short = next((r for r in phases.values() if r.outcome == "rerun"), None)
    if crashed is not None:
        status, deciding = "crashed", crashed
    elif cut_short is not None:  # the run ended before the rerun this attempt asked for
        status, deciding = ("failed" if cut_short.when == "call" else "error"), cut_short
    elif status == "passed" and reruns:
        status, deciding = "flaky", reruns[-1]
    timed = phases.get("call") or phases.get("setup") or next(iter(phases.values()))
    metrics: dict[str, Any] = {}
    for report in phases.values():
        for key, value in getattr(report, "user_properties", ()):
            metrics[str(key)] = value
    steps = next((r.aclcts_steps for r in phases.values() if getattr(r, "aclcts_steps", None) is not None), [])
    text = message(deciding) if deciding is not None else "the run ended before the test finished"
    stage = getattr(deciding, stages.KEY, None) if status not in ("passed", "flaky", "skipped") else None
    if status == "flaky":
        text = f"passed on rerun {len(reruns)} after: {text}"
    record = {
        "record": "case", "id": nodeid, "status": status, "duration": round(float(timed.duration), 6),
        "steps": list(steps), "metrics": metrics, "message": text,
        "category": None if status == "passed" else category(deciding), "stage": stage, "reruns": len(reruns),
        "worker": getattr(timed, "worker_id", None),
        "device": next((r.aclcts_device for r in phases.values() if hasattr(r, "aclcts_device")), None),
        "reproduce": next((r.aclcts_reproduce for r in [*phases.values(), *reruns]
                           if getattr(r, "aclcts_reproduce", None)), None),
    }
    note = next((r.aclcts_reference_note for r in phases.values() if getattr(r, "aclcts_reference_note", None)), None)
    if note:  # an msopst case judged against aclcts' reference because its golden function could not be imported
        record["reference"] = note
    return record


def timeout_setting(config: pytest.Config) -> dict[str, Any] | None:
    """The per-test timeout of the run ({"seconds", "method", "source"}): pytest-timeout's own setting, else the
    default aclcts gives tests off the simulator; None when timeouts are off or pytest-timeout is not loaded."""
    plugin = config.pluginmanager.getplugin(timeouts.PLUGIN)
    settings = getattr(plugin, "get_env_settings", None)
    if settings is None:
        return None
    try:
        found = settings(config)
    except ValueError:
        return None
    seconds, source = getattr(found, "timeout", None), "pytest-timeout"
    if not seconds:
        seconds, source = timeouts.default_timeout(config), "aclcts default off the simulator"
    if not seconds:
        return None
    return {"seconds": float(seconds), "method": getattr(found, "method", None), "source": source}


class RunReporter:
    """Runs in the controlling process only: writes run, environment, case and summary records as they happen."""

    def __init__(self, config: pytest.Config, writer: ReportWriter) -> None:
        self.config = config
        self.writer = writer
        self.pending: dict[str, dict[str, pytest.TestReport]] = {}
        self.reruns: dict[str, list[pytest.TestReport]] = {}
        self.environments: list[dict[str, Any]] = []
        self.statuses: list[dict[str, str]] = []
        self.started = time.monotonic()

    def _run_record(self) -> dict[str, Any]:
        option = self.config.getoption
        return {
            "record": "run", "version": suite_version(), "seed": option("--aclcts-seed"),
            "backend": option("--backend"), "cases": option("--cases"), "model_dir": option("--model-dir"),
            "hostname": socket.gethostname(),
            "start": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "shard": option("--shard", None), "devices": option("--devices", None),
            "device_id": option("--device-id"), "workers": option("numprocesses", None),
            "pytest_args": list(self.config.invocation_params.args),
            "settings": aclcts_settings(os.environ),
            "expectations": [file_record(path) for path in option("--expectations", None) or []],
            "dependencies": dependency_versions(), "timeout": timeout_setting(self.config),
        }

    def pytest_sessionstart(self, session: pytest.Session) -> None:
        """Write the run record."""
        self.started = time.monotonic()
        self.writer.write(self._run_record())

    def _environment(self, report: pytest.TestReport) -> None:
        found = getattr(report, "aclcts_environment", None)
        if not isinstance(found, dict) or found in self.environments:
            return
        self.environments.append(found)
        self.writer.write({**found, "worker": getattr(report, "worker_id", None)})

    def _emit(self, nodeid: str) -> None:
        record = case_record(nodeid, self.pending.pop(nodeid), self.reruns.pop(nodeid, []))
        self.statuses.append({"status": record["status"]})
        self.writer.write(record)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """Collect a test's phases; write its case record once its last attempt's teardown (or a crash report)
        arrives. An attempt with a phase whose outcome is "rerun" (pytest-rerunfailures) is followed by another."""
        self._environment(report)
        phases = self.pending.setdefault(report.nodeid, {})
        phases[report.when] = report
        if report.when in ("setup", "call"):
            return
        rerun = [r for r in phases.values() if r.outcome == "rerun"]
        if report.when == "teardown" and rerun and category(report) != "crash":
            self.reruns.setdefault(report.nodeid, []).extend(rerun)
            del self.pending[report.nodeid]
            return
        self._emit(report.nodeid)

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        """Write any test cut short, then the summary record."""
        for nodeid in list(self.pending):
            self._emit(nodeid)
        self.writer.write({
            "record": "summary", "counts": count_statuses(self.statuses), "total": len(self.statuses),
            "wall_time": round(time.monotonic() - self.started, 3), "exit_status": int(exitstatus),
        })

    def pytest_unconfigure(self, config: pytest.Config) -> None:
        """Close the report file."""
        self.writer.close()
