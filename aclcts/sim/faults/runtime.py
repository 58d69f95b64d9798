"""Faulty runtime behaviour: substitutes for the error-code table, the copy routine, streams and acl entry points."""

from __future__ import annotations

import ctypes
import math
import os
import signal
from collections import deque
from collections.abc import Callable
from itertools import islice
from typing import Any

from aclcts.core.constants import MemcpyKind
from aclcts.sim import seams

Function = Callable[..., Any]
H2D = int(MemcpyKind.ACL_MEMCPY_HOST_TO_DEVICE)
ACL_BF16 = 27
ACL_UNKNOWN_RANK = 0xFFFFFFFFFFFFFFFE
#: Device bytes of the workspace a leaking destroy_handle keeps.
WORKSPACE = 4096


def check_code(check: str, code: int) -> seams.Substitute:
    """The error-code table with the named check returning code instead of its documented one (0: accepted)."""

    def substitute(reject: Function) -> Function:
        def faulty(name: str, documented: int, message: str) -> int:
            if name != check:
                return reject(name, documented, message)
            return reject(name, code, message) if code else 0

        return faulty

    return substitute


def check_crashes(check: str) -> seams.Substitute:
    """The error-code table with the named check killing the process with SIGSEGV, as a real driver may."""

    def substitute(reject: Function) -> Function:
        def faulty(name: str, documented: int, message: str) -> int:
            if name == check:
                os.kill(os.getpid(), signal.SIGSEGV)
            return reject(name, documented, message)

        return faulty

    return substitute


def copy_one_byte_short(api: str, kind: int | None = None) -> seams.Substitute:
    """The copy routine of api (of one memcpy kind, or all) copying count - 1 bytes."""

    def substitute(copy: Function) -> Function:
        def faulty(name: str, copy_kind: int, dst: int, src: int, count: int) -> None:
            if name == api and kind in (None, copy_kind):
                count -= 1
            copy(name, copy_kind, dst, src, count)

        return faulty

    return substitute


def copy_keeps_host_bytes(copy: Function) -> Function:
    """The copy routine of acl.rt.memcpy keeping a copy of every host-to-device copy's bytes (a host leak)."""
    kept: list[bytes] = []

    def leaking(name: str, kind: int, dst: int, src: int, count: int) -> None:
        copy(name, kind, dst, src, count)
        if name == "acl.rt.memcpy" and kind == H2D:
            kept.append(ctypes.string_at(dst, count))

    return leaking


def h2d_lands_late(place: Function) -> Function:
    """A stream queue where work queued right after an async host-to-device copy overtakes it."""

    def faulty(queue: deque, task: Any) -> None:
        if queue and queue[-1].call == "acl.rt.memcpy_async" and queue[-1].copy_kind == H2D:
            late = queue.pop()
            task.seq, late.seq = late.seq, task.seq
            queue.extend((task, late))
            return
        place(queue, task)

    return faulty


def callback_jumps_queue(place: Function) -> Function:
    """A stream queue where a host callback goes to the front: it comes due before the work queued ahead of it (its
    sequence number put before that work's, so that running the stream up to the callback runs nothing else)."""

    def faulty(queue: deque, task: Any) -> None:
        if task.call == "acl.rt.launch_callback":
            if queue:
                task.seq = queue[0].seq - 1
            queue.appendleft(task)
            return
        place(queue, task)

    return faulty


def elapsed_time_reversed(event_elapsed_time: Function) -> Function:
    """acl.rt.event_elapsed_time measuring from the end event to the start event (a negative time)."""

    def faulty(start: int, end: int) -> tuple[float, int]:
        ms, ret = event_elapsed_time(start, end)
        return -ms, ret

    return faulty


def elapsed_time_zero(event_elapsed_time: Function) -> Function:
    """acl.rt.event_elapsed_time answering 0.0 milliseconds for every pair of completed records."""

    def faulty(start: int, end: int) -> tuple[float, int]:
        ms, ret = event_elapsed_time(start, end)
        return (0.0 if ret == 0 else ms), ret

    return faulty


def event_status_complete_at_once(_: Function) -> Function:
    """acl.rt.query_event_status answering COMPLETE without looking at the event or running its work."""
    return lambda event_handle: (1, 0)


def synchronize_stream_no_drain(finish: Function) -> Function:
    """Stream synchronisation that acl.rt.synchronize_stream ends at once, without running queued work."""
    return lambda api, stream: 0 if api == "acl.rt.synchronize_stream" else finish(api, stream)


