"""The aclcts markers: the documented steps a test checks and the concerns it selects by."""

from __future__ import annotations

#: Marker name → what it selects; the documented steps, counted in the per-step summary.
STEPS = {
    "load": "op model loading (set_model_dir, load)",
    "memory": "device and host memory (malloc, memcpy, memset, get_mem_info)",
    "descriptors": "tensor descs, data buffers and attributes",
    "infer_shape": "output shape inference (infer_shape, dim and range getters)",
    "execute": "execute_v2 over the case library",
    "handle": "create_handle / execute_with_handle / destroy_handle",
    "blas": "acl.blas GEMM wrappers",
    "cast": "acl.op.cast and its handle form",
    "sync": "streams, events and synchronisation",
    "free": "copy-back and release",
}
#: Marker name → what it selects; concerns across the steps.
CONCERNS = {
    "dynamic": "dynamic-shape models",
    "negative": "invalid arguments and their documented error codes",
    "leak": "resource and memory leak checks",
    "unsafe": "probes that would crash real hardware (isolated on the NPU)",
    "slow": "long-running tests",
    "perf": "execute_v2 against execute_with_handle latency per op family (recorded, warned, never failed)",
    "cases(mode, executions, family, ops, where)": "parametrize op_case over the case library (where: a predicate on the case)",
}
