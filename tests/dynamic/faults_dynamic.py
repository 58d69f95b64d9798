"""Pyacl-compatible wrappers around the simulator with one dynamic-shape or handle defect each, for `--backend=MODULE:ATTR`."""

from __future__ import annotations

import math
import types

from aclcts.drive.backends import mutable_copy
from aclcts.sim import acl as _sim

ACL_UNKNOWN_RANK = 0xFFFFFFFFFFFFFFFE
NORMAL_ONLY = 2
#: Device bytes the leaky handle keeps per handle.
WORKSPACE = 4096


def _dims(desc: int) -> list[int] | None:
    count = _sim.get_tensor_desc_num_dims(desc)
    if count == ACL_UNKNOWN_RANK:
        return None
    return [_sim.get_tensor_desc_dim_v2(desc, index)[0] for index in range(count)]


def unmodified() -> types.SimpleNamespace:
    """The simulator behind the same wrapping, without a defect (the control)."""
    return mutable_copy(_sim)


def narrowed_inferred_range() -> types.SimpleNamespace:
    """infer_shape reports the maximum of every bounded -1 dim's range one lower than the truth allows."""
    acl = mutable_copy(_sim)

    def infer_shape(op_type, in_descs, inputs, num_outputs, out_descs, attr):
        ret = _sim.op.infer_shape(op_type, in_descs, inputs, num_outputs, out_descs, attr)
        if ret != 0:
            return ret
        for desc in out_descs:
            dims = _dims(desc) or []
            ranges = []
            for index, dim in enumerate(dims):
                (low, high), _ = _sim.get_tensor_desc_dim_range(desc, index, 2)
                if dim == -1 and high > low:
                    high -= 1
                ranges.append([low, high])
            if -1 in dims:
                _sim.set_tensor_shape_range(desc, ranges)
        return ret

    acl.op.infer_shape = infer_shape
    return acl


def no_shape_write_back() -> types.SimpleNamespace:
    """execute_v2 leaves the output descs as given instead of writing the real output dims back."""
    acl = mutable_copy(_sim)

    def execute_v2(op_type, in_descs, inputs, out_descs, outputs, attr, stream):
        given = [_dims(d) for d in out_descs]
        ret = _sim.op.execute_v2(op_type, in_descs, inputs, out_descs, outputs, attr, stream)
        for desc, dims in zip(out_descs, given):
            if dims is not None:
                _sim.set_tensor_origin_shape(desc, dims)
        return ret

    acl.op.execute_v2 = execute_v2
    return acl


def wrong_dynamic_element_count() -> types.SimpleNamespace:
    """get_tensor_desc_element_count of a desc with -1 dims multiplies their magnitudes instead of returning 0."""
    acl = mutable_copy(_sim)

    def get_tensor_desc_element_count(desc):
        dims = _dims(desc)
        if dims and any(d < 0 for d in dims):
            return math.prod(abs(d) for d in dims)
        return _sim.get_tensor_desc_element_count(desc)

    acl.get_tensor_desc_element_count = get_tensor_desc_element_count
    return acl


def leaky_destroy_handle() -> types.SimpleNamespace:
    """Every op handle holds a device workspace; destroy_handle releases the handle but never frees the workspace."""
    acl = mutable_copy(_sim)
    workspaces: dict[int, int] = {}

    def create_handle(op_type, in_descs, out_descs, attr):
        handle, ret = _sim.op.create_handle(op_type, in_descs, out_descs, attr)
        if ret == 0:
            workspaces[handle], _ = _sim.rt.malloc(WORKSPACE, NORMAL_ONLY)
        return handle, ret

    def destroy_handle(handle):
        workspaces.pop(handle, None)
        return _sim.op.destroy_handle(handle)

    acl.op.create_handle, acl.op.destroy_handle = create_handle, destroy_handle
    return acl
