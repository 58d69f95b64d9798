"""Binary math kernels with NumPy broadcasting: Atan2, Div, DivNoNan, FloorDiv, FloorMod, Mod, TruncateDiv,
TruncateMod, SquaredDifference, Xlogy, Xdivy, MulNoNan.

Prototypes: graphengine op_proto/inc/elewise_calculation_ops.h (aclcts.core.prototypes.binary_math); the kernels
take the record's real dtypes; complex only for Div (the others declare it NOT_SIMULATED).
Device numerics: fp16/bf16 operands are widened to float32, every step runs in float32 and the result is rounded
once to the storage type; float32/float64 and complex64/complex128 run in their own type straight into the output
buffer (complex division as NumPy's complex loops do it). Integers run in
their own type with two's complement wrap (INT_MIN // -1 gives INT_MIN). Integer division by zero: FloorMod gives
x1 (its prototype), DivNoNan 0; Div, FloorDiv and TruncateDiv saturate to the type's max (x1 > 0) or min (x1 < 0)
and give 0 for 0/0, Mod and TruncateMod give x1 (the prototypes leave those undefined: the simulator's choice).

The several-input ops of CANN's elewise_calculation_ops.h follow their TBE implementations
(dengguojie/vue-element-admin@7d77ce32d ops/built-in/tbe/impl/<op>.py) in their order of operations, float16 widened
to float32 and rounded once (as the other multi-step kernels here): AddMatMatElements c beta + (a b) alpha; ClipByNormNoDivSum max(sqrt or x, the floor), each step a
single rounding in the tensors' type; Cross
the three differences of products along dim (cross.py, integers wrapping in their own type); Lerp start + weight (end - start); Addcdiv
the first input plus (x1 / x2) value and Addcmul the first input plus (x1 x2) value, value cast to the inputs' type first; AxpyV2
x2 alpha + x1 (int32 not simulated: axpy_v2.py takes it through float32); FusedMulAddN x1 x3 + x2 (integers in their own type);
Xlog1py x log1p(y); Dot the products summed in the vector unit's order (dot.py: float16 through float32, integers in
their own type); Ger the outer product; ApproximateEqual |x1 - x2| <= tolerance; MaskedScale (x mask) value, an int8 mask through
float16; IsClose |x1 - x2| <= atol + |rtol x2|. Xlog1py gives 0 where x == 0 and IsClose makes two NaNs close under
equal_nan, as documented, although canndev's xlog1py.py and is_close.py do not select them (on a device built from
those files the suite reports both).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from aclcts.core.dtypes import acl_data_type
from aclcts.sim.kernels.base import InferredShape, TensorInfo
from aclcts.sim.kernels.call import OpCall, Outputs
from aclcts.sim.kernels.numerics import (BOOL, COMPLEX, FLOAT16, FLOAT32, OWN_TYPES, compute_dtype, is_float,
                                         vector_sum, widen)
from aclcts.sim.kernels.registry import builtin, not_simulated
from aclcts.sim.kernels.shapes import broadcast, inferred

#: fn(a, b, y): the op on compute-type operands written into y (of the broadcast shape).
Into = Callable[[np.ndarray, np.ndarray, np.ndarray], None]


#: The dtypes the records allow that the simulator does not implement for an op without a complex form.
NOT_SIMULATED = COMPLEX


def _where(y: np.ndarray, mask: np.ndarray, value: Any) -> None:
    """y[mask] = value, mask broadcast to y."""
    np.copyto(y, value, where=np.broadcast_to(mask, y.shape), casting="unsafe")


# --- floats ---------------------------------------------------------------------------------------------------

def _atan2(a: np.ndarray, b: np.ndarray, y: np.ndarray) -> None:
    np.arctan2(a, b, out=y)


def _divide(a: np.ndarray, b: np.ndarray, y: np.ndarray) -> None:
    np.divide(a, b, out=y)


def _div_no_nan(a: np.ndarray, b: np.ndarray, y: np.ndarray) -> None:
    np.divide(a, b, out=y)
    _where(y, b == 0, 0)


def _floor_div(a: np.ndarray, b: np.ndarray, y: np.ndarray) -> None:
    np.divide(a, b, out=y)
    np.floor(y, out=y)


def _truncate_div(a: np.ndarray, b: np.ndarray, y: np.ndarray) -> None:
    np.divide(a, b, out=y)
    np.trunc(y, out=y)


def _fmod(a: np.ndarray, b: np.ndarray, y: np.ndarray) -> None:
    np.fmod(a, b, out=y)


def _floor_mod(a: np.ndarray, b: np.ndarray, y: np.ndarray) -> None:
    """fmod, then + x2 where the remainder is nonzero and its sign differs from x2's (TensorFlow's FloorMod)."""
    np.fmod(a, b, out=y)
    np.add(y, b, out=y, where=(y != 0) & (np.signbit(y) != np.signbit(b)))


def _squared_difference(a: np.ndarray, b: np.ndarray, y: np.ndarray) -> None:
    np.subtract(a, b, out=y)
    np.multiply(y, y, out=y)


def _xlogy(a: np.ndarray, b: np.ndarray, y: np.ndarray) -> None:
    np.log(np.broadcast_to(b, y.shape), out=y)
    np.multiply(a, y, out=y)
    _where(y, a == 0, 0)


def _xdivy(a: np.ndarray, b: np.ndarray, y: np.ndarray) -> None:
    np.divide(a, b, out=y)
    _where(y, a == 0, 0)


# --- integers (their own dtype; b has no zeros: the caller substitutes 1 and fixes those elements) ---------------

def _int_truncate_div(a: np.ndarray, b: np.ndarray, y: np.ndarray) -> None:
    """Quotient rounded toward zero: the floor quotient, one higher where inexact and the signs differ."""
    np.floor_divide(a, b, out=y)
    if y.dtype.kind == "i":
        np.add(y, 1, out=y, where=(np.remainder(a, b) != 0) & ((a < 0) != (b < 0)), casting="unsafe")


def _int_floor_div(a: np.ndarray, b: np.ndarray, y: np.ndarray) -> None:
    np.floor_divide(a, b, out=y)


def _int_floor_mod(a: np.ndarray, b: np.ndarray, y: np.ndarray) -> None:
    np.remainder(a, b, out=y)


def _int_fmod(a: np.ndarray, b: np.ndarray, y: np.ndarray) -> None:
    np.fmod(a, b, out=y)


def _saturate(a: np.ndarray, y: np.ndarray, zero: np.ndarray) -> None:
    """Where the divisor is 0: the type's max for x1 > 0, min for x1 < 0, 0 for 0."""
    info = np.iinfo(y.dtype)
    _where(y, zero & (a > 0), info.max)
    _where(y, zero & (a < 0), info.min)
    _where(y, zero & (a == 0), 0)


