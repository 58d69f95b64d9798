"""The case library of a run, assembled in one place for `pytest conformance/` and `aclcts singleop`."""

from __future__ import annotations

import logging
from collections.abc import Callable, Collection

from aclcts.cases.case import Case
from aclcts.cases.custom_ops import load_with_records
from aclcts.cases.defaults import with_defaults
from aclcts.cases.domains import generated
from aclcts.cases.selection import of_ops

log = logging.getLogger(__name__)


def case_library(paths: list[str], seed: int, *, shipped: bool, ops: Collection[str] | None = None,
                 domains: bool = True, warn: Callable[[str], None] = log.warning) -> list[Case]:
    """Every case (static, dynamic and refused) of a run over the case paths: the files' cases and the default cases
    of the records under them; for the shipped library also the default cases of every record no file covers; only
    those of the op types in ops, when given; and, for the shipped library with domains, the cases generated from the
    records' domains, drawn with seed (the session's --aclcts-seed)."""
    cases = load_with_records(paths, kind="all", warn=warn, ops=ops or None)
    if shipped:
        cases = with_defaults(cases, ops or None)
    if ops:
        cases = of_ops(cases, ops)
    if shipped and domains:
        cases += generated(cases, seed)
    return cases
