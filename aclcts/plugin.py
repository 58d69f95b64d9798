"""The aclcts pytest plugin: markers for each documented pyacl step and concern."""

from __future__ import annotations

import pytest

#: Marker name → what it selects.
MARKERS = {
    "load": "op model loading (set_model_dir, load)",
    "memory": "device and host memory (malloc, memcpy, memset, get_mem_info)",
    "infer_shape": "output shape inference (infer_shape, dim and range getters)",
    "execute": "execute_v2 over the case library",
    "handle": "create_handle / execute_with_handle / destroy_handle",
    "blas": "acl.blas GEMM wrappers",
    "cast": "acl.op.cast and its handle form",
    "sync": "streams, events and synchronisation",
    "free": "copy-back and release",
    "dynamic": "dynamic-shape models",
    "negative": "invalid arguments and their documented error codes",
    "leak": "resource and memory leak checks",
    "unsafe": "probes that would crash real hardware (isolated on the NPU)",
    "slow": "long-running tests",
}


def pytest_configure(config: pytest.Config) -> None:
    """Register the aclcts markers."""
    for name, text in MARKERS.items():
        config.addinivalue_line("markers", f"{name}: {text}")
