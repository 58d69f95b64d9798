"""A kernel that fails on the device: synchronize returns 507015 and the recent error says why (issue 34)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from opkit import INT32, Device, op, tensor

from aclcts.core.constants import DataType

AICORE_EXCEPTION = 507015
INT64 = int(DataType.ACL_INT64)


def test_the_kernels_reason_reaches_the_synchronize_error(acl: Any, dev: Device, models: Callable[..., Path]) -> None:
    wrong = op("GatherNd", [tensor("int32", [4, 3]), tensor("int32", [5, 2])], [tensor("int32", [5, 2])])
    assert acl.op.set_model_dir(str(models([wrong]))) == 0
    x = dev.tensor(np.arange(12, dtype=np.int32).reshape(4, 3))
    indices = dev.tensor(np.zeros((5, 2), np.int32))
    out = dev.output(INT32, [5, 2])
    assert dev.execute("GatherNd", [x, indices], [out]) == 0
    assert acl.rt.synchronize_stream(dev.stream) == AICORE_EXCEPTION
    message = acl.get_recent_err_msg()
    assert message.endswith("acl.op.execute_v2('GatherNd') failed on the device with error 507015: "
                            "GatherNd: output 'y' was given shape [5, 2], but the inputs give [5]")


def test_a_static_output_smaller_than_its_desc_is_a_device_failure_with_the_shapes(
        acl: Any, dev: Device, models: Callable[..., Path]) -> None:
    where = op("Where", [tensor("bool", [6])], [tensor("int64", [4, 1])])
    assert acl.op.set_model_dir(str(models([where]))) == 0
    x = dev.tensor(np.array([0, 1, 0, 1, 1, 0], np.bool_))
    out = dev.output(INT64, [4, 1])
    assert dev.execute("Where", [x], [out]) == 0
    assert acl.rt.synchronize_stream(dev.stream) == AICORE_EXCEPTION
    assert acl.get_recent_err_msg().endswith("Where: output 'y' was given shape [4, 1], but the inputs give [3, 1]")
