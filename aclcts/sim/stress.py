"""A stress run of the simulator's streams: threads mixing host callbacks, report threads, events and every kind of
synchronisation for a while, checking that each call succeeds and each callback runs once, in launch order."""

from __future__ import annotations

import argparse
import random
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from aclcts.sim import acl, isolated

#: aclrtCallbackBlockType values.
NO_BLOCK, BLOCK = 0, 1
#: How long a report thread's process_report waits for a callback, in ms.
REPORT_WAIT_MS = 5
#: How long the end of a run waits for the last callbacks to run, in seconds.
SETTLE_S = 30.0


@dataclass
class Tally:
    """What a stress run did and what went wrong, shared by its threads."""

    calls: Counter = field(default_factory=Counter)
    launched: int = 0
    ran: int = 0
    failures: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def check(self, call: str, ret: Any, expected: Any = 0) -> None:
        """Count one call and keep a failure line if it did not return what it should."""
        with self.lock:
            self.calls[call] += 1
            if ret != expected:
                self.failures.append(f"{call} returned {ret!r}, expected {expected!r}")

    def fail(self, line: str) -> None:
        """Keep one failure line."""
        with self.lock:
            self.failures.append(line)


@dataclass
class Lane:
    """One subscribed stream, the event recorded on it, and the next ticket its callbacks must come in."""

    stream: int
    event: int
    tickets: int = 0
    next_run: int = 0
    launch_lock: threading.Lock = field(default_factory=threading.Lock)


class StressRun:
    """The threads and streams of one run (the simulator session must be set up by the caller)."""

    def __init__(self, context: int, lanes: list[Lane], seed: int) -> None:
        self.context, self.lanes, self.seed = context, lanes, seed
        self.tally = Tally()
        self.stop = threading.Event()
        self.reports_done = threading.Event()
        self.report_threads: list[int] = []

    def callback(self, lane: Lane, block: int) -> None:
        """Launch a host callback on a lane that checks it runs in ticket order."""
        tally = self.tally

        def run(data: int) -> None:
            with tally.lock:
                tally.ran += 1
                if data != lane.next_run:
                    tally.failures.append(f"a callback of stream {lane.stream:#x} ran as number {lane.next_run}, "
                                          f"launched as {data}")
                lane.next_run = data + 1

        with lane.launch_lock:
            ret = acl.rt.launch_callback(run, lane.tickets, block, lane.stream)
            if ret == 0:
                lane.tickets += 1
                with tally.lock:
                    tally.launched += 1
        tally.check("acl.rt.launch_callback", ret)

    def step(self, rng: random.Random) -> None:
        """One random operation on random lanes."""
        lane, other = rng.choice(self.lanes), rng.choice(self.lanes)
        check = self.tally.check
        kind = rng.randrange(9)
        if kind < 3:
            self.callback(lane, rng.choice((NO_BLOCK, BLOCK)))
        elif kind == 3:
            check("acl.rt.synchronize_stream", acl.rt.synchronize_stream(lane.stream))
        elif kind == 4:
            check("acl.rt.synchronize_stream_with_timeout",
                  acl.rt.synchronize_stream_with_timeout(lane.stream, 60_000))
        elif kind == 5:
            check("acl.rt.record_event", acl.rt.record_event(lane.event, lane.stream))
            check("acl.rt.stream_wait_event", acl.rt.stream_wait_event(other.stream, lane.event))
        elif kind == 6:
            check("acl.rt.record_event", acl.rt.record_event(lane.event, lane.stream))
            check("acl.rt.synchronize_event", acl.rt.synchronize_event(lane.event))
        elif kind == 7:
            check("acl.rt.synchronize_device", acl.rt.synchronize_device())
        else:
            self.short_lived_stream()

    def short_lived_stream(self) -> None:
        """Create a stream, serve it by a report thread, launch a blocking callback on it and destroy it."""
        check = self.tally.check
        stream, ret = acl.rt.create_stream()
        check("acl.rt.create_stream", ret)
        ran = threading.Event()
        check("acl.rt.subscribe_report", acl.rt.subscribe_report(self.report_threads[0], stream))
        check("acl.rt.launch_callback", acl.rt.launch_callback(lambda _: ran.set(), None, BLOCK, stream))
        check("acl.rt.synchronize_stream", acl.rt.synchronize_stream(stream))
        if not ran.is_set():
            self.tally.fail(f"the blocking callback of stream {stream:#x} had not run when synchronize_stream returned")
        check("acl.rt.unsubscribe_report", acl.rt.unsubscribe_report(self.report_threads[0], stream))
        check("acl.rt.destroy_stream", acl.rt.destroy_stream(stream))

    def worker(self, number: int) -> None:
        """A thread doing random operations until the run stops."""
        rng = random.Random(self.seed * 1000 + number)
        self.tally.check("acl.rt.set_context", acl.rt.set_context(self.context))
        while not self.stop.is_set():
            try:
                self.step(rng)
            except Exception as exc:  # noqa: BLE001 - every exception is a finding of the run
                self.tally.fail(f"worker {number}: {type(exc).__name__}: {exc}")
                return

    def reporter(self, _: list) -> None:
        """A report thread: process_report until the run and its callbacks are over."""
        self.tally.check("acl.rt.set_context", acl.rt.set_context(self.context))
        while not self.reports_done.is_set():
            try:
                ret = acl.rt.process_report(REPORT_WAIT_MS)
            except Exception as exc:  # noqa: BLE001 - every exception is a finding of the run
                self.tally.fail(f"report thread: {type(exc).__name__}: {exc}")
                return
            if ret not in (0, 507012, 107012):  # ran one, none came due, or not (yet / any more) subscribed
                self.tally.fail(f"acl.rt.process_report returned {ret}")

    def run(self, seconds: float, workers: int) -> Tally:
        """Start two report threads and the workers, let them run for seconds, then settle and check the callbacks."""
        for _ in range(2):
            thread, ret = acl.util.start_thread(self.reporter, [])
            self.tally.check("acl.util.start_thread", ret)
            self.report_threads.append(thread)
        for index, lane in enumerate(self.lanes):
            self.tally.check("acl.rt.subscribe_report",
                             acl.rt.subscribe_report(self.report_threads[index % 2], lane.stream))
        threads = [threading.Thread(target=self.worker, args=(n,), daemon=True) for n in range(workers)]
        for thread in threads:
            thread.start()
        self.stop.wait(seconds)
        self.stop.set()
        for thread in threads:
            thread.join(SETTLE_S + 60)
            if thread.is_alive():
                self.tally.fail("a worker thread did not end: the simulator is stuck")
        self.tally.check("acl.rt.synchronize_device", acl.rt.synchronize_device())
        deadline = time.monotonic() + SETTLE_S
        while self.tally.ran < self.tally.launched and time.monotonic() < deadline:
            time.sleep(0.01)
        if self.tally.ran != self.tally.launched:
            self.tally.fail(f"{self.tally.launched} callbacks were launched and {self.tally.ran} ran")
        for index, lane in enumerate(self.lanes):
            self.tally.check("acl.rt.unsubscribe_report",
                             acl.rt.unsubscribe_report(self.report_threads[index % 2], lane.stream))
        self.reports_done.set()
        for thread in self.report_threads:
            self.tally.check("acl.util.stop_thread", acl.util.stop_thread(thread))
        return self.tally


