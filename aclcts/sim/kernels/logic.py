"""Comparison, logic, bit and Select kernels: LessEqual, GreaterEqual, NotEqual, LogicalOr, LogicalNot, BitwiseAnd,
BitwiseOr, BitwiseXor, Invert, LeftShift, RightShift, Select, SelectV2 (TensorFlow SelectV2: the three inputs
broadcast), TensorEqual (one bool: one shape and every element equal, NaN equal to nothing), CompareAndBitpack
(x > threshold packed eight to a uint8, first element the top bit).

Prototypes: graphengine op_proto/inc/ elewise_calculation_ops.h, bitwise_ops.h, selection_ops.h
(aclcts.core.prototypes.logic). Comparisons run on the values in their own type (exact), IEEE rules (NaN compares
unequal and unordered). Bit ops run in the integer type itself. Shift counts are clamped to
[0, bits - 1] (TensorFlow's LeftShift/RightShift, which the prototypes name as compatible); right shifts of signed
types are arithmetic. Select follows TensorFlow Select: x1 and x2 of one shape; condition of that shape, a scalar,
or a vector as long as x1's first dimension.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from aclcts.core.dtypes import acl_data_type
from aclcts.core.prototypes import prototype
from aclcts.sim.kernels.base import InferredShape, TensorInfo
from aclcts.sim.kernels.binary_math import several_inputs
from aclcts.sim.kernels.call import OpCall, Outputs
from aclcts.sim.kernels.numerics import BOOL
from aclcts.sim.kernels.registry import builtin, not_simulated
from aclcts.sim.kernels.shapes import UNKNOWN, broadcast, inferred, numel, unknown_rank

#: fn(a, b, y): the op written into y (of the broadcast shape).
Into = Callable[[np.ndarray, np.ndarray, np.ndarray], None]

def _shift_count(count: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """Shift counts clamped to [0, bits - 1], in the shifted type."""
    return np.clip(count, 0, 8 * dtype.itemsize - 1).astype(dtype, copy=False)


def _left_shift(a: np.ndarray, b: np.ndarray, y: np.ndarray) -> None:
    np.left_shift(a, _shift_count(b, a.dtype), out=y)


def _right_shift(a: np.ndarray, b: np.ndarray, y: np.ndarray) -> None:
    np.right_shift(a, _shift_count(b, a.dtype), out=y)


class _Elementwise:
    """One broadcasting op of one or two inputs (its record's): result dtype and arithmetic."""

    def __init__(self, op_type: str, into: Callable[..., Any], *, boolean: bool = False) -> None:
        self.op_type = op_type
        self.count = len(prototype(op_type).inputs)
        self.into = into
        self.boolean = boolean

    def compute(self, inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list[TensorInfo]) -> list[np.ndarray]:
        """The kernel's compute entry point."""
        call = OpCall(self.op_type, inputs, attrs)
        call.require_count(self.count)
        xs = [call.input(i) for i in range(self.count)]
        call.require_dtype(0, xs[0].dtype)
        names = tuple(range(self.count))
        call.require_same_dtype(names, [x.dtype for x in xs])
        shape = broadcast(call, names, [tuple(x.shape) for x in xs])
        out = Outputs(call, outputs)
        out.require_dtype(0, BOOL if self.boolean else xs[0].dtype, "bool" if self.boolean else call.same_as(0))
        y = out.buffer(0, shape)
        with np.errstate(all="ignore"):
            if len(xs) == 1:
                self.into(xs[0], out=y)
            else:
                self.into(xs[0], xs[1], y)
        return [out.emit(0, y)]

    def infer_shape(self, inputs: list[TensorInfo], values: list[np.ndarray | None], attrs: dict[str, Any]) -> list[InferredShape]:
        """The kernel's infer_shape entry point."""
        call = OpCall(self.op_type, inputs, attrs)
        call.require_count(self.count)
        xs = [call.input(i) for i in range(self.count)]
        names = tuple(range(self.count))
        call.require_same_dtype(names, [x.dtype for x in xs])
        dtype = acl_data_type(BOOL) if self.boolean else xs[0].dtype
        return [inferred(dtype, broadcast(call, names, [tuple(x.shape) for x in xs]))]


def _select_condition(call: OpCall, condition: tuple[int, ...], shape: tuple[int, ...]) -> None:
    """Check that condition has x1's shape, is a scalar, or is a vector as long as x1's first dimension."""
    if unknown_rank(condition) or unknown_rank(shape) or len(condition) == 0:
        return
    if len(condition) == len(shape) and all(c == s or UNKNOWN in (c, s) for c, s in zip(condition, shape)):
        return
    if len(condition) == 1 and len(shape) >= 1 and (condition[0] == shape[0] or UNKNOWN in (condition[0], shape[0])):
        return
    raise call.fail(f"input '{call.name(0)}' has shape {list(condition)}; expected the shape of '{call.name(1)}' "
                    f"{list(shape)}, a scalar or a vector of length {shape[0] if shape else 1}")


def _same_shape(call: OpCall, x1: tuple[int, ...], x2: tuple[int, ...]) -> None:
    """Check that x1 and x2 have one shape (unknown dims match anything)."""
    if unknown_rank(x1) or unknown_rank(x2):
        return
    if len(x1) != len(x2) or any(a != b and UNKNOWN not in (a, b) for a, b in zip(x1, x2)):
        raise call.fail(f"inputs '{call.name(1)}' {list(x1)} and '{call.name(2)}' {list(x2)} must have the same shape")


#: The dtypes Select's record allows that the simulator does not implement.
NOT_SIMULATED = (np.dtype(np.complex64), np.dtype(np.complex128))


def _select_compute(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list[TensorInfo]) -> list[np.ndarray]:
    call = OpCall("Select", inputs, attrs)
    call.require_count(3)
    condition, x1, x2 = (call.input(i) for i in range(3))
    call.require_dtype(0, condition.dtype)
    call.require_simulated(1, x1.dtype)
    call.require_same_dtype((1, 2), [x1.dtype, x2.dtype])
    _same_shape(call, tuple(x1.shape), tuple(x2.shape))
    _select_condition(call, tuple(condition.shape), tuple(x1.shape))
    out = Outputs(call, outputs)
    out.require_dtype(0, x1.dtype, call.same_as(1))
    y = out.buffer(0, tuple(x1.shape))
    chosen = condition.reshape(condition.shape + (1,) * (x1.ndim - condition.ndim)) if condition.ndim else condition
    np.copyto(y, x2)
    np.copyto(y, x1, where=np.broadcast_to(chosen, x1.shape))
    return [out.emit(0, y)]


def _select_infer(inputs: list[TensorInfo], values: list[np.ndarray | None], attrs: dict[str, Any]) -> list[InferredShape]:
    call = OpCall("Select", inputs, attrs)
    call.require_count(3)
    condition, x1, x2 = (call.input(i) for i in range(3))
    call.require_same_dtype((1, 2), [x1.dtype, x2.dtype])
    _same_shape(call, tuple(x1.shape), tuple(x2.shape))
    _select_condition(call, tuple(condition.shape), tuple(x1.shape))
    known = tuple(b if a == UNKNOWN else a for a, b in zip(x1.shape, x2.shape)) if not unknown_rank(x1.shape) else x1.shape
    return [inferred(x1.dtype, known)]


_OPS = (
    _Elementwise("LessEqual", np.less_equal, boolean=True),
    _Elementwise("GreaterEqual", np.greater_equal, boolean=True),
    _Elementwise("NotEqual", np.not_equal, boolean=True),
    _Elementwise("LogicalOr", np.logical_or, boolean=True),
    _Elementwise("LogicalNot", np.logical_not, boolean=True),
    _Elementwise("BitwiseAnd", np.bitwise_and),
    _Elementwise("BitwiseOr", np.bitwise_or),
    _Elementwise("BitwiseXor", np.bitwise_xor),
    _Elementwise("Invert", np.invert),
    _Elementwise("LeftShift", _left_shift),
    _Elementwise("RightShift", _right_shift),
)
for _op in _OPS:
    builtin(_op.op_type, _op.compute, _op.infer_shape)
builtin("Select", _select_compute, _select_infer)
not_simulated("Select", 1, NOT_SIMULATED)

#: The broadcasting op types of this module with two inputs.
BINARY_LOGIC_OP_TYPES = tuple(op.op_type for op in _OPS if op.count == 2)


def _select_v2(call: OpCall, arrays: list[np.ndarray]) -> np.ndarray:
    condition, then, otherwise = arrays
    return np.where(condition, then, otherwise)


def _tensor_equal_shape(call: OpCall, shapes: list[tuple[int, ...]]) -> tuple[int, ...]:
    """[1]; the two inputs must hold one number of elements (CANN's TensorEqualInferShape)."""
    if all(d >= 0 for s in shapes for d in s) and numel(shapes[0]) != numel(shapes[1]):
        raise call.fail(f"inputs '{call.name(0)}' {list(shapes[0])} and '{call.name(1)}' {list(shapes[1])} must hold "
                        "one number of elements")
    return (1,)


def _tensor_equal(call: OpCall, arrays: list[np.ndarray]) -> np.ndarray:
    x, y = arrays
    return np.array([x.shape == y.shape and bool(np.array_equal(x, y))])


builtin("SelectV2", *several_inputs("SelectV2", _select_v2, like=1))
not_simulated("SelectV2", 1, NOT_SIMULATED)
builtin("TensorEqual", *several_inputs("TensorEqual", _tensor_equal, boolean=True,
                                       shape_of=_tensor_equal_shape))


def _bitpack_shape(call: OpCall, shapes: list[tuple[int, ...]]) -> tuple[int, ...]:
    """x's shape with its innermost dim divided by 8; threshold a scalar."""
    x, threshold = shapes
    if all(d >= 0 for d in threshold) and numel(threshold) != 1:
        raise call.fail(f"input '{call.name(1)}' {list(threshold)} must be a scalar")
    if unknown_rank(x):
        return x
    if not x or (x[-1] >= 0 and x[-1] % 8):
        raise call.fail(f"input '{call.name(0)}' {list(x)} must have an innermost dim divisible by 8")
    return x[:-1] + ((x[-1] // 8) if x[-1] >= 0 else UNKNOWN,)


def _compare_and_bitpack(call: OpCall, arrays: list[np.ndarray]) -> np.ndarray:
    """The comparisons packed with np.packbits, big-endian bit order (the first element the top bit)."""
    x, threshold = arrays
    bits = x if x.dtype == BOOL else x > threshold.reshape(())
    return np.packbits(bits, axis=-1, bitorder="big")


builtin("CompareAndBitpack", *several_inputs("CompareAndBitpack", _compare_and_bitpack, shape_of=_bitpack_shape,
                                             fixed=np.dtype(np.uint8)))
