"""acl.util: pointers to and from bytes and NumPy arrays, and helper threads (docs/contract/utilities.md)."""

from __future__ import annotations

import ctypes
import sys
import threading
import traceback

import numpy as np

from aclcts.sim import core
from aclcts.sim.core import OK, export
from aclcts.sim.errors import warn
from aclcts.sim.memory import read_bytes

#: NumPy type numbers accepted by ptr_to_numpy (LP64 platform).
NUMPY_TYPE_NUMBERS: dict[int, np.dtype] = {
    0: np.dtype(np.bool_),
    1: np.dtype(np.int8),
    2: np.dtype(np.uint8),
    3: np.dtype(np.int16),
    4: np.dtype(np.uint16),
    5: np.dtype(np.int32),
    6: np.dtype(np.uint32),
    7: np.dtype(np.int64),
    8: np.dtype(np.uint64),
    9: np.dtype(np.longlong),
    10: np.dtype(np.ulonglong),
    11: np.dtype(np.float32),
    12: np.dtype(np.float64),
    14: np.dtype(np.complex64),
    15: np.dtype(np.complex128),
    23: np.dtype(np.float16),
}


def _host_access() -> bool:
    return core.STATE.settings.run_mode == "host"


@export("util", "bytes_to_ptr", "O")
def bytes_to_ptr(data: object) -> int:
    """The address of a bytes object's own buffer (no copy: keep the object alive)."""
    if type(data) is not bytes:
        raise ValueError("needs an byte as argument")
    return ctypes.cast(ctypes.c_char_p(data), ctypes.c_void_p).value or 0


@export("util", "ptr_to_bytes", "kk")
def ptr_to_bytes(ptr: int, size: int) -> bytes:
    """A copy of size bytes at a host-readable address."""
    real, _ = core.STATE.memory.resolve("acl.util.ptr_to_bytes", ptr, size, "ptr", _host_access())
    return read_bytes(real, size)


#: The warnings of the deprecated NumPy conversions, word for word (hicann/runtime python/pyACL/util/numpy_convert.cpp).
NUMPY_TO_PTR_DEPRECATED = "acl.util.numpy_to_ptr will be deprecated. Please use acl.util.bytes_to_ptr instead."
NUMPY_CONTIGUOUS_TO_PTR_DEPRECATED = ("acl.util.numpy_contiguous_to_ptr will be deprecated. "
                                      "Please use acl.util.bytes_to_ptr instead.")
PTR_TO_NUMPY_DEPRECATED = "acl.util.ptr_to_numpy will be deprecated. Please use acl.util.ptr_to_bytes instead."
DISCONTIGUOUS = "The input ndarray is discontiguous. Please use acl.util.bytes_to_ptr instead."


@export("util", "numpy_to_ptr", "O", deprecation=NUMPY_TO_PTR_DEPRECATED)
def numpy_to_ptr(array: object) -> int:
    """Deprecated: the data address of an ndarray (no copy)."""
    if not isinstance(array, np.ndarray):
        raise ValueError("needs an ndarray as argument")
    if not array.flags.c_contiguous:
        warn(DISCONTIGUOUS, Warning)
    return array.ctypes.data


@export("util", "numpy_contiguous_to_ptr", "O", deprecation=NUMPY_CONTIGUOUS_TO_PTR_DEPRECATED)
def numpy_contiguous_to_ptr(array: object) -> tuple[int, np.ndarray]:
    """Deprecated: (address, array owning the memory) of a C-contiguous version of an ndarray."""
    if not isinstance(array, np.ndarray):
        raise ValueError("needs an ndarray as argument")
    contiguous = np.ascontiguousarray(array)
    return contiguous.ctypes.data, contiguous


@export("util", "ptr_to_numpy", "kOi", deprecation=PTR_TO_NUMPY_DEPRECATED)
def ptr_to_numpy(ptr: int, shape: object, type_number: int) -> np.ndarray:
    """Deprecated: a writeable ndarray view of memory it neither owns nor keeps alive."""
    api = "acl.util.ptr_to_numpy"
    if not isinstance(shape, tuple) or not shape:
        raise ValueError("shape is empty")
    if not all(isinstance(d, int) and d >= 0 for d in shape):
        raise ValueError("shape is invalid")
    dtype = NUMPY_TYPE_NUMBERS.get(type_number)
    if dtype is None:
        raise ValueError(f"unsupported numpy type number {type_number}")
    count = int(np.prod(shape)) * dtype.itemsize
    real, _ = core.STATE.memory.resolve(api, ptr, count, "ptr", _host_access())
    raw = (ctypes.c_char * count).from_address(real)
    return np.frombuffer(raw, dtype).reshape(shape)


class _HelperThread(threading.Thread):
    """A start_thread thread: runs func() (args None) or func(args), keeping what it raised for stop_thread."""

    def __init__(self, func: object, args: object) -> None:
        super().__init__(daemon=True)
        self.func, self.args, self.errors = func, args, []

    def run(self) -> None:
        try:
            self.func() if self.args is None else self.func(self.args)
        except BaseException as exc:  # the binding prints it and reports it at stop_thread
            traceback.print_exception(exc, file=sys.stderr)
            self.errors.append(f"exception={type(exc).__name__},msg=thread call failed")


_THREADS: dict[int, _HelperThread] = {}


@export("util", "start_thread", "OO", locked=False)
def start_thread(func: object, args: object) -> tuple[int, int]:
    """Start a thread running func(args), or func() when args is None; a new thread has no current context."""
    if not callable(func):
        raise TypeError("parameter must be callable")
    thread = _HelperThread(func, args)
    thread.start()
    _THREADS[thread.ident] = thread
    return thread.ident, OK


@export("util", "stop_thread", "k", locked=False)
def stop_thread(thread_id: int) -> int:
    """Join a thread from start_thread; RuntimeError listing what it raised ("exception=TYPE,msg=...;" each)."""
    thread = _THREADS.pop(thread_id, None)
    if thread is None:
        return core.fail(core.INVALID_PARAM, f"acl.util.stop_thread: {thread_id} is not a thread from start_thread")
    thread.join()
    if thread.errors:
        raise RuntimeError("".join(f"{error};" for error in thread.errors))
    return OK
