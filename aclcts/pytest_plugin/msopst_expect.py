"""msopst's `expect: "failed"`: a case's execute-and-compare tests must fail (strict xfail), as msopst counts them; and
a golden function that raises fails its test with the one line that names file, case and function, no traceback."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from aclcts.cases import Case

#: The tests whose failure is the case's failure: those that execute a case and compare it with its reference.
RUNS_THE_CASE = ("matches_reference", "matches_the_reference")
#: The exception a golden function's failure is raised as (aclcts.cases.msopst.golden.GoldenError), by name: the
#: controller loads no case module.
GOLDEN_ERROR = "GoldenError"


def add_options(group: Any) -> None:
    """No options: a case file's `expect` decides."""


def configure(config: pytest.Config) -> None:
    """Mark the tests of cases expected to fail."""
    config.pluginmanager.register(ExpectFailed(), "aclcts-msopst-expect")
    config.pluginmanager.register(GoldenOneLine(), "aclcts-msopst-golden-one-line")


def expects_failure(item: pytest.Item) -> Case | None:
    """The case an item runs when the case must fail and the item runs it, else None."""
    callspec = getattr(item, "callspec", None)
    if callspec is None or not any(words in item.name for words in RUNS_THE_CASE):
        return None
    for name in ("op_case", "model"):
        case = callspec.params.get(name)
        if getattr(case, "expect", None) == "failed":  # a Case, duck-typed: the controller loads no case module
            return case
    return None


class ExpectFailed:
    """Adds a strict xfail to each test that runs a case whose expect is "failed"."""

    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        """A passing run of such a case fails the test (XPASS strict); a failing one is its expected outcome."""
        for item in items:
            case = expects_failure(item)
            if case is not None:
                item.add_marker(pytest.mark.xfail(strict=True, reason=f"{case.id}: expect \"failed\" "
                                                                      f"({case.file}): must fail to compile or run"))


class GoldenOneLine:
    """A test failed by a golden function shows GoldenError's own one-line message instead of the traceback."""

    @pytest.hookimpl(hookwrapper=True, trylast=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo) -> Iterator[None]:
        """Replace the traceback of a GoldenError with its message."""
        outcome = yield
        report = outcome.get_result()
        if report.failed and call.excinfo is not None and call.excinfo.typename == GOLDEN_ERROR:
            report.longrepr = f"{GOLDEN_ERROR}: {call.excinfo.value}"
