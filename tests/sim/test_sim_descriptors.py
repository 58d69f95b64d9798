"""Descs, data buffers and attrs in the simulator beyond the contract (the contract: conformance/test_descriptors.py).

They need no acl.init, the simulator's live-object bookkeeping sees them until they are destroyed, and
set_tensor_const reads a device pointer only where the run mode makes device memory host-readable.
"""

import numpy as np
import pytest

import aclcts.sim
from aclcts.core.constants import Format

ND = int(Format.ACL_FORMAT_ND)


def _live(kind: str) -> list[int]:
    return [obj.handle for obj in aclcts.sim.live_objects(kind)]


def test_data_buffers_and_attrs_need_no_init(acl):
    buf = acl.create_data_buffer(0x1000, 8)
    assert buf != 0
    assert acl.destroy_data_buffer(buf) == 0
    attr = acl.op.create_attr()
    assert acl.op.set_attr_int(attr, "i", 1) == 0
    assert acl.op.set_attr_data_type(attr, "d", 0) == (attr, 0)
    acl.op.destroy_attr(attr)


@pytest.mark.parametrize("kind, create, destroy", [
    pytest.param("desc", lambda acl: acl.create_tensor_desc(0, [1], ND), lambda acl, h: acl.destroy_tensor_desc(h),
                 id="desc"),
    pytest.param("buffer", lambda acl: acl.create_data_buffer(0, 0), lambda acl, h: acl.destroy_data_buffer(h),
                 id="buffer"),
    pytest.param("attr", lambda acl: acl.op.create_attr(), lambda acl, h: acl.op.destroy_attr(h), id="attr"),
])
def test_a_desc_buffer_or_attr_is_a_live_object_until_destroyed(acl, kind, create, destroy):
    handle = create(acl)
    assert handle in _live(kind)
    destroy(acl, handle)
    assert handle not in _live(kind)


def test_set_tensor_const_of_device_pointer_in_host_mode_is_misuse(acl, session):
    dev, ret = acl.rt.malloc(16, 0)
    assert ret == 0
    with pytest.raises(aclcts.sim.SimMisuseError):
        acl.set_tensor_const(acl.create_tensor_desc(3, [4], ND), dev, 16)


def test_set_tensor_const_of_device_pointer_in_device_mode_is_allowed(acl):
    aclcts.sim.configure(run_mode="device")
    aclcts.sim.reset()
    assert acl.init() == 0
    assert acl.rt.set_device(0) == 0
    dev, ret = acl.rt.malloc(16, 0)
    assert ret == 0
    assert acl.rt.memset(dev, 16, 1, 16) == 0
    assert acl.set_tensor_const(acl.create_tensor_desc(3, [4], ND), dev, 16) == 0
    assert acl.rt.free(dev) == 0
