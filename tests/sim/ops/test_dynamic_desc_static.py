"""A dynamic model takes static runtime descs only (docs/contract/op-load-execute.md, execute_v2 rule 9): a -1 left in
an output desc is 100000 even when the model's output is [-2], whose unknown rank accepts any static shape (issue 34:
CANN's ConcatD case with a [-2] output ran with a -1 in its output desc)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from opkit import Device, op, tensor

from aclcts.core.constants import DataType, ErrorCode

F32 = int(DataType.ACL_FLOAT)


def negation(output_shape: list[int]) -> dict:
    """Neg over a static x [2, 3] with this output shape."""
    return op("Neg", [tensor("float32", [2, 3])], [tensor("float32", output_shape)])


@pytest.mark.parametrize("left", [[-1, 3], [-2]])
def test_a_dynamic_desc_left_at_run_time_is_invalid_param_against_an_unknown_rank_output(
        acl: Any, dev: Device, models: Callable[..., Path], left: list[int]) -> None:
    assert acl.op.set_model_dir(str(models([negation([-2])]))) == 0
    x = dev.tensor(np.ones((2, 3), np.float32))
    y = dev.output(F32, [2, 3])
    ret = acl.op.execute_v2("Neg", [x[0]], [x[1]], [dev.desc(F32, left)], [y[1]], 0, dev.stream)
    assert ret == ErrorCode.ACL_ERROR_INVALID_PARAM


def test_static_descs_run_against_an_unknown_rank_output(acl: Any, dev: Device, models: Callable[..., Path]) -> None:
    assert acl.op.set_model_dir(str(models([negation([-2])]))) == 0
    x = dev.tensor(np.ones((2, 3), np.float32))
    y = dev.output(F32, [2, 3])
    assert acl.op.execute_v2("Neg", [x[0]], [x[1]], [y[0]], [y[1]], 0, dev.stream) == 0
    dev.sync()
    assert dev.get(y[2], np.float32, (2, 3)).tolist() == [[-1.0] * 3] * 2
