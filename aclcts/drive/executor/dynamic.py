"""Running dynamic-shape cases: execute_v2 with output buffers of a given capacity and the real dims read back from
the output descs, infer_shape and its desc getters, and the documented infer-then-execute-at-the-range-maximum flow."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from aclcts.cases import Case, TensorCase
from aclcts.core.constants import ACL_UNKNOWN_RANK
from aclcts.core.formats import FormatError
from aclcts.drive import flow
from aclcts.drive.executor.guard import poison, read_guarded
from aclcts.drive.executor.running import launch, synchronize
from aclcts.drive.executor.staging import (create_attr, in_origin_layout, in_storage_layout, stage_shaped,
                                           stored_dims)


def case_inputs(case: Case, runtime: list[np.ndarray]) -> list[np.ndarray]:
    """Every input of a case in IR order: the runtime arrays with the constant inputs filled in."""
    given = iter(runtime)
    return [t.const_array() if t.const is not None else next(given) for t in case.inputs]


@dataclass
class Executed:
    """What one execute_v2 of a dynamic case gave: its code, the output dims, sizes and counts read back, the outputs."""

    ret: int
    dims: list[list[int] | None]
    sizes: list[int]
    counts: list[int]
    arrays: list[np.ndarray]


def desc_dims(acl: Any, desc: int) -> list[int] | None:
    """The dims of a desc by get_tensor_desc_num_dims and get_tensor_desc_dim_v2; None for ACL_UNKNOWN_RANK."""
    count = acl.get_tensor_desc_num_dims(desc)
    if count == ACL_UNKNOWN_RANK:
        return None
    return [flow.value(acl.get_tensor_desc_dim_v2(desc, index), f"acl.get_tensor_desc_dim_v2(desc, {index})")
            for index in range(count)]


def dim_range(acl: Any, desc: int, index: int) -> tuple[int, int]:
    """(min, max) of one dim by get_tensor_desc_dim_range(desc, index, 2)."""
    found = flow.value(acl.get_tensor_desc_dim_range(desc, index, 2), f"acl.get_tensor_desc_dim_range(desc, {index}, 2)")
    return int(found[0]), int(found[1])


def _laid_out(case: Case, tensor: TensorCase, array: np.ndarray) -> np.ndarray:
    """An input in its storage format; one the format cannot lay out (another rank) as it is, as stored_dims does."""
    try:
        return in_storage_layout(case, tensor, array)
    except FormatError:
        return array


def execute_dynamic(acl: Any, stream: int, case: Case, inputs: list[np.ndarray], out_dims: list[list[int]],
                    in_dims: list[list[int]] | None = None, out_desc_dims: list[list[int]] | None = None) -> Executed:
    """execute_v2 of a dynamic case with exact input descs (or in_dims) and output descs of out_dims (or
    out_desc_dims), guarded buffers sized by out_dims; synchronise, then read the real dims and size back from the
    output descs and copy that many bytes. A private-format tensor is staged in its format with its stored dims (dims
given in origin terms) and read back in origin layout; dims, sizes and counts are the descs' (stored). A non-zero
execute_v2 code is returned, not raised."""
    with flow.resources(acl) as res:
        shapes = [stored_dims(case, t, tuple(d)) for t, d in zip(case.inputs, in_dims or [a.shape for a in inputs])]
        capacities = [stored_dims(case, t, tuple(d)) for t, d in zip(case.outputs, out_dims)]
        staged = stage_shaped(acl, res, case, [_laid_out(case, t, a) for t, a in zip(case.inputs, inputs)],
                              shapes, capacities,
                              [stored_dims(case, t, tuple(d)) for t, d in zip(case.outputs, out_desc_dims or out_dims)])
        with flow.step("execution 1"):
            poison(acl, staged.allocations)
            with flow.step("acl.op.execute_v2"):
                ret = launch(acl, stream, case, staged)
            if ret != 0:
                return Executed(ret, [], [], [], [])
            synchronize(acl, stream)
            with flow.step("acl.get_tensor_desc_* (outputs)"):
                dims = [desc_dims(acl, d) for d in staged.out_descs]
                sizes = [acl.get_tensor_desc_size(d) for d in staged.out_descs]
                counts = [acl.get_tensor_desc_element_count(d) for d in staged.out_descs]
            arrays = []
            for tensor, real, size, held in zip(case.outputs, dims, sizes, staged.allocations):
                body, _ = read_guarded(res, held, lambda side, name=tensor.name, cap=held.size:
                                       f"{case.id} output {name!r}: bytes {side} the {cap}-byte output were "
                                       "overwritten", min(size, held.size))
                arrays.append(in_origin_layout(case, tensor, flow.array_from(body, tensor.dtype, tuple(real or ()))))
            return Executed(ret, dims, sizes, counts, arrays)


@dataclass
class Inferred:
    """One output desc after infer_shape: dtype, dims (None = unknown rank), (min, max) of every -1 dim, size, count."""

    dtype: int
    dims: list[int] | None
    ranges: dict[int, tuple[int, int]]
    size: int
    count: int


def infer_shape(acl: Any, op: str, inputs: list[tuple[int, list[int], np.ndarray, str]], outputs: list[tuple[int, str]],
                attrs: Iterable[Any] = (), in_ranges: list[list[tuple[int, int]] | None] | None = None,
                fmt: int = 2) -> tuple[int, list[Inferred]]:
    """acl.op.infer_shape with input descs (dtype, dims, host data, name), each -1 input dim given its range,
    and output descs (dtype, name); the code and what get_tensor_desc_* report for every output afterwards."""
    with flow.step("infer shape"), flow.resources(acl) as res:
        attr = create_attr(acl, res, attrs)
        payloads = [np.ascontiguousarray(array).tobytes() or b"\0" for _, _, array, _ in inputs]
        in_descs, in_bufs = [], []
        for index, ((dtype, dims, _, name), payload) in enumerate(zip(inputs, payloads)):
            desc = flow.create_desc(res, dtype, tuple(dims), fmt)
            if name:
                acl.set_tensor_desc_name(desc, name)
            ranges = in_ranges[index] if in_ranges else None
            if ranges:
                with flow.step("acl.set_tensor_shape_range"):
                    flow.check(acl.set_tensor_shape_range(desc, [list(r) for r in ranges]), "acl.set_tensor_shape_range")
            in_descs.append(desc)
            in_bufs.append(flow.create_buffer(res, acl.util.bytes_to_ptr(payload), len(payload)))
        out_descs = []
        for dtype, name in outputs:
            desc = flow.create_desc(res, dtype, (1,), fmt)
            if name:
                acl.set_tensor_desc_name(desc, name)
            out_descs.append(desc)
        with flow.step("acl.op.infer_shape"):
            ret = acl.op.infer_shape(op, in_descs, in_bufs, len(out_descs), out_descs, attr)
        if ret != 0:
            return ret, []
        found = []
        with flow.step("acl.get_tensor_desc_* (outputs)"):
            for desc in out_descs:
                dims = desc_dims(acl, desc)
                ranges = {j: dim_range(acl, desc, j) for j, d in enumerate(dims or []) if d == -1}
                found.append(Inferred(acl.get_tensor_desc_type(desc), dims, ranges, acl.get_tensor_desc_size(desc),
                                      acl.get_tensor_desc_element_count(desc)))
        return 0, found


def infer_case(acl: Any, case: Case, inputs: list[np.ndarray], dims: list[list[int]] | None = None,
               in_ranges: list[list[tuple[int, int]] | None] | None = None) -> tuple[int, list[Inferred]]:
    """infer_shape of a case's op at the given inputs (descs of dims, default the arrays' shapes)."""
    names_in, names_out = case.desc_names(case.inputs), case.desc_names(case.outputs)
    given = dims or [list(a.shape) for a in inputs]
    return infer_shape(acl, case.op, [(t.dtype, list(d), a, n) for t, a, d, n in zip(case.inputs, inputs, given, names_in)],
                       [(t.dtype, n) for t, n in zip(case.outputs, names_out)], case.attrs, in_ranges, case.format)


def range_maximum(inferred: Inferred, fallback: tuple[tuple[int, int], ...]) -> list[int]:
    """The documented maximal dims: every -1 replaced by its range max (fallback: the case's range when unbounded)."""
    dims = []
    for j, d in enumerate(inferred.dims or []):
        if d == -1:
            hi = inferred.ranges[j][1]
            d = hi if hi != -1 else fallback[j][1]
        dims.append(d)
    return dims


def infer_then_execute(acl: Any, stream: int, case: Case, inputs: list[np.ndarray]) -> Executed:
    """The documented max-shape flow: infer_shape, output buffers at every -1's range maximum, execute_v2, the real
    dims read back."""
    ret, found = infer_case(acl, case, inputs)
    flow.check(ret, f"acl.op.infer_shape({case.op!r})")
    maximum = [range_maximum(f, t.dim_ranges()) for f, t in zip(found, case.outputs)]
    return execute_dynamic(acl, stream, case, inputs, maximum)
