"""Fixtures for the single-op tests: compiled model folders, a device array mover, model loading, kernels."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from opkit import Device, compile_ops

import aclcts.sim
from aclcts.sim.kernels import unregister_kernel


@pytest.fixture
def models(tmp_path: Path) -> Callable[..., Path]:
    """compile(ops, folder="models") -> the folder under tmp_path holding the compiled models."""

    def build(ops: list[dict], folder: str = "models") -> Path:
        out_dir = tmp_path / folder
        compile_ops(ops, out_dir, tmp_path / f"{folder.replace('/', '_')}.json")
        return out_dir

    return build


@pytest.fixture
def dev(session: Any) -> Device:
    """A Device bound to the ready-made session (init, device 0, context, stream)."""
    return Device(session.acl, session.stream)


@pytest.fixture
def load_dir(session: Any) -> Callable[[Path], None]:
    """Load a model folder with acl.op.set_model_dir, checked to succeed."""

    def load(folder: Path) -> None:
        assert session.acl.op.set_model_dir(str(folder)) == 0

    return load


@pytest.fixture
def load_bytes(session: Any) -> Callable[[bytes], int]:
    """acl.op.load of a byte string through bytes_to_ptr; returns the aclError."""

    def load(data: bytes) -> int:
        return session.acl.op.load(session.acl.util.bytes_to_ptr(data), len(data))

    return load


@pytest.fixture
def kernel_override() -> Iterator[Callable[..., None]]:
    """register(op_type, compute, infer_shape) through aclcts.sim.register_kernel, undone after the test."""
    registered: list[str] = []

    def register(op_type: str, compute: Any, infer_shape: Any = None) -> None:
        aclcts.sim.register_kernel(op_type, compute, infer_shape)
        registered.append(op_type)

    yield register
    for op_type in registered:
        unregister_kernel(op_type)
