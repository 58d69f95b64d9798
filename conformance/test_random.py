"""Stateless random ops: the same key, counter and alg give the same values, another key or counter other values.

Whether the values follow the op's distribution is judged where every op's results are, in test_execute.py, under
the random family's Distribution policy (docs/precision-policy.md, "Random ops").
"""

import numpy as np
import pytest

from aclcts.drive import executor
from aclcts.judge.ulp import bits_equal

pytestmark = [pytest.mark.execute]

#: The positions of the key and counter inputs of a stateless random op (aclcts/core/prototypes/random.py).
KEY, COUNTER = 1, 2
#: At most this fraction of the elements of two different streams may be equal: independent streams of float16
#: share a value once in a few hundred elements, a generator that ignores its seed in every element.
MOST_EQUAL = 0.5


def _values(acl, stream, case, inputs) -> np.ndarray:
    return executor.run(acl, stream, case, [inputs], "execute_v2")[0].arrays[0]


def _reseeded(inputs: list, position: int) -> list:
    """The inputs with the first word of one seed input changed."""
    changed = [np.array(x, copy=True) for x in inputs]
    changed[position].reshape(-1)[0] ^= np.uint64(0x5DEECE66D)
    return changed


@pytest.mark.cases(mode="execute_v2", family=["random"])
def test_the_same_key_and_counter_give_the_same_values(acl, stream, op_case, case_inputs):
    first, again = (_values(acl, stream, op_case, case_inputs[0]) for _ in range(2))
    differing = int(np.count_nonzero(~bits_equal(first, again)))
    assert differing == 0, f"{differing} of {first.size} values differ between two executions with the same seed"


@pytest.mark.cases(mode="execute_v2", family=["random"])
@pytest.mark.parametrize("seed_input", [KEY, COUNTER], ids=["key", "counter"])
def test_another_key_or_counter_gives_other_values(acl, stream, op_case, case_inputs, seed_input):
    first = _values(acl, stream, op_case, case_inputs[0])
    other = _values(acl, stream, op_case, _reseeded(case_inputs[0], seed_input))
    equal = float(np.mean(bits_equal(first, other)))
    name = op_case.inputs[seed_input].name
    assert equal <= MOST_EQUAL, f"{equal:.1%} of the values are unchanged when input {name!r} changes"