def _to_x1(a: np.ndarray, y: np.ndarray, zero: np.ndarray) -> None:
    """Where the divisor is 0: x1."""
    np.copyto(y, np.broadcast_to(a, y.shape), where=np.broadcast_to(zero, y.shape))


def _to_zero(a: np.ndarray, y: np.ndarray, zero: np.ndarray) -> None:
    """Where the divisor is 0: 0."""
    _where(y, zero, 0)


ByZero = Callable[[np.ndarray, np.ndarray, np.ndarray], None]


def _mul_no_nan(a: np.ndarray, b: np.ndarray, y: np.ndarray) -> None:
    """x1 * x2, then 0 where x2 == 0 (which also covers x1 NaN or inf there)."""
    np.multiply(a, b, out=y)
    _where(y, b == 0, 0)


class _BinaryMath:
    """One broadcasting binary op: two inputs of one of its record's dtypes -> an output of that dtype."""

    def __init__(self, op_type: str, on_float: Into, on_int: Into | None = None,
                 by_zero: ByZero | None = None, on_complex: bool = False) -> None:
        self.op_type = op_type
        self.on_float = on_float
        self.on_int = on_int
        self.by_zero = by_zero
        self.on_complex = on_complex

    def compute(self, inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list[TensorInfo]) -> list[np.ndarray]:
        """The kernel's compute entry point."""
        call = OpCall(self.op_type, inputs, attrs)
        call.require_count(2)
        x1, x2 = call.input(0), call.input(1)
        call.require_simulated(0, x1.dtype)
        call.require_same_dtype((0, 1), [x1.dtype, x2.dtype])
        shape = broadcast(call, (0, 1), [tuple(x1.shape), tuple(x2.shape)])
        out = Outputs(call, outputs)
        out.require_dtype(0, x1.dtype, call.same_as(0))
        y = out.buffer(0, shape)
        with np.errstate(all="ignore"):
            if is_float(x1.dtype) or x1.dtype in COMPLEX:
                self._float(x1, x2, y)
            else:
                self._integer(x1, x2, y)
        return [out.emit(0, y)]

    def _float(self, x1: np.ndarray, x2: np.ndarray, y: np.ndarray) -> None:
        """In float32 rounded once into y for fp16/bf16; straight into y for float32/float64 and complex."""
        if y.dtype in OWN_TYPES:
            self.on_float(x1, x2, y)
            return
        wide = np.empty(y.shape, dtype=compute_dtype(y.dtype))
        self.on_float(widen(x1), widen(x2), wide)
        np.copyto(y, wide, casting="unsafe")

    def _integer(self, x1: np.ndarray, x2: np.ndarray, y: np.ndarray) -> None:
        """In the integer type itself; divisor zeros replaced by 1, then set by the op's rule."""
        assert self.on_int is not None, "integer dtypes are allowed only with an integer form"
        if self.by_zero is None:
            self.on_int(x1, x2, y)
            return
        zero = x2 == 0
        safe = np.where(zero, x2.dtype.type(1), x2) if zero.any() else x2
        self.on_int(x1, safe, y)
        if zero.any():
            self.by_zero(x1, y, zero)

    def infer_shape(self, inputs: list[TensorInfo], values: list[np.ndarray | None], attrs: dict[str, Any]) -> list[InferredShape]:
        """The kernel's infer_shape entry point."""
        call = OpCall(self.op_type, inputs, attrs)
        call.require_count(2)
        x1, x2 = call.input(0), call.input(1)
        call.require_same_dtype((0, 1), [x1.dtype, x2.dtype])
        return [inferred(x1.dtype, broadcast(call, (0, 1), [tuple(x1.shape), tuple(x2.shape)]))]

    def register(self) -> None:
        """Add this op to the built-in kernels."""
        builtin(self.op_type, self.compute, self.infer_shape)
        if not self.on_complex:
            not_simulated(self.op_type, 0, NOT_SIMULATED)


