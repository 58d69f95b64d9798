"""The simulator refuses a desc list longer than its buffer list with 100000, where the real C layer ignores the
extra descs (docs/contract/op-load-execute.md#execute_v2-check-order, step 4: the simulator returns
100000 for every length mismatch)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from opkit import INT32, Device, binary

from aclcts.core.constants import ErrorCode

SHAPE = [2, 3]


@pytest.mark.parametrize("which", ["input", "output"])
def test_a_desc_list_longer_than_its_buffer_list_is_invalid_param(acl: Any, dev: Device, models: Callable[..., Path],
                                                                  which: str) -> None:
    assert acl.op.set_model_dir(str(models([binary("Add", "int32", SHAPE)]))) == 0
    tensors = [dev.output(INT32, SHAPE) for _ in range(3)]
    extra = dev.desc(INT32, SHAPE)
    in_descs, out_descs = [t[0] for t in tensors[:2]], [tensors[2][0]]
    if which == "input":
        in_descs.append(extra)
    else:
        out_descs.append(extra)
    ret = acl.op.execute_v2("Add", in_descs, [t[1] for t in tensors[:2]], out_descs, [tensors[2][1]], 0, dev.stream)
    assert ret == ErrorCode.ACL_ERROR_INVALID_PARAM
    assert dev.get(tensors[2][2], np.int32, SHAPE).tolist() == [[0] * 3] * 2
