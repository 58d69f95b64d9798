"""Loss references in float64, from PyTorch's documentation of each loss (torch.nn.BCELoss, BCEWithLogitsLoss,
SmoothL1Loss, SoftMarginLoss, MSELoss, L1Loss) and tf.nn.l2_loss: the elementwise loss, then reduced ("none" keeps
it, "sum" adds it up, "mean" averages it); a gradient is the derivative of the elementwise loss times the incoming
gradient, divided by the element count when reduction is "mean"."""

from __future__ import annotations

from typing import Any

import numpy as np

from aclcts.reference.base import RefOp, define
from aclcts.reference.numeric import round_to, widen

REDUCTIONS = ("mean", "sum", "none", "batchmean")


def _divisor(reduction: str, count: int, shape: tuple[int, ...] = ()) -> float:
    """What a loss or its gradient is divided by: the element count for mean, the first dim for batchmean, else 1."""
    if reduction not in REDUCTIONS:
        raise ValueError(f"reduction must be one of {', '.join(REDUCTIONS)}, got {reduction!r}")
    if reduction == "batchmean":
        return float(max(shape[0], 1)) if shape else 1.0
    return float(max(count, 1)) if reduction == "mean" else 1.0


def reduced(loss: np.ndarray, reduction: str) -> np.ndarray:
    """The elementwise loss as reduction says: itself, its sum or its mean (a scalar)."""
    if reduction not in REDUCTIONS:
        raise ValueError(f"reduction must be one of {', '.join(REDUCTIONS)}, got {reduction!r}")
    if reduction == "none":
        return loss
    return np.asarray(np.sum(loss) / _divisor(reduction, loss.size, loss.shape))


def softplus(x: np.ndarray) -> np.ndarray:
    """log(1 + e^x) without overflow."""
    return np.logaddexp(0.0, x)


def sigmoid(x: np.ndarray) -> np.ndarray:
    """1 / (1 + e^-x)."""
    return np.exp(-softplus(-x))


def bce_with_logits(x: np.ndarray, t: np.ndarray, weight: np.ndarray | None,
                    positive_weight: np.ndarray | None) -> np.ndarray:
    """BCEWithLogitsLoss's elementwise loss: -w (p t log sigmoid(x) + (1 - t) log(1 - sigmoid(x)))."""
    p = 1.0 if positive_weight is None else positive_weight
    loss = p * t * softplus(-x) + (1.0 - t) * softplus(x)
    return loss if weight is None else weight * loss


def bce_with_logits_grad(x: np.ndarray, t: np.ndarray, weight: np.ndarray | None,
                         positive_weight: np.ndarray | None) -> np.ndarray:
    """d/dx of bce_with_logits: w ((1 - t) sigmoid(x) - p t (1 - sigmoid(x)))."""
    p = 1.0 if positive_weight is None else positive_weight
    s = sigmoid(x)
    grad = (1.0 - t) * s - p * t * (1.0 - s)
    return grad if weight is None else weight * grad


def bce(x: np.ndarray, y: np.ndarray, weight: np.ndarray | None) -> np.ndarray:
    """BCELoss's elementwise loss, each logarithm clamped at -100 as PyTorch does."""
    loss = -(y * np.maximum(np.log(x), -100.0) + (1.0 - y) * np.maximum(np.log1p(-x), -100.0))
    return loss if weight is None else weight * loss


def bce_grad(x: np.ndarray, y: np.ndarray, weight: np.ndarray | None) -> np.ndarray:
    """d/dx of BCELoss's elementwise loss: (x - y) / (x (1 - x))."""
    grad = (x - y) / (x * (1.0 - x))
    return grad if weight is None else weight * grad


def smooth_l1(d: np.ndarray, beta: float) -> np.ndarray:
    """SmoothL1Loss's elementwise loss at d = predict - label: quadratic inside beta, linear outside."""
    a = np.abs(d)
    return np.where(a < beta, 0.5 * d * d / beta, a - 0.5 * beta)


