"""execute_v2 over the case library: every case's outputs match the NumPy reference under its policy."""

import pytest

from aclcts.drive import executor
from aclcts.judge.decorator import compares_with_reference

pytestmark = [pytest.mark.execute]


@pytest.mark.cases(mode="execute_v2")
@compares_with_reference
def test_execute_v2_matches_reference(acl, stream, op_case, case_inputs):
    return executor.run(acl, stream, op_case, case_inputs, "execute_v2")
