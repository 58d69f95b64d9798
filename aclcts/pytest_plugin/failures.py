"""The run's failures grouped by op at the end of the terminal output: counts per category, the first failing test.

Each failing report carries its op (`aclcts_op`, set where the test ran) and reproduce line (`aclcts_reproduce`); the
category is the one the categories module set (`aclcts_category`), "other" when there is none. The summary is aclcts'
own output: one line per op, then its first failing test and that test's reproduce line, each on a line of its own
that starts with FIRST or REPRODUCE.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

import pytest

from aclcts.pytest_plugin.categories import CATEGORIES

#: The group of failing tests that do not run an op case.
NO_OP = "(no op case)"
#: What the lines naming an op's first failing test and its reproduce line start with (after the indent).
FIRST = "first:"
REPRODUCE = "reproduce:"
#: A case id as the case library writes it: the op type, then its data types and shapes.
_CASE_ID = re.compile(r"\[([A-Z][A-Za-z0-9]*)-[^\]]*\]$")


def op_of(item: pytest.Item) -> str | None:
    """The op a test runs: the op of its case parameter (a case, a golden case) or its `op` parameter, else None."""
    callspec = getattr(item, "callspec", None)
    if callspec is None:
        return None
    for name, value in callspec.params.items():
        op = getattr(value, "op", None) or getattr(getattr(value, "case", None), "op", None)
        if isinstance(op, str):
            return op
        if name == "op" and isinstance(value, str):
            return value
    return None


def op_of_report(report: pytest.TestReport) -> str:
    """The op of a failing report: as the test's process recorded it, else read from a case id, else NO_OP."""
    found = getattr(report, "aclcts_op", None)
    if found:
        return found
    match = _CASE_ID.search(report.nodeid)
    return match.group(1) if match else NO_OP


class FailureSummary:
    """Collects the first failing report of every test and prints them grouped by op (not on xdist workers)."""

    def __init__(self) -> None:
        self.failed: dict[str, pytest.TestReport] = {}

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """Keep a test's first failing report."""
        if report.failed and report.nodeid not in self.failed:
            self.failed[report.nodeid] = report

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        """Print the failures per op, the op with the most failures first, tests of no op case last."""
        if not self.failed:
            return
        terminalreporter.section("aclcts failures per op")
        for line in summary_lines(list(self.failed.values())):
            terminalreporter.write_line(line)


def summary_lines(reports: list[pytest.TestReport]) -> list[str]:
    """The per-op summary of failing reports (one per test, in the order they failed)."""
    by_op: dict[str, list[pytest.TestReport]] = {}
    for report in reports:
        by_op.setdefault(op_of_report(report), []).append(report)
    width = max(len(op) for op in by_op)
    lines = []
    for op, failing in sorted(by_op.items(), key=lambda entry: (entry[0] == NO_OP, -len(entry[1]), entry[0])):
        counts = Counter(getattr(r, "aclcts_category", None) or "other" for r in failing)
        kinds = ", ".join(f"{name} {counts[name]}" for name in [*CATEGORIES, *sorted(set(counts) - set(CATEGORIES))]
                          if counts[name])
        lines.append(f"{op:<{width}}  {len(failing):>5} failed: {kinds}")
        first = failing[0]
        lines.append(f"    {FIRST} {first.nodeid}")
        reproduce = getattr(first, "aclcts_reproduce", None)
        if reproduce:
            lines.append(f"    {REPRODUCE} {reproduce}")
    return lines
