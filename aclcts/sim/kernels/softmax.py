"""SoftmaxV2 and LogSoftmaxV2: exp(x - max) / sum(exp(x - max)) and (x - max) - log(sum(exp(x - max))) over axes.

Records: aclcts/core/prototypes/softmax.py (with half_to_float set, an fp16 input gives an fp32 output).
Numerics: fp16/bf16 inputs are widened to fp32 and the whole (log-)softmax runs in fp32 with the maximum subtracted
first (the sum in the pairwise tree order of numerics.tree_sum), rounding once to the output type; double runs in
double. LogSoftmaxV2 follows the ops-nn golden's order: (x - max) - log(sum(exp(x - max))).
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
from aclcts.sim.kernels.shapes import inferred, unknown_rank


def _axes(call: OpCall, rank: int) -> list[int]:
    axes = call.attr_list_int("axes")
    if not axes:
        raise call.fail("attr 'axes' must name at least one dimension")
    return sorted({call.axis("attr 'axes' value", a, rank) for a in axes})


def _output_dtype(call: OpCall, dtype: np.dtype) -> np.dtype:
    return FLOAT32 if call.attr_bool("half_to_float") and dtype == FLOAT16 else dtype


def over_axes(x: np.ndarray, axes: list[int], rows: Callable[[np.ndarray], np.ndarray], dtype: np.dtype) -> np.ndarray:
    """rows(flat) on x in its compute type with the axes moved last and flattened into one, in x's layout, as dtype."""
    kept = [i for i in range(x.ndim) if i not in axes]
    moved = np.transpose(widen(x), kept + axes)
    count = int(np.prod([x.shape[a] for a in axes], dtype=np.int64))
    flat = moved.reshape(tuple(x.shape[i] for i in kept) + (count,))
    with np.errstate(all="ignore"):
        y = rows(flat) if count else flat
        return y.reshape(moved.shape).transpose(np.argsort(kept + axes)).astype(dtype)


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


builtin("SoftmaxV2", _compute, _infer)
builtin("LogSoftmaxV2", _log_compute, _log_infer)
