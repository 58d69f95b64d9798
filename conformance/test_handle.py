"""Handle mode over the case library: one create_handle, execute_with_handle with fresh data each time."""

import pytest

from aclcts.drive import executor
from aclcts.judge.decorator import compares_with_reference

pytestmark = [pytest.mark.handle]


@pytest.mark.cases(mode="handle", executions=3)
@compares_with_reference
def test_execute_with_handle_matches_reference_on_every_execution(acl, stream, op_case, case_inputs):
    return executor.run(acl, stream, op_case, case_inputs, "handle")
