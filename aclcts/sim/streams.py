"""Asynchronous streams and events: queued tasks that run, in order, only when something synchronises."""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

from aclcts.sim.binding import api_lock
from aclcts.sim.errors import SimMisuseError
from aclcts.sim.memory import Region
from aclcts.sim.seams import Seam

#: Simulated fixed cost of one task on the device, in milliseconds.
LAUNCH_MS = 0.002
#: Simulated copy bandwidth in bytes per millisecond (about 20 GB/s).
COPY_BYTES_PER_MS = 20e6
#: How long work behind a blocking host callback waits for a report thread to run it before the simulator calls
#: the program stuck (a device would wait for ever).
CALLBACK_WAIT_S = 60.0
#: How often a synchronisation with a timeout looks again at work that cannot run yet, in seconds.
POLL_S = 0.001


@dataclass(eq=False)
class Task:
    """One unit of queued device work: what to run, which call queued it, which memory it touches (and a copy's kind)."""

    run: Callable[[], int]
    call: str
    regions: tuple[Region, ...]
    cost_ms: float
    seq: int = 0
    copy_kind: int | None = None
    gate: threading.Event | None = None  # a blocking callback: the stream goes on once it is set
    thread: int = 0  # the native id of the thread that queued it
    reason: str = ""  # why it failed on the device, when it says so


def _append(queue: deque, task: Task) -> None:
    """Put a task at the end of a stream's queue."""
    queue.append(task)


def _idle() -> threading.Event:
    """A set event: a new stream runs nothing."""
    event = threading.Event()
    event.set()
    return event


class NotReady(Exception):
    """Raised by a task that cannot run yet without waiting, inside a drain that must not wait: it stays queued."""


#: Per thread: whether it is inside a drain that must not wait (so that drains nested in its tasks do not either).
_NO_WAIT = threading.local()


#: Where a stream puts a newly queued task.
place = Seam("stream queue", _append)


