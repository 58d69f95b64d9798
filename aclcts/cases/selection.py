"""Narrowed case libraries: the cases of named op types, and the smoke selection whose size does not grow with the
library."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from aclcts.cases.case import Case


def elements(case: Case) -> int:
    """Elements of all the case's fixed-shape inputs and outputs (a -1 or [-2] dim counts as its range's minimum)."""
    total = 0
    for tensor in case.inputs + case.outputs:
        dims = [low for low, _ in tensor.dim_ranges()] if tensor.dynamic else list(tensor.shape)
        total += int(np.prod(dims, dtype=np.int64)) if dims else 1
    return total


def smoke_key(case: Case) -> tuple:
    """What a smoke selection keeps one case of: family, static or dynamic, execution modes, const inputs or none."""
    return (case.family, case.dynamic, case.modes, any(t.const is not None for t in case.inputs))


def smoke(cases: Iterable[Case], keep: Iterable[str] = ()) -> list[Case]:
    """One case per smoke_key (the smallest non-empty one, ties by id) plus the cases whose ids are in keep, in the
    order of cases."""
    cases = list(cases)
    kept = set(keep)
    best: dict[tuple, Case] = {}
    for case in cases:
        size = elements(case)
        if size == 0:
            continue
        key = smoke_key(case)
        held = best.get(key)
        if held is None or (size, case.id) < (elements(held), held.id):
            best[key] = case
    chosen = {id(case) for case in best.values()}
    return [case for case in cases if id(case) in chosen or case.id in kept]


def of_ops(cases: Iterable[Case], ops: Iterable[str]) -> list[Case]:
    """The cases whose op type is one of ops."""
    wanted = set(ops)
    return [case for case in cases if case.op in wanted]
