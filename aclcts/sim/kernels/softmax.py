"""SoftmaxV2 and LogSoftmaxV2: exp(x - max) / sum(exp(x - max)) and (x - max) - log(sum(exp(x - max))) over axes;
their gradients SoftmaxGrad, LogSoftmaxGrad and SoftmaxGradExt.

Records: aclcts/core/prototypes/softmax.py (with half_to_float set, an fp16 input gives an fp32 output).
Numerics: fp16/bf16 inputs are widened to fp32 and the whole (log-)softmax runs in fp32 with the maximum subtracted
first (the sum in the pairwise tree order of numerics.tree_sum), rounding once to the output type; double runs in
double. LogSoftmaxV2 follows the ops-nn golden's order: (x - max) - log(sum(exp(x - max))).
SoftmaxGrad and LogSoftmaxGrad widen float16 to float32 and round once at the end (tbe/impl/softmax_grad.py:
softmax * (grad - sum(softmax * grad)); log_softmax_grad.py: grad - exp(x) * sum(grad)). SoftmaxGradExt computes in
the input type, only its sum in float32 (tbe/impl/softmax_grad_ext.py: grad * x1 rounded, the sum rounded back, the
difference times the rounded x1 * x2).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from aclcts.core.dtypes import acl_data_type
from aclcts.sim.kernels.base import InferredShape, TensorInfo
from aclcts.sim.kernels.call import OpCall, Outputs
from aclcts.sim.kernels.numerics import FLOAT16, FLOAT32, tree_sum, widen
from aclcts.sim.kernels.registry import builtin
from aclcts.sim.kernels.shapes import broadcast, inferred, like_input, unknown_rank


def _axes(call: OpCall, rank: int) -> list[int]:
    axes = call.attr_list_int("axes")
    if not axes:
        raise call.fail("attr 'axes' must name at least one dimension")
    return sorted({call.axis("attr 'axes' value", a, rank) for a in axes})


def _output_dtype(call: OpCall, dtype: np.dtype) -> np.dtype:
    return FLOAT32 if call.attr_bool("half_to_float") and dtype == FLOAT16 else dtype


def over_axes(x: np.ndarray, axes: list[int], rows: Callable[[np.ndarray], np.ndarray], dtype: np.dtype) -> np.ndarray:
    """rows(flat) on x in its compute type with the axes moved last and flattened into one, in x's layout, as dtype."""
    return over_axes_of((x,), axes, rows, dtype)


def over_axes_of(xs: tuple[np.ndarray, ...], axes: list[int], rows: Callable[..., np.ndarray],
                 dtype: np.dtype) -> np.ndarray:
    """rows(*flats) on same-shaped arrays in their compute type, the axes moved last and flattened into one; the
    result in the arrays' layout, as dtype."""
    shape = xs[0].shape
    kept = [i for i in range(len(shape)) if i not in axes]
    moved = [np.transpose(widen(x), kept + axes) for x in xs]
    count = int(np.prod([shape[a] for a in axes], dtype=np.int64))
    flats = [m.reshape(tuple(shape[i] for i in kept) + (count,)) for m in moved]
    with np.errstate(all="ignore"):
        y = rows(*flats) if count else flats[0]
        return y.reshape(moved[0].shape).transpose(np.argsort(kept + axes)).astype(dtype)


def _softmax_rows(flat: np.ndarray) -> np.ndarray:
    exps = np.exp(flat - np.max(flat, axis=-1, keepdims=True))
    return exps / tree_sum(exps, -1)[..., None]


def _log_softmax_rows(flat: np.ndarray) -> np.ndarray:
    shifted = flat - np.max(flat, axis=-1, keepdims=True)
    return shifted - np.log(tree_sum(np.exp(shifted), -1))[..., None]


def _compute(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list[TensorInfo]) -> list[np.ndarray]:
    call = OpCall("SoftmaxV2", inputs, attrs)
    call.require_count(1)
    x = call.input(0)
    call.require_dtype(0, x.dtype)
    axes = _axes(call, x.ndim)
    out = Outputs(call, outputs)
    y_dtype = out.require_dtype(0, _output_dtype(call, x.dtype), f"the dtype of '{call.name(0)}', or float32 with half_to_float")
    return [out.emit(0, over_axes(x, axes, _softmax_rows, y_dtype))]


def _infer(inputs: list[TensorInfo], values: list[np.ndarray | None], attrs: dict[str, Any]) -> list[InferredShape]:
    call = OpCall("SoftmaxV2", inputs, attrs)
    call.require_count(1)
    x = call.input(0)
    if not unknown_rank(tuple(x.shape)):
        _axes(call, len(x.shape))
    half = x.dtype == acl_data_type(FLOAT16) and call.attr_bool("half_to_float")
    return [inferred(acl_data_type(FLOAT32) if half else x.dtype, x.shape)]