@dataclass(eq=False)
class Stream:
    """A device work queue belonging to one context."""

    handle: int
    context: object
    device: object
    is_default: bool = False
    queue: deque = field(default_factory=deque)
    next_seq: int = 1
    done_seq: int = 0
    error: int = 0
    error_message: str = ""
    destroyed_by: str = ""
    gate: threading.Event | None = None  # the last blocking callback run, until its report thread has run it
    running: Task | None = None  # the task a thread is running now (the API lock may be set aside meanwhile)
    owner: int | None = None  # the thread running it
    idle: threading.Event = field(default_factory=_idle)  # set while no thread runs a task of this stream

    def enqueue(self, task: Task) -> int:
        """Append a task and return its sequence number on this stream."""
        if self.destroyed_by:
            raise SimMisuseError(f"{task.call}: stream {self.handle:#x} was destroyed ({self.destroyed_by})")
        task.seq = self.next_seq
        task.thread = threading.get_native_id()
        self.next_seq += 1
        for region in task.regions:
            region.queued += 1
        place(self.queue, task)
        return task.seq

    def drain(self, until: int | None = None, wait: bool = True) -> bool:
        """Run queued tasks in order, all of them or up to and including sequence number until; whether it got there.

        Work behind a blocking host callback waits (with the API lock set aside) until a report thread has run it, and
        a drain of everything also waits for a last such callback. A task another thread is running is waited for the
        same way. Every wait re-reads the queue afterwards, since other threads may have run the stream meanwhile.
        With wait False the drain stops (False) where it would have waited, and so does every drain its tasks start.
        """
        outer_no_wait = getattr(_NO_WAIT, "on", False)
        wait = wait and not outer_no_wait
        _NO_WAIT.on = not wait
        try:
            return self._drain(until, wait)
        finally:
            _NO_WAIT.on = outer_no_wait

    def _drain(self, until: int | None, wait: bool) -> bool:
        """drain's loop: wait for another thread's task in flight or a blocking callback, else run the next task."""
        me = threading.get_ident()
        while True:
            queue, running = self.queue, self.running
            if running is not None and self.owner != me and (until is None or running.seq <= until):
                if not wait:
                    return False
                self._await(self.idle, f"stream {self.handle:#x}: {running.call} ran in another thread for "
                                       f"{CALLBACK_WAIT_S:.0f} s while this thread waited to run the stream")
                continue
            if not queue or (until is not None and queue[0].seq > until):
                break
            if self.gate is not None and not self.gate.is_set():
                if not wait:
                    return False
                self.pass_gate()
                continue
            if not self._run_next(me):
                return False
        if until is None:
            if not wait and self.gate is not None and not self.gate.is_set():
                return False
            self.pass_gate()
        return True

    def _run_next(self, me: int) -> bool:
        """Run the first queued task as this thread's, the stream marked busy with it until it has run; False (and
        the task left queued) when it raised NotReady."""
        task = self.queue.popleft()
        for region in task.regions:
            region.queued -= 1
        outer = self.running, self.owner
        self.running, self.owner = task, me
        self.idle.clear()
        try:
            for region in task.regions:
                if region.freed_by:
                    raise SimMisuseError(
                        f"{task.call} ran on stream {self.handle:#x} after its memory was freed: "
                        f"{region.describe()}, freed by {region.freed_by} before the stream was synchronised"
                    )
            code = task.run()
        except NotReady:
            for region in task.regions:
                region.queued += 1
            self.queue.appendleft(task)
            return False
        except BaseException:
            self.discard()
            raise
        finally:
            self.running, self.owner = outer
            if outer[0] is None:
                self.idle.set()
        self.device.clock_ms += task.cost_ms
        self.done_seq = task.seq
        if task.gate is not None:
            self.gate = task.gate
        if code:
            self.failed(task, code)
        return True

    def failed(self, task: Task, code: int) -> None:
        """Keep the first failure of a task run on this stream for synchronisation and tell FAILURE_LISTENERS."""
        if not self.error:
            self.error = code
            because = f": {task.reason}" if task.reason else ""
            self.error_message = f"{task.call} failed on the device with error {code}{because}"
        for listener in FAILURE_LISTENERS:
            listener(self, task, code)

    def pass_gate(self) -> None:
        """Wait until the last blocking callback run on this stream has been run by its report thread."""
        gate = self.gate
        if gate is not None and not gate.is_set():
            self._await(gate, f"stream {self.handle:#x}: a blocking host callback (acl.rt.launch_callback) waited "
                              f"{CALLBACK_WAIT_S:.0f} s for a thread to run it; call acl.rt.process_report in the "
                              "thread subscribed with acl.rt.subscribe_report")
        if self.gate is gate:
            self.gate = None

    @staticmethod
    def _await(event: threading.Event, stuck: str) -> None:
        """Wait for event with the API lock set aside, up to CALLBACK_WAIT_S; SimMisuseError(stuck) after that."""
        with api_lock().suspended():
            passed = event.wait(CALLBACK_WAIT_S)
        if not passed:
            raise SimMisuseError(stuck)

    def discard(self) -> None:
        """Drop every queued task without running it."""
        for task in self.queue:
            for region in task.regions:
                region.queued -= 1
        self.queue.clear()

    def take_error(self) -> int:
        """Return and clear the first deferred error of work run on this stream."""
        code, self.error = self.error, 0
        return code


#: Called with (stream, task, code) for each task that fails on the device (api_callback tells the program).
FAILURE_LISTENERS: list[Callable[[Stream, Task, int], None]] = []


@dataclass(eq=False)
class Event:
    """An event that a stream records and other streams or the host wait on."""

    handle: int
    flag: int = 0
    event_id: int = 0
    stream: Stream | None = None
    seq: int = 0
    completed: bool = False
    timestamp_ms: float = 0.0
    #: The task of its latest record: only that one, when it runs, completes the event (a later record or a reset
    #: replaces it).
    record: Task | None = None

    def wait(self) -> None:
        """Run the recording stream up to the record of this event."""
        if self.stream is not None and not self.completed:
            self.stream.drain(self.seq)

    def poll(self) -> bool:
        """Run the recording stream up to the record of this event as far as it goes without waiting; whether the
        record has run (or there is none)."""
        return self.stream is None or self.completed or self.stream.drain(self.seq, wait=False)


def drain_within(drain: Callable[[], bool], timeout_ms: int) -> bool:
    """Call drain (one that never waits) until it gets through or timeout_ms have passed, with the API lock set aside
    between tries so that other threads (report threads) can go on; whether it got through."""
    deadline = time.monotonic() + timeout_ms / 1000
    while not drain():
        if time.monotonic() >= deadline:
            return False
        with api_lock().suspended():
            time.sleep(POLL_S)
    return True
