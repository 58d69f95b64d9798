"""Gradient ops against the second oracle: every op whose record names its forward op gives dy * f'(x), f' taken by
central differences of the forward op's reference (aclcts.judge.gradients), so that a gradient reference agreeing
with a wrong kernel does not hide it."""

import numpy as np
import pytest

from aclcts.core.prototypes import prototype
from aclcts.drive import executor
from aclcts.judge.gradients import gradient_points, mismatches

pytestmark = [pytest.mark.execute]


def _differentiable(case) -> bool:
    """A float32 static case of the suite's own (no value profile, not from an msopst file) of an op whose record
    names its forward op."""
    record = prototype(case.op)
    return (record is not None and record.gradient_of is not None and not case.profile and not case.dynamic
            and case.msopst is None and case.inputs[0].np_dtype == np.float32)


@pytest.mark.cases(mode="execute_v2", where=_differentiable)
def test_a_gradient_op_gives_dy_times_the_central_difference_of_its_forward_reference(acl, stream, op_case,
                                                                                      case_seed):
    points = gradient_points(prototype(op_case.op), op_case.reference_attr_values(), op_case.inputs[0].shape,
                             np.dtype(np.float32), case_seed, {t.name: t.shape for t in op_case.inputs})
    (outputs,) = executor.run(acl, stream, op_case, [points.inputs], "execute_v2")
    wrong = mismatches(points, list(outputs.arrays))
    assert not wrong, f"{op_case.op}: " + "; ".join(wrong)
