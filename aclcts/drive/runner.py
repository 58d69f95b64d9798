"""Running one case through the documented flow, with poisoned outputs and guard bands around them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from aclcts.drive import flow
from aclcts.cases import Case

#: Bytes of guard band before and after every output; a multiple of 64 keeps outputs aligned.
GUARD = 64
#: The byte every output allocation is filled with before execution.
POISON = 0x7B


class GuardBandError(AssertionError):
    """An op wrote outside its output tensor."""


@dataclass
class Outputs:
    """One execution's outputs and what the runner saw around them."""

    arrays: list[np.ndarray]
    unwritten: list[np.ndarray]


def _put_inputs(acl: Any, res: flow.Resources, case: Case, arrays: list[np.ndarray]) -> tuple[list[int], list[int], list[int]]:
    descs, buffers, pointers = [], [], []
    for tensor, array in zip(case.inputs, arrays):
        desc = flow.create_desc(res, tensor.dtype, tensor.shape, case.format)
        if tensor.const is not None:
            payload = tensor.const_array().tobytes()
            flow.check(acl.set_tensor_const(desc, acl.util.bytes_to_ptr(payload), len(payload)), "acl.set_tensor_const")
            buffers.append(flow.create_buffer(res, 0, 0))
            pointers.append(0)
        else:
            size = array.nbytes
            ptr = flow.malloc(res, size)
            flow.copy_to_device(acl, ptr, array)
            buffers.append(flow.create_buffer(res, ptr, size))
            pointers.append(ptr)
        descs.append(desc)
    return descs, buffers, pointers


def _put_outputs(acl: Any, res: flow.Resources, case: Case) -> tuple[list[int], list[int], list[tuple[int, int]]]:
    descs, buffers, allocations = [], [], []
    for tensor in case.outputs:
        desc = flow.create_desc(res, tensor.dtype, tensor.shape, case.format)
        size = int(np.prod(tensor.shape, dtype=np.int64)) * tensor.np_dtype.itemsize
        total = size + 2 * GUARD
        base = flow.malloc(res, total)
        descs.append(desc)
        buffers.append(flow.create_buffer(res, base + GUARD, size))
        allocations.append((base, size))
    return descs, buffers, allocations


def _poison(acl: Any, allocations: list[tuple[int, int]]) -> None:
    for base, size in allocations:
        total = size + 2 * GUARD
        flow.check(acl.rt.memset(base, total, POISON, total), "acl.rt.memset")


def _collect(res: flow.Resources, case: Case, allocations: list[tuple[int, int]]) -> Outputs:
    arrays, unwritten = [], []
    for tensor, (base, size) in zip(case.outputs, allocations):
        raw = flow.copy_to_host(res, base, size + 2 * GUARD)
        before, body, after = raw[:GUARD], raw[GUARD:GUARD + size], raw[GUARD + size:]
        poison = bytes([POISON]) * GUARD
        if before != poison or after != poison:
            side = "before" if before != poison else "after"
            raise GuardBandError(f"{case.op} output {tensor.name!r}: bytes {side} the {size}-byte output were overwritten")
        itemsize = tensor.np_dtype.itemsize
        elements = np.frombuffer(body, np.uint8).reshape(-1, itemsize) if size else np.zeros((0, itemsize), np.uint8)
        unwritten.append(np.all(elements == POISON, axis=1).reshape(tensor.shape))
        arrays.append(flow.array_from(body, tensor.dtype, tensor.shape))
    return Outputs(arrays, unwritten)


@dataclass
class Staged:
    """A case's attributes, input and output descs and buffers, set up in a Resources scope."""

    attr: int
    in_descs: list[int]
    in_bufs: list[int]
    in_ptrs: list[int]
    out_descs: list[int]
    out_bufs: list[int]
    allocations: list[tuple[int, int]]


def stage(acl: Any, res: flow.Resources, case: Case, inputs: list[np.ndarray]) -> Staged:
    """Create the case's attr, copy its inputs to the device and allocate its outputs, all held by res."""
    attr = acl.op.create_attr()
    res.attrs.append(attr)
    for a in case.attrs:
        _set_attr(acl, attr, a.name, a.type, a.value)
    in_descs, in_bufs, in_ptrs = _put_inputs(acl, res, case, inputs)
    out_descs, out_bufs, allocations = _put_outputs(acl, res, case)
    return Staged(attr, in_descs, in_bufs, in_ptrs, out_descs, out_bufs, allocations)


def run(acl: Any, stream: int, case: Case, input_sets: list[list[np.ndarray]], mode: str) -> list[Outputs]:
    """Run the case once per input set by execute_v2 or by one handle, synchronising before each read-back."""
    results = []
    with flow.resources(acl) as res:
        staged = stage(acl, res, case, input_sets[0])
        attr, in_descs, in_bufs, out_descs, out_bufs = (staged.attr, staged.in_descs, staged.in_bufs,
                                                        staged.out_descs, staged.out_bufs)
        in_ptrs, allocations = staged.in_ptrs, staged.allocations
        handle = 0
        if mode == "handle":
            handle = flow.value(acl.op.create_handle(case.op, in_descs, out_descs, attr), "acl.op.create_handle")
            res.handles.append(handle)
        for index, arrays in enumerate(input_sets):
            if index:
                for tensor, ptr, array in zip(case.inputs, in_ptrs, arrays):
                    if tensor.const is None:
                        flow.copy_to_device(acl, ptr, array)
            _poison(acl, allocations)
            if mode == "handle":
                flow.check(acl.op.execute_with_handle(handle, in_bufs, out_bufs, stream), "acl.op.execute_with_handle")
            else:
                flow.check(acl.op.execute_v2(case.op, in_descs, in_bufs, out_descs, out_bufs, attr, stream),
                           "acl.op.execute_v2")
            flow.check(acl.rt.synchronize_stream(stream), "acl.rt.synchronize_stream")
            results.append(_collect(res, case, allocations))
    return results


def _set_attr(acl: Any, attr: int, name: str, kind: str, value: Any) -> None:
    plain = [list(v) if isinstance(v, tuple) else v for v in value] if isinstance(value, tuple) else value
    setter = {
        "bool": acl.op.set_attr_bool,
        "int": acl.op.set_attr_int,
        "float": acl.op.set_attr_float,
        "string": acl.op.set_attr_string,
        "list_bool": acl.op.set_attr_list_bool,
        "list_int": acl.op.set_attr_list_int,
        "list_float": acl.op.set_attr_list_float,
        "list_string": acl.op.set_attr_list_string,
        "list_list_int": acl.op.set_attr_list_list_int,
    }.get(kind)
    if setter is not None:
        flow.check(setter(attr, name, plain), f"acl.op.set_attr_{kind}({name!r})")
    elif kind == "data_type":
        flow.check(acl.op.set_attr_data_type(attr, name, value)[-1], f"acl.op.set_attr_data_type({name!r})")
    else:
        flow.check(acl.op.set_attr_list_data_type(attr, name, plain)[-1], f"acl.op.set_attr_list_data_type({name!r})")
