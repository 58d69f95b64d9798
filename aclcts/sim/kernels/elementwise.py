"""Elementwise kernels: the binary ops with NumPy broadcasting (Add, Sub, Mul, RealDiv, Maximum, Minimum, Pow,
comparisons, LogicalAnd), AddN and AccumulateNV2 (the same sum; AccumulateNV2 broadcasts its inputs to the output
shape, as CANN's accumulate_nv2.py does), and the one-input ops of `pointwise` (Abs, Neg, Exp, Log, Sqrt, Rsqrt, Square,
Reciprocal), BiasAdd (x + bias along the feature dim data_format names: the last for NHWC and NDHWC, dim 1 for NCHW
and NCDHW) and BiasAddGrad (the sum over every other dim, float16 in float32; bias_add_grad.py's plain-format path
sums NCDHW like NHWC, which the suite does not follow: UNCONFIRMED, its cases use NHWC and NCHW), Caffe's Bias and
Scale (x + bias, x * scale + bias, the operands laid along x from axis; float16 in float32, rounded once).

Records: aclcts/core/prototypes/elementwise.py.
fp16/bf16 results are rounded to the storage type after the op (numerics.py); integers wrap. Arithmetic ops on
floats run as one NumPy ufunc (in float32 for fp16/bf16) written into the output's buffer.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from aclcts.core.dtypes import acl_data_type
from aclcts.sim.kernels.base import InferredShape, TensorInfo
from aclcts.sim.kernels.call import OpCall, Outputs
from aclcts.sim.kernels.numerics import BOOL, EXACT_FLOATS, Rounder, compute_dtype, is_float, rounder, widen
from aclcts.sim.kernels import pointwise
from aclcts.sim.kernels.registry import builtin, not_simulated
from aclcts.sim.kernels.binary_math import several_inputs
from aclcts.sim.kernels.shapes import UNKNOWN, UNKNOWN_RANK, broadcast, inferred, numel, unknown_rank

FloatFn = Callable[[np.ndarray, np.ndarray, Rounder], np.ndarray]
RawFn = Callable[[np.ndarray, np.ndarray], np.ndarray]


def _truncating_divide(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Integer division rounding toward zero (C semantics); a divisor of 0 gives 0 (simulator choice)."""
    safe = np.where(b == 0, 1, b).astype(b.dtype)
    quotient = np.floor_divide(a, safe)
    inexact = (np.remainder(a, safe) != 0) & ((a < 0) != (safe < 0))
    quotient = np.where(inexact, quotient + 1, quotient).astype(a.dtype)
    return np.where(b == 0, 0, quotient).astype(a.dtype)