def smooth_l1_grad(d: np.ndarray, beta: float) -> np.ndarray:
    """d/dd of smooth_l1: d / beta inside beta, sign(d) outside."""
    return np.where(np.abs(d) < beta, d / beta, np.sign(d))


def kl_div(x: np.ndarray, target: np.ndarray) -> np.ndarray:
    """KLDivLoss's elementwise loss: target (log(target) - x), 0 where target is 0 (xlogy's limit)."""
    return np.where(target == 0, 0.0, target * (np.log(target) - x))


def poisson_nll(x: np.ndarray, target: np.ndarray, log_input: bool, full: bool, eps: float) -> np.ndarray:
    """PoissonNLLLoss's elementwise loss, with Stirling's term where target > 1 when full."""
    loss = np.exp(x) - target * x if log_input else x - target * np.log(x + eps)
    if not full:
        return loss
    t = np.where(target > 1, target, 2.0)
    stirling = t * np.log(t) - t + 0.5 * np.log(2.0 * np.pi * t)
    return loss + np.where(target > 1, stirling, 0.0)


def mse_loss_grad(predict: np.ndarray, label: np.ndarray, dout: np.ndarray, reduction: str) -> np.ndarray:
    """d/d predict of the squared error: 2 (predict - label) dout, over the count for mean."""
    return 2.0 * (predict - label) * dout / _divisor(reduction, predict.size)


def l1_loss_grad(grads: np.ndarray, predict: np.ndarray, label: np.ndarray, reduction: str) -> np.ndarray:
    """d/d predict of the absolute error: sign(predict - label) grads, over the count for mean."""
    return np.sign(predict - label) * grads / _divisor(reduction, predict.size)


def _wide(xs: list[Any]) -> list[np.ndarray | None]:
    """Every input in float64 (None stays None)."""
    return [None if x is None else widen(x) for x in xs]


def _scaled(grad: np.ndarray, attrs: dict[str, Any]) -> np.ndarray:
    """A gradient divided by the element count for mean, by the first dim for batchmean."""
    return grad / _divisor(str(attrs.get("reduction", "none")), grad.size, grad.shape)


