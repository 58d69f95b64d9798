"""msopst's `expect: "failed"`: a case's execute-and-compare tests, and every test of such a case when it is refused
(aclcts.pytest_plugin.refusals), must fail (strict xfail), as msopst counts them; and a golden function that raises,
or a refused case (aclcts.cases.case.CaseRefused), fails its test with its one line (file, case, field or function),
no traceback."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import pytest

from aclcts.pytest_plugin.library import case_of
from aclcts.pytest_plugin.refusals import CASE_PARAMS, item_refusal

if TYPE_CHECKING:
    from aclcts.cases import Case

#: The tests whose failure is the case's failure: those that execute a case and compare it with its reference.
RUNS_THE_CASE = ("matches_reference", "matches_the_reference")
#: The exceptions whose message is the whole failure, by name (the controller loads no case module): a golden function's
#: failure (aclcts.cases.msopst.golden.GoldenError) and a refused case's (aclcts.cases.case.CaseRefused).
ONE_LINE_ERRORS = ("GoldenError", "CaseRefused")


def add_options(group: Any) -> None:
    """No options: a case file's `expect` decides."""


def configure(config: pytest.Config) -> None:
    """Mark the tests of cases expected to fail."""
    config.pluginmanager.register(ExpectFailed(), "aclcts-msopst-expect")
    config.pluginmanager.register(GoldenOneLine(), "aclcts-msopst-golden-one-line")


def expects_failure(item: pytest.Item) -> Case | None:
    """The case an item runs when the case must fail and the item runs it (every test of a refused case does), else
    None."""
    case = case_of(item, CASE_PARAMS)
    if case is None or case.expect != "failed":
        return None
    runs_the_case = any(words in item.name for words in RUNS_THE_CASE)
    return case if runs_the_case or item_refusal(item) is not None else None


class ExpectFailed:
    """Adds a strict xfail to each test that runs a case whose expect is "failed"."""

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        """A passing run of such a case fails the test (XPASS strict); a failing one, or its refusal (known once the
        models are compiled, which the test side does first), is its expected outcome."""
        for item in session.items:
            case = expects_failure(item)
            if case is not None:
                refusal = item_refusal(item)
                why = f"{refusal.stage}: {refusal.reason}" if refusal is not None else "must fail to compile or run"
                item.add_marker(pytest.mark.xfail(strict=True, reason=f"{case.id}: expect \"failed\" ({case.file}): "
                                                                      f"{why}"))


class GoldenOneLine:
    """A test failed by a golden function or a case refusal shows the exception's one-line message instead of the
    traceback."""

    @pytest.hookimpl(hookwrapper=True, trylast=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo) -> Iterator[None]:
        """Replace the traceback of a GoldenError or CaseRefused with its message."""
        outcome = yield
        report = outcome.get_result()
        if report.failed and call.excinfo is not None and call.excinfo.typename in ONE_LINE_ERRORS:
            report.longrepr = f"{call.excinfo.typename}: {call.excinfo.value}"
