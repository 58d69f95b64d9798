"""The documented single-op steps as thin helpers over any pyacl-compatible `acl` module."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from aclcts.core.constants import MemAttr, MemcpyKind, MemMallocPolicy, error_name
from aclcts.core.dtypes import numpy_dtype

H2D = int(MemcpyKind.ACL_MEMCPY_HOST_TO_DEVICE)
D2H = int(MemcpyKind.ACL_MEMCPY_DEVICE_TO_HOST)
NORMAL_ONLY = int(MemMallocPolicy.ACL_MEM_MALLOC_NORMAL_ONLY)

#: A step listener: given a documented step's name (or a group's, e.g. "execution 1"), the context manager that the
#: step runs in; an exception leaving the step passes through it.
StepListener = Callable[[str], AbstractContextManager[Any]]
_NO_STEP = nullcontext()
_listener: StepListener | None = None


def set_step_listener(listener: StepListener | None) -> None:
    """Run every documented step from now on in listener(name)'s context (None: in none, the default)."""
    global _listener
    _listener = listener


def step(name: str) -> AbstractContextManager[Any]:
    """The context a documented step runs in: the registered listener's, or one that does nothing."""
    return _NO_STEP if _listener is None else _listener(name)


class AclCallError(AssertionError):
    """A pyacl call returned a non-zero aclError where the flow needs success."""

    def __init__(self, call: str, ret: int, detail: str = "") -> None:
        said = f"{call} returned {ret} ({error_name(ret)})"
        super().__init__(f"{said}: {detail}" if detail else said)
        self.call, self.ret, self.detail = call, ret, detail


def recent_error(acl: Any) -> str:
    """The backend's latest error message of this thread (acl.get_recent_err_msg), or "" without one."""
    getter = getattr(acl, "get_recent_err_msg", None)
    try:
        found = getter() if getter is not None else None
    except Exception:  # noqa: BLE001 - a backend's broken getter must not hide the call's own failure
        return ""
    return " ".join(found.split()) if isinstance(found, str) else ""


def check(ret: int, call: str, acl: Any = None) -> None:
    """Raise AclCallError unless ret is 0; given the acl module, the error carries its latest error message."""
    if ret != 0:
        raise AclCallError(call, ret, recent_error(acl) if acl is not None else "")


def value(result: tuple, call: str, acl: Any = None) -> Any:
    """The value of a (value, ret) result, raising AclCallError (with acl's latest message) if ret is not 0."""
    check(result[-1], call, acl)
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
    with step("acl.init"):
        ret = acl.init()
        if ret not in (0, 100002):
            raise AclCallError("acl.init", ret)
    with step("acl.rt.set_device"):
        check(acl.rt.set_device(device_id), f"acl.rt.set_device({device_id})")
    with step("acl.rt.create_context"):
        context = value(acl.rt.create_context(device_id), "acl.rt.create_context")
    with step("acl.rt.create_stream"):
        stream = value(acl.rt.create_stream(), "acl.rt.create_stream")
    return Session(acl, device_id, context, stream)


def close_session(session: Session) -> None:
    """rt.destroy_stream, rt.destroy_context, rt.reset_device, acl.finalize."""
    acl = session.acl
    for name, call in (("acl.rt.destroy_stream", lambda: acl.rt.destroy_stream(session.stream)),
                       ("acl.rt.destroy_context", lambda: acl.rt.destroy_context(session.context)),
                       ("acl.rt.reset_device", lambda: acl.rt.reset_device(session.device_id)),
                       ("acl.finalize", acl.finalize)):
        with step(name):
            check(call(), name)


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
        """Destroy buffers, descs, attrs and handles; free device and host memory (one step per kind)."""
        acl = self.acl
        if not (self.handles or self.buffers or self.descs or self.attrs or self.device or self.host):
            return
        with step("release"):
            self._each("acl.op.destroy_handle", self.handles, acl.op.destroy_handle, checked=False)
            self._each("acl.destroy_data_buffer", self.buffers, acl.destroy_data_buffer)
            self._each("acl.destroy_tensor_desc", self.descs, acl.destroy_tensor_desc, checked=False)
            self._each("acl.op.destroy_attr", self.attrs, acl.op.destroy_attr, checked=False)
            self._each("acl.rt.free", self.device, acl.rt.free)
            self._each("acl.rt.free_host", self.host, acl.rt.free_host)
        for held in (self.handles, self.buffers, self.descs, self.attrs, self.device, self.host):
            held.clear()

    @staticmethod
    def _each(name: str, held: list[int], call: Callable[[int], Any], checked: bool = True) -> None:
        if not held:
            return
        with step(name):
            for obj in reversed(held):
                ret = call(obj)
                if checked:
                    check(ret, name)


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
    with step("acl.create_tensor_desc"):
        desc = res.acl.create_tensor_desc(data_type, list(shape), fmt)
        if not desc:
            raise AclCallError("acl.create_tensor_desc", 0)
    res.descs.append(desc)
    return desc