def _kl_div(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    x, target = _wide(xs)
    return [round_to(reduced(kl_div(x, target), str(attrs["reduction"])), out[0])]


def _kl_div_grad(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    grad, x, target = _wide(xs)
    if attrs["log_target"]:
        target = np.exp(target)
    dx = np.broadcast_to(np.where(target > 0, -target, 0.0) * grad, x.shape)
    return [round_to(_scaled(dx, attrs), out[0])]


def _poisson_nll(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    x, target = _wide(xs)
    loss = poisson_nll(x, target, bool(attrs["log_input"]), bool(attrs["full"]), float(attrs["eps"]))
    return [round_to(reduced(loss, str(attrs["reduction"])), out[0])]


def _lp_loss(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    predict, label = _wide(xs)
    if attrs["p"] != 1:
        raise ValueError(f"p must be 1 (the only norm the operator computes), got {attrs['p']!r}")
    return [round_to(reduced(np.abs(predict - label), str(attrs["reduction"])), out[0])]


def _sce(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    x, t, *weights = _wide(xs)
    weight, positive_weight = (weights + [None, None])[:2]
    loss = bce_with_logits(x, t, weight, positive_weight)
    return [round_to(reduced(np.broadcast_to(loss, x.shape), str(attrs.get("reduction", "none"))), out[0])]


def _sce_grad(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    x, t, dout, *weights = _wide(xs)
    weight, positive_weight = (weights + [None, None])[:2]
    grad = np.broadcast_to(bce_with_logits_grad(x, t, weight, positive_weight) * dout, x.shape)
    return [round_to(_scaled(grad, attrs), out[0])]


def _bce(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    x, y, weight = _wide(xs)
    return [round_to(reduced(np.broadcast_to(bce(x, y, weight), x.shape), str(attrs["reduction"])), out[0])]


def _bce_grad(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    x, y, dout, weight = _wide(xs)
    return [round_to(_scaled(np.broadcast_to(bce_grad(x, y, weight) * dout, x.shape), attrs), out[0])]


def _smooth_l1(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    predict, label = _wide(xs)
    loss = smooth_l1(predict - label, float(attrs["sigma"]))
    return [round_to(reduced(loss, str(attrs.get("reduction", "none"))), out[0])]


def _smooth_l1_grad(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    predict, label, dout = _wide(xs)
    grad = smooth_l1_grad(predict - label, float(attrs["sigma"])) * dout
    return [round_to(_scaled(grad, attrs), out[0])]


def _soft_margin(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    x, y = _wide(xs)
    loss = reduced(np.broadcast_to(softplus(-x * y), x.shape), str(attrs["reduction"]))
    # the reduced loss has shape (1,): nn_norm_ops.h REG_OP(SoftMarginLoss)
    return [round_to(loss if attrs["reduction"] == "none" else np.reshape(loss, (1,)), out[0])]


def _soft_margin_grad(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    x, y, dout = _wide(xs)
    grad = np.broadcast_to(-y * sigmoid(-x * y) * dout, np.broadcast_shapes(x.shape, y.shape, dout.shape))
    return [round_to(_scaled(grad, attrs), out[0])]


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


def _shape(free: tuple[int, ...] = (), reduces: bool = False, reduced: tuple[int, ...] = ()) -> Any:
    """The output shape of a loss: its inputs' broadcast shape, which every input but those in free must have; the
    reduced shape (a scalar unless given) when reduces and the reduction is not none."""
    def shape(shapes: list[Any], values: list[Any], attrs: dict[str, Any]) -> list[tuple[int, ...]]:
        given = [tuple(s) for s in shapes if s is not None]
        joint = tuple(np.broadcast_shapes(*given))
        fixed = [tuple(s) for i, s in enumerate(shapes) if s is not None and i not in free]
        if any(s != joint for s in fixed):
            raise ValueError(f"inputs {[list(s) for s in fixed]} must have one shape")
        return [reduced if reduces and attrs.get("reduction", "none") != "none" else joint]
    return shape


OPS: tuple[RefOp, ...] = (
    define("L2Loss", _l2_loss, _scalar),
    define("MseLossGrad", _mse, _same),
    define("L1LossGrad", _l1, _same),
    define("SigmoidCrossEntropyWithLogits", _sce, _shape()),
    define("SigmoidCrossEntropyWithLogitsV2", _sce, _shape((2, 3), reduces=True)),
    define("SigmoidCrossEntropyWithLogitsGrad", _sce_grad, _shape()),
    define("SigmoidCrossEntropyWithLogitsGradV2", _sce_grad, _shape((3, 4))),
    define("BinaryCrossEntropy", _bce, _shape((2,), reduces=True)),
    define("BinaryCrossEntropyGrad", _bce_grad, _shape((2, 3))),
    define("SmoothL1Loss", _smooth_l1, _shape()),
    define("SmoothL1LossV2", _smooth_l1, _shape(reduces=True)),
    define("SmoothL1LossGrad", _smooth_l1_grad, _shape()),
    define("SmoothL1LossGradV2", _smooth_l1_grad, _shape((0, 1, 2))),
    define("SoftMarginLoss", _soft_margin, _shape(reduces=True, reduced=(1,))),
    define("SoftMarginLossGrad", _soft_margin_grad, _shape((0, 1, 2))),
    define("KLDiv", _kl_div, _shape(reduces=True)),
    define("KlDivLossGrad", _kl_div_grad, _shape((0,))),
    define("PoissonNllLoss", _poisson_nll, _shape(reduces=True)),
    define("LpLoss", _lp_loss, _shape(reduces=True)),
)
