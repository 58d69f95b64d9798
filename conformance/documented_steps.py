"""The documented step of each pyacl call, so that a test probing several calls marks each with its own step."""

from __future__ import annotations

from typing import Any

import pytest

#: A call name without its "acl." prefix → the documented step, by the first matching leading part. Device,
#: context and stream calls count under "sync", the step of streams.
STEP_OF_CALL = (
    ("rt.free", "free"), ("rt.malloc", "memory"), ("rt.memcpy", "memory"), ("rt.memset", "memory"),
    ("rt.get_mem_info", "memory"), ("util.", "memory"), ("init", "sync"), ("get_version", "sync"),
    ("get_soc_name", "sync"), ("get_recent_err_msg", "sync"), ("app_log", "sync"), ("rt.", "sync"),
    ("op.set_model_dir", "load"), ("op.load", "load"), ("op.set_max_op_queue_num", "execute"),
    ("op.update_params", "execute"),
    ("op.register_compile_func", "execute"),
    ("op.execute_with_handle", "handle"), ("op.create_handle_for_cast", "cast"), ("op.create_handle", "handle"),
    ("op.destroy_handle", "handle"), ("op.execute", "execute"), ("op.infer_shape", "infer_shape"),
    ("op.cast", "cast"), ("op.set_attr", "descriptors"), ("op.create_attr", "descriptors"),
    ("op.destroy_attr", "descriptors"), ("blas.", "blas"), ("create_tensor_desc", "descriptors"),
    ("destroy_tensor_desc", "descriptors"), ("get_tensor_desc", "descriptors"), ("set_tensor", "descriptors"),
    ("create_data_buffer", "descriptors"), ("destroy_data_buffer", "descriptors"),
    ("update_data_buffer", "descriptors"), ("get_data_buffer", "descriptors"), ("data_type_size", "descriptors"),
)


def step_of(call: str) -> str:
    """The documented step of a call named like "rt.malloc" or "acl.rt.malloc" (a leading "acl." is ignored)."""
    name = call.removeprefix("acl.")
    for prefix, step in STEP_OF_CALL:
        if name.startswith(prefix):
            return step
    raise KeyError(f"no documented step for {call!r}: add it to STEP_OF_CALL in {__name__}")


def marked(call: str, *values: Any, id: str) -> Any:  # noqa: A002 - pytest.param's own keyword
    """pytest.param(*values, id=id) carrying the marker of call's documented step."""
    return pytest.param(*values, id=id, marks=getattr(pytest.mark, step_of(call)))