_OPS = (
    _BinaryMath("Atan2", _atan2),
    _BinaryMath("Div", _divide, _int_truncate_div, _saturate, on_complex=True),
    _BinaryMath("DivNoNan", _div_no_nan, _int_truncate_div, _to_zero),
    _BinaryMath("FloorDiv", _floor_div, _int_floor_div, _saturate),
    _BinaryMath("FloorMod", _floor_mod, _int_floor_mod, _to_x1),
    _BinaryMath("Mod", _fmod, _int_fmod, _to_x1),
    _BinaryMath("TruncateDiv", _truncate_div, _int_truncate_div, _saturate),
    _BinaryMath("TruncateMod", _fmod, _int_fmod, _to_x1),
    _BinaryMath("SquaredDifference", _squared_difference, _squared_difference),
    _BinaryMath("Xlogy", _xlogy),
    _BinaryMath("Xdivy", _xdivy),
    _BinaryMath("MulNoNan", _mul_no_nan, _mul_no_nan),
)
for _op in _OPS:
    _op.register()

#: The op types of this module (all broadcasting binary ops).
BINARY_MATH_OP_TYPES = tuple(op.op_type for op in _OPS)


# Several inputs (CANN's elewise_calculation_ops.h) ---------------------------------------------------------------
#: body(call, inputs): the op's result from the input arrays (any shape broadcasting to the output's).
Body = Callable[[OpCall, list[np.ndarray]], np.ndarray]
#: shape_of(call, shapes): the output shape from the input shapes, failing in one line when they do not fit.
ShapeOf = Callable[[OpCall, list[tuple[int, ...]]], tuple[int, ...]]


