"""Running a staged static case in the documented call forms: execute_v2, or create_handle then
execute_with_handle; synchronising; the latency comparison of both and the plain-acl baseline of the bench."""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from aclcts.cases import Case
from aclcts.drive import flow
from aclcts.drive.executor.guard import poison
from aclcts.drive.executor.staging import Outputs, Staged, collect, in_storage_layout, stage

#: The ways run() executes a static case.
MODES = ("execute_v2", "handle")


def create_handle(acl: Any, res: flow.Resources, case: Case, staged: Staged) -> int:
    """acl.op.create_handle for a staged case, held by res."""
    with flow.step("acl.op.create_handle"):
        handle = flow.value(acl.op.create_handle(case.op, staged.in_descs, staged.out_descs, staged.attr),
                            "acl.op.create_handle", acl)
    res.handles.append(handle)
    return handle


def synchronize(acl: Any, stream: int) -> None:
    """acl.rt.synchronize_stream, raising AclCallError unless it returns 0."""
    with flow.step("acl.rt.synchronize_stream"):
        flow.check(acl.rt.synchronize_stream(stream), "acl.rt.synchronize_stream", acl)


def launch(acl: Any, stream: int, case: Case, staged: Staged, handle: int = 0) -> int:
    """Queue one execution of a staged case on stream: execute_with_handle if a handle is given, else execute_v2."""
    if handle:
        return acl.op.execute_with_handle(handle, staged.in_bufs, staged.out_bufs, stream)
    return acl.op.execute_v2(case.op, staged.in_descs, staged.in_bufs, staged.out_descs, staged.out_bufs,
                             staged.attr, stream)


def run(acl: Any, stream: int, case: Case, input_sets: list[list[np.ndarray]], mode: str) -> list[Outputs]:
    """Run a static case once per input set by execute_v2 or by one handle, synchronising before each read-back."""
    if mode not in MODES:
        raise ValueError(f"mode: expected one of {', '.join(MODES)}, got {mode!r}")
    results = []
    with flow.resources(acl) as res:
        staged = stage(acl, res, case, input_sets[0])
        handle = create_handle(acl, res, case, staged) if mode == "handle" else 0
        call = "acl.op.execute_with_handle" if handle else "acl.op.execute_v2"
        for index, arrays in enumerate(input_sets):
            with flow.step(f"execution {index + 1}"):
                if index:
                    for tensor, ptr, array in zip(case.inputs, staged.in_ptrs, arrays):
                        if tensor.const is None:
                            flow.copy_to_device(acl, ptr, in_storage_layout(case, tensor, array))
                poison(acl, staged.allocations)
                with flow.step(call):
                    flow.check(launch(acl, stream, case, staged, handle), call, acl)
                synchronize(acl, stream)
                results.append(collect(res, case, staged))
    return results


def latencies(acl: Any, stream: int, case: Case, inputs: list[np.ndarray], rounds: int,
              warmup: int) -> tuple[list[float], list[float]]:
    """Seconds of rounds synchronised execute_v2 and execute_with_handle runs of a static case, taking turns."""
    with flow.resources(acl) as res:
        staged = stage(acl, res, case, inputs)
        handle = create_handle(acl, res, case, staged)

        def timed(with_handle: int) -> float:
            start = time.perf_counter()
            flow.check(launch(acl, stream, case, staged, with_handle),
                       "acl.op.execute_with_handle" if with_handle else "acl.op.execute_v2")
            flow.check(acl.rt.synchronize_stream(stream), "acl.rt.synchronize_stream")
            return time.perf_counter() - start

        for _ in range(warmup):
            timed(0), timed(handle)
        by_v2, by_handle = [], []
        for index in range(rounds):
            order = (handle, 0) if index % 2 else (0, handle)
            for which in order:
                (by_handle if which else by_v2).append(timed(which))
    return by_v2, by_handle


def run_plain(acl: Any, stream: int, case: Case, arrays: list[np.ndarray]) -> list[bytes]:
    """One execute_v2 of a static case without constants in plain acl calls (no guard bands, no checks until the end):
    the baseline the bench compares run() with; the output bytes."""
    in_descs = [acl.create_tensor_desc(t.dtype, list(t.shape), case.format) for t in case.inputs]
    out_descs = [acl.create_tensor_desc(t.dtype, list(t.shape), case.format) for t in case.outputs]
    in_ptrs, in_bufs = [], []
    for array in arrays:
        payload = np.ascontiguousarray(array).tobytes()
        ptr, _ = acl.rt.malloc(len(payload), 0)
        acl.rt.memcpy(ptr, len(payload), acl.util.bytes_to_ptr(payload), len(payload), flow.H2D)
        in_ptrs.append(ptr)
        in_bufs.append(acl.create_data_buffer(ptr, len(payload)))
    sizes = [int(np.prod(t.shape)) * t.np_dtype.itemsize for t in case.outputs]
    out_ptrs = [acl.rt.malloc(size, 0)[0] for size in sizes]
    out_bufs = [acl.create_data_buffer(ptr, size) for ptr, size in zip(out_ptrs, sizes)]
    attr = acl.op.create_attr()
    for name, value in case.attr_values().items():
        kind = next(a.type for a in case.attrs if a.name == name)
        getattr(acl.op, f"set_attr_{kind}")(attr, name, value)
    ret = acl.op.execute_v2(case.op, in_descs, in_bufs, out_descs, out_bufs, attr, stream)
    sync = acl.rt.synchronize_stream(stream)
    results = []
    if not ret and not sync:
        for ptr, size in zip(out_ptrs, sizes):
            host, _ = acl.rt.malloc_host(size)
            acl.rt.memcpy(host, size, ptr, size, flow.D2H)
            results.append(acl.util.ptr_to_bytes(host, size))
            acl.rt.free_host(host)
    for buf in in_bufs + out_bufs:
        acl.destroy_data_buffer(buf)
    for desc in in_descs + out_descs:
        acl.destroy_tensor_desc(desc)
    acl.op.destroy_attr(attr)
    for ptr in in_ptrs + out_ptrs:
        acl.rt.free(ptr)
    flow.check(ret, f"{case.id}: plain acl.op.execute_v2")
    flow.check(sync, f"{case.id}: plain acl.rt.synchronize_stream")
    return results