def _integer_power(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Integer power with wrap-around; a negative exponent gives the truncated 1/a**|b| (0 unless |a| == 1), and
    0 to a negative power the type's maximum (a division by zero saturating, as integer RealDiv; UNCONFIRMED)."""
    a, b = np.broadcast_arrays(a, b)
    magnitude = np.power(a, np.where(b < 0, 0, b)).astype(a.dtype)
    odd = np.where(b % 2 != 0, -1, 1)
    reciprocal = np.where(a == 1, 1, np.where(a == -1, odd, np.where(a == 0, np.iinfo(a.dtype).max, 0))).astype(a.dtype)
    return np.where(b < 0, reciprocal, magnitude).astype(a.dtype)


class _Binary:
    """One broadcasting binary op: its float and integer/bool arithmetic (the record gives its dtypes)."""

    def __init__(
        self,
        op_type: str,
        on_float: FloatFn,
        on_raw: RawFn,
        *,
        boolean_result: bool = False,
        ufunc: np.ufunc | None = None,
    ) -> None:
        self.op_type = op_type
        self.ufunc = ufunc
        self.on_float = on_float
        self.on_raw = on_raw
        self.boolean_result = boolean_result

    def _check(self, call: OpCall, x1: Any, x2: Any) -> tuple[int, ...]:
        call.require_count(2)
        call.require_simulated(0, x1.dtype)
        call.require_same_dtype((0, 1), [x1.dtype, x2.dtype])
        return broadcast(call, (0, 1), [tuple(x1.shape), tuple(x2.shape)])

    def compute(self, inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list[TensorInfo]) -> list[np.ndarray]:
        """The kernel's compute entry point."""
        call = OpCall(self.op_type, inputs, attrs)
        x1, x2 = call.input(0), call.input(1)
        shape = self._check(call, x1, x2)
        out = Outputs(call, outputs)
        if self.boolean_result:
            out.require_dtype(0, BOOL, "a comparison gives bool")
        else:
            out.require_dtype(0, x1.dtype, call.same_as(0))
        with np.errstate(all="ignore"):
            if self.ufunc is not None and is_float(x1.dtype):
                return [out.emit(0, self._direct(x1, x2, out.buffer(0, shape)))]
            if is_float(x1.dtype):
                y = self.on_float(widen(x1), widen(x2), rounder(x1.dtype))
            else:
                y = self.on_raw(x1, x2)
        y = np.asarray(y)
        if not self.boolean_result:
            y = y.astype(x1.dtype, copy=False)
        return [out.emit(0, np.broadcast_to(y, shape))]

    def _direct(self, x1: np.ndarray, x2: np.ndarray, y: np.ndarray) -> np.ndarray:
        """The ufunc into y: straight for float32/float64, in float32 rounded once into y for fp16/bf16."""
        if x1.dtype in EXACT_FLOATS:
            return self.ufunc(x1, x2, out=y)
        wide = self.ufunc(widen(x1), widen(x2))
        np.copyto(y, wide, casting="unsafe")
        return y

    def infer_shape(self, inputs: list[TensorInfo], values: list[np.ndarray | None], attrs: dict[str, Any]) -> list[InferredShape]:
        """The kernel's infer_shape entry point."""
        call = OpCall(self.op_type, inputs, attrs)
        x1, x2 = call.input(0), call.input(1)
        call.require_count(2)
        shape = broadcast(call, (0, 1), [tuple(x1.shape), tuple(x2.shape)])
        dtype = acl_data_type(BOOL) if self.boolean_result else x1.dtype
        return [inferred(dtype, shape)]

    def register(self) -> None:
        """Add this op to the built-in kernels."""
        builtin(self.op_type, self.compute, self.infer_shape)
        not_simulated(self.op_type, 0, NOT_SIMULATED.get(self.op_type, ()))


_COMPLEX = (np.dtype(np.complex64), np.dtype(np.complex128))
#: The dtypes each op's record allows that the simulator does not implement (complex throughout; bool Sub/Mul;
#: int16 Pow; uint32/uint64 AddN).
NOT_SIMULATED: dict[str, tuple[np.dtype, ...]] = {
    "Add": _COMPLEX, "Sub": _COMPLEX + (BOOL,), "Mul": _COMPLEX + (BOOL,), "RealDiv": _COMPLEX,
    "Pow": _COMPLEX + (np.dtype(np.int16),), "Equal": _COMPLEX,
    "AddN": _COMPLEX + (np.dtype(np.uint32), np.dtype(np.uint64)),
}

_BINARY = (
    _Binary("Add", lambda a, b, r: r(a + b), lambda a, b: a | b if a.dtype == BOOL else a + b, ufunc=np.add),
    _Binary("Sub", lambda a, b, r: r(a - b), lambda a, b: a - b, ufunc=np.subtract),
    _Binary("Mul", lambda a, b, r: r(a * b), lambda a, b: a * b, ufunc=np.multiply),
    _Binary("RealDiv", lambda a, b, r: r(a / b), _truncating_divide, ufunc=np.true_divide),
    _Binary("Maximum", lambda a, b, r: r(np.maximum(a, b)), np.maximum, ufunc=np.maximum),
    _Binary("Minimum", lambda a, b, r: r(np.minimum(a, b)), np.minimum, ufunc=np.minimum),
    _Binary("Pow", lambda a, b, r: r(np.power(a, b)), _integer_power, ufunc=np.power),
    _Binary("Equal", lambda a, b, r: a == b, lambda a, b: a == b, boolean_result=True),
    _Binary("Less", lambda a, b, r: a < b, lambda a, b: a < b, boolean_result=True),
    _Binary("Greater", lambda a, b, r: a > b, lambda a, b: a > b, boolean_result=True),
    _Binary("LogicalAnd", lambda a, b, r: a & b, lambda a, b: a & b, boolean_result=True),
)
for _op in _BINARY:
    _op.register()

#: The broadcasting binary ops.
BINARY_OP_TYPES = tuple(op.op_type for op in _BINARY)


def _addn_tensors(call: OpCall) -> list[Any]:
    """The N inputs, their count checked against attr N and their dtypes against each other."""
    count = call.attr_int("N")
    if count < 1 or count != len(call.inputs):
        raise call.fail(f"attr 'N' is {count}, but {len(call.inputs)} dynamic inputs '{call.record.inputs[0].name}' were "
                        f"given (they must agree)")
    tensors = [call.input(i) for i in range(count)]
    call.require_same_dtype(range(count), [t.dtype for t in tensors])
    return tensors


def _addn_inputs(call: OpCall, broadcasting: bool) -> tuple[list[Any], tuple[int, ...]]:
    """The N inputs and the output shape: their common shape, or with broadcasting their broadcast."""
    tensors = _addn_tensors(call)
    if broadcasting:
        return tensors, broadcast(call, range(len(tensors)), [tuple(t.shape) for t in tensors])
    for i, tensor in enumerate(tensors[1:], start=1):
        if tuple(tensor.shape) != tuple(tensors[0].shape):
            raise call.fail(f"input '{call.name(i)}' has shape {list(tensor.shape)}, expected "
                            f"{list(tensors[0].shape)} (that of '{call.name(0)}')")
    return tensors, tuple(tensors[0].shape)


def _addn_shape(call: OpCall, tensors: list[Any]) -> tuple[int, ...]:
    """The one shape of AddN's inputs where some dims or ranks are unknown: a known dim of any input fixes that
    dim, [-2] inputs are left out, [-2] only if all are (CANN op_proto elewise_calculation_ops.cc, AddNInferShape)."""
    ranked = [(i, tuple(t.shape)) for i, t in enumerate(tensors) if not unknown_rank(tuple(t.shape))]
    if not ranked:
        return (UNKNOWN_RANK,)
    merged = list(ranked[0][1])
    for i, other in ranked[1:]:
        if len(other) != len(merged) or any(m >= 0 and d >= 0 and m != d for m, d in zip(merged, other)):
            raise call.fail(f"input '{call.name(i)}' has shape {list(other)}, which does not match {merged} (that of "
                            "the inputs before it, -1 for a dim they leave unknown)")
        merged = [d if d >= 0 else m for m, d in zip(merged, other)]
    return tuple(merged)


def _sum_of_inputs(op_type: str, broadcasting: bool = False) -> None:
    """Register an op summing its dynamic input x (AddN; AccumulateNV2, broadcasting): floats in their compute type,
    rounded once; integers in their own type, wrapping."""
    def compute(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list[TensorInfo]) -> list[np.ndarray]:
        call = OpCall(op_type, inputs, attrs)
        tensors, shape = _addn_inputs(call, broadcasting)
        call.require_simulated(0, tensors[0].dtype)
        out = Outputs(call, outputs)
        dtype = out.require_dtype(0, tensors[0].dtype, f"same as the inputs '{call.record.inputs[0].name}'")
        with np.errstate(all="ignore"):
            if is_float(dtype):
                total = widen(tensors[0])
                for tensor in tensors[1:]:
                    total = total + widen(tensor)
                total = rounder(dtype)(total)
            else:
                total = tensors[0].copy()
                for tensor in tensors[1:]:
                    total = (total + tensor).astype(dtype)
        return [out.emit(0, np.broadcast_to(total, shape).astype(dtype))]

    def infer_shape(inputs: list[TensorInfo], values: list[np.ndarray | None], attrs: dict[str, Any]) -> list[InferredShape]:
        call = OpCall(op_type, inputs, attrs)
        if broadcasting:
            tensors, shape = _addn_inputs(call, broadcasting)
            return [inferred(tensors[0].dtype, shape)]
        tensors = _addn_tensors(call)
        return [inferred(tensors[0].dtype, _addn_shape(call, tensors))]

    builtin(op_type, compute, infer_shape)
    not_simulated(op_type, 0, NOT_SIMULATED["AddN"])


_sum_of_inputs("AddN")
_sum_of_inputs("AccumulateNV2", broadcasting=True)

for _op_type in ("Abs", "Neg", "Exp", "Log", "Sqrt", "Rsqrt", "Square", "Reciprocal"):
    builtin(_op_type, *pointwise.kernel(_op_type))
    not_simulated(_op_type, 0, pointwise.unsimulated(_op_type))


def _feature_dim(call: OpCall, shape: tuple[int, ...]) -> int:
    """The feature dim data_format names: 1 for NCHW and NCDHW, the last for NHWC and NDHWC."""
    data_format = call.attr_str("data_format")
    if data_format not in ("NHWC", "NCHW", "NDHWC", "NCDHW"):
        raise call.fail(f"attr 'data_format' is {data_format!r}, expected one of NHWC, NCHW, NDHWC, NCDHW")
    if len(shape) < 2:
        raise call.fail(f"input '{call.name(0)}' {list(shape)} must have at least 2 dims")
    return 1 if data_format.startswith("NC") else len(shape) - 1


def _bias_add_shape(call: OpCall, shapes: list[tuple[int, ...]]) -> tuple[int, ...]:
    """x's shape; bias 1-D as long as x's feature dim (bias_add.py's checks)."""
    x, bias = shapes
    if unknown_rank(x):
        return x
    dim = _feature_dim(call, x)
    if len(bias) != 1 or (bias[0] >= 0 and x[dim] >= 0 and bias[0] != x[dim]):
        raise call.fail(f"input '{call.name(1)}' {list(bias)} must be 1-D as long as dim {dim} of '{call.name(0)}' "
                        f"{list(x)} (attr 'data_format' {call.attr_str('data_format')})")
    return x


def _bias_add(call: OpCall, arrays: list[np.ndarray]) -> np.ndarray:
    """x + bias along the feature dim, one add in x's type (float16 rounded once)."""
    x, bias = arrays
    dim = _feature_dim(call, tuple(x.shape))
    return x + bias.reshape([-1 if d == dim else 1 for d in range(x.ndim)])


def _bias_add_grad_shape(call: OpCall, shapes: list[tuple[int, ...]]) -> tuple[int, ...]:
    (x,) = shapes
    return (UNKNOWN,) if unknown_rank(x) else (x[_feature_dim(call, x)],)


def _bias_add_grad(call: OpCall, arrays: list[np.ndarray]) -> np.ndarray:
    """The sum over every dim but the feature dim: float16 in float32 (bias_add_grad.py casts first), integers in
    their own type (wrapping)."""
    (x,) = arrays
    dim = _feature_dim(call, tuple(x.shape))
    axes = tuple(d for d in range(x.ndim) if d != dim)
    return np.sum(widen(x), axis=axes, dtype=compute_dtype(x.dtype) if is_float(x.dtype) else x.dtype)


def _caffe_layout(call: OpCall, x: tuple[int, ...], operand: tuple[int, ...], index: int) -> tuple[int, ...]:
    """The shape operand (input index) broadcasts to along x as Caffe lays it: from axis, num_axes dims from blob
    (-1: the rest, 0: a single value), else all its own; the dims it covers must be x's (bias.py's checks)."""
    from_blob = call.attr_bool(call.record.attrs[2].name)
    axis, num_axes = call.attr_int("axis"), call.attr_int("num_axes")
    start = call.axis("attr 'axis'", axis, len(x))
    if from_blob and num_axes == 0:
        if numel(operand) != 1:
            raise call.fail(f"input '{call.name(index)}' {list(operand)} must hold one value (attr 'num_axes' 0)")
        return (1,) * len(x)
    if num_axes < -1:
        raise call.fail(f"attr 'num_axes' is {num_axes}, expected -1 or more")
    count = (len(x) - start if num_axes == -1 else num_axes) if from_blob else len(operand)
    covered = x[start:start + count]
    if start + count > len(x) or len(operand) != count or any(a != b for a, b in zip(operand, covered) if a >= 0 and b >= 0):
        raise call.fail(f"input '{call.name(index)}' {list(operand)} must be the dims {list(covered)} of "
                        f"'{call.name(0)}' {list(x)} from attr 'axis' {axis} (attr 'num_axes' {num_axes})")
    return (1,) * start + tuple(operand) + (1,) * (len(x) - start - count)


def _caffe_shape(call: OpCall, shapes: list[tuple[int, ...]]) -> tuple[int, ...]:
    """x's shape, each other given input laid along it."""
    x = shapes[0]
    if not unknown_rank(x):
        for index, operand in enumerate(shapes[1:], start=1):
            _caffe_layout(call, x, operand, index)
    return x


def _bias(call: OpCall, arrays: list[np.ndarray]) -> np.ndarray:
    x, bias = (widen(a) for a in arrays)
    return x + bias.reshape(_caffe_layout(call, x.shape, bias.shape, 1))


def _scale(call: OpCall, arrays: list[np.ndarray]) -> np.ndarray:
    """x * scale (+ bias), in float32 for float16, rounded once."""
    x, scale = widen(arrays[0]), widen(arrays[1])
    y = x * scale.reshape(_caffe_layout(call, x.shape, scale.shape, 1))
    if arrays[2] is not None:
        bias = widen(arrays[2])
        y = y + bias.reshape(_caffe_layout(call, x.shape, bias.shape, 2))
    return y


builtin("Bias", *several_inputs("Bias", _bias, shape_of=_caffe_shape))
builtin("Scale", *several_inputs("Scale", _scale, shape_of=_caffe_shape))

for _op_type, _body, _shape_of in (("BiasAdd", _bias_add, _bias_add_shape),
                                   ("BiasAddGrad", _bias_add_grad, _bias_add_grad_shape)):
    builtin(_op_type, *several_inputs(_op_type, _body, shape_of=_shape_of))
    not_simulated(_op_type, 0, _COMPLEX)
