"""Faulty and deviating contract corners: substitutes for acl entry points (descriptor getters, attribute setters,
op handles) and for how streams run and synchronise their work."""

from __future__ import annotations

import weakref
from collections import deque
from collections.abc import Callable
from typing import Any

import numpy as np

from aclcts.sim import seams

Function = Callable[..., Any]
#: A `k` (size_t) argument of -1 arrives masked to 64 bits; at or above this it was a negative Python int.
NEGATIVE = 1 << 63
WRAP = 1 << 64
#: Bytes of one block of a kernel's move to global memory.
BLOCK = 32


# ---------------------------------------------------------------- negative index read as Python indexing
def python_index(getter: Function) -> Function:
    """A desc getter taking (desc, index, *rest) that reads a negative index (-1 masked to 2**64 - 1) from the end."""

    def faulty(desc: int, index: int, *rest: Any) -> Any:
        if desc and index >= NEGATIVE:
            rank = seams.get("acl.get_tensor_desc_num_dims")(desc)
            if 0 <= index - WRAP + rank < rank:
                index = index - WRAP + rank
        return getter(desc, index, *rest)

    return faulty


# ---------------------------------------------------------------- 64-bit attrs truncated
def _int32(value: int) -> int:
    return int(np.array(value, np.int64).astype(np.int32))


def truncated_int(set_attr_int: Function) -> Function:
    """acl.op.set_attr_int storing its int64 value truncated to int32."""
    return lambda attr, name, value: set_attr_int(attr, name, _int32(value))


def truncated_list_int(set_attr_list_int: Function) -> Function:
    """acl.op.set_attr_list_int storing every int64 value truncated to int32."""

    def faulty(attr: int, name: str, values: Any) -> int:
        if isinstance(values, list) and all(isinstance(v, int) and -NEGATIVE <= v < NEGATIVE for v in values):
            values = [_int32(v) for v in values]
        return set_attr_list_int(attr, name, values)

    return faulty


# ---------------------------------------------------------------- handle reading caller descs at execution
class CallerDescs:
    """A handle that keeps its caller's desc and attr handles and reads them again at every execution."""

    def __init__(self) -> None:
        self.created: dict[int, tuple[str, Any, Any, int]] = {}

    def forget(self) -> None:
        """Drop what earlier handles remembered (a fresh simulated process reuses handle values)."""
        self.created.clear()

    def create_handle(self, create_handle: Function) -> Function:
        """acl.op.create_handle remembering the caller's desc lists and attr handle."""

        def remembering(op_type: str, input_desc: Any, output_desc: Any, attr: int) -> tuple[int, int]:
            handle, ret = create_handle(op_type, input_desc, output_desc, attr)
            if handle:
                self.created[handle] = (op_type, list(input_desc), list(output_desc), attr)
            return handle, ret

        return remembering

    def execute_with_handle(self, execute_with_handle: Function) -> Function:
        """acl.op.execute_with_handle running execute_v2 with the descs and attr the caller created it from."""

        def faulty(handle: int, inputs: Any, outputs: Any, stream: int) -> int:
            created = self.created.get(handle)
            if created is None:
                return execute_with_handle(handle, inputs, outputs, stream)
            op_type, in_descs, out_descs, attr = created
            return seams.get("acl.op.execute_v2")(op_type, in_descs, inputs, out_descs, outputs, attr, stream)

        return faulty


