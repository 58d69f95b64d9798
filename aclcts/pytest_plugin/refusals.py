"""The run's one store of refused cases: why each cannot run and at which stage, whoever found it.

The case loader refuses a case at `load` or `golden` (Case.refusal); compiling the models refuses at `atc` the cases
whose model ATC refuses, of the case library or dynamic (the case library's refusals are kept beside its cached
models, so xdist workers and later runs agree). The tests, the expected failures of `expect: "failed"` cases and the
reports all ask refusal_of.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

import pytest

from aclcts.pytest_plugin.library import case_of

if TYPE_CHECKING:
    from aclcts.cases import Case
    from aclcts.cases.case import Refusal

#: Stash key of the store: case id -> Refusal.
REFUSALS = pytest.StashKey[dict]()
#: The parameters through which a test runs a case (a conformance test's op_case, a dynamic test's model, test_perf's
#: perf_case).
CASE_PARAMS = ("op_case", "model", "perf_case")


def refuse(config: pytest.Config, cases: Iterable[Case], refusal: Refusal) -> None:
    """Record that the cases cannot run and why; a case already refused keeps its first refusal."""
    store = config.stash.setdefault(REFUSALS, {})
    for case in cases:
        store.setdefault(case.id, refusal)


def refuse_loaded(config: pytest.Config, cases: Iterable[Case]) -> None:
    """Record the refusal each of the cases came from the loader with (Case.refusal), if any."""
    for case in cases:
        if case.refusal is not None:
            refuse(config, [case], case.refusal)


def refusal_of(config: pytest.Config, case: Case) -> Refusal | None:
    """Why the case cannot run (its stage and one-line reason), or None for a case that runs."""
    return config.stash.get(REFUSALS, {}).get(case.id)


def item_refusal(item: pytest.Item) -> Refusal | None:
    """The refusal of the case a test runs, or None (a case that runs, or a test that runs no case)."""
    case = case_of(item, CASE_PARAMS)
    return refusal_of(item.config, case) if case is not None else None
