"""testing.judge hands every failing comparison to the failure recorder; the allure hooks load only with --alluredir."""

from pathlib import Path

import numpy as np

from aclcts.judge import decorator as testing
from aclcts.cases import load_cases
from aclcts.cases.values import draw_inputs
from aclcts.reference import reference
from aclcts.drive.runner import Outputs

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
    testing.set_failure_recorder(lambda *args: seen.append(args))
    try:
        failures = testing.judge(case, inputs, results)
    finally:
        testing.set_failure_recorder(None)
    return failures, seen


def test_every_failing_comparison_reaches_the_failure_recorder_with_its_table():
    failures, seen = judged(changed=True)
    assert [(output, execution) for output, execution, _, _ in seen] == [("y", 0), ("y", 1)]
    for message, (_, _, comparison, table) in zip(failures, seen):
        assert not comparison.passed
        assert table in message
        assert "(0, 3)" in table
        rel = comparison.relative_errors()
        assert rel.shape == (32,) and rel[3] > 0 and not rel.flags.writeable


def test_passing_comparisons_do_not_reach_the_failure_recorder():
    failures, seen = judged(changed=False)
    assert failures == [] and seen == []


def test_allure_hooks_are_registered_only_with_alluredir(pytester, tmp_path):
    without = pytester.parseconfigure()
    assert without.pluginmanager.get_plugin("aclcts-allure") is None
    with_dir = pytester.parseconfigure(f"--alluredir={tmp_path / 'results'}")
    assert with_dir.pluginmanager.get_plugin("aclcts-allure") is not None
