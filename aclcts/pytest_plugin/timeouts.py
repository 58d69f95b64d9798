"""Per-test timeouts through pytest-timeout: a default on device backends, and whether a failed phase timed out.

pytest-timeout owns `--timeout`; this module adds nothing to the command line. A --timeout also limits each piece of
user code run at collection (aclcts.core.usercode: golden modules, `reference: module:ATTR`, --backend modules). On every backend but `sim`, a test
without a timeout of its own gets DEVICE_TIMEOUT unless the run configured one (`--timeout`, the `timeout` ini
value or PYTEST_TIMEOUT; `--timeout=0` turns timeouts off). The simulator never waits on a device, so on `sim`
timeouts stay off unless asked for.
"""

from __future__ import annotations

import os
import time
from typing import Any

import pytest

from aclcts.core import usercode
from aclcts.pytest_plugin.run_backend import run_capabilities

#: Seconds a test may take on a device backend by default. Generous on purpose: the first test of each process also
#: pays the session's set-up (acl.init, set_device, acl.op.set_model_dir over every model of --model-dir, which can
#: take minutes on a large library), and a large-shape case with model loading takes seconds; a test still running
#: after 15 minutes is stuck, and a farm slot loses at most that much to it instead of the whole job.
DEVICE_TIMEOUT = 900.0
#: pytest-timeout's plugin name (absent with `-p no:timeout`).
PLUGIN = "timeout"


def add_options(group: Any) -> None:
    """No options of its own: pytest-timeout's --timeout is the one to use."""


def limit_user_code(config: pytest.Config) -> str | None:
    """Give user code run at collection --timeout as its time limit; the problem with ACLCTS_IMPORT_TIMEOUT, if any."""
    try:
        usercode.timeout()
    except ValueError as exc:
        return str(exc)
    limit = config.getoption("timeout", None)
    if limit:
        usercode.set_timeout(float(limit))
        config.add_cleanup(lambda: usercode.set_timeout(None))  # a pytester session's limit ends with it
    return None


def configure(config: pytest.Config) -> None:
    """With pytest-timeout loaded: record each test's timer, and give tests the device default where it applies."""
    if not config.pluginmanager.hasplugin(PLUGIN):
        return
    config.pluginmanager.register(TimerLog(), "aclcts-timer-log")
    if default_timeout(config) is not None:
        config.pluginmanager.register(DeviceDefault(DEVICE_TIMEOUT), "aclcts-device-timeout")


def configured(config: pytest.Config) -> bool:
    """Whether the run configured pytest-timeout itself: --timeout, the `timeout` ini value or PYTEST_TIMEOUT."""
    return (config.getoption("timeout", None) is not None or bool(config.getini("timeout"))
            or bool(os.environ.get("PYTEST_TIMEOUT")))


def default_timeout(config: pytest.Config) -> float | None:
    """The timeout aclcts gives tests without one (DEVICE_TIMEOUT off the simulator), None where it gives none."""
    if not config.pluginmanager.hasplugin(PLUGIN) or configured(config):
        return None
    capabilities = run_capabilities(config)
    if capabilities is not None and capabilities.never_hangs:
        return None
    return DEVICE_TIMEOUT


class DeviceDefault:
    """Marks every collected test that has no timeout marker of its own with `pytest.mark.timeout(seconds)`."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds

    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        """Add the default timeout marker where a test has none."""
        for item in items:
            if item.get_closest_marker("timeout") is None:
                item.add_marker(pytest.mark.timeout(self.seconds))


_TIMER = pytest.StashKey[tuple[float, float]]()


class TimerLog:
    """Records when pytest-timeout started a test's timer and for how long (its documented set-timer hook)."""

    @pytest.hookimpl(tryfirst=True)
    def pytest_timeout_set_timer(self, item: pytest.Item, settings: Any) -> None:
        """Note the start and length of the timer; returns None so that pytest-timeout still sets it."""
        item.stash[_TIMER] = (time.time(), float(settings.timeout))


def timed_out(item: pytest.Item, call: pytest.CallInfo) -> bool:
    """Whether this phase was ended by the test's timeout: it started before the timer ran out, ended after, and
    failed with the pytest.fail exception that pytest-timeout raises."""
    timer = item.stash.get(_TIMER, None)
    if timer is None or call.excinfo is None or not call.excinfo.errisinstance(pytest.fail.Exception):
        return False
    start, seconds = timer
    deadline = start + seconds
    return call.start < deadline <= call.stop
