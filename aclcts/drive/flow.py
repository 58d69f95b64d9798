"""The documented single-op steps as thin helpers over any pyacl-compatible `acl` module."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from aclcts.core.constants import MemAttr, MemcpyKind, MemMallocPolicy, error_name
from aclcts.core.dtypes import numpy_dtype

H2D = int(MemcpyKind.ACL_MEMCPY_HOST_TO_DEVICE)
D2H = int(MemcpyKind.ACL_MEMCPY_DEVICE_TO_HOST)
NORMAL_ONLY = int(MemMallocPolicy.ACL_MEM_MALLOC_NORMAL_ONLY)


class AclCallError(AssertionError):
    """A pyacl call returned a non-zero aclError where the flow needs success."""

    def __init__(self, call: str, ret: int) -> None:
        super().__init__(f"{call} returned {ret} ({error_name(ret)})")
        self.call, self.ret = call, ret


def check(ret: int, call: str) -> None:
    """Raise AclCallError unless ret is 0."""
    if ret != 0:
        raise AclCallError(call, ret)


def value(result: tuple, call: str) -> Any:
    """The value of a (value, ret) result, raising AclCallError if ret is not 0."""
    check(result[-1], call)
    return result[0]


@dataclass
class Session:
    """The device, context and stream every conformance test runs on."""

    acl: Any
    device_id: int
    context: int
    stream: int


def open_session(acl: Any, device_id: int) -> Session:
    """acl.init, rt.set_device, rt.create_context, rt.create_stream (init may already have been done)."""
    ret = acl.init()
    if ret not in (0, 100002):
        raise AclCallError("acl.init", ret)
    check(acl.rt.set_device(device_id), f"acl.rt.set_device({device_id})")
    context = value(acl.rt.create_context(device_id), "acl.rt.create_context")
    stream = value(acl.rt.create_stream(), "acl.rt.create_stream")
    return Session(acl, device_id, context, stream)


def close_session(session: Session) -> None:
    """rt.destroy_stream, rt.destroy_context, rt.reset_device, acl.finalize."""
    acl = session.acl
    check(acl.rt.destroy_stream(session.stream), "acl.rt.destroy_stream")
    check(acl.rt.destroy_context(session.context), "acl.rt.destroy_context")
    check(acl.rt.reset_device(session.device_id), "acl.rt.reset_device")
    check(acl.finalize(), "acl.finalize")


@dataclass
class DeviceTensor:
    """One tensor on the device: its desc, data buffer, and the allocation holding it."""

    desc: int
    buffer: int
    ptr: int
    size: int
    alloc: int
    data_type: int
    shape: tuple[int, ...]


@dataclass
class Resources:
    """Everything a flow created, released in reverse order by release()."""

    acl: Any
    descs: list[int] = field(default_factory=list)
    buffers: list[int] = field(default_factory=list)
    device: list[int] = field(default_factory=list)
    host: list[int] = field(default_factory=list)
    attrs: list[int] = field(default_factory=list)
    handles: list[int] = field(default_factory=list)

    def release(self) -> None:
        """Destroy buffers, descs, attrs and handles; free device and host memory."""
        acl = self.acl
        for handle in reversed(self.handles):
            acl.op.destroy_handle(handle)
        for buf in reversed(self.buffers):
            check(acl.destroy_data_buffer(buf), "acl.destroy_data_buffer")
        for desc in reversed(self.descs):
            acl.destroy_tensor_desc(desc)
        for attr in reversed(self.attrs):
            acl.op.destroy_attr(attr)
        for ptr in reversed(self.device):
            check(acl.rt.free(ptr), "acl.rt.free")
        for ptr in reversed(self.host):
            check(acl.rt.free_host(ptr), "acl.rt.free_host")
        for held in (self.handles, self.buffers, self.descs, self.attrs, self.device, self.host):
            held.clear()


@contextmanager
def resources(acl: Any) -> Iterator[Resources]:
    """A Resources collection released when the block ends, also on failure."""
    held = Resources(acl)
    try:
        yield held
    finally:
        held.release()


def create_desc(res: Resources, data_type: int, shape: tuple[int, ...], fmt: int) -> int:
    """acl.create_tensor_desc, tracked for release."""
    desc = res.acl.create_tensor_desc(data_type, list(shape), fmt)
    if not desc:
        raise AclCallError("acl.create_tensor_desc", 0)
    res.descs.append(desc)
    return desc


def malloc(res: Resources, size: int) -> int:
    """acl.rt.malloc (NORMAL_ONLY), tracked for release."""
    ptr = value(res.acl.rt.malloc(max(size, 1), NORMAL_ONLY), f"acl.rt.malloc({size})")
    res.device.append(ptr)
    return ptr


def malloc_host(res: Resources, size: int) -> int:
    """acl.rt.malloc_host, tracked for release."""
    ptr = value(res.acl.rt.malloc_host(max(size, 1)), f"acl.rt.malloc_host({size})")
    res.host.append(ptr)
    return ptr


def create_buffer(res: Resources, ptr: int, size: int) -> int:
    """acl.create_data_buffer, tracked for release."""
    buf = res.acl.create_data_buffer(ptr, size)
    if not buf:
        raise AclCallError("acl.create_data_buffer", 0)
    res.buffers.append(buf)
    return buf


def copy_to_device(acl: Any, ptr: int, array: np.ndarray) -> None:
    """rt.memcpy host→device from the bytes of a C-contiguous array (the documented bytes_to_ptr idiom)."""
    payload = np.ascontiguousarray(array).tobytes()
    if payload:
        check(acl.rt.memcpy(ptr, len(payload), acl.util.bytes_to_ptr(payload), len(payload), H2D), "acl.rt.memcpy H2D")


def copy_to_host(res: Resources, ptr: int, size: int) -> bytes:
    """rt.memcpy device→host into malloc_host memory, then util.ptr_to_bytes."""
    if size == 0:
        return b""
    host = malloc_host(res, size)
    check(res.acl.rt.memcpy(host, size, ptr, size, D2H), "acl.rt.memcpy D2H")
    return res.acl.util.ptr_to_bytes(host, size)


def array_from(data: bytes, data_type: int, shape: tuple[int, ...]) -> np.ndarray:
    """Interpret device bytes as an ndarray of an aclDataType."""
    dtype = numpy_dtype(data_type)
    count = int(np.prod(shape, dtype=np.int64))
    return np.frombuffer(data[: count * dtype.itemsize], dtype, count).reshape(shape).copy()


def memory_attr(acl: Any) -> int:
    """ACL_HBM_MEM when the device reports HBM, else ACL_DDR_MEM (an unsupported attribute reports total 0)."""
    _, total, ret = acl.rt.get_mem_info(int(MemAttr.ACL_HBM_MEM))
    check(ret, "acl.rt.get_mem_info(ACL_HBM_MEM)")
    return int(MemAttr.ACL_HBM_MEM) if total else int(MemAttr.ACL_DDR_MEM)


def device_free_bytes(acl: Any) -> int:
    """Free device memory of the current device as get_mem_info reports it."""
    free, _, ret = acl.rt.get_mem_info(memory_attr(acl))
    check(ret, "acl.rt.get_mem_info")
    return free
