"""Running a Cast case through the packaged acl.op.cast and its create_handle_for_cast handle, with y between guard
bands."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import numpy as np

from aclcts.cases import Case
from aclcts.core.dtypes import numpy_dtype
from aclcts.drive import flow
from aclcts.drive.executor.guard import Guarded, guarded_malloc, poison, read_guarded, unwritten
from aclcts.drive.executor.running import synchronize
from aclcts.drive.executor.staging import Outputs


@dataclass(frozen=True)
class CastTensors:
    """Descs and data buffers of one cast: x on the device, y between two guard bands."""

    src_desc: int
    src_buffer: int
    src: int
    dst_desc: int
    dst_buffer: int
    dst: Guarded


@contextmanager
def cast_tensors(acl: Any, src_type: int, dst_type: int, shape: tuple[int, ...], fmt: int = 2) -> Iterator[CastTensors]:
    """Create x and y of one cast, released when the block ends."""
    count = int(np.prod(shape, dtype=np.int64))
    src_size, dst_size = count * numpy_dtype(src_type).itemsize, count * numpy_dtype(dst_type).itemsize
    with flow.resources(acl) as res:
        with flow.step("stage"):
            src_desc = flow.create_desc(res, src_type, shape, fmt)
            dst_desc = flow.create_desc(res, dst_type, shape, fmt)
            src = flow.malloc(res, src_size)
            dst = guarded_malloc(res, dst_size)
            tensors = CastTensors(src_desc, flow.create_buffer(res, src, src_size), src, dst_desc,
                                  flow.create_buffer(res, dst.ptr, dst_size), dst)
        yield tensors


def run_cast(acl: Any, stream: int, case: Case, input_sets: list[list[np.ndarray]],
             handle_form: bool) -> list[Outputs]:
    """Run a Cast case by acl.op.cast or a create_handle_for_cast handle once per input set, poisoning y (and its
    guard bands) before each execution."""
    x, y = case.inputs[0], case.outputs[0]
    api = "acl.op.execute_with_handle" if handle_form else "acl.op.cast"
    results = []
    with cast_tensors(acl, x.dtype, y.dtype, x.shape, case.format) as t, flow.resources(acl) as res:
        if handle_form:
            with flow.step("acl.op.create_handle_for_cast"):
                handle = flow.value(acl.op.create_handle_for_cast(t.src_desc, t.dst_desc, 0),
                                    "acl.op.create_handle_for_cast")
            res.handles.append(handle)
        for index, (array,) in enumerate(input_sets):
            with flow.step(f"execution {index + 1}"):
                flow.copy_to_device(acl, t.src, array)
                poison(acl, [t.dst])
                with flow.step(api):
                    if handle_form:
                        ret = acl.op.execute_with_handle(handle, [t.src_buffer], [t.dst_buffer], stream)
                    else:
                        ret = acl.op.cast(t.src_desc, t.src_buffer, t.dst_desc, t.dst_buffer, 0, stream)
                    flow.check(ret, api)
                synchronize(acl, stream)
                with flow.resources(acl) as scratch:
                    body, tail = read_guarded(scratch, t.dst, lambda _: f"{case.id}: bytes around the "
                                                                         f"{t.dst.size}-byte output y were overwritten")
                results.append(Outputs([flow.array_from(body, y.dtype, y.shape)], [unwritten(body, y, y.shape)],
                                       [tail]))
    return results
