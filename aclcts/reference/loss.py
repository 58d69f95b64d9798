"""Loss references in float64: L2Loss (tf.nn.l2_loss: half the sum of squares) and the gradients of PyTorch's
MSELoss (2 (predict - label) times the incoming gradient) and L1Loss (sign(predict - label) times it), divided by
the element count when reduction is "mean"."""

from __future__ import annotations

from typing import Any

import numpy as np

from aclcts.reference.base import RefOp, define
from aclcts.reference.numeric import round_to, widen

REDUCTIONS = ("mean", "sum", "none")


def _divisor(reduction: str, count: int) -> float:
    """What a loss gradient is divided by: the element count for mean, else 1."""
    if reduction not in REDUCTIONS:
        raise ValueError(f"reduction must be one of {', '.join(REDUCTIONS)}, got {reduction!r}")
    return float(max(count, 1)) if reduction == "mean" else 1.0


def mse_loss_grad(predict: np.ndarray, label: np.ndarray, dout: np.ndarray, reduction: str) -> np.ndarray:
    """d/d predict of the squared error: 2 (predict - label) dout, over the count for mean."""
    return 2.0 * (predict - label) * dout / _divisor(reduction, predict.size)


def l1_loss_grad(grads: np.ndarray, predict: np.ndarray, label: np.ndarray, reduction: str) -> np.ndarray:
    """d/d predict of the absolute error: sign(predict - label) grads, over the count for mean."""
    return np.sign(predict - label) * grads / _divisor(reduction, predict.size)


def _l2_loss(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    x = widen(xs[0])
    return [round_to(np.asarray(np.sum(x * x) / 2.0), out[0])]


def _mse(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    return [round_to(mse_loss_grad(*(widen(v) for v in xs), str(attrs["reduction"])), out[0])]


def _l1(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    return [round_to(l1_loss_grad(*(widen(v) for v in xs), str(attrs["reduction"])), out[0])]


def _scalar(shapes: list[Any], values: list[Any], attrs: dict[str, Any]) -> list[tuple[int, ...]]:
    return [()]


def _same(shapes: list[Any], values: list[Any], attrs: dict[str, Any]) -> list[tuple[int, ...]]:
    if len({tuple(s) for s in shapes}) != 1:
        raise ValueError(f"every input must have one shape, got {[list(s) for s in shapes]}")
    return [tuple(shapes[0])]


OPS: tuple[RefOp, ...] = (
    define("L2Loss", _l2_loss, _scalar),
    define("MseLossGrad", _mse, _same),
    define("L1LossGrad", _l1, _same),
)