def _broadcast_all(call: OpCall, shapes: list[tuple[int, ...]]) -> tuple[int, ...]:
    """The broadcast of every input's shape."""
    return broadcast(call, range(len(shapes)), shapes)


def _one_value(index: int) -> ShapeOf:
    """The broadcast of the inputs but index, which must hold a single value."""
    def shape_of(call: OpCall, shapes: list[tuple[int, ...]]) -> tuple[int, ...]:
        if all(d >= 0 for d in shapes[index]) and int(np.prod(shapes[index], dtype=np.int64)) != 1:
            raise call.fail(f"input '{call.name(index)}' must hold one value, got shape {list(shapes[index])}")
        others = [i for i in range(len(shapes)) if i != index]
        return broadcast(call, others, [shapes[i] for i in others])
    return shape_of


def _same_shape(call: OpCall, shapes: list[tuple[int, ...]]) -> tuple[int, ...]:
    """The first input's shape, which every other input must have."""
    for index, shape in enumerate(shapes[1:], start=1):
        if tuple(shape) != tuple(shapes[0]) and all(d >= 0 for d in shape + shapes[0]):
            raise call.fail(f"input '{call.name(index)}' has shape {list(shape)}, expected {list(shapes[0])} (that "
                            f"of '{call.name(0)}')")
    return tuple(shapes[0])


def _checked(call: OpCall, inputs: Sequence[Any]) -> None:
    """Every input's dtype from its record's constraint, and one dtype among the given inputs sharing a constraint."""
    record = call.record
    groups: dict[str, list[int]] = {}
    for index, tensor in enumerate(record.inputs):
        if index < len(inputs) and inputs[index] is not None:
            groups.setdefault(tensor.types, []).append(index)
    for indices in groups.values():
        call.require_same_dtype(indices, [inputs[i].dtype for i in indices])


def several_inputs(op_type: str, body: Body, *, boolean: bool = False, shape_of: ShapeOf = _broadcast_all,
                   like: int = 0, fixed: np.dtype | None = None) -> tuple[Callable[..., Any], Callable[..., Any]]:
    """A kernel's compute and infer_shape (for the op's own module to register): the output (bool when boolean, the
    fixed dtype when given, else input like's dtype) is body's result in shape_of's shape of the given inputs' shapes;
    an absent optional input reaches body as None."""
    if boolean:
        fixed = BOOL

    def output_dtype(call: OpCall, tensors: list[Any]) -> tuple[Any, str]:
        if fixed is None:
            return tensors[like].dtype, call.same_as(like)
        return fixed, f"the record's {call.record.outputs[0].types}: {np.dtype(fixed).name}"

    def given(call: OpCall) -> list[Any]:
        call.require_inputs()
        return [call.optional(i) if tensor.kind == "optional" else call.input(i)
                for i, tensor in enumerate(call.record.inputs)]

    def shape(call: OpCall, tensors: list[Any]) -> tuple[int, ...]:
        return shape_of(call, [tuple(t.shape) for t in tensors if t is not None])

    def compute(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list[TensorInfo]) -> list[np.ndarray]:
        call = OpCall(op_type, inputs, attrs)
        arrays = given(call)
        for index, array in enumerate(arrays):
            if array is not None:
                call.require_simulated(index, array.dtype)
        _checked(call, arrays)
        result_shape = shape(call, arrays)
        out = Outputs(call, outputs)
        dtype = out.require_dtype(0, *output_dtype(call, arrays))
        with np.errstate(all="ignore"):
            result = body(call, arrays)
        y = out.buffer(0, result_shape)
        np.copyto(y, np.broadcast_to(result, result_shape), casting="unsafe")
        return [out.emit(0, y.astype(dtype, copy=False))]

    def infer_shape(inputs: list[TensorInfo], values: list[np.ndarray | None], attrs: dict[str, Any]) -> list[InferredShape]:
        call = OpCall(op_type, inputs, attrs)
        tensors = given(call)
        _checked(call, tensors)
        dtype = output_dtype(call, tensors)[0]
        return [inferred(dtype if fixed is None else acl_data_type(fixed), shape(call, tensors))]

    return compute, infer_shape


