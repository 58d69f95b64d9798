"""SoftmaxV2: exp(x - max) / sum(exp(x - max)) over the axes attribute.

Prototype: CANN nn_norm_ops.h SoftmaxV2 -- INPUT x (double, float16, bfloat16, float), OUTPUT y,
ATTR(axes, ListInt, {-1}), ATTR(half_to_float, Bool, false) (fp16 x gives an fp32 y when true); as published in
mindspore-ai/graphengine third_party/fwkacllib/inc/ops/nn_norm_ops.h (axes) and the current CANN operator
specification (half_to_float).
Numerics: fp16/bf16 inputs are widened to fp32 and the whole softmax runs in fp32 (the sum in the pairwise tree
order of numerics.tree_sum), rounding once to the output type; double runs in double.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from aclcts.core.dtypes import acl_data_type
from aclcts.sim.kernels.base import InferredShape, TensorInfo
from aclcts.sim.kernels.call import OpCall, Outputs
from aclcts.sim.kernels.numerics import FLOAT16, FLOAT32, FLOATS, tree_sum, widen
from aclcts.sim.kernels.registry import builtin
from aclcts.sim.kernels.shapes import inferred, unknown_rank


def _axes(call: OpCall, rank: int) -> list[int]:
    axes = call.attr_list_int("axes", [-1])
    if not axes:
        raise call.fail("attr 'axes' must name at least one dimension")
    return sorted({call.axis("attr 'axes' value", a, rank) for a in axes})


def _output_dtype(call: OpCall, dtype: np.dtype) -> np.dtype:
    return FLOAT32 if call.attr_bool("half_to_float", False) and dtype == FLOAT16 else dtype


def _compute(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list[TensorInfo]) -> list[np.ndarray]:
    call = OpCall("SoftmaxV2", inputs, attrs)
    call.require_count(1)
    x = call.input(0, "x")
    call.require_dtype("x", x.dtype, FLOATS)
    axes = _axes(call, x.ndim)
    out = Outputs(call, outputs, ["y"])
    y_dtype = out.require_dtype(0, _output_dtype(call, x.dtype), "the dtype of 'x', or float32 with half_to_float")
    wide = widen(x)
    kept = [i for i in range(x.ndim) if i not in axes]
    moved = np.transpose(wide, kept + axes)
    count = int(np.prod([x.shape[a] for a in axes], dtype=np.int64))
    flat = moved.reshape(tuple(x.shape[i] for i in kept) + (count,))
    with np.errstate(all="ignore"):
        shifted = flat - np.max(flat, axis=-1, keepdims=True) if flat.shape[-1] else flat
        exps = np.exp(shifted)
        y = exps / tree_sum(exps, -1)[..., None]
    y = y.reshape(moved.shape).transpose(np.argsort(kept + axes))
    return [out.emit(0, y.astype(y_dtype))]


def _infer(inputs: list[TensorInfo], values: list[np.ndarray | None], attrs: dict[str, Any]) -> list[InferredShape]:
    call = OpCall("SoftmaxV2", inputs, attrs)
    call.require_count(1)
    x = call.input(0, "x")
    if not unknown_rank(tuple(x.shape)):
        _axes(call, len(x.shape))
    half = x.dtype == acl_data_type(FLOAT16) and call.attr_bool("half_to_float", False)
    return [inferred(acl_data_type(FLOAT32) if half else x.dtype, x.shape)]


builtin("SoftmaxV2", _compute, _infer)

