"""Stateless random ops: the same key, counter and alg (or seed) give the same values, another key, counter or seed
other values. The stateful random ops (aclcts/core/prototypes/random_stateful.py) draw new values at every execution,
so only their distribution is checked.

Whether the values follow the op's distribution is judged where every op's results are, in test_execute.py, under
the random family's Distribution policy (docs/precision-policy.md, "Random ops").
"""

import numpy as np
import pytest

from aclcts.core.prototypes import prototype
from aclcts.drive import executor
from aclcts.judge.ulp import bits_equal
from aclcts.reference import reference

pytestmark = [pytest.mark.execute]

#: The inputs that seed a stateless random op (aclcts/core/prototypes/random.py): key and counter, or seed.
SEED_INPUTS = ("key", "counter", "seed")
#: Two streams of different seeds may share more elements than two independent reference samples do by at most this
#: fraction: independent streams share values only by chance (often for float16, or for an integer distribution of
#: few values: Poisson of mean 1 repeats half its values), a generator that ignores its seed shares every element.
EXCESS_EQUAL = 0.1


def is_stateless(case) -> bool:
    """Whether the case's op is one of the stateless random family's (seeded by its inputs)."""
    return prototype(case.op).family == "random"


def _values(acl, stream, case, inputs) -> np.ndarray:
    return executor.run(acl, stream, case, [inputs], "execute_v2")[0].arrays[0]


def _sample(case, inputs: list) -> np.ndarray:
    """The reference's sample of the op's distribution for these inputs, in the output's type."""
    out = case.outputs[0].np_dtype
    return np.asarray(reference(case.reference).compute(inputs, case.reference_attr_values(), [out])[0]).astype(out)


def _reseeded(inputs: list, position: int) -> list:
    """The inputs with the first word of one seed input changed."""
    changed = [np.array(x, copy=True) for x in inputs]
    changed[position].reshape(-1)[0] ^= changed[position].dtype.type(0x5DEECE6)
    return changed


@pytest.mark.cases(mode="execute_v2", family=["random"], where=is_stateless)
def test_the_same_key_and_counter_give_the_same_values(acl, stream, op_case, case_inputs):
    first, again = (_values(acl, stream, op_case, case_inputs[0]) for _ in range(2))
    differing = int(np.count_nonzero(~bits_equal(first, again)))
    assert differing == 0, f"{differing} of {first.size} values differ between two executions with the same seed"


@pytest.mark.cases(mode="execute_v2", family=["random"], where=is_stateless)
def test_another_key_counter_or_seed_gives_other_values(acl, stream, op_case, case_inputs):
    seeds = [i for i, name in enumerate(prototype(op_case.op).input_names()) if name in SEED_INPUTS]
    assert seeds, f"{op_case.op} has none of the seed inputs {', '.join(SEED_INPUTS)}"
    first = _values(acl, stream, op_case, case_inputs[0])
    for position in seeds:
        reseeded = _reseeded(case_inputs[0], position)
        other = _values(acl, stream, op_case, reseeded)
        equal = float(np.mean(bits_equal(first, other)))
        by_chance = float(np.mean(bits_equal(*(_sample(op_case, inputs) for inputs in (case_inputs[0], reseeded)))))
        name = prototype(op_case.op).input_names()[position]
        assert equal <= by_chance + EXCESS_EQUAL, (f"{equal:.1%} of the values are unchanged when input {name!r} "
                                                    f"changes; two reference samples share {by_chance:.1%}")
