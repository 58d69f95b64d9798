"""Performance per op family: execute_v2 against execute_with_handle latency, recorded and warned, never failed."""

from __future__ import annotations

import statistics
import warnings
from typing import Any

import numpy as np
import pytest

from aclcts.drive import executor
from aclcts.tools.bench import PerfWarning
from aclcts.cases import Case
from aclcts.cases.values import draw_inputs
from aclcts.pytest_plugin.library import library_cases, parametrize_or_deselect

pytestmark = [pytest.mark.perf, pytest.mark.filterwarnings("always::aclcts.tools.bench.PerfWarning")]

#: Timed rounds per case; each round runs one execute_v2 and one execute_with_handle, each synchronised.
ROUNDS = 30
WARMUP = 2


def representative_cases(cases: list[Case]) -> list[Case]:
    """One static, non-empty case per family: the median by element count (ties by id)."""
    by_family: dict[str, list[Case]] = {}
    for case in cases:
        if not case.dynamic_input and "handle" in case.modes and \
                all(int(np.prod(t.shape)) > 0 for t in case.inputs + case.outputs):
            by_family.setdefault(case.family, []).append(case)
    chosen = []
    for family in sorted(by_family):
        ranked = sorted(by_family[family],
                        key=lambda c: (sum(int(np.prod(t.shape)) for t in c.inputs + c.outputs), c.id))
        chosen.append(ranked[len(ranked) // 2])
    return chosen


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Parametrize `perf_case` over one representative case per family of the loaded case library."""
    if "perf_case" in metafunc.fixturenames:
        chosen = representative_cases(library_cases(metafunc.config))
        parametrize_or_deselect(metafunc, "perf_case", chosen, [f"{c.family}-{c.id}" for c in chosen])


def _latencies_us(acl: Any, stream: int, case: Case, inputs: list[np.ndarray]) -> tuple[float, float]:
    v2, with_handle = executor.latencies(acl, stream, case, inputs, ROUNDS, WARMUP)
    return statistics.median(v2) * 1e6, statistics.median(with_handle) * 1e6


def test_execute_with_handle_is_not_slower_than_execute_v2(acl, stream, perf_case, record_property, pytestconfig):
    inputs = draw_inputs(perf_case, perf_case.seed(pytestconfig.getoption("--aclcts-seed")))
    v2_us, handle_us = _latencies_us(acl, stream, perf_case, inputs)
    record_property("execute_v2_us", round(v2_us, 2))
    record_property("handle_us", round(handle_us, 2))
    record_property("ratio", round(v2_us / handle_us, 3))
    if handle_us >= v2_us:
        warnings.warn(PerfWarning(f"{perf_case.family} {perf_case.id}: execute_with_handle {handle_us:.1f} us is not "
                                  f"faster than execute_v2 {v2_us:.1f} us (median of {ROUNDS}, synchronised)"))