def stress(seconds: float, workers: int = 4, lanes: int = 4, seed: int = 0) -> Tally:
    """Run the stress in a fresh simulated process and return its tally (failures empty when all went well)."""
    with isolated():
        acl.init()
        acl.rt.set_device(0)
        context, _ = acl.rt.create_context(0)
        made = []
        for _ in range(lanes):
            stream, _ = acl.rt.create_stream()
            event, _ = acl.rt.create_event()
            made.append(Lane(stream, event))
        tally = StressRun(context, made, seed).run(seconds, workers)
        for lane in made:
            tally.check("acl.rt.destroy_event", acl.rt.destroy_event(lane.event))
            tally.check("acl.rt.destroy_stream", acl.rt.destroy_stream(lane.stream))
        tally.check("acl.rt.destroy_context", acl.rt.destroy_context(context))
        tally.check("acl.rt.reset_device", acl.rt.reset_device(0))
        tally.check("acl.finalize", acl.finalize())
    return tally


def main(argv: list[str]) -> int:
    """`aclcts sim stress`: run the stress, print what it did, exit 1 with the failures if there were any."""
    parser = argparse.ArgumentParser(prog="aclcts sim stress", description=__doc__)
    parser.add_argument("--seconds", type=float, default=60.0, help="how long the workers run (default 60)")
    parser.add_argument("--threads", type=int, default=4, help="worker threads besides two report threads (default 4)")
    parser.add_argument("--streams", type=int, default=4, help="subscribed streams the workers share (default 4)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the workers' random choices (default 0)")
    args = parser.parse_args(argv)
    for name in ("seconds", "threads", "streams"):
        if getattr(args, name) <= 0:
            parser.error(f"--{name} must be > 0, got {getattr(args, name)}")
    tally = stress(args.seconds, args.threads, args.streams, args.seed)
    print(f"{sum(tally.calls.values())} calls in {args.seconds:g} s, {tally.launched} callbacks launched, "
          f"{tally.ran} ran")
    for call, count in sorted(tally.calls.items()):
        print(f"  {call}: {count}")
    if tally.failures:
        print(f"{len(tally.failures)} failure(s):")
        for line in tally.failures[:20]:
            print(f"  {line}")
        return 1
    print("no failures")
    return 0
