"""A kernel that fails on the device: synchronize returns 507015 and the recent error says why (issue 34)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from opkit import INT32, Device, op, tensor

AICORE_EXCEPTION = 507015


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
