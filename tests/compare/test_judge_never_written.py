"""testing.judge fails output elements that still hold the executor's poison pattern, unless the reference has it too."""

from pathlib import Path

import numpy as np

from aclcts.drive import executor

from aclcts.judge import decorator as testing
from aclcts.cases import load_cases
from aclcts.cases.values import draw_inputs
from aclcts.reference import reference

ADD_CASE = Path(__file__).resolve().parents[1] / "allure" / "cases" / "add.yaml"


def judge_with_element_3(poisoned: bool, unwritten_marked: bool) -> list[str]:
    case = next(c for c in load_cases([str(ADD_CASE)]) if c.op == "Add")
    inputs = [draw_inputs(case, 11)]
    (expected,) = reference(case.reference).compute(inputs[0], case.attr_values(), [t.np_dtype for t in case.outputs])
    actual = np.asarray(expected).astype(case.outputs[0].np_dtype)
    if poisoned:
        actual.view(np.uint8).reshape(actual.size, -1)[3] = executor.POISON
    unwritten = np.zeros(actual.shape, dtype=bool)
    unwritten.flat[3] = unwritten_marked
    return testing.judge(case, inputs, [executor.Outputs([actual], [unwritten])])


def test_an_element_left_holding_the_poison_pattern_fails_and_is_located():
    (failure,) = [f for f in judge_with_element_3(poisoned=True, unwritten_marked=True) if "poison" in f]
    assert "1 element(s) still hold the poison pattern (never written), first at (0, 3)" in failure


def test_an_unwritten_element_equal_to_the_reference_bit_for_bit_passes():
    assert judge_with_element_3(poisoned=False, unwritten_marked=True) == []


def test_no_unwritten_element_means_no_poison_failure():
    assert not [f for f in judge_with_element_3(poisoned=True, unwritten_marked=False) if "poison" in f]
