"""--xdist-events: send a test's pytest-xdist events from a worker as one message instead of six."""

from __future__ import annotations

import io
import pickle
import threading
from typing import Any, Callable

import pytest

#: workerinput key by which the controller tells a worker that it unpacks batches.
WORKER_FLAG = "aclcts_batched_events"
#: Event name of a batch; its one keyword, `events`, is the pickled list of (name, kwargs) pairs.
BATCH = "aclcts_events"
#: Events held back until the test's `runtest_protocol_complete`; any other event sends what is held first.
HELD = frozenset({"logstart", "testreport", "logfinish"})
CHOICES = ("batched", "separate")


def add_options(group: Any) -> None:
    """Add --xdist-events."""
    group.addoption("--xdist-events", choices=CHOICES, default="batched",
                    help="batched (default): each xdist worker sends a test's start, reports and finish as one "
                         "message; separate: one message per event, as pytest-xdist does by itself")


def configure(config: pytest.Config) -> None:
    """Batch this worker's events if its controller asked for it; on a controller, offer batching to the workers."""
    workerinput = getattr(config, "workerinput", None)
    if workerinput is not None:
        if workerinput.get(WORKER_FLAG):
            _batch_worker_events(config)
    elif config.getoption("--xdist-events") == "batched" and config.pluginmanager.hasplugin("xdist"):
        config.pluginmanager.register(UnbatchingController(), "aclcts-xdist-events")


class UnbatchingController:
    """The controller side: each worker's channel callback unpacks batches into the events they hold."""

    @pytest.hookimpl(optionalhook=True)
    def pytest_configure_node(self, node: Any) -> None:
        """Wrap the new worker's event callback and tell the worker it may batch."""
        process = getattr(node, "process_from_remote", None)
        if process is None:
            return
        node.process_from_remote = unbatching(process)
        node.workerinput[WORKER_FLAG] = True


def unbatching(process: Callable[[Any], None]) -> Callable[[Any], None]:
    """A channel callback that passes each event of a batch to `process`, and anything else as it is."""

    def process_from_remote(eventcall: Any) -> None:
        if isinstance(eventcall, tuple) and eventcall[0] == BATCH:
            for event in unpickle_plain(eventcall[1]["events"]):
                process(event)
        else:
            process(eventcall)

    return process_from_remote


class _PlainUnpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        raise pickle.UnpicklingError(f"an xdist event batch may hold only plain data, not {module}.{name}")


class _PlainPickler(pickle.Pickler):
    def reducer_override(self, obj: Any) -> Any:
        if type(obj) in (tuple, list, dict, set, frozenset, str, int, float, bool, bytes, type(None)):
            return NotImplemented
        raise pickle.PicklingError(f"{type(obj).__name__} is not plain data")


def pickle_plain(obj: Any) -> bytes:
    """Pickle data made only of tuples, lists, dicts, sets, strings, numbers, bools, bytes and None; PicklingError else."""
    buffer = io.BytesIO()
    _PlainPickler(buffer, protocol=pickle.HIGHEST_PROTOCOL).dump(obj)
    return buffer.getvalue()


def unpickle_plain(data: bytes) -> Any:
    """The plain data `pickle_plain` wrote; UnpicklingError for anything that would construct another class."""
    return _PlainUnpickler(io.BytesIO(data)).load()


def _find_interactor(config: pytest.Config) -> Any:
    for plugin in config.pluginmanager.get_plugins():
        if type(plugin).__name__ == "WorkerInteractor" and hasattr(plugin, "sendevent") and hasattr(plugin, "channel"):
            return plugin
    return None


def _batch_worker_events(config: pytest.Config) -> None:
    interactor = _find_interactor(config)
    if interactor is not None:
        interactor.sendevent = EventBatcher(interactor.channel.send)


class EventBatcher:
    """A worker's sendevent: holds a test's start, reports and finish, and sends them with the next other event."""

    def __init__(self, send: Callable[[Any], None]) -> None:
        self.send = send
        self.held: list[tuple[str, dict[str, Any]]] = []
        # --dist worksteal sends "unscheduled" from the channel's callback, beside the test loop's events.
        self.lock = threading.Lock()

    def __call__(self, name: str, **kwargs: Any) -> None:
        """Hold a per-test event, or send the held ones together with this one."""
        with self.lock:
            if name in HELD:
                self.held.append((name, kwargs))
                return
            if not self.held:
                self.send((name, kwargs))
                return
            events, self.held = [*self.held, (name, kwargs)], []
            try:
                self.send((BATCH, {"events": pickle_plain(events)}))
            except pickle.PicklingError:
                for event in events:
                    self.send(event)
