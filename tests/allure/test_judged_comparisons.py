"""judge appends every comparison it makes to `into`, failing ones with their table; allure hooks need --alluredir."""

from pathlib import Path

import numpy as np

from aclcts.judge.decorator import judge
from aclcts.cases import load_cases
from aclcts.cases.values import draw_inputs
from aclcts.reference import reference
from aclcts.drive.executor import Outputs

CASES = Path(__file__).resolve().parent / "cases"


def judged(changed: bool, executions: int = 2):
    case = next(c for c in load_cases([str(CASES)]) if c.op == "Add")
    inputs = [draw_inputs(case, 7 + index) for index in range(executions)]
    ref = reference(case.reference)
    results = []
    for arrays in inputs:
        (expected,) = ref.compute(arrays, case.attr_values(), [t.np_dtype for t in case.outputs])
        actual = np.asarray(expected).astype(case.outputs[0].np_dtype)
        if changed:
            actual.flat[3] = actual.flat[3] * 2 + 1
        results.append(Outputs([actual], [np.zeros(actual.shape, dtype=bool)]))
    seen = []
    failures = judge(case, inputs, results, into=seen)
    return failures, seen


def test_every_failing_comparison_is_handed_back_with_its_table():
    failures, seen = judged(changed=True)
    assert [(j.output, j.execution, j.key) for j in seen] == [("y", 0, "y[0]"), ("y", 1, "y[1]")]
    for message, found in zip(failures, seen):
        assert not found.comparison.passed
        assert found.table in message
        assert "(0, 3)" in found.table
        rel = found.comparison.relative_errors()
        assert rel.shape == (32,) and rel[3] > 0 and not rel.flags.writeable


def test_passing_comparisons_are_handed_back_too():
    failures, seen = judged(changed=False)
    assert failures == []
    assert [(j.key, j.comparison.passed, j.comparison.max_abs) for j in seen] == [("y[0]", True, 0.0), ("y[1]", True, 0.0)]


def test_without_into_nothing_is_kept_between_calls():
    first, _ = judged(changed=True)
    case = next(c for c in load_cases([str(CASES)]) if c.op == "Add")
    kept = []
    judge(case, [], [], into=kept)
    assert first and kept == []


def test_allure_hooks_are_registered_only_with_alluredir(pytester, tmp_path):
    without = pytester.parseconfigure()
    assert without.pluginmanager.get_plugin("aclcts-allure") is None
    with_dir = pytester.parseconfigure(f"--alluredir={tmp_path / 'results'}")
    assert with_dir.pluginmanager.get_plugin("aclcts-allure") is not None
