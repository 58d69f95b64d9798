"""Allure results that belong to the whole run (with --alluredir): environment.properties and categories.json written
once by the process that controls it, a broken result for every test whose xdist worker crashed, the flaky mark for a
test that passed on a rerun, and the setup-failure prefix that the "setup" category matches."""

from __future__ import annotations

import hashlib
import json
import os
import platform
import socket
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import allure_commons
import pytest
from allure_commons.model2 import StatusDetails

from aclcts.core.files import write_atomically
from aclcts.pytest_plugin.allure_categories import CRASH_PREFIX, SETUP_PREFIX, grouping_message, write_categories
from aclcts.pytest_plugin.allure_environment import properties, write_environment
from aclcts.report.environment import describe

#: Top folder of a test → the epic it reports under (any other folder is its own epic).
SUITES = {"conformance": "aclcts conformance"}


def add_options(group: Any) -> None:
    """No options: the feature is on whenever allure-pytest writes results (--alluredir)."""


def configure(config: pytest.Config) -> None:
    """With --alluredir: mark reports with the session's environment and results with flaky and setup marks in every
    process; write the run's files and crashed tests' results in the process that controls the run."""
    folder = getattr(config.option, "allure_report_dir", None)
    if not folder:
        return
    config.pluginmanager.register(SessionMarker(), "aclcts-allure-session")
    marks = ResultMarks()
    config.pluginmanager.register(marks, "aclcts-allure-marks")
    allure_commons.plugin_manager.register(marks)
    config.add_cleanup(lambda: allure_commons.plugin_manager.unregister(marks))
    if not hasattr(config, "workerinput"):
        config.pluginmanager.register(RunFiles(config, Path(folder).absolute()), "aclcts-allure-run")


def epic_of(parts: tuple[str, ...], root_name: str) -> str:
    """The suite a test file belongs to, from its path parts under the rootdir: "aclcts conformance" for
    conformance/, otherwise its top folder (the rootdir's name for a file directly in it)."""
    top = parts[0] if len(parts) > 1 else root_name
    return SUITES.get(top, top)


class SessionMarker:
    """Runs in every test process: puts the environment of the process's acl session on one of its reports."""

    def __init__(self) -> None:
        self.marked = False

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo) -> Iterator[None]:
        """Set report.aclcts_allure_session on the first report after the session opened."""
        outcome = yield
        if self.marked:
            return
        backend, session = item.funcargs.get("aclcts_backend"), item.funcargs.get("session")
        if backend is not None and hasattr(session, "device_id"):
            outcome.get_result().aclcts_allure_session = describe(backend.spec, backend.acl, session.device_id)
            self.marked = True


class ResultMarks:
    """Runs in every test process: marks the result allure-pytest is about to write as flaky when the test passed
    after a rerun (pytest-rerunfailures), gives a failed result its grouping message (the whole message moves to the
    head of its trace) and prefixes the message of a test that failed at setup."""

    def __init__(self) -> None:
        self.rerun: set[str] = set()
        self.setup_failed = False
        self.closing: str | None = None
        self.op: str | None = None

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """Note reruns, setup failures and the op of the test running now."""
        if report.outcome == "rerun":
            self.rerun.add(report.nodeid)
        if report.when == "setup" and report.outcome in ("failed", "rerun"):
            self.setup_failed = True
        if report.failed:
            self.op = getattr(report, "aclcts_op", None)

    def pytest_runtest_logfinish(self, nodeid: str) -> None:
        """The test whose result allure-pytest writes next (it does so after this hook)."""
        self.closing = nodeid

    @allure_commons.hookimpl(tryfirst=True)
    def report_result(self, result: Any) -> None:
        """Before the result is written: the flaky mark, the grouping message and the setup prefix."""
        if result.status == "passed" and self.closing in self.rerun:
            self.rerun.discard(self.closing)
            result.statusDetails = result.statusDetails or StatusDetails()
            result.statusDetails.flaky = True
        elif result.status in ("failed", "broken") and result.statusDetails is not None:
            details = result.statusDetails
            whole = details.message or ""
            case_id = (self.closing or "").partition("[")[2][:-1] or None
            details.message = grouping_message(whole, self.op, case_id)
            details.trace = whole + ("\n\n" + details.trace if details.trace else "")
            if self.setup_failed:
                details.message = SETUP_PREFIX + details.message
        self.setup_failed, self.op = False, None


def crash_result(report: pytest.TestReport, root_name: str) -> dict[str, Any]:
    """The Allure result of a test whose worker died while running it: broken, with a message saying it crashed."""
    path, _, name = report.nodeid.partition("::")
    parts = tuple(path.split("/"))
    module = ".".join(parts)[: -len(".py")] if path.endswith(".py") else ".".join(parts)
    trace = report.longreprtext.strip()
    now = int(time.time() * 1000)
    labels = {"epic": epic_of(parts, root_name), "story": Path(path).stem.removeprefix("test_").replace("_", " "),
              "parentSuite": ".".join(parts[:-1]) or root_name, "suite": Path(path).stem, "host": socket.gethostname(),
              "framework": "pytest", "language": f"cpython{platform.python_version_tuple()[0]}", "tag": "crashed"}
    return {
        "uuid": str(uuid.uuid4()), "historyId": hashlib.md5(report.nodeid.encode()).hexdigest(),
        "fullName": f"{module}#{name.split('[')[0].replace('::', '.')}", "name": name.rsplit("::", 1)[-1],
        "status": "broken", "stage": "finished",
        "statusDetails": {"message": f"{CRASH_PREFIX}the pytest-xdist worker running {report.nodeid} died before the "
                                     "test finished", "trace": trace},
        "start": now, "stop": now, "labels": [{"name": k, "value": v} for k, v in labels.items()],
    }


class RunFiles:
    """Runs in the process that controls the run (the xdist controller, or the only process): the run's files."""

    def __init__(self, config: pytest.Config, folder: Path) -> None:
        self.config = config
        self.folder = folder
        self.sessions: list[dict[str, Any]] = []
        self.crashed: set[str] = set()

    @pytest.hookimpl(optionalhook=True)
    def pytest_handlecrashitem(self, crashitem: str) -> None:
        """pytest-xdist: the worker running crashitem died, so it never wrote that test's result."""
        self.crashed.add(crashitem)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """Collect session environments; write the result of a crashed test."""
        found = getattr(report, "aclcts_allure_session", None)
        if isinstance(found, dict):
            self.sessions.append(found)
        if report.nodeid in self.crashed:
            self.crashed.discard(report.nodeid)
            result = crash_result(report, self.config.rootpath.name)
            self.folder.mkdir(parents=True, exist_ok=True)
            write_atomically(self.folder / f"{result['uuid']}-result.json", json.dumps(result).encode())

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        """Write environment.properties and categories.json (also after an interrupted run)."""
        if self.config.option.collectonly:
            return
        write_environment(self.folder, properties(self.config, self.sessions, os.environ))
        write_categories(self.folder)
