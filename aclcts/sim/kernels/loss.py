"""Loss kernels: L2Loss, MseLossGrad and L1LossGrad.

Prototypes: aclcts.core.prototypes.loss. Numerics: float16 is widened to float32; L2Loss sums the squares in the
vector unit's lane order (numerics.vector_sum) and halves the sum; MseLossGrad multiplies predict - label by
2 / count (mean) or 2, then by dout; L1LossGrad multiplies sign(predict - label) by grads and by 1 / count for mean;
each result is rounded once to the storage type.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from aclcts.sim.kernels.base import ComputeFn, InferredShape, TensorInfo
from aclcts.sim.kernels.call import OpCall, Outputs
from aclcts.sim.kernels.numerics import vector_sum, widen
from aclcts.sim.kernels.registry import builtin
from aclcts.sim.kernels.shapes import inferred, like_input
from aclcts.sim.seams import Seam

_REDUCTIONS = ("mean", "sum", "none")


def _residual(predict: np.ndarray, label: np.ndarray) -> np.ndarray:
    """predict - label, the difference a loss gradient is taken of."""
    return predict - label


#: The difference MseLossGrad scales.
mse_residual = Seam("mse loss grad residual", _residual)


def _l2_loss(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list[TensorInfo]) -> list[np.ndarray]:
    call = OpCall("L2Loss", inputs, attrs)
    call.require_count(1)
    x = call.input(0)
    call.require_dtype(0, x.dtype)
    out = Outputs(call, outputs)
    out.require_input_dtype(0, 0, x.dtype)
    wide = widen(x).reshape(-1)
    with np.errstate(all="ignore"):
        total = vector_sum(wide * wide, -1) if wide.size else wide.dtype.type(0)
        y = np.asarray(total * wide.dtype.type(0.5))
    return [out.emit(0, y.astype(x.dtype))]


def _l2_loss_infer(inputs: list[TensorInfo], values: list[np.ndarray | None], attrs: dict[str, Any]) -> list[InferredShape]:
    call = OpCall("L2Loss", inputs, attrs)
    call.require_count(1)
    return [inferred(call.input(0).dtype, ())]


def _scale(call: OpCall, count: int) -> float:
    reduction = call.attr_str("reduction")
    if reduction not in _REDUCTIONS:
        raise call.fail(f"attr 'reduction' must be one of {', '.join(_REDUCTIONS)}, got {reduction!r}")
    return 1.0 / max(count, 1) if reduction == "mean" else 1.0


def _gradient(op_type: str, body: Callable[[list[np.ndarray], np.floating], np.ndarray]) -> ComputeFn:
    """A loss gradient kernel over three inputs of one shape and dtype."""
    def compute(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list[TensorInfo]) -> list[np.ndarray]:
        call = OpCall(op_type, inputs, attrs)
        call.require_count(3)
        arrays = [call.input(i) for i in range(3)]
        call.require_dtype(0, arrays[0].dtype)
        call.require_same_dtype((0, 1, 2), [a.dtype for a in arrays])
        if len({a.shape for a in arrays}) != 1:
            shapes = ", ".join(f"{call.quoted(i)} {list(a.shape)}" for i, a in enumerate(arrays))
            raise call.fail(f"every input must have one shape, got {shapes}")
        out = Outputs(call, outputs)
        out.require_input_dtype(0, 0, arrays[0].dtype)
        wide = [widen(a) for a in arrays]
        with np.errstate(all="ignore"):
            y = body(wide, wide[0].dtype.type(_scale(call, arrays[0].size)))
        return [out.emit(0, y.astype(arrays[0].dtype))]
    return compute


def _mse(wide: list[np.ndarray], scale: np.floating) -> np.ndarray:
    predict, label, dout = wide
    return mse_residual(predict, label) * (scale * scale.dtype.type(2)) * dout


def _l1(wide: list[np.ndarray], scale: np.floating) -> np.ndarray:
    grads, predict, label = wide
    return np.sign(predict - label) * grads * scale


builtin("L2Loss", _l2_loss, _l2_loss_infer)
builtin("MseLossGrad", _gradient("MseLossGrad", _mse), like_input("MseLossGrad"))
builtin("L1LossGrad", _gradient("L1LossGrad", _l1), like_input("L1LossGrad"))