#: Calls that act on the stream itself rather than queue work (work_on_default_stream leaves them alone).
STREAM_APIS = ("acl.rt.synchronize_stream", "acl.rt.stream_query", "acl.rt.stream_wait_event")


def work_on_default_stream(resolve: Function) -> Function:
    """Stream resolution that hands work given an explicit stream the current context's default stream."""

    def faulty(api: str, stream_handle: int) -> Any:
        stream = resolve(api, stream_handle)
        if isinstance(stream, int) or api.startswith(STREAM_APIS):
            return stream
        return resolve(api, 0)

    return faulty


def skip(_: Function) -> Function:
    """A step that does nothing."""
    return lambda *args: None


def release_leaks_workspace(release: Function) -> Function:
    """Handle release that leaves a device workspace allocated on the current device."""

    def leaking(state: Any, handle: int) -> None:
        context = state.current_context()
        if context is not None:
            state.memory.allocate_device(context.device.id, WORKSPACE, WORKSPACE, "acl.op.create_handle (workspace)")
        release(state, handle)

    return leaking


def walk_top_only(walk: Function) -> Function:
    """A model-folder walk that yields the folder itself and none of its subfolders."""
    return lambda root: islice(walk(root), 1)


def bf16_size_wrong(element_size: Function) -> Function:
    """The data type size table giving 4 bytes per ACL_BF16 element."""
    return lambda data_type: 4 if data_type == ACL_BF16 else element_size(data_type)


def _dims(desc: int) -> list[int] | None:
    count = seams.get("acl.get_tensor_desc_num_dims")(desc)
    if count == ACL_UNKNOWN_RANK:
        return None
    return [seams.get("acl.get_tensor_desc_dim_v2")(desc, index)[0] for index in range(count)]


def dynamic_element_count(element_count: Function) -> Function:
    """acl.get_tensor_desc_element_count of a desc with -1 dims multiplying their magnitudes instead of giving 0."""

    def faulty(desc: int) -> int:
        dims = _dims(desc) if desc else None
        if dims and any(d < 0 for d in dims):
            return math.prod(abs(d) for d in dims)
        return element_count(desc)

    return faulty


def frozen_mem_info(get_mem_info: Function) -> Function:
    """acl.rt.get_mem_info answering the first answer for each attribute forever."""
    first: dict[int, tuple[int, int, int]] = {}
    return lambda attr: first.setdefault(attr, get_mem_info(attr))


def _overwrite_first_output_byte(outputs: list[int], stream: int) -> None:
    if not outputs:
        return
    ptr = seams.get("acl.get_data_buffer_addr")(outputs[0])
    size = seams.get("acl.get_data_buffer_size_v2")(outputs[0])
    if ptr and size:
        seams.get("acl.rt.memset_async")(ptr, size, 0x5A, 1, stream)


def execute_v2_changes_output(execute_v2: Function) -> Function:
    """acl.op.execute_v2 whose first output's first byte is overwritten after the op."""

    def faulty(op_type: str, in_descs: Any, inputs: Any, out_descs: Any, outputs: Any, attr: int, stream: int) -> int:
        ret = execute_v2(op_type, in_descs, inputs, out_descs, outputs, attr, stream)
        if ret == 0:
            _overwrite_first_output_byte(outputs, stream)
        return ret

    return faulty


def execute_with_handle_changes_output(execute_with_handle: Function) -> Function:
    """acl.op.execute_with_handle whose first output's first byte is overwritten after the op."""

    def faulty(handle: int, inputs: Any, outputs: Any, stream: int) -> int:
        ret = execute_with_handle(handle, inputs, outputs, stream)
        if ret == 0:
            _overwrite_first_output_byte(outputs, stream)
        return ret

    return faulty


def layout_read_as_nd(*fmts: int) -> seams.Substitute:
    """The private-layout read taking a tensor stored in one of fmts as if it were ND: its first elements, in storage
    order, reshaped to the origin shape."""

    def substitute(read: Function) -> Function:
        def faulty(array: Any, stored: int, origin_format: int, origin_shape: tuple[int, ...]) -> Any:
            if stored not in fmts:
                return read(array, stored, origin_format, origin_shape)
            return array.reshape(-1)[:math.prod(origin_shape)].reshape(origin_shape)

        return faulty

    return substitute
