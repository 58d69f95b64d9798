"""The failure text of a comparison: an aligned worst-elements table with the inputs there, metrics that fit the dtype."""

import re
from pathlib import Path

import numpy as np
import pytest

from aclcts.cases import load_cases
from aclcts.cases.values import draw_inputs
from aclcts.drive.executor import Outputs
from aclcts.judge.compare import compare, summary, worst_table
from aclcts.judge.policies import AllClose, Exact
from aclcts.judge.decorator import judge
from aclcts.reference import reference

ROOT = Path(__file__).resolve().parents[2]
CELL = re.compile(r"\S+(?: \S+)*")  # cells are two or more spaces apart; a cell may hold single spaces: "(0, 3)"


def cells(line):
    return [(m.start(), m.end(), m.group()) for m in CELL.finditer(line)]


def assert_aligned(table):
    """The index column starts, and every other column ends, at one position in every row."""
    rows = [cells(line) for line in table.splitlines()]
    assert len({len(row) for row in rows}) == 1, table
    assert len({row[0][0] for row in rows}) == 1, table
    for column in range(1, len(rows[0])):
        assert len({row[column][1] for row in rows}) == 1, table


def test_columns_line_up_whatever_the_width_of_the_values():
    actual = np.array([[1.0, -123456.789, 0.5], [1e-30, 2.0, 7.0]], dtype=np.float32)
    expected = np.array([[1.5, 3.0, 0.25], [0.0, 2.0, 1e30]], dtype=np.float32)
    table = worst_table(compare(actual, expected, AllClose(rtol=0.0, atol=0.0)))
    assert_aligned(table)
    header = [text for _, _, text in cells(table.splitlines()[0])]
    assert header == ["index", "actual", "expected", "abs err", "rel err", "ulp"]
    assert [text for _, _, text in cells(table.splitlines()[1])][:3] == ["(1, 2)", "7.0", "1e+30"]


def test_each_input_shows_the_element_broadcast_to_the_index():
    x1 = np.arange(20, dtype=np.float32).reshape(4, 5)
    x2 = np.array([[10.0, 20.0, 30.0, 40.0, 50.0]], dtype=np.float32)
    expected = x1 + x2
    actual = expected.copy()
    actual[2, 3] += 1000.0
    table = worst_table(compare(actual, expected, Exact()), [("x1", x1), ("x2", x2), ("axis", np.array([7, 8, 9]))])
    assert_aligned(table)
    header, row = ([text for _, _, text in cells(line)] for line in table.splitlines())
    assert header[-2:] == ["x1", "x2"]  # `axis` does not broadcast to the output's shape: no column
    assert row[0] == "(2, 3)" and row[-2:] == ["13.0", "40.0"]


def test_a_bool_output_has_mismatch_counts_and_no_error_columns():
    expected = np.array([True, False, True, True])
    actual = np.array([True, True, False, True])
    comparison = compare(actual, expected, Exact())
    assert summary(comparison) == "mismatches 2 of 4"
    table = worst_table(comparison)
    assert [text for _, _, text in cells(table.splitlines()[0])] == ["index", "actual", "expected"]
    assert [text for _, _, text in cells(table.splitlines()[1])] == ["(1,)", "True", "False"]
    assert comparison.max_rel > 1 and comparison.as_dict()["mare"] > 1  # the metrics are still recorded


def test_an_integer_output_has_its_largest_difference_and_no_relative_error():
    comparison = compare(np.array([5, 7, -3], dtype=np.int32), np.array([5, 0, -1], dtype=np.int32), Exact())
    assert summary(comparison) == "max abs 7, mismatches 2 of 3"
    header = [text for _, _, text in cells(worst_table(comparison).splitlines()[0])]
    assert header == ["index", "actual", "expected", "abs err"]


def test_a_float_output_has_every_error_metric_and_its_nonfinite_mismatches():
    comparison = compare(np.array([1.0, np.nan, 2.0], dtype=np.float16), np.array([1.0, 1.0, 2.5], dtype=np.float16),
                         Exact())
    line = summary(comparison)
    assert line.startswith("max abs 0.5, max rel 0.2, max ulp 256,") and line.endswith("1 NaN mismatch(es)")
    rows = [[text for _, _, text in cells(line)] for line in worst_table(comparison).splitlines()[1:]]
    assert rows[0] == ["(1,)", "nan", "1.0", "inf", "inf", "-"]


@pytest.fixture
def equal_case():
    return next(c for c in load_cases([str(ROOT / "cases" / "elementwise" / "equal.yaml")])
                if c.id.startswith("Equal-int32_bool-3x1x4"))


def test_a_failing_bool_case_prints_one_table_per_output_and_execution_with_its_inputs(equal_case):
    inputs = [draw_inputs(equal_case, seed) for seed in (3, 4)]
    ref = reference(equal_case.reference)
    results = []
    for arrays in inputs:
        (expected,) = ref.compute(arrays, equal_case.attr_values(), [t.np_dtype for t in equal_case.outputs])
        actual = np.asarray(expected).copy()
        actual[1, 2, 3] = not actual[1, 2, 3]
        results.append(Outputs([actual], [np.zeros(actual.shape, dtype=bool)]))
    failures = judge(equal_case, inputs, results)
    assert len(failures) == 2
    for arrays, failure in zip(inputs, failures):
        first, *table = failure.splitlines()
        assert first.endswith("fails policy exact: mismatches 1 of 60") and "rel" not in first
        assert_aligned("\n".join(table))
        row = [text for _, _, text in cells(table[1])]
        x1, x2 = (np.broadcast_to(a, (3, 5, 4))[1, 2, 3] for a in arrays)
        assert row == ["(1, 2, 3)", str(not (x1 == x2)), str(x1 == x2), str(x1), str(x2)]


def _indices(comparison):
    return [index for index, *_ in comparison.worst()]


def test_elements_that_break_an_allclose_policy_come_before_larger_errors_inside_it():
    # (0,): abs err 5 within 0.01 * 1000; (1,): abs err 1e-4 beyond 1e-5 + 0.01 * 0.001; (2,): 3e-3 beyond too
    expected = np.array([1000.0, 0.001, 0.3, 7.0], np.float32)
    actual = np.array([1005.0, 0.0011, 0.306, 7.0], np.float32)
    comparison = compare(actual, expected, AllClose(rtol=0.01, atol=1e-5))
    assert _indices(comparison) == [(1,), (2,), (0,)]  # breaking first, by how many tolerances they are off


def test_worst_elements_follow_the_measure_of_ulp_and_msopst_ratio_policies():
    expected = np.array([1000.0, 0.001, 2.0], np.float32)
    actual = np.array([1000.125, 0.0011, 2.0], np.float32)  # (0,): 2 ulp, abs 0.125; (1,): huge ulp, abs 1e-4
    assert _indices(compare(actual, expected, "ulp:4")) == [(1,), (0,)]
    # msopst's rate: (0,) is off by 0.5 at 1000 (rate 5e-4, inside t), (1,) by 0.002 at 0.5 (rate 4e-3, beyond t)
    actual, expected = np.array([1000.5, 0.502], np.float32), np.array([1000.0, 0.5], np.float32)
    assert _indices(compare(actual, expected, "ratio:0.001,0.0")) == [(1,), (0,)]