def _register_several(op_type: str, body: Body, **options: Any) -> None:
    """Add a kernel of this module made by several_inputs."""
    builtin(op_type, *several_inputs(op_type, body, **options))


def _steps(arrays: list[np.ndarray]) -> list[np.ndarray]:
    """The inputs cast to the first one's type, then in its compute type (float16 rounds once, when stored)."""
    return [widen(a.astype(arrays[0].dtype, copy=False)) for a in arrays]


def _in_float32(arrays: list[np.ndarray]) -> list[np.ndarray]:
    return [a.astype(FLOAT32) for a in arrays]


def _lerp(call: OpCall, arrays: list[np.ndarray]) -> np.ndarray:
    (start, end, weight) = _steps(arrays)
    return start + weight * (end - start)


def _xlog1py(call: OpCall, arrays: list[np.ndarray]) -> np.ndarray:
    x, y = _in_float32(arrays) if arrays[0].dtype == FLOAT16 else arrays
    return np.where(x == 0, x.dtype.type(0), x * np.log1p(y))


def _addcdiv(call: OpCall, arrays: list[np.ndarray]) -> np.ndarray:
    (data, x1, x2, value) = _steps(arrays)
    return data + (x1 / x2) * value


def _addcmul(call: OpCall, arrays: list[np.ndarray]) -> np.ndarray:
    (data, x1, x2, value) = _steps(arrays)
    return data + (x1 * x2) * value


def _axpy_v2(call: OpCall, arrays: list[np.ndarray]) -> np.ndarray:
    (x1, x2, alpha) = _steps(arrays)
    return x2 * alpha + x1


def _is_close(call: OpCall, arrays: list[np.ndarray]) -> np.ndarray:
    x1, x2 = _in_float32(arrays)
    rtol, atol = (np.float32(call.attr_float(name)) for name in ("rtol", "atol"))
    close = np.abs(x1 - x2) <= np.abs(x2 * rtol) + atol
    if call.attr_bool("equal_nan"):
        close |= np.isnan(x1) & np.isnan(x2)
    return close


def _approximate_equal(call: OpCall, arrays: list[np.ndarray]) -> np.ndarray:
    x1, x2 = _in_float32(arrays)
    return np.abs(x1 - x2) <= np.float32(call.attr_float("tolerance"))


def _masked_scale(call: OpCall, arrays: list[np.ndarray]) -> np.ndarray:
    x, mask = arrays
    if mask.dtype == np.int8:
        mask = mask.astype(FLOAT16)
    return (x.astype(FLOAT32) * mask.astype(FLOAT32)) * np.float32(call.attr_float("value"))


def _fused_mul_add_n(call: OpCall, arrays: list[np.ndarray]) -> np.ndarray:
    if arrays[0].dtype.kind in "iu":
        x1, x2, x3 = arrays
        return x1 * x3.reshape(()) + x2
    (x1, x2, x3) = _steps(arrays)
    return x2 + x1 * x3.reshape(())


_register_several("Lerp", _lerp)
_register_several("Xlog1py", _xlog1py)
_register_several("Addcdiv", _addcdiv)
not_simulated("Addcdiv", 0, (np.dtype(np.int64),))
_register_several("Addcmul", _addcmul)
_register_several("AxpyV2", _axpy_v2)
#: axpy_v2.py computes int32 in float32 (inexact beyond 2^24) and the header gives no integer rule: not simulated.
not_simulated("AxpyV2", 0, (np.dtype(np.int32),))
_register_several("IsClose", _is_close, boolean=True)
_register_several("ApproximateEqual", _approximate_equal, boolean=True)
_register_several("MaskedScale", _masked_scale, shape_of=_same_shape)
_register_several("FusedMulAddN", _fused_mul_add_n, shape_of=_one_value(2))


