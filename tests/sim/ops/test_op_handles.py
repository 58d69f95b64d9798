"""Handles in the simulator beyond the contract (the contract: conformance/test_handle.py): a destroyed handle is
misuse, a handle is a live object until destroyed, and a handle outlives its descs (not stated by the documentation)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from opkit import INT32, Device, binary

import aclcts.sim

OK = 0
SHAPE = [3, 5]


@pytest.fixture
def add_loaded(acl: Any, dev: Device, models: Callable[..., Path]) -> Device:
    """A session with the int32 [3, 5] Add model loaded."""
    assert acl.op.set_model_dir(str(models([binary("Add", "int32", SHAPE)]))) == OK
    return dev


def _descs(dev: Device, count: int = 3, data_type: int = INT32) -> list[int]:
    return [dev.desc(data_type, SHAPE) for _ in range(count)]


def _handle(dev: Device) -> int:
    descs = _descs(dev)
    handle, ret = dev.acl.op.create_handle("Add", descs[:2], descs[2:], 0)
    assert ret == OK and handle != 0
    return handle


def test_a_handle_keeps_working_after_its_descs_are_destroyed(add_loaded: Device) -> None:
    dev = add_loaded
    descs = _descs(dev)
    handle, ret = dev.acl.op.create_handle("Add", descs[:2], descs[2:], 0)
    assert ret == OK
    for desc in descs:
        dev.acl.destroy_tensor_desc(desc)
    a = np.arange(15, dtype=np.int32).reshape(SHAPE)
    out = dev.output(INT32, SHAPE)
    assert dev.acl.op.execute_with_handle(handle, [dev.tensor(a)[1], dev.tensor(a)[1]], [out[1]], dev.stream) == OK
    dev.sync()
    np.testing.assert_array_equal(dev.get(out[2], np.int32, SHAPE), a * 2)


def test_a_destroyed_handle_cannot_be_used(add_loaded: Device) -> None:
    dev = add_loaded
    handle = _handle(dev)
    dev.acl.op.destroy_handle(handle)
    x = dev.tensor(np.ones(SHAPE, np.int32))
    out = dev.output(INT32, SHAPE)
    with pytest.raises(aclcts.sim.SimMisuseError):
        dev.acl.op.execute_with_handle(handle, [x[1], x[1]], [out[1]], dev.stream)


def test_a_handle_is_a_live_object_until_destroyed(add_loaded: Device) -> None:
    handle = _handle(add_loaded)
    assert handle in [o.handle for o in aclcts.sim.live_objects("handle")]
    add_loaded.acl.op.destroy_handle(handle)
    assert handle not in [o.handle for o in aclcts.sim.live_objects("handle")]
