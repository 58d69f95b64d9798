"""Batch-normalisation steps: BNTrainingReduce, BNTrainingUpdate(V2, V3), BNTrainingUpdateGrad, BNTrainingReduceGrad,
BNInfer, BNInferGrad, BN3DTrainingReduce and BN3DTrainingUpdate.

Prototypes: aclcts/core/prototypes/batch_norm.py. The kernels compute on the origin layout (the runtime reads NC1HWC0
and NDC1HWC0 tensors into NCHW and NCDHW, aclcts.sim.layouts): x is [N, C, ...], each per-channel tensor holds C
float32 values. Numerics follow CANN's TBE implementations (ops/built-in/tbe/impl/bn_*.py): float16 x is widened to
float32; the statistics are sum * (1/n) and square sum * (1/n) - mean^2; y is x * multiplier + addend with
multiplier = scale / sqrt(variance + epsilon) and addend = offset - multiplier * mean; sums run in the vector unit's
lane order (numerics.vector_sum_over).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from aclcts.core.dtypes import acl_data_type
from aclcts.sim.kernels.base import InferredShape, TensorInfo
from aclcts.sim.kernels.call import OpCall, Outputs
from aclcts.sim.kernels.numerics import FLOAT32, vector_sum_over
from aclcts.sim.kernels.registry import builtin
from aclcts.sim.kernels.shapes import inferred, unknown_rank
from aclcts.sim.seams import Seam

#: What a kernel computes from x (float32, [N, C, ...]), the per-channel inputs (float32, [1, C, 1, ...]), n and the
#: call: its outputs, in the record's order.
Compute = Callable[[np.ndarray, list[np.ndarray], int, OpCall], list[np.ndarray]]
F32 = FLOAT32.type


def _unbiased_scale(n: int) -> float:
    """The factor taking a biased variance of n elements to the unbiased one: n / (n - 1), 0 for one element."""
    return n / (n - 1) if n > 1 else 0.0


#: What the moving variance (and BNTrainingUpdateV3's batch variance) multiplies the biased batch variance by.
unbiased_scale = Seam("batch norm unbiased variance scale", _unbiased_scale)


def _channel_axes(rank: int) -> tuple[int, ...]:
    return tuple(a for a in range(rank) if a != 1)


def _channel_shape(call: OpCall, shape: tuple[int, ...]) -> tuple[int, ...]:
    if len(shape) < 2:
        raise call.fail(f"input {call.quoted(0)} {list(shape)} must have a channel axis (rank 2 or more, C at axis 1)")
    return tuple(d if i == 1 else 1 for i, d in enumerate(shape))


def _per_channel(call: OpCall, index: int, value: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    call.require_dtype(index, value.dtype)
    if value.size != shape[1]:
        raise call.fail(f"input {call.quoted(index)} {list(value.shape)} must hold one value per channel of "
                        f"{call.quoted(0)} ({shape[1]})")
    return value.reshape(shape)


def _kernel(op_type: str, batch_inputs: int, batch_outputs: int, compute: Compute) -> None:
    """Register op_type: its first batch_inputs inputs and batch_outputs outputs have x's shape and dtype (x the first
    input), every other tensor is per-channel float32."""

    def run(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list[TensorInfo]) -> list[np.ndarray]:
        call = OpCall(op_type, inputs, attrs)
        call.require_inputs()
        x = call.input(0)
        call.require_dtype(0, x.dtype)
        call.require_same_dtype(tuple(range(batch_inputs)), [call.input(i).dtype for i in range(batch_inputs)])
        channel = _channel_shape(call, x.shape)
        for index in range(1, batch_inputs):
            if call.input(index).shape != x.shape:
                raise call.fail(f"input {call.quoted(index)} {list(call.input(index).shape)} must have the shape of "
                                f"{call.quoted(0)} {list(x.shape)}")
        batch = [call.input(i).astype(FLOAT32) for i in range(batch_inputs)]
        stats = [_per_channel(call, i, call.input(i), channel) for i in range(batch_inputs, len(call.inputs))]
        out = Outputs(call, outputs)
        for index in range(len(outputs)):
            if index < batch_outputs:
                out.require_dtype(index, x.dtype, call.same_as(0))
            else:
                out.require_dtype(index, FLOAT32, "always float32")
        n = x.size // x.shape[1] if x.shape[1] else 0
        with np.errstate(all="ignore"):
            results = compute(batch[0], batch[1:] + stats, n, call)
        return [out.emit(i, r.astype(x.dtype if i < batch_outputs else FLOAT32)) for i, r in enumerate(results)]

    def infer(inputs: list[TensorInfo], values: list[np.ndarray | None], attrs: dict[str, Any]) -> list[InferredShape]:
        call = OpCall(op_type, inputs, attrs)
        call.require_inputs()
        x = call.input(0)
        shape = tuple(x.shape)
        channel = shape if unknown_rank(shape) else _channel_shape(call, shape)
        count = len(call.record.outputs) if call.record else 0
        return [inferred(x.dtype, shape) if i < batch_outputs else inferred(acl_data_type(FLOAT32), channel)
                for i in range(count)]

    builtin(op_type, run, infer)


def _moments(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    axes = _channel_axes(x.ndim)
    return vector_sum_over(x, axes), vector_sum_over(x * x, axes)


def _reduce(x: np.ndarray, stats: list[np.ndarray], n: int, call: OpCall) -> list[np.ndarray]:
    return list(_moments(x))


def _affine(x: np.ndarray, scale: np.ndarray, offset: np.ndarray, mean: np.ndarray, variance: np.ndarray,
            epsilon: float) -> np.ndarray:
    """x * multiplier + addend, multiplier = scale / sqrt(variance + epsilon), addend = offset - multiplier * mean."""
    multiplier = scale / np.sqrt(variance + F32(epsilon))
    return x * multiplier + (offset - multiplier * mean)


def _batch_statistics(total: np.ndarray, squares: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """(mean, biased variance) as sum * (1/n) and square sum * (1/n) - mean^2."""
    reciprocal = F32(1.0 / n) if n else F32(np.inf)
    mean = total * reciprocal
    return mean, squares * reciprocal - mean * mean


def _update_core(x: np.ndarray, stats: list[np.ndarray], n: int, call: OpCall) -> tuple[np.ndarray, ...]:
    """(y, batch mean, biased batch variance) from x, the sum, the square sum, scale and offset."""
    total, squares, scale, offset = stats[:4]
    mean, variance = _batch_statistics(total, squares, n)
    return _affine(x, scale, offset, mean, variance, call.attr_float("epsilon")), mean, variance


def _update(x: np.ndarray, stats: list[np.ndarray], n: int, call: OpCall) -> list[np.ndarray]:
    y, mean, variance = _update_core(x, stats, n, call)
    old_mean, old_variance = stats[4:6]
    factor = F32(call.attr_float("factor"))
    keep = F32(1.0) - factor
    moving_mean = mean * factor + old_mean * keep
    moving_variance = variance * F32(unbiased_scale(n)) * factor + old_variance * keep
    return [y, moving_mean, moving_variance, mean, variance]


def _update_v2(x: np.ndarray, stats: list[np.ndarray], n: int, call: OpCall) -> list[np.ndarray]:
    return list(_update_core(x, stats, n, call))


def _update_v3(x: np.ndarray, stats: list[np.ndarray], n: int, call: OpCall) -> list[np.ndarray]:
    y, mean, variance = _update_core(x, stats, n, call)
    return [y, mean, variance * F32(unbiased_scale(n)), mean, variance]


def _rstd(variance: np.ndarray, call: OpCall) -> np.ndarray:
    """1 / sqrt(variance + epsilon)."""
    return F32(1.0) / np.sqrt(variance + F32(call.attr_float("epsilon")))


def _update_grad(grads: np.ndarray, stats: list[np.ndarray], n: int, call: OpCall) -> list[np.ndarray]:
    x, mean, variance = stats[:3]
    x_norm = (x - mean) * _rstd(variance, call)
    axes = _channel_axes(grads.ndim)
    return [vector_sum_over(grads * x_norm, axes), vector_sum_over(grads, axes)]


def _reduce_grad(grads: np.ndarray, stats: list[np.ndarray], n: int, call: OpCall) -> list[np.ndarray]:
    x, gamma_grad, beta_grad, scale, mean, variance = stats[:6]
    root = np.sqrt(variance + F32(call.attr_float("epsilon")))
    per_n = gamma_grad * F32(1.0 / n)
    multiplier = -per_n / root
    addend = mean / root * per_n - beta_grad * F32(1.0 / n)
    return [(grads + x * multiplier + addend) * (scale / root)]


def _infer(x: np.ndarray, stats: list[np.ndarray], n: int, call: OpCall) -> list[np.ndarray]:
    scale, offset, mean, variance = stats[:4]
    return [_affine(x, scale, offset, mean, variance, call.attr_float("epsilon"))]


def _infer_grad(grads: np.ndarray, stats: list[np.ndarray], n: int, call: OpCall) -> list[np.ndarray]:
    scale, variance = stats[:2]
    return [grads * (scale * _rstd(variance, call))]


_kernel("BNTrainingReduce", 1, 0, _reduce)
_kernel("BNTrainingUpdate", 1, 1, _update)
_kernel("BNTrainingUpdateV2", 1, 1, _update_v2)
_kernel("BNTrainingUpdateV3", 1, 1, _update_v3)
_kernel("BNTrainingUpdateGrad", 2, 0, _update_grad)
_kernel("BNTrainingReduceGrad", 2, 1, _reduce_grad)
_kernel("BNInfer", 1, 1, _infer)
_kernel("BNInferGrad", 1, 1, _infer_grad)
_kernel("BN3DTrainingReduce", 1, 0, _reduce)
_kernel("BN3DTrainingUpdate", 1, 1, _update)
