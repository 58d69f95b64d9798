"""`-p aclcts.pytest_plugin.bench_phases --bench-phases=FILE`: each process that runs tests appends when they began and ended."""

from __future__ import annotations

import os
import time
from collections.abc import Generator
from dataclasses import dataclass
from pathlib import Path

import pytest

PHASES = pytest.StashKey["Span"]()


@dataclass
class Span:
    """Epoch seconds at which this process began its first test and ended its last, and how many it ran."""

    first_start: float = 0.0
    last_end: float = 0.0
    tests: int = 0

    def line(self) -> str:
        """The span as one line of the phases file."""
        return f"{self.first_start:.6f} {self.last_end:.6f} {self.tests}\n"


def pytest_addoption(parser: pytest.Parser) -> None:
    """Add --bench-phases."""
    parser.getgroup("aclcts").addoption("--bench-phases", metavar="FILE",
                                        help="append this process's test span (first start, last end, tests) to FILE")


def pytest_configure(config: pytest.Config) -> None:
    """Start an empty span when --bench-phases is given."""
    if config.getoption("--bench-phases"):
        config.stash[PHASES] = Span()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Generator[None, object, object]:
    """Extend the span by this test (called only in processes that run tests, never on an xdist controller)."""
    span = item.config.stash.get(PHASES, None)
    if span is None:
        return (yield)
    if not span.tests:
        span.first_start = time.time()
    try:
        return (yield)
    finally:
        span.last_end = time.time()
        span.tests += 1


def pytest_unconfigure(config: pytest.Config) -> None:
    """Append the span of a process that ran tests, in one write."""
    span = config.stash.get(PHASES, None)
    if span is None or not span.tests:
        return
    descriptor = os.open(Path(config.getoption("--bench-phases")), os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o666)
    try:
        os.write(descriptor, span.line().encode())
    finally:
        os.close(descriptor)


def read_spans(path: Path) -> list[Span]:
    """The spans appended to a phases file (none if it does not exist)."""
    if not path.exists():
        return []
    spans = []
    for line in path.read_text(encoding="utf-8").splitlines():
        first, last, tests = line.split()
        spans.append(Span(float(first), float(last), int(tests)))
    return spans
