"""Matrix-unit ops: MatMul, MatMulV2, BatchMatMul, BatchMatMulV2 and GEMM.

Records: aclcts/core/prototypes/matmul.py (sources there). Batch dims broadcast; GEMM is
y = alpha * op(a) @ op(b) + beta * c, with the dtype triples and the alpha/beta-of-c's-dtype rule of
acl.blas.gemm_ex (docs/contract/handles-blas-cast.md#the-gemm-op).
Numerics (numerics.batched_matmul): fp16/bf16 accumulate in fp32 (BLAS's blocked order, or sequentially over K
with the setting matmul_accumulation=sequential), int8 in int32; a bias is added in the accumulator; the result is rounded once to the output type. GEMM's alpha/beta epilogue runs in the
accumulator type (fp32, or int32 with wrap for int8 a/b with an int32 c), then rounds once, as in the official
GEMM sample's golden fp16(alpha * (fp32(A) @ fp32(B)) + beta * C). Only the ND layout is simulated.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from aclcts.core.dtypes import acl_data_type
from aclcts.sim.kernels.base import InferredShape, TensorInfo
from aclcts.sim.kernels.call import OpCall, Outputs, dtype_name
from aclcts.sim.kernels.numerics import BFLOAT16, FLOAT16, FLOAT32, batched_matmul
from aclcts.sim.kernels.registry import builtin
from aclcts.sim.kernels.shapes import broadcast, inferred

INT8 = np.dtype(np.int8)
INT32 = np.dtype(np.int32)

# input dtype -> output dtypes a caller may ask for
_OUTPUTS = {FLOAT16: (FLOAT16, FLOAT32), BFLOAT16: (BFLOAT16, FLOAT32), FLOAT32: (FLOAT32,), INT32: (INT32,)}
_OUTPUTS_V2 = {**_OUTPUTS, INT8: (INT32,)}
_BIAS = {FLOAT16: (FLOAT16, FLOAT32), BFLOAT16: (BFLOAT16, FLOAT32), FLOAT32: (FLOAT32,), INT32: (INT32,), INT8: (INT32,)}


@dataclass(frozen=True)
class _Spec:
    """How one matmul-family op names its inputs and attributes."""

    op_type: str
    transpose_attrs: tuple[str, str]
    batched: bool
    has_bias: bool
    has_offset: bool

    @property
    def outputs(self) -> dict[np.dtype, tuple[np.dtype, ...]]:
        return _OUTPUTS_V2 if self.has_offset else _OUTPUTS


def _dims(call: OpCall, spec: _Spec, x1: tuple[int, ...], x2: tuple[int, ...]) -> tuple[tuple[int, ...], int, int]:
    """Batch dims, M and N of the product (K checked), from input shapes and the transpose attributes."""
    t1 = call.attr_bool(spec.transpose_attrs[0])
    t2 = call.attr_bool(spec.transpose_attrs[1])
    for index, shape in enumerate((x1, x2)):
        if spec.batched and len(shape) < 2 or not spec.batched and len(shape) != 2:
            expected = "at least 2-D" if spec.batched else "2-D"
            raise call.fail(f"input {call.quoted(index)} must be {expected}, got shape {list(shape)}")
    m, k1 = (x1[-1], x1[-2]) if t1 else (x1[-2], x1[-1])
    k2, n = (x2[-1], x2[-2]) if t2 else (x2[-2], x2[-1])
    if k1 >= 0 and k2 >= 0 and k1 != k2:
        raise call.fail(
            f"inner dimensions differ: {call.name(0)} {list(x1)} ({spec.transpose_attrs[0]}={t1}) gives K={k1}, "
            f"{call.name(1)} {list(x2)} ({spec.transpose_attrs[1]}={t2}) gives K={k2}"
        )
    batch: tuple[int, ...] = ()
    if spec.batched:
        batch = broadcast(call, [f"{call.name(i)} batch dims" for i in (0, 1)], [x1[:-2], x2[:-2]])
    return batch, m, n


def _oriented(x: np.ndarray, transpose: bool) -> np.ndarray:
    return np.swapaxes(x, -1, -2) if transpose else x


def _rounded(acc: np.ndarray, out: Outputs, shape: tuple[int, ...]) -> np.ndarray:
    """The accumulator rounded once to output y's dtype, written into y's buffer."""
    if acc.dtype == out.dtype(0):
        return acc.reshape(shape)
    y = out.buffer(0, shape)
    np.copyto(y, acc.reshape(shape), casting="unsafe")
    return y


def _matmul_kernel(spec: _Spec) -> None:
    def compute(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list[TensorInfo]) -> list[np.ndarray]:
        call = OpCall(spec.op_type, inputs, attrs)
        call.require_inputs()
        x1, x2 = call.input(0), call.input(1)
        call.require_dtype(0, x1.dtype)
        call.require_same_dtype([0, 1], [x1.dtype, x2.dtype])
        batch, m, n = _dims(call, spec, tuple(x1.shape), tuple(x2.shape))
        if spec.has_offset:
            if call.optional(3) is not None:
                raise call.fail(f"optional input {call.quoted(3)} is not supported by the simulator (pass it as absent)")
            if call.attr_int("offset_x") != 0:
                raise call.fail("attr 'offset_x' must be 0 (quantization offsets are not simulated)")
        out = Outputs(call, outputs)
        y_dtype = out.dtype(0)
        if y_dtype not in spec.outputs[x1.dtype]:
            allowed = ", ".join(dtype_name(d) for d in spec.outputs[x1.dtype])
            raise call.fail(f"output '{out.names[0]}' has dtype {dtype_name(y_dtype)}, expected {allowed} for {dtype_name(x1.dtype)} inputs")
        t1 = call.attr_bool(spec.transpose_attrs[0])
        t2 = call.attr_bool(spec.transpose_attrs[1])
        with np.errstate(all="ignore"):
            acc = batched_matmul(_oriented(x1, t1), _oriented(x2, t2))
            bias = call.optional(2) if spec.has_bias else None
            if bias is not None:
                call.require_dtype(2, bias.dtype, _BIAS[x1.dtype])
                if bias.ndim != 1 or bias.shape[0] != n:
                    raise call.fail(f"input {call.quoted(2)} must have shape [{n}] (N), got {list(bias.shape)}")
                np.add(acc, bias.astype(acc.dtype), out=acc)
            y = _rounded(acc, out, batch + (m, n))
        return [out.emit(0, y)]

    def infer_shape(inputs: list[TensorInfo], values: list[np.ndarray | None], attrs: dict[str, Any]) -> list[InferredShape]:
        call = OpCall(spec.op_type, inputs, attrs)
        call.require_inputs()
        x1, x2 = call.input(0), call.input(1)
        batch, m, n = _dims(call, spec, tuple(x1.shape), tuple(x2.shape))
        dtype = acl_data_type(INT32) if x1.dtype == acl_data_type(INT8) else x1.dtype
        return [inferred(dtype, batch + (m, n))]

    builtin(spec.op_type, compute, infer_shape)


for _spec in (
    _Spec("MatMul", ("transpose_x1", "transpose_x2"), batched=False, has_bias=True, has_offset=False),
    _Spec("MatMulV2", ("transpose_x1", "transpose_x2"), batched=False, has_bias=True, has_offset=True),
    _Spec("BatchMatMul", ("adj_x1", "adj_x2"), batched=True, has_bias=True, has_offset=False),
    _Spec("BatchMatMulV2", ("adj_x1", "adj_x2"), batched=True, has_bias=True, has_offset=True),
):
    _matmul_kernel(_spec)


# (a/b dtype, c dtype) pairs of acl.blas.gemm_ex
_GEMM_TYPES = {(FLOAT16, FLOAT16), (FLOAT16, FLOAT32), (INT8, FLOAT32), (INT8, INT32)}
_GEMM_SPEC = _Spec("GEMM", ("transpose_a", "transpose_b"), batched=False, has_bias=False, has_offset=False)


def _gemm_shapes(call: OpCall, a: Any, b: Any, c: Any) -> tuple[int, int]:
    for index, tensor in enumerate((a, b, c)):
        if len(tensor.shape) != 2:
            raise call.fail(f"input {call.quoted(index)} must be 2-D (ND layout), got shape {list(tensor.shape)}")
    _, m, n = _dims(call, _GEMM_SPEC, tuple(a.shape), tuple(b.shape))
    if tuple(c.shape) != (m, n) and all(d >= 0 for d in (m, n)):
        raise call.fail(f"input {call.quoted(2)} must have shape [{m}, {n}] (M, N), got {list(c.shape)}")
    return m, n


def _gemm_compute(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list[TensorInfo]) -> list[np.ndarray]:
    call = OpCall("GEMM", inputs, attrs)
    call.require_inputs()
    a, b, c, alpha, beta = (call.input(i) for i in range(5))
    call.require_same_dtype([0, 1], [a.dtype, b.dtype])
    if (a.dtype, c.dtype) not in _GEMM_TYPES:
        pairs = "; ".join(f"{dtype_name(x)}/{dtype_name(y)}" for x, y in sorted(_GEMM_TYPES, key=str))
        a_b, c_name = f"{call.name(0)}/{call.name(1)}", call.name(2)
        raise call.fail(f"{a_b} dtype {dtype_name(a.dtype)} with {c_name} dtype {dtype_name(c.dtype)} is not supported "
                        f"({call.name(0)}/{c_name}: {pairs})")
    for index, scalar in ((3, alpha), (4, beta)):
        call.require_same_dtype([2, index], [c.dtype, scalar.dtype])
        if scalar.size != 1:
            raise call.fail(f"input {call.quoted(index)} must hold one value (shape [] or [1]), got shape {list(scalar.shape)}")
    _gemm_shapes(call, a, b, c)
    out = Outputs(call, outputs)
    out.require_input_dtype(0, 2, c.dtype)
    with np.errstate(all="ignore"):
        acc = batched_matmul(
            _oriented(a, call.attr_bool("transpose_a")), _oriented(b, call.attr_bool("transpose_b"))
        )
        epilogue = INT32 if c.dtype == INT32 else FLOAT32
        scaled = acc.astype(epilogue, copy=False)
        np.multiply(scaled, alpha.reshape(()).astype(epilogue), out=scaled)
        np.add(scaled, beta.reshape(()).astype(epilogue) * c.astype(epilogue), out=scaled)
        y = _rounded(scaled, out, scaled.shape)
    return [out.emit(0, y)]


def _gemm_infer(inputs: list[TensorInfo], values: list[np.ndarray | None], attrs: dict[str, Any]) -> list[InferredShape]:
    call = OpCall("GEMM", inputs, attrs)
    call.require_inputs()
    a, b, c = call.input(0), call.input(1), call.input(2)
    m, n = _gemm_shapes(call, a, b, c)
    return [inferred(c.dtype, (m, n))]


builtin("GEMM", _gemm_compute, _gemm_infer)
