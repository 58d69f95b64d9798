"""Under pytest-xdist, a usage error a worker finds while it configures (a bad case file) ends the run as one line.

Only documented channels are used: the worker puts the message in `config.workeroutput` and raises the usage error
once its session has started, so that pytest-xdist sends the workeroutput to the controller as the worker finishes;
the controller's `pytest_testnodedown` hook finds it on `node.workeroutput` and raises it as the run's usage error.
"""

from __future__ import annotations

from typing import Any, NoReturn

import pytest

#: workeroutput key of a worker's usage error message.
KEY = "aclcts_usage_error"


class DeferredUsageError:
    """The worker side: raises the usage error found while configuring when collection begins."""

    def __init__(self, message: str) -> None:
        self.message = message

    @pytest.hookimpl(tryfirst=True)
    def pytest_collection(self, session: pytest.Session) -> None:
        """Raise the usage error (the session has started, so the worker's workeroutput will reach the controller)."""
        raise pytest.UsageError(self.message)


def usage_error(config: pytest.Config, message: str) -> None:
    """Stop the run with this usage error: at once, or on an xdist worker through its controller (the first only)."""
    workeroutput = getattr(config, "workeroutput", None)
    if workeroutput is None:
        raise pytest.UsageError(message)
    if KEY not in workeroutput:
        workeroutput[KEY] = message
        config.pluginmanager.register(DeferredUsageError(message), "aclcts-usage-error")


def raise_usage_error(config: pytest.Config, message: str) -> NoReturn:
    """Stop the run with this usage error now, once the session has started (during collection): on an xdist worker,
    its workeroutput carries the message to the controller as the worker finishes."""
    workeroutput = getattr(config, "workeroutput", None)
    if workeroutput is not None:
        workeroutput.setdefault(KEY, message)
    raise pytest.UsageError(message)


class UsageErrorRelay:
    """The controller side: a worker that finished with a usage error ends the run with that error."""

    @pytest.hookimpl(tryfirst=True, optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        """Raise the usage error of a worker that reported one, before pytest-xdist removes it from the schedule."""
        message = getattr(node, "workeroutput", {}).get(KEY)
        if message is not None:
            raise pytest.UsageError(message)
