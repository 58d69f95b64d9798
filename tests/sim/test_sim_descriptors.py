"""Descs, data buffers and attrs in the simulator beyond the contract (the contract: conformance/test_descriptors.py):
they need no acl.init, and the simulator's live-object bookkeeping sees them until they are destroyed."""

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
