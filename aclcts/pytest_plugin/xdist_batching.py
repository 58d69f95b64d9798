"""Opt-in (`-p aclcts.pytest_plugin.xdist_batching`): xdist workers send finished tests' events in batches, spooled.

Never loaded by default. It replaces pytest-xdist internals that are not its public API (the controller's
`WorkerController.process_from_remote` and the worker's `WorkerInteractor.sendevent`), so a pytest-xdist release
may break it. Measured on `pytest conformance/ -n 2`, 2-CPU host, pytest-xdist 3.8.0, alternating runs: 4,406 tests
7.8 s wall / 15.0 s CPU with it against 10.1 s / 19.6 s without (0.77x); 4,996 tests 9.6-10.3 s against 11.8-12.2 s
wall (about 0.83x wall and CPU).

A worker holds the events of up to MAX_TESTS finished tests, or MAX_AGE_S seconds' worth, and sends every test at
once when its queue is short or a test failed; each test is written to a spool file first, so that the controller
replays what a crashed worker held and xdist blames the crash on the test that was really running.
"""

from __future__ import annotations

import io
import os
import pickle
import shutil
import struct
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from itertools import count
from pathlib import Path
from typing import Any

import pytest

#: workerinput key by which the controller tells a worker that it unpacks batches; its value is the spool file.
WORKER_FLAG = "aclcts_batched_events"
#: Event name of a batch; its one keyword, `tests`, is a list of spool records.
BATCH = "aclcts_events"
#: A test's events before its `runtest_protocol_complete`, which are held with it.
PER_TEST = frozenset({"logstart", "testreport", "logfinish"})
COMPLETE = "runtest_protocol_complete"
#: A worker sends what it holds once this many tests are finished ...
MAX_TESTS = 64
#: ... or the first of them finished this many seconds ago ...
MAX_AGE_S = 0.2
#: ... and after every test once fewer than this many are queued on it, so that the controller sends more in time.
LOW_QUEUE = 8
_HEADER = struct.Struct("<I")


def pytest_configure(config: pytest.Config) -> None:
    """Batch this worker's events if its controller asked for it; on a controller, offer batching to the workers."""
    workerinput = getattr(config, "workerinput", None)
    if workerinput is not None:
        if workerinput.get(WORKER_FLAG):
            _batch_worker_events(config, workerinput[WORKER_FLAG])
    elif config.pluginmanager.hasplugin("xdist"):
        config.pluginmanager.register(UnbatchingController(), "aclcts-xdist-batching")


class UnbatchingController:
    """The controller side: each worker's channel callback unpacks batches, and replays a crashed worker's spool."""

    def __init__(self) -> None:
        self.numbers = count()
        self.folder: Path | None = None

    @pytest.hookimpl(optionalhook=True)
    def pytest_configure_node(self, node: Any) -> None:
        """Wrap the new worker's event callback and tell the worker it may batch, and where to spool."""
        process = getattr(node, "process_from_remote", None)
        if process is None:
            return
        if self.folder is None:
            remove_orphaned_spools(Path(tempfile.gettempdir()))
            self.folder = Path(tempfile.mkdtemp(prefix=f"{SPOOL_PREFIX}{os.getpid()}-"))
        spool = self.folder / f"worker-{next(self.numbers)}.events"
        node.process_from_remote = unbatching(process, spool)
        node.workerinput[WORKER_FLAG] = str(spool)

    def pytest_unconfigure(self) -> None:
        """Remove the spool files."""
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)


#: Start of a controller's spool folder name, followed by the controller's process id and a dash.
SPOOL_PREFIX = "aclcts-xdist-"


def remove_orphaned_spools(folder: Path) -> list[Path]:
    """Remove spool folders in folder whose controller process no longer exists (it was killed); return them."""
    removed = []
    for candidate in folder.glob(f"{SPOOL_PREFIX}*-*"):
        pid = candidate.name[len(SPOOL_PREFIX):].split("-", 1)[0]
        if not pid.isdigit() or _process_exists(int(pid)):
            continue
        shutil.rmtree(candidate, ignore_errors=True)
        removed.append(candidate)
    return removed