def _log_compute(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list[TensorInfo]) -> list[np.ndarray]:
    call = OpCall("LogSoftmaxV2", inputs, attrs)
    call.require_count(1)
    logits = call.input(0)
    call.require_dtype(0, logits.dtype)
    axes = _axes(call, logits.ndim)
    out = Outputs(call, outputs)
    dtype = out.require_dtype(0, logits.dtype, f"the dtype of '{call.name(0)}'")
    return [out.emit(0, over_axes(logits, axes, _log_softmax_rows, dtype))]


def _log_infer(inputs: list[TensorInfo], values: list[np.ndarray | None], attrs: dict[str, Any]) -> list[InferredShape]:
    call = OpCall("LogSoftmaxV2", inputs, attrs)
    call.require_count(1)
    logits = call.input(0)
    if not unknown_rank(tuple(logits.shape)):
        _axes(call, len(logits.shape))
    return [inferred(logits.dtype, logits.shape)]


def _softmax_grad_rows(y: np.ndarray, dy: np.ndarray) -> np.ndarray:
    return y * (dy - tree_sum(y * dy, -1)[..., None])


def _log_softmax_grad_rows(dy: np.ndarray, x: np.ndarray) -> np.ndarray:
    return dy - np.exp(x) * tree_sum(dy, -1)[..., None]


def _paired(op_type: str, axes_attr: str, rows: Callable[..., np.ndarray]) -> Callable[..., list[np.ndarray]]:
    """The compute of a gradient op of two same-shaped, same-typed inputs reduced over the list attribute axes_attr."""

    def compute(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list[TensorInfo]) -> list[np.ndarray]:
        call = OpCall(op_type, inputs, attrs)
        call.require_count(2)
        a, b = call.input(0), call.input(1)
        call.require_dtype(0, a.dtype)
        call.require_same_dtype([0, 1], [a.dtype, b.dtype])
        if a.shape != b.shape:
            raise call.fail(f"{call.quoted(1)} must have the shape of {call.quoted(0)} {list(a.shape)}, got "
                            f"{list(b.shape)}")
        axes = _axes_of(call, axes_attr, a.ndim)
        out = Outputs(call, outputs)
        dtype = out.require_input_dtype(0, 0, a.dtype)
        return [out.emit(0, over_axes_of((a, b), axes, rows, dtype))]

    return compute


def _axes_of(call: OpCall, name: str, rank: int) -> list[int]:
    axes = call.attr_list_int(name)
    if not axes:
        raise call.fail(f"attr '{name}' must name at least one dimension")
    return sorted({call.axis(f"attr '{name}' value", a, rank) for a in axes})


def _grad_ext_compute(inputs: list[np.ndarray | None], attrs: dict[str, Any],
                      outputs: list[TensorInfo]) -> list[np.ndarray]:
    call = OpCall("SoftmaxGradExt", inputs, attrs)
    call.require_count(3)
    grad, x1, x2 = call.input(0), call.input(1), call.input(2)
    call.require_dtype(0, grad.dtype)
    call.require_same_dtype([0, 1, 2], [grad.dtype, x1.dtype, x2.dtype])
    axis = call.axis("attr 'axes'", call.attr_int("axes"), grad.ndim)
    keep = call.attr_bool("keep_dims")
    reduced = grad.shape[:axis] + ((1,) if keep else ()) + grad.shape[axis + 1:]
    try:
        shape = np.broadcast_shapes(grad.shape, x1.shape, x2.shape, reduced)
    except ValueError:
        raise call.fail(f"{call.quoted(0)} {list(grad.shape)}, {call.quoted(1)} {list(x1.shape)}, {call.quoted(2)} "
                        f"{list(x2.shape)} and the sum over axis {axis} {list(reduced)} do not broadcast") from None
    out = Outputs(call, outputs)
    dtype = out.require_input_dtype(0, 0, grad.dtype)
    with np.errstate(all="ignore"):
        product = np.broadcast_to(grad * x1, np.broadcast_shapes(grad.shape, x1.shape))
        total = tree_sum(widen(product), axis)
        total = (total[(slice(None),) * axis + (None,)] if keep else total).astype(dtype)
        y = (grad - total) * (x1 * x2)
    return [out.emit(0, np.broadcast_to(y, shape).astype(dtype))]


def _grad_ext_infer(inputs: list[TensorInfo], values: list[np.ndarray | None],
                    attrs: dict[str, Any]) -> list[InferredShape]:
    call = OpCall("SoftmaxGradExt", inputs, attrs)
    call.require_count(3)
    shapes = [tuple(call.input(i).shape) for i in range(3)]
    return [inferred(call.input(0).dtype, broadcast(call, [0, 1, 2], shapes))]


builtin("SoftmaxV2", _compute, _infer)
builtin("LogSoftmaxV2", _log_compute, _log_infer)
builtin("SoftmaxGrad", _paired("SoftmaxGrad", "axes", _softmax_grad_rows), like_input("SoftmaxGrad"))
builtin("LogSoftmaxGrad", _paired("LogSoftmaxGrad", "axis", _log_softmax_grad_rows), like_input("LogSoftmaxGrad"))
builtin("SoftmaxGradExt", _grad_ext_compute, _grad_ext_infer)