# ---------------------------------------------------------------- handle values recycled after destroy
class Recycled:
    """Op handle values given out again after destroy_handle (last destroyed, first reused), as an allocator may."""

    def __init__(self) -> None:
        self.free: list[int] = []
        self.real: dict[int, int] = {}

    def forget(self) -> None:
        """Drop the free values and the recycled ones (a fresh simulated process reuses handle values)."""
        self.free.clear()
        self.real.clear()

    def _real(self, handle: int) -> int:
        return self.real.get(handle, handle)

    def create(self, create: Function) -> Function:
        """A handle-creating entry point whose new handle takes the value of the last destroyed one."""

        def recycling(*args: Any) -> tuple[int, int]:
            handle, ret = create(*args)
            if handle and self.free:
                value = self.free.pop()
                self.real[value] = handle
                return value, ret
            return handle, ret

        return recycling

    def execute_with_handle(self, execute_with_handle: Function) -> Function:
        """acl.op.execute_with_handle of a recycled handle value running the handle behind it."""
        return lambda handle, inputs, outputs, stream: execute_with_handle(self._real(handle), inputs, outputs, stream)

    def destroy_handle(self, destroy_handle: Function) -> Function:
        """acl.op.destroy_handle making the handle's value free for the next create."""

        def recycling(handle: int) -> None:
            result = destroy_handle(self._real(handle))
            if handle:
                self.real.pop(handle, None)
                self.free.append(handle)
            return result

        return recycling


# ---------------------------------------------------------------- work completing eagerly
class Eager:
    """A device that runs every task as soon as it is queued (unless a blocking callback holds its stream)."""

    def __init__(self) -> None:
        self.streams: weakref.WeakValueDictionary[int, Any] = weakref.WeakValueDictionary()

    def resolve(self, resolve: Function) -> Function:
        """Stream resolution remembering the stream behind every queue it hands out."""

        def remembering(api: str, stream_handle: int) -> Any:
            stream = resolve(api, stream_handle)
            if not isinstance(stream, int) and stream is not None:
                self.streams[id(stream.queue)] = stream
            return stream

        return remembering

    def place(self, place: Function) -> Function:
        """A stream queue that runs the task (and anything queued before it) at once, as far as it goes without
        waiting (work behind a blocking callback its report thread has not run stays queued, as on a device)."""

        def eager(queue: deque, task: Any) -> None:
            place(queue, task)
            stream = self.streams.get(id(queue))
            if stream is not None and stream.queue is queue and (stream.gate is None or stream.gate.is_set()):
                stream.drain(task.seq, wait=False)

        return eager


# ---------------------------------------------------------------- independent streams synchronised in another order
def device_streams_reversed(finish: Function) -> Function:
    """Device synchronisation that runs the device's streams last-created first before finishing each one."""

    def reordered(api: str, stream: Any) -> int:
        if api.startswith("acl.rt.synchronize_device"):
            for context in reversed(stream.device.contexts):
                for other in reversed([context.default_stream, *context.streams]):
                    if other is not None and other.queue:
                        other.drain()
        return finish(api, stream)

    return reordered


# ---------------------------------------------------------------- the last 32-byte block written
def _fill_tail(outputs: Any, stream: int, value: int) -> None:
    for buffer in outputs or ():
        ptr = seams.get("acl.get_data_buffer_addr")(buffer)
        size = seams.get("acl.get_data_buffer_size_v2")(buffer)
        tail = -size % BLOCK
        if ptr and size and tail:
            seams.get("acl.rt.memset_async")(ptr + size, tail, value, tail, stream)


def execute_v2_writes_tail(execute_v2: Function) -> Function:
    """acl.op.execute_v2 that also writes zeros from each output's end to its 32-byte aligned end."""

    def deviating(op_type: str, in_descs: Any, inputs: Any, out_descs: Any, outputs: Any, attr: int,
                  stream: int) -> int:
        ret = execute_v2(op_type, in_descs, inputs, out_descs, outputs, attr, stream)
        if ret == 0:
            _fill_tail(outputs, stream, 0)
        return ret

    return deviating


def execute_with_handle_writes_tail(execute_with_handle: Function) -> Function:
    """acl.op.execute_with_handle that also writes garbage from each output's end to its 32-byte aligned end."""

    def deviating(handle: int, inputs: Any, outputs: Any, stream: int) -> int:
        ret = execute_with_handle(handle, inputs, outputs, stream)
        if ret == 0:
            _fill_tail(outputs, stream, 0xC3)
        return ret

    return deviating