def _process_exists(pid: int) -> bool:
    """Whether a process with this id exists (one of another user's counts as existing)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


def unbatching(process: Callable[[Any], None], spool: Path | None = None) -> Callable[[Any], None]:
    """A channel callback that passes each event of a batch to `process`, and anything else as it is.

    When the channel ends before the worker said it finished, the tests the worker spooled but never sent are
    passed on first, so that xdist blames the crash on the test that was really running.
    """
    delivered = 0
    finished = False

    def deliver(records: Iterator[bytes]) -> None:
        nonlocal delivered
        for record in records:
            number, events = unpickle_plain(record)
            if number > delivered:
                delivered = number
                for event in events:
                    process(event)

    def process_from_remote(eventcall: Any) -> None:
        nonlocal finished
        if isinstance(eventcall, tuple) and eventcall[0] == BATCH:
            deliver(iter(eventcall[1]["tests"]))
            return
        if not isinstance(eventcall, tuple):
            if not finished and spool is not None:
                deliver(read_spool(spool))
        elif eventcall[0] == "workerfinished":
            finished = True
        process(eventcall)

    return process_from_remote


def read_spool(path: Path) -> Iterator[bytes]:
    """The complete records of a spool file (a record cut short by a crash, and anything after it, are left out)."""
    try:
        data = path.read_bytes()
    except OSError:
        return
    offset = 0
    while offset + _HEADER.size <= len(data):
        (size,) = _HEADER.unpack_from(data, offset)
        end = offset + _HEADER.size + size
        if end > len(data):
            return
        yield data[offset + _HEADER.size:end]
        offset = end


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


def find_interactor(config: pytest.Config) -> Any:
    """This xdist worker's WorkerInteractor (its sendevent and channel), or None."""
    for plugin in config.pluginmanager.get_plugins():
        if type(plugin).__name__ == "WorkerInteractor" and hasattr(plugin, "sendevent") and hasattr(plugin, "channel"):
            return plugin
    return None


def queue_length(interactor: Any) -> Callable[[], int] | None:
    """A function giving how many tests are queued on this worker, or None where xdist keeps them otherwise."""
    lock = getattr(getattr(interactor, "torun", None), "lock", None)
    if lock is None:
        return None

    def length() -> int:
        with lock() as items:
            return len(items)

    return length


def _batch_worker_events(config: pytest.Config, spool: str) -> None:
    interactor = find_interactor(config)
    if interactor is None:
        return
    queued = queue_length(interactor)
    try:
        descriptor = os.open(spool, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600) if queued else None
    except OSError:  # a worker on another host does not see the controller's folder
        descriptor = None
    interactor.sendevent = EventBatcher(interactor.channel.send, descriptor, queued)


class EventBatcher:
    """A worker's sendevent: holds finished tests' events, spools each test, and sends them together when due.

    Without a spool (or a queue length) every test is sent at its protocol completion, as one message.
    """

    def __init__(self, send: Callable[[Any], None], spool: int | None = None,
                 queued: Callable[[], int] | None = None, clock: Callable[[], float] = time.monotonic) -> None:
        self.send = send
        self.spool = spool
        self.queued = queued
        self.clock = clock
        self.current: list[tuple[str, dict[str, Any]]] = []
        self.records: list[bytes] = []
        self.number = 0
        self.since = 0.0
        # --dist worksteal sends "unscheduled" from the channel's callback, beside the test loop's events.
        self.lock = threading.Lock()

    def __call__(self, name: str, **kwargs: Any) -> None:
        """Hold a test's event, or send what is held when due, or send what is held and then this event."""
        with self.lock:
            if name in PER_TEST:
                if name == "logstart" and self.records and self.clock() - self.since >= MAX_AGE_S:
                    self._flush()
                self.current.append((name, kwargs))
            elif name == COMPLETE and self.current:
                self._finish_test((name, kwargs))
            else:
                self._flush()
                self._send_unheld()
                self.send((name, kwargs))

    def _finish_test(self, complete: tuple[str, dict[str, Any]]) -> None:
        events, self.current = [*self.current, complete], []
        self.number += 1
        try:
            record = pickle_plain((self.number, events))
        except pickle.PicklingError:
            self._flush()
            for event in events:
                self.send(event)
            return
        if not self.records:
            self.since = self.clock()
        self.records.append(record)
        if self.spool is not None:
            os.write(self.spool, _HEADER.pack(len(record)) + record)
        if self._due(events):
            self._flush()

    def _due(self, events: list[tuple[str, dict[str, Any]]]) -> bool:
        if self.spool is None or self.queued is None or len(self.records) >= MAX_TESTS:
            return True
        if any(name == "testreport" and kwargs["data"].get("outcome") == "failed" for name, kwargs in events):
            return True
        return self.clock() - self.since >= MAX_AGE_S or self.queued() < LOW_QUEUE

    def _flush(self) -> None:
        if self.records:
            records, self.records = self.records, []
            self.send((BATCH, {"tests": records}))
            if self.spool is not None:
                # The batch is in the pipe once send returns (execnet writes synchronously), so a crash from here on
                # loses none of it; the spool only ever holds the tests not yet sent.
                os.ftruncate(self.spool, 0)

    def _send_unheld(self) -> None:
        events, self.current = self.current, []
        for event in events:
            self.send(event)
