"""The simulator's ASCEND_OPP_PATH setting for acl.op.infer_shape (the contract: conformance/test_infer_shape.py)."""

from __future__ import annotations

import numpy as np
import pytest
from opkit import Device

from aclcts.core.constants import ErrorCode
from aclcts.core.dtypes import acl_data_type

INVALID_OPP_PATH = int(ErrorCode.ACL_ERROR_INVALID_OPP_PATH)


def _infer_add(dev: Device) -> int:
    """infer_shape of Add over two int32 [2] host inputs."""
    x = np.ones([2], np.int32)
    desc = dev.desc(acl_data_type(x.dtype), [2])
    buf = dev.acl.create_data_buffer(dev.host_ptr(x), x.nbytes)
    return dev.acl.op.infer_shape("Add", [desc, desc], [buf, buf], 1, [dev.desc(acl_data_type(x.dtype), [1])], 0)


@pytest.mark.sim_settings(require_opp_path=True)
def test_infer_shape_without_ascend_opp_path_returns_invalid_opp_path_when_the_setting_asks(
        dev: Device, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ASCEND_OPP_PATH", raising=False)
    assert _infer_add(dev) == INVALID_OPP_PATH


def test_the_simulator_does_not_need_ascend_opp_path_by_default(dev: Device, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ASCEND_OPP_PATH", raising=False)
    assert _infer_add(dev) == 0
