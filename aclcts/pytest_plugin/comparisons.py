"""The comparisons a test makes with the reference: kept on its item (`item.stash`), reported as its user properties.

A test decorated with `compares_with_reference`, or any test that passes the `comparisons` fixture to `judge(...,
into=comparisons)`, appends every comparison it makes to the list this fixture keeps in the item's stash. The list
is the item's own, so nothing carries over from one test to the next, and it is dropped at the test's teardown.
Once the body ran, each comparison's metrics become a user property of the test (named by output and execution,
e.g. ``y[0]``; with ``tail_bytes_written`` when the op wrote between the output's size and its 32-byte aligned end),
so they are on its call and teardown reports, which pytest-xdist carries to the controller, where the JSON run
report reads them; the Allure hooks attach the failing ones straight from the stash.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from aclcts.judge.decorator import SINK, Judged

#: The item's comparisons, in the order they were made.
COMPARISONS = pytest.StashKey[list[Judged]]()
#: How many of the worst elements each comparison's metrics list.
WORST = 3


def comparisons_of(item: pytest.Item) -> list[Judged]:
    """The comparisons the item made so far (none if it made none)."""
    return item.stash.get(COMPARISONS, [])


@pytest.fixture(name=SINK)
def comparisons(request: pytest.FixtureRequest) -> Iterator[list[Judged]]:
    """The list this test's comparisons are appended to, kept in the test item's stash until its teardown."""
    yield request.node.stash.setdefault(COMPARISONS, [])
    # Reported by now; each comparison holds four arrays the size of its output, which the item would keep alive.
    del request.node.stash[COMPARISONS]


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo) -> None:
    """Before the call report is made: the metrics of each comparison the test body made become user properties."""
    if call.when == "call":
        item.user_properties.extend((judged.key, transportable(judged.metrics(WORST))) for judged in comparisons_of(item))


#: The int range every transport of a report carries as a number.
INT32_RANGE = (-(2**31), 2**31 - 1)


def transportable(value: object) -> object:
    """value with every int outside the int32 range written as its decimal string (an int64 element of a worst-element
    table): pytest-xdist's transport cannot send an int below -2^31, and the worker would stop with INTERNALERROR."""
    if isinstance(value, dict):
        return {key: transportable(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(transportable(item) for item in value)
    if isinstance(value, int) and not isinstance(value, bool) and not INT32_RANGE[0] <= value <= INT32_RANGE[1]:
        return str(value)
    return value
