"""Under pytest-xdist, a usage error a worker finds while it configures (a bad case file) ends the run as one line."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest

from aclcts.pytest_plugin.xdist_events import find_interactor

#: Event a worker sends, just before its configure fails, with the usage error's message.
EVENT = "aclcts_usage_error"


def usage_error(config: pytest.Config, message: str) -> pytest.UsageError:
    """The usage error to raise; on an xdist worker its message goes to the controller first."""
    interactor = find_interactor(config) if hasattr(config, "workerinput") else None
    if interactor is not None:
        interactor.sendevent(EVENT, message=message)
    return pytest.UsageError(message)


class UsageErrorRelay:
    """The controller side: a worker that went down after sending a usage error ends the run with that error."""

    def __init__(self) -> None:
        self.messages: dict[str, str] = {}
        self.lock = threading.Lock()

    @pytest.hookimpl(optionalhook=True)
    def pytest_configure_node(self, node: Any) -> None:
        """Keep the usage error a new worker sends out of pytest-xdist's own event handling."""
        process = getattr(node, "process_from_remote", None)
        if process is not None:
            node.process_from_remote = self._catching(node.gateway.id, process)

    def _catching(self, worker: str, process: Callable[[Any], None]) -> Callable[[Any], None]:
        def process_from_remote(eventcall: Any) -> None:
            if isinstance(eventcall, tuple) and eventcall[0] == EVENT:
                with self.lock:
                    self.messages.setdefault(worker, eventcall[1]["message"])
                return
            process(eventcall)
        return process_from_remote

    @pytest.hookimpl(tryfirst=True, optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        """Raise the usage error of a worker that sent one, before pytest-xdist reports a crash and replaces it."""
        with self.lock:
            message = self.messages.get(node.gateway.id)
        if message is not None:
            raise pytest.UsageError(message)
