"""Element-wise kernels of several inputs (Lerp, Addcmul, MaskedScale ...): the record's dtype checks, the output
shape, the output buffer, and a body that computes in the device's types."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from aclcts.core.dtypes import acl_data_type
from aclcts.sim.kernels.base import InferredShape, TensorInfo
from aclcts.sim.kernels.call import OpCall, Outputs
from aclcts.sim.kernels.numerics import BOOL
from aclcts.sim.kernels.registry import builtin
from aclcts.sim.kernels.shapes import broadcast, inferred

#: body(call, inputs): the op's result from the input arrays (any shape broadcasting to the output's).
Body = Callable[[OpCall, list[np.ndarray]], np.ndarray]
#: shape_of(call, shapes): the output shape from the input shapes, failing in one line when they do not fit.
ShapeOf = Callable[[OpCall, list[tuple[int, ...]]], tuple[int, ...]]


def broadcast_all(call: OpCall, shapes: list[tuple[int, ...]]) -> tuple[int, ...]:
    """The broadcast of every input's shape."""
    return broadcast(call, range(len(shapes)), shapes)


def one_value(index: int) -> ShapeOf:
    """The broadcast of the inputs but index, which must hold a single value."""
    def shape_of(call: OpCall, shapes: list[tuple[int, ...]]) -> tuple[int, ...]:
        if all(d >= 0 for d in shapes[index]) and int(np.prod(shapes[index], dtype=np.int64)) != 1:
            raise call.fail(f"input '{call.name(index)}' must hold one value, got shape {list(shapes[index])}")
        others = [i for i in range(len(shapes)) if i != index]
        return broadcast(call, others, [shapes[i] for i in others])
    return shape_of


def same_shape(call: OpCall, shapes: list[tuple[int, ...]]) -> tuple[int, ...]:
    """The first input's shape, which every other input must have."""
    for index, shape in enumerate(shapes[1:], start=1):
        if tuple(shape) != tuple(shapes[0]) and all(d >= 0 for d in shape + shapes[0]):
            raise call.fail(f"input '{call.name(index)}' has shape {list(shape)}, expected {list(shapes[0])} (that "
                            f"of '{call.name(0)}')")
    return tuple(shapes[0])


def _checked(call: OpCall, inputs: Sequence[Any]) -> None:
    """Every input's dtype from its record's constraint, and one dtype among the inputs sharing a constraint."""
    record = call.record
    groups: dict[str, list[int]] = {}
    for index, tensor in enumerate(record.inputs):
        groups.setdefault(tensor.types, []).append(index)
    for indices in groups.values():
        call.require_same_dtype(indices, [inputs[i].dtype for i in indices])


def register(op_type: str, body: Body, *, boolean: bool = False, shape_of: ShapeOf = broadcast_all) -> None:
    """Add a kernel: the output (bool when boolean, else the first input's dtype) is body's result in shape_of's
    shape."""
    def compute(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list[TensorInfo]) -> list[np.ndarray]:
        call = OpCall(op_type, inputs, attrs)
        call.require_count(len(call.record.inputs))
        arrays = [call.input(i) for i in range(len(call.record.inputs))]
        for index, array in enumerate(arrays):
            call.require_simulated(index, array.dtype)
        _checked(call, arrays)
        shape = shape_of(call, [tuple(a.shape) for a in arrays])
        out = Outputs(call, outputs)
        dtype = out.require_dtype(0, BOOL if boolean else arrays[0].dtype,
                                  "a comparison gives bool" if boolean else call.same_as(0))
        with np.errstate(all="ignore"):
            result = body(call, arrays)
        y = out.buffer(0, shape)
        np.copyto(y, np.broadcast_to(result, shape), casting="unsafe")
        return [out.emit(0, y.astype(dtype, copy=False))]

    def infer_shape(inputs: list[TensorInfo], values: list[np.ndarray | None], attrs: dict[str, Any]) -> list[InferredShape]:
        call = OpCall(op_type, inputs, attrs)
        call.require_count(len(call.record.inputs))
        tensors = [call.input(i) for i in range(len(call.record.inputs))]
        _checked(call, tensors)
        shape = shape_of(call, [tuple(t.shape) for t in tensors])
        return [inferred(acl_data_type(BOOL) if boolean else tensors[0].dtype, shape)]

    builtin(op_type, compute, infer_shape)