def _dot_shape(call: OpCall, shapes: list[tuple[int, ...]]) -> tuple[int, ...]:
    x, y = shapes
    if len(x) != 1 or len(y) != 1 or (x[0] >= 0 and y[0] >= 0 and x[0] != y[0]):
        raise call.fail(f"inputs '{call.name(0)}' and '{call.name(1)}' must be 1-D of one length, got shapes "
                        f"{list(x)} and {list(y)}")
    return (1,)


def _dot(call: OpCall, arrays: list[np.ndarray]) -> np.ndarray:
    x, y = arrays
    if x.dtype.kind in "iu":
        return np.sum(x * y, dtype=x.dtype).reshape(1)
    return vector_sum(x.astype(FLOAT32) * y.astype(FLOAT32), 0).reshape(1)


def _ger_shape(call: OpCall, shapes: list[tuple[int, ...]]) -> tuple[int, ...]:
    if len(shapes[0]) != 1 or len(shapes[1]) != 1:
        raise call.fail(f"inputs '{call.name(0)}' and '{call.name(1)}' must be 1-D, got shapes {list(shapes[0])} and "
                        f"{list(shapes[1])}")
    return (shapes[0][0], shapes[1][0])


_register_several("Dot", _dot, shape_of=_dot_shape)
_register_several("Ger", lambda call, arrays: np.multiply.outer(*_in_float32(arrays)), shape_of=_ger_shape)



def _add_mat_mat_elements(call: OpCall, arrays: list[np.ndarray]) -> np.ndarray:
    (c, a, b, beta, alpha) = _steps(arrays)
    return c * beta.reshape(()) + (a * b) * alpha.reshape(())


_register_several("AddMatMatElements", _add_mat_mat_elements)


def _cross(call: OpCall, arrays: list[np.ndarray]) -> np.ndarray:
    """The three components along dim: floats in their compute type, rounded once when stored; integers wrap."""
    x1, x2 = arrays if arrays[0].dtype.kind in "iu" else _steps(arrays)
    dim = _cross_dim(call, tuple(x1.shape))
    a = [np.take(x1, i, axis=dim) for i in range(3)]
    b = [np.take(x2, i, axis=dim) for i in range(3)]
    parts = [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
    return np.stack(parts, axis=dim)


def _cross_dim(call: OpCall, shape: tuple[int, ...]) -> int:
    """dim as an index of a dim of size 3; the default -65530 takes the first such dim."""
    dim = call.attr_int("dim")
    if dim == -65530:
        dim = next((i for i, d in enumerate(shape) if d == 3), -1)
        if dim < 0:
            raise call.fail(f"input '{call.name(0)}' of shape {list(shape)} has no dim of size 3 (attr 'dim' left at "
                            "its default)")
        return dim
    dim = call.axis("attr 'dim'", dim, len(shape))
    if shape[dim] not in (3, -1):
        raise call.fail(f"attr 'dim' is {call.attr_int('dim')}, but dim {dim} of '{call.name(0)}' {list(shape)} has "
                        f"size {shape[dim]}, expected 3")
    return dim


def _cross_shape(call: OpCall, shapes: list[tuple[int, ...]]) -> tuple[int, ...]:
    shape = _same_shape(call, shapes)
    if all(d >= 0 for d in shape):
        _cross_dim(call, shape)
    return shape


_register_several("Cross", _cross, shape_of=_cross_shape)


def _clip_by_norm_no_div_sum(call: OpCall, arrays: list[np.ndarray]) -> np.ndarray:
    """clip_by_norm_no_div_sum.py's steps in the tensors' type: greater, select, sqrt, select, maximum."""
    x, threshold, ones, norm = arrays
    above = x > threshold
    root = np.sqrt(np.where(above, x, ones))
    return np.maximum(np.where(above, root, x), norm)


_register_several("ClipByNormNoDivSum", _clip_by_norm_no_div_sum)