def malloc(res: Resources, size: int) -> int:
    """acl.rt.malloc (NORMAL_ONLY), tracked for release."""
    with step("acl.rt.malloc"):
        ptr = value(res.acl.rt.malloc(max(size, 1), NORMAL_ONLY), f"acl.rt.malloc({size})")
    res.device.append(ptr)
    return ptr


def malloc_host(res: Resources, size: int) -> int:
    """acl.rt.malloc_host, tracked for release."""
    with step("acl.rt.malloc_host"):
        ptr = value(res.acl.rt.malloc_host(max(size, 1)), f"acl.rt.malloc_host({size})")
    res.host.append(ptr)
    return ptr


def create_buffer(res: Resources, ptr: int, size: int) -> int:
    """acl.create_data_buffer, tracked for release."""
    with step("acl.create_data_buffer"):
        buf = res.acl.create_data_buffer(ptr, size)
        if not buf:
            raise AclCallError("acl.create_data_buffer", 0)
    res.buffers.append(buf)
    return buf


def copy_to_device(acl: Any, ptr: int, array: np.ndarray) -> None:
    """rt.memcpy host→device from the bytes of a C-contiguous array (the documented bytes_to_ptr idiom)."""
    payload = np.ascontiguousarray(array).tobytes()
    if payload:
        with step("acl.rt.memcpy (H2D)"):
            check(acl.rt.memcpy(ptr, len(payload), acl.util.bytes_to_ptr(payload), len(payload), H2D),
                  "acl.rt.memcpy H2D")


def copy_to_host(res: Resources, ptr: int, size: int) -> bytes:
    """rt.memcpy device→host into malloc_host memory, then util.ptr_to_bytes."""
    if size == 0:
        return b""
    host = malloc_host(res, size)
    with step("acl.rt.memcpy (D2H)"):
        check(res.acl.rt.memcpy(host, size, ptr, size, D2H), "acl.rt.memcpy D2H")
    return res.acl.util.ptr_to_bytes(host, size)


def array_from(data: bytes, data_type: int, shape: tuple[int, ...]) -> np.ndarray:
    """Interpret device bytes as an ndarray of an aclDataType."""
    dtype = numpy_dtype(data_type)
    count = int(np.prod(shape, dtype=np.int64))
    return np.frombuffer(data[: count * dtype.itemsize], dtype, count).reshape(shape).copy()


def memory_attr(acl: Any) -> int:
    """ACL_HBM_MEM when the device reports HBM, else ACL_DDR_MEM (an unsupported attribute reports total 0)."""
    with step("acl.rt.get_mem_info"):
        _, total, ret = acl.rt.get_mem_info(int(MemAttr.ACL_HBM_MEM))
        check(ret, "acl.rt.get_mem_info(ACL_HBM_MEM)")
    return int(MemAttr.ACL_HBM_MEM) if total else int(MemAttr.ACL_DDR_MEM)


def device_free_bytes(acl: Any) -> int:
    """Free device memory of the current device as get_mem_info reports it."""
    attr = memory_attr(acl)
    with step("acl.rt.get_mem_info"):
        free, _, ret = acl.rt.get_mem_info(attr)
        check(ret, "acl.rt.get_mem_info")
    return free
