"""Staging a case on the device: its attributes, its input descs and buffers with the inputs copied over, its
guarded outputs, and the outputs copied back to the host after an execution."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from aclcts.cases import Case, TensorCase
from aclcts.core.constants import DataType, Format
from aclcts.core.formats import FormatError, from_storage, runtime_origin_shape, storage_shape, to_storage
from aclcts.drive import flow
from aclcts.drive.executor.guard import Guarded, guarded_malloc, read_guarded, unwritten


@dataclass
class Outputs:
    """One execution's outputs and what the executor saw around them (tail_written: per output, the bytes written
    between its size and its 32-byte aligned end; empty if not counted)."""

    arrays: list[np.ndarray]
    unwritten: list[np.ndarray]
    tail_written: list[int] = field(default_factory=list)


def create_attr(acl: Any, res: flow.Resources, attrs: Iterable[Any]) -> int:
    """acl.op.create_attr with every attribute (name, type, value as in aclcts.core.opmodel.Attr) set, held by res."""
    with flow.step("acl.op.create_attr"):
        attr = acl.op.create_attr()
    res.attrs.append(attr)
    for a in attrs:
        _set_attr(acl, attr, a.name, a.type, a.value)
    return attr


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
    with flow.step(f"acl.op.set_attr_{kind}"):
        if setter is not None:
            flow.check(setter(attr, name, plain), f"acl.op.set_attr_{kind}({name!r})")
        elif kind == "data_type":
            flow.check(acl.op.set_attr_data_type(attr, name, value)[-1], f"acl.op.set_attr_data_type({name!r})")
        else:
            flow.check(acl.op.set_attr_list_data_type(attr, name, plain)[-1],
                       f"acl.op.set_attr_list_data_type({name!r})")


@dataclass
class Staged:
    """A case's attributes, input and output descs and buffers, set up in a Resources scope."""

    attr: int
    in_descs: list[int]  # one per op input, an omitted optional input's undefined desc and empty buffer included
    in_bufs: list[int]
    in_ptrs: list[int]  # one per case input
    out_descs: list[int]
    out_bufs: list[int]
    allocations: list[Guarded]


def _put_input(acl: Any, res: flow.Resources, tensor: TensorCase, array: np.ndarray, dims: tuple[int, ...],
               fmt: int) -> tuple[int, int, int]:
    """An input's desc, buffer and device pointer: a constant is set on the desc and gets an empty buffer."""
    desc = flow.create_desc(res, tensor.dtype, dims, fmt)
    if tensor.const is not None:
        payload = np.ascontiguousarray(array).tobytes()
        with flow.step("acl.set_tensor_const"):
            flow.check(acl.set_tensor_const(desc, acl.util.bytes_to_ptr(payload), len(payload)), "acl.set_tensor_const")
        return desc, flow.create_buffer(res, 0, 0), 0
    ptr = flow.malloc(res, array.nbytes)
    flow.copy_to_device(acl, ptr, array)
    return desc, flow.create_buffer(res, ptr, array.nbytes), ptr


def _put_output(res: flow.Resources, tensor: TensorCase, capacity: tuple[int, ...], dims: tuple[int, ...],
                fmt: int) -> tuple[int, int, Guarded]:
    """An output's desc of dims and a guarded buffer holding an array of the capacity shape."""
    desc = flow.create_desc(res, tensor.dtype, dims, fmt)
    held = guarded_malloc(res, int(np.prod(capacity, dtype=np.int64)) * tensor.np_dtype.itemsize)
    return desc, flow.create_buffer(res, held.ptr, held.size), held


def stage_shaped(acl: Any, res: flow.Resources, case: Case, inputs: list[np.ndarray], in_dims: list[tuple[int, ...]],
                 capacities: list[tuple[int, ...]], out_dims: list[tuple[int, ...]]) -> Staged:
    """Stage a case with input descs of in_dims, output descs of out_dims and guarded outputs of the capacity shapes."""
    with flow.step("stage"):
        attr = create_attr(acl, res, case.attrs)
        placed = [_put_input(acl, res, t, a, d, t.stored(case.format)[0]) for t, a, d in zip(case.inputs, inputs, in_dims)]
        made = [_put_output(res, t, c, d, t.stored(case.format)[0]) for t, c, d in zip(case.outputs, capacities, out_dims)]
        in_descs = case.with_omitted([p[0] for p in placed], lambda _: flow.create_desc(
            res, DataType.ACL_DT_UNDEFINED, (), Format.ACL_FORMAT_UNDEFINED))  # an omitted optional input
        in_bufs = case.with_omitted([p[1] for p in placed], lambda _: flow.create_buffer(res, 0, 0))
    return Staged(attr, in_descs, in_bufs, [p[2] for p in placed],
                  [m[0] for m in made], [m[1] for m in made], [m[2] for m in made])


def stage(acl: Any, res: flow.Resources, case: Case, inputs: list[np.ndarray]) -> Staged:
    """Create a static case's attr, copy its inputs to the device and allocate its guarded outputs, all held by res."""
    constants = [t.const_array() if t.const is not None else a for t, a in zip(case.inputs, inputs)]
    stored = [in_storage_layout(case, t, a) for t, a in zip(case.inputs, constants)]
    shapes = [t.stored(case.format)[1] for t in case.outputs]
    return stage_shaped(acl, res, case, stored, [t.stored(case.format)[1] for t in case.inputs], shapes, shapes)


def in_storage_layout(case: Case, tensor: TensorCase, array: np.ndarray) -> np.ndarray:
    """An input as it is copied to the device: in its storage format, made from the case's format."""
    return array if tensor.storage_format is None else to_storage(array, case.format, tensor.storage_format)


def stored_dims(case: Case, tensor: TensorCase, dims: tuple[int, ...]) -> tuple[int, ...]:
    """The dims a desc of tensor carries for origin dims: a private format's stored dims (as msopst's runtime descs
    do, docs/formats.md); dims the format cannot lay out (another rank) as they are."""
    if tensor.storage_format is None:
        return tuple(dims)
    try:
        return storage_shape(tuple(dims), case.format, tensor.storage_format, tensor.np_dtype)
    except FormatError:
        return tuple(dims)


def in_origin_layout(case: Case, tensor: TensorCase, array: np.ndarray) -> np.ndarray:
    """An output read back in its storage format, converted to the case's format (as msopst does before comparing);
    a dynamic tensor's origin shape is the one its stored dims give back."""
    if tensor.storage_format is None:
        return array
    shape = tensor.shape if not tensor.dynamic else runtime_origin_shape(
        array.shape, tensor.shape, case.format, tensor.storage_format, tensor.np_dtype)
    return from_storage(array, tensor.storage_format, case.format, shape)


def collect(res: flow.Resources, case: Case, staged: Staged) -> Outputs:
    """Copy a staged static case's outputs back after an execution, checking their guard bands."""
    arrays, masks, tails = [], [], []
    for tensor, held in zip(case.outputs, staged.allocations):
        body, tail = read_guarded(res, held, lambda side, name=tensor.name, size=held.size:
                                  f"{case.op} output {name!r}: bytes {side} the {size}-byte output were overwritten")
        dims = tensor.stored(case.format)[1]
        mask = unwritten(body, tensor, dims).astype(tensor.np_dtype)
        masks.append(in_origin_layout(case, tensor, mask).astype(bool))
        arrays.append(in_origin_layout(case, tensor, flow.array_from(body, tensor.dtype, dims)))
        tails.append(tail)
    return Outputs(arrays, masks, tails)
