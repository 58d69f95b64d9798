"""Asynchronous streams and events: queued tasks that run, in order, only when something synchronises."""

from __future__ import annotations

import threading
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


def _append(queue: deque, task: Task) -> None:
    """Put a task at the end of a stream's queue."""
    queue.append(task)


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

    def drain(self, until: int | None = None) -> None:
        """Run queued tasks in order, all of them or up to and including sequence number until.

        Work behind a blocking host callback waits (with the API lock set aside) until a report thread has run it;
        a drain of everything also waits for a last such callback.
        """
        queue = self.queue
        while queue and (until is None or queue[0].seq <= until):
            self.pass_gate()
            task = queue.popleft()
            for region in task.regions:
                region.queued -= 1
            try:
                for region in task.regions:
                    if region.freed_by:
                        raise SimMisuseError(
                            f"{task.call} ran on stream {self.handle:#x} after its memory was freed: "
                            f"{region.describe()}, freed by {region.freed_by} before the stream was synchronised"
                        )
                code = task.run()
            except BaseException:
                self.discard()
                raise
            self.device.clock_ms += task.cost_ms
            self.done_seq = task.seq
            if task.gate is not None:
                self.gate = task.gate
            if code:
                self.failed(task, code)
        if until is None:
            self.pass_gate()

    def failed(self, task: Task, code: int) -> None:
        """Keep the first failure of a task run on this stream for synchronisation and tell FAILURE_LISTENERS."""
        if not self.error:
            self.error = code
            self.error_message = f"{task.call} failed on the device with error {code}"
        for listener in FAILURE_LISTENERS:
            listener(self, task, code)

    def pass_gate(self) -> None:
        """Wait until the last blocking callback run on this stream has been run by its report thread."""
        gate = self.gate
        if gate is None or gate.is_set():
            return
        with api_lock().suspended():
            passed = gate.wait(CALLBACK_WAIT_S)
        if not passed:
            raise SimMisuseError(f"stream {self.handle:#x}: a blocking host callback (acl.rt.launch_callback) waited "
                                 f"{CALLBACK_WAIT_S:.0f} s for a thread to run it; call acl.rt.process_report in the "
                                 "thread subscribed with acl.rt.subscribe_report")
        self.gate = None

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

    def wait(self) -> None:
        """Run the recording stream up to the record of this event."""
        if self.stream is not None and not self.completed:
            self.stream.drain(self.seq)
