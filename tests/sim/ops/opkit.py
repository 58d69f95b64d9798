"""Helpers for the single-op tests: single-op JSON builders, the ATC compile step and a device array mover."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from aclcts.atc import compile_singleop
from aclcts.core.constants import DataType, Format, MemcpyKind, MemMallocPolicy
from aclcts.core.dtypes import acl_data_type, numpy_dtype

SOC = "Ascend910B1"
ND = int(Format.ACL_FORMAT_ND)
FLOAT16, INT32 = int(DataType.ACL_FLOAT16), int(DataType.ACL_INT32)


def tensor(type_: str, shape: list[int], fmt: str = "ND", **extra: Any) -> dict[str, Any]:
    """One TensorDesc of a single-op JSON description."""
    return {"format": fmt, "shape": shape, "type": type_, **extra}


def op(op_type: str, inputs: list[dict], outputs: list[dict], attrs: list[dict] | None = None,
       **extra: Any) -> dict[str, Any]:
    """One OpDesc of a single-op JSON description."""
    found: dict[str, Any] = {"op": op_type, "input_desc": inputs, "output_desc": outputs, **extra}
    if attrs is not None:
        found["attr"] = attrs
    return found


def attr(name: str, type_: str, value: Any) -> dict[str, Any]:
    """One Attr of a single-op JSON description."""
    return {"name": name, "type": type_, "value": value}


def binary(op_type: str, type_: str, shape: list[int], attrs: list[dict] | None = None) -> dict[str, Any]:
    """A two-input, one-output op whose three tensors share dtype and shape."""
    return op(op_type, [tensor(type_, shape), tensor(type_, shape)], [tensor(type_, shape)], attrs)


def compile_ops(ops: list[dict], out_dir: Path, json_path: Path | None = None) -> list[Path]:
    """Write ops as single-op JSON and compile it with the simulator's ATC into out_dir; return the models."""
    json_path = json_path or out_dir.parent / f"{out_dir.name}.json"
    json_path.write_text(json.dumps(ops), encoding="utf-8")
    result = compile_singleop(json_path, out_dir, SOC)
    assert result.ok, result.errors
    return list(result.written)


class Device:
    """Moves NumPy arrays to and from device memory through the documented pyacl idiom."""

    def __init__(self, acl: Any, stream: int) -> None:
        self.acl = acl
        self.stream = stream
        self._keep: list[bytes] = []

    def alloc(self, size: int) -> int:
        """A fresh device allocation of size bytes (at least 1)."""
        ptr, ret = self.acl.rt.malloc(max(size, 1), int(MemMallocPolicy.ACL_MEM_MALLOC_NORMAL_ONLY))
        assert ret == 0
        return ptr

    def put(self, array: np.ndarray) -> int:
        """Copy array into new device memory with bytes_to_ptr + memcpy H2D; return the device pointer."""
        payload = np.ascontiguousarray(array).tobytes()
        ptr = self.alloc(len(payload))
        if payload:
            ret = self.acl.rt.memcpy(ptr, len(payload), self.acl.util.bytes_to_ptr(payload), len(payload),
                                     int(MemcpyKind.ACL_MEMCPY_HOST_TO_DEVICE))
            assert ret == 0
        return ptr

    def get(self, ptr: int, dtype: Any, shape: tuple[int, ...] | list[int]) -> np.ndarray:
        """Copy a device tensor back into malloc_host memory and read it with ptr_to_bytes."""
        dtype = np.dtype(dtype)
        size = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
        host, ret = self.acl.rt.malloc_host(max(size, 1))
        assert ret == 0
        if size:
            assert self.acl.rt.memcpy(host, size, ptr, size, int(MemcpyKind.ACL_MEMCPY_DEVICE_TO_HOST)) == 0
        data = self.acl.util.ptr_to_bytes(host, size) if size else b""
        assert self.acl.rt.free_host(host) == 0
        return np.frombuffer(data, dtype).reshape(shape).copy()

    def host_ptr(self, array: np.ndarray) -> int:
        """A host pointer to a kept-alive copy of array's bytes (for set_tensor_const and host placement)."""
        payload = np.ascontiguousarray(array).tobytes()
        self._keep.append(payload)
        return self.acl.util.bytes_to_ptr(payload)

    def desc(self, data_type: int, dims: list[int], fmt: int = ND) -> int:
        """acl.create_tensor_desc, checked to succeed."""
        handle = self.acl.create_tensor_desc(data_type, dims, fmt)
        assert handle != 0
        return handle

    def tensor(self, array: np.ndarray, fmt: int = ND) -> tuple[int, int, int]:
        """(desc, buffer, device pointer) for array placed on the device."""
        ptr = self.put(array)
        nbytes = max(array.nbytes, 1)
        data_type = acl_data_type(array.dtype)
        return self.desc(data_type, list(array.shape), fmt), self.acl.create_data_buffer(ptr, nbytes), ptr

    def output(self, data_type: int, dims: list[int], fmt: int = ND, fill: int = 0) -> tuple[int, int, int]:
        """(desc, buffer, device pointer) for an output tensor; its memory is set to the byte `fill`."""
        dtype = numpy_dtype(data_type)
        nbytes = max(int(np.prod(dims, dtype=np.int64)) * dtype.itemsize, 1)
        ptr = self.alloc(nbytes)
        assert self.acl.rt.memset(ptr, nbytes, fill, nbytes) == 0
        return self.desc(data_type, dims, fmt), self.acl.create_data_buffer(ptr, nbytes), ptr

    def sync(self) -> None:
        """Synchronise the stream, checked to succeed."""
        assert self.acl.rt.synchronize_stream(self.stream) == 0

    def run(self, op_type: str, inputs: list[np.ndarray], outputs: list[tuple[int, list[int]]],
            attr: int = 0) -> tuple[int, list[np.ndarray] | None]:
        """execute_v2 op_type on device copies of inputs; return (ret, outputs read back after a sync or None)."""
        ins = [self.tensor(a) for a in inputs]
        outs = [self.output(data_type, dims) for data_type, dims in outputs]
        ret = self.acl.op.execute_v2(op_type, [t[0] for t in ins], [t[1] for t in ins], [t[0] for t in outs],
                                     [t[1] for t in outs], attr, self.stream)
        if ret != 0:
            return ret, None
        self.sync()
        return ret, [self.get(t[2], numpy_dtype(data_type), dims) for t, (data_type, dims) in zip(outs, outputs)]

    def add_int32(self, shape: list[int]) -> int:
        """Run Add on int32 tensors of shape and return its aclError, checking the sum when it succeeds."""
        a = np.arange(int(np.prod(shape)), dtype=np.int32).reshape(shape)
        b = np.full(shape, 7, dtype=np.int32)
        ret, result = self.run("Add", [a, b], [(INT32, shape)])
        if ret == 0:
            assert result is not None
            np.testing.assert_array_equal(result[0], a + b)
        return ret

    def execute(self, op_type: str, inputs: list[tuple[int, int, int]], outputs: list[tuple[int, int, int]],
                attr: int = 0) -> int:
        """execute_v2 with the descs and buffers of (desc, buffer, pointer) triples; return the aclError."""
        return self.acl.op.execute_v2(op_type, [t[0] for t in inputs], [t[1] for t in inputs],
                                      [t[0] for t in outputs], [t[1] for t in outputs], attr, self.stream)
