"""Loss kernels: L2Loss, the pointwise losses (BCE, BCE with logits, smooth L1, soft margin) and their gradients,
MseLossGrad and L1LossGrad.

Prototypes: aclcts.core.prototypes.loss. Numerics: float16 is widened to float32 (SmoothL1Loss and SmoothL1LossGrad
compute in the storage type, rounding after each operation, as smooth_l1_loss.py and smooth_l1_loss_grad.py do);
sums run in the vector unit's lane order (numerics.vector_sum); the operation order is each op's TBE implementation's
(canndev tbe/impl/<op>.py); each result is rounded once to the storage type.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from aclcts.core.prototypes.spec import OneOf
from aclcts.sim.kernels.base import ComputeFn, InferredShape, TensorInfo
from aclcts.sim.kernels.call import OpCall, Outputs
from aclcts.sim.kernels.numerics import rounder, vector_sum, widen
from aclcts.sim.kernels.registry import builtin
from aclcts.sim.kernels.shapes import broadcast, fully_known, inferred, like_input
from aclcts.sim.seams import Seam

_REDUCTIONS = ("mean", "sum", "none", "batchmean")


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
    return 1.0 / max(count, 1) if _reduction(call) == "mean" else 1.0


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


Wide = list[np.ndarray | None]


def _floats(call: OpCall) -> tuple[np.dtype, Wide]:
    """The inputs given, all of the first one's dtype, widened to float32 (None where an optional one is absent)."""
    call.require_inputs()
    present = [i for i in range(len(call.inputs)) if call.inputs[i] is not None]
    dtype = call.input(0).dtype
    call.require_dtype(0, dtype)
    call.require_same_dtype(present, [call.inputs[i].dtype for i in present])
    return dtype, [None if call.inputs[i] is None else widen(call.inputs[i]) for i in range(len(call.inputs))]


def _reduction(call: OpCall) -> str:
    """The op's reduction attribute, checked against the values its record documents; "none" for an op without
    one."""
    if call.record is None or call.record.attr("reduction") is None:
        return "none"
    reduction = call.attr_str("reduction")
    domain = call.record.attr("reduction").domain
    allowed = tuple(domain.values) if isinstance(domain, OneOf) else _REDUCTIONS
    if reduction not in allowed:
        raise call.fail(f"attr 'reduction' must be one of {', '.join(map(str, allowed))}, got {reduction!r}")
    return reduction


def _total(loss: np.ndarray) -> np.ndarray:
    """The sum of every element in the vector unit's order."""
    flat = loss.reshape(-1)
    return np.asarray(vector_sum(flat, -1) if flat.size else flat.dtype.type(0))


def _sum_then_scale(loss: np.ndarray, reduction: str) -> np.ndarray:
    """none: loss; sum: its total; mean: its total times 1 / count (smooth_l1_loss_v2.py, soft_margin_loss.py)."""
    if reduction == "none":
        return loss
    total = _total(loss)
    return total * total.dtype.type(1.0 / max(loss.size, 1)) if reduction == "mean" else total


def _scale_then_sum(loss: np.ndarray, reduction: str) -> np.ndarray:
    """none: loss; sum: its total; mean (batchmean): the total of loss times 1 / count (1 / its first dim)
    (binary_cross_entropy.py, kl_div.py)."""
    if reduction in ("mean", "batchmean"):
        return _total(_mean_scaled(loss, reduction))
    return _sum_then_scale(loss, reduction)


def _mean_scaled(grad: np.ndarray, reduction: str) -> np.ndarray:
    """A gradient times 1 / count for mean, 1 / its first dim for batchmean, as it is otherwise."""
    if reduction == "batchmean" and grad.ndim:
        return grad * grad.dtype.type(1.0 / max(grad.shape[0], 1))
    return grad * grad.dtype.type(1.0 / max(grad.size, 1)) if reduction == "mean" else grad


Body = Callable[[OpCall, Wide, str], np.ndarray]


def _joint_shape(call: OpCall, shapes: list[tuple[int, ...] | None], free: tuple[int, ...]) -> tuple[int, ...]:
    """The inputs' broadcast shape, which every input given but those in free (broadcast to it) must have."""
    given = [i for i, shape in enumerate(shapes) if shape is not None]
    shape = broadcast(call, given, [shapes[i] for i in given])
    fixed = [i for i in given if i not in free]
    if any(tuple(shapes[i]) != shape for i in fixed):
        listed = ", ".join(f"{call.quoted(i)} {list(shapes[i])}" for i in fixed)
        raise call.fail(f"inputs {listed} must have one shape")
    return shape


def _pointwise(op_type: str, body: Body, free: tuple[int, ...] = ()) -> ComputeFn:
    """A loss kernel over inputs of one shape (those in free broadcast to it): body computes the (reduced) loss in
    float32 from the widened inputs; rounded to the storage type of input 0."""
    def compute(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list[TensorInfo]) -> list[np.ndarray]:
        call = OpCall(op_type, inputs, attrs)
        dtype, wide = _floats(call)
        shape = _joint_shape(call, [None if w is None else w.shape for w in wide], free)
        out = Outputs(call, outputs)
        out.require_input_dtype(0, 0, dtype)
        reduction = _reduction(call)
        with np.errstate(all="ignore"):
            y = np.asarray(body(call, [None if w is None else np.broadcast_to(w, shape) for w in wide], reduction))
        if reduction != "none" and op_type in _REDUCING:
            y = y.reshape(_REDUCED_SHAPE.get(op_type, ()))
        return [out.emit(0, y.astype(dtype))]
    return compute


def _infer(op_type: str, free: tuple[int, ...] = ()) -> Callable[..., list[InferredShape]]:
    """An infer_shape of a loss: the inputs' joint shape (_joint_shape), a scalar where the reduction reduces."""
    def infer(inputs: list[Any], values: list[Any], attrs: dict[str, Any]) -> list[InferredShape]:
        call = OpCall(op_type, inputs, attrs)
        call.require_inputs()
        reduction = _reduction(call)
        shapes = [None if x is None else tuple(x.shape) for x in inputs]
        given = [i for i, s in enumerate(shapes) if s is not None]
        if all(fully_known(shapes[i]) for i in given):
            shape = _joint_shape(call, shapes, free)
        else:
            shape = broadcast(call, given, [shapes[i] for i in given])
        reduces = reduction != "none" and call.record is not None and call.record.op_type in _REDUCING
        return [inferred(call.input(0).dtype, _REDUCED_SHAPE.get(op_type, ()) if reduces else shape)]
    return infer


def _one(x: np.ndarray) -> np.floating:
    return x.dtype.type(1)


def _sce(call: OpCall, wide: Wide, reduction: str) -> np.ndarray:
    """max(x, 0) - x t + log(1 + e^-|x|) (sigmoid_cross_entropy_with_logits.py)."""
    x, t = wide[:2]
    return np.log(np.exp(-np.abs(x)) + _one(x)) - x * t + np.maximum(x, 0)


def _sce_v2(call: OpCall, wide: Wide, reduction: str) -> np.ndarray:
    """(1 - t) x + (1 + (p - 1) t) (log(e^-m + e^(-m - x)) + m), m = max(-x, 0), times weight
    (sigmoid_cross_entropy_with_logits_v2.py), then reduced."""
    x, t, weight, positive_weight = (wide + [None, None])[:4]
    one = _one(x)
    m = np.maximum(-x, 0)
    log_term = np.log(np.exp(-m) + np.exp(-m - x)) + m
    scale = log_term if positive_weight is None else ((positive_weight - one) * t + one) * log_term
    loss = (one - t) * x + scale
    return _sum_then_scale(loss if weight is None else loss * weight, reduction)


def _sce_grad(call: OpCall, wide: Wide, reduction: str) -> np.ndarray:
    """(e^x / (e^x + 1) - t) dout (sigmoid_cross_entropy_with_logits_grad.py)."""
    x, t, dout = wide
    e = np.exp(x)
    return (e / (e + _one(x)) - t) * dout


def _sce_grad_v2(call: OpCall, wide: Wide, reduction: str) -> np.ndarray:
    """s = 1 / (1 + e^-x); ((p t + 1 - t) s - p t) dout, or (s - t) dout, times weight and 1 / count for mean
    (sigmoid_cross_entropy_with_logits_grad_v2.py)."""
    x, t, dout, weight, positive_weight = (wide + [None, None])[:5]
    one = _one(x)
    s = one / (np.exp(-x) + one)
    if positive_weight is None:
        grad = (s - t) * dout
    else:
        pt = positive_weight * t
        grad = ((pt + one - t) * s - pt) * dout
    return _mean_scaled(grad if weight is None else grad * weight, reduction)


_EPS = 1e-12


def _bce(call: OpCall, wide: Wide, reduction: str) -> np.ndarray:
    """-(y log(max(x, eps)) + (1 - y) log(max(1 - x, eps))) times weight (binary_cross_entropy.py), reduced."""
    x, y, weight = (wide + [None])[:3]
    one, eps = _one(x), x.dtype.type(_EPS)
    loss = -(np.log(np.maximum(x, eps)) * y + np.log(np.maximum(one - x, eps)) * (one - y))
    return _scale_then_sum(loss if weight is None else loss * weight, reduction)


def _bce_grad(call: OpCall, wide: Wide, reduction: str) -> np.ndarray:
    """The incoming gradient times weight (x - y) / max(x (1 - x), eps), times 1 / count for mean
    (binary_cross_entropy_grad.py)."""
    x, y, dout, weight = (wide + [None])[:4]
    grad = (x - y) / np.maximum(x * (_one(x) - x), x.dtype.type(_EPS))
    if weight is not None:
        grad = weight * grad
    return _mean_scaled(dout * grad, reduction)


def _smooth_l1_terms(d: np.ndarray, sigma: float, step: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
    """The two branches of smooth L1 at d, each rounded by step, selected by |d| < sigma (smooth_l1_loss.py)."""
    half, s = d.dtype.type(0.5), d.dtype.type(sigma)
    quadratic = step(step(step(d * half) * d) * step(np.asarray(d.dtype.type(1) / s)))
    absolute = np.abs(d)
    linear = step(absolute - step(np.asarray(half * s)))
    return np.where(absolute < s, quadratic, linear)


def _smooth_l1(call: OpCall, wide: Wide, reduction: str) -> np.ndarray:
    """SmoothL1Loss in the storage type, each operation rounded."""
    step = rounder(call.input(0).dtype)
    return _smooth_l1_terms(step(wide[0] - wide[1]), call.attr_float("sigma"), step)


def _smooth_l1_v2(call: OpCall, wide: Wide, reduction: str) -> np.ndarray:
    """SmoothL1Loss in float32, summed, times 1 / count for mean (smooth_l1_loss_v2.py)."""
    loss = _smooth_l1_terms(wide[0] - wide[1], call.attr_float("sigma"), np.asarray)
    return _sum_then_scale(loss, reduction)


def _smooth_l1_grad(call: OpCall, wide: Wide, reduction: str) -> np.ndarray:
    """clip(predict - label, -sigma, sigma) * (1 / sigma) * dout, in the storage type (smooth_l1_loss_grad.py)."""
    step = rounder(call.input(0).dtype)
    predict, label, dout = wide
    sigma = predict.dtype.type(call.attr_float("sigma"))
    clipped = np.clip(step(predict - label), -sigma, sigma)
    return step(step(clipped * step(np.asarray(predict.dtype.type(1) / sigma))) * dout)


def _smooth_l1_grad_v2(call: OpCall, wide: Wide, reduction: str) -> np.ndarray:
    """(d / sigma inside sigma, else sign(d)) dout, times 1 / count for mean (smooth_l1_loss_grad_v2.py)."""
    predict, label, dout = wide
    d = predict - label
    sigma = d.dtype.type(call.attr_float("sigma"))
    smooth = np.where(np.abs(d) < sigma, d / sigma, np.where(d >= sigma, 1, np.where(d <= -sigma, -1, 0)))
    return _mean_scaled(smooth.astype(d.dtype) * dout, reduction)


def _soft_margin(call: OpCall, wide: Wide, reduction: str) -> np.ndarray:
    """log(e^(-x y) + 1), summed, times 1 / count for mean (soft_margin_loss.py)."""
    x, y = wide
    return _sum_then_scale(np.log(np.exp(-x * y) + _one(x)), reduction)


def _soft_margin_grad(call: OpCall, wide: Wide, reduction: str) -> np.ndarray:
    """-y (1 / count for mean) e^z / (e^z + 1) dout, z = -x y (soft_margin_loss_grad.py)."""
    x, y, dout = wide
    z = np.exp(-x * y)
    return _mean_scaled(-y, reduction) * (z / (z + _one(x))) * dout


def _target_mask(target: np.ndarray, storage: np.dtype, step: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
    """About 1 where target > 0, else 0: max(t, 0) k / (max(t, 0) k + tiny), k = 1024 and tiny = 1.18e-7 in float16,
    1 and 1.18e-38 otherwise (kl_div.py, kl_div_loss_grad.py)."""
    scale, tiny = (1024.0, 1.18e-7) if storage == np.float16 else (1.0, 1.18e-38)
    big = step(np.maximum(target, 0) * target.dtype.type(scale))
    return step(big / step(big + target.dtype.type(tiny)))


def _kl_div(call: OpCall, wide: Wide, reduction: str) -> np.ndarray:
    """max-masked target (log(target) - x) in the storage type, then reduced (kl_div.py)."""
    step = rounder(call.input(0).dtype)
    x, target = wide
    pointwise = step(target * step(step(np.log(target)) - x))
    mask = _target_mask(target, call.input(0).dtype, step)
    # at target 0 (whose log is -inf) the product is 0, the limit the mask stands for
    return _scale_then_sum(np.where(target == 0, mask, step(mask * pointwise)), reduction)


def _kl_div_grad(call: OpCall, wide: Wide, reduction: str) -> np.ndarray:
    """mask (-(target grad)), target = e^target with log_target, in the storage type, times 1 / count for mean and
    1 / the first dim for batchmean (kl_div_loss_grad.py)."""
    step = rounder(call.input(0).dtype)
    grad, _, target = wide
    if call.attr_bool("log_target"):
        target = step(np.exp(target))
    negative = step(-step(target * grad))
    return step(_mean_scaled(step(_target_mask(target, call.input(0).dtype, step) * negative), reduction))


def _poisson_nll(call: OpCall, wide: Wide, reduction: str) -> np.ndarray:
    """e^x - x t or x - t log(x + eps), plus Stirling's term where t > 1 with full, summed, divided by the count for
    mean (poisson_nll_loss.py)."""
    x, t = wide
    if call.attr_bool("log_input"):
        loss = np.exp(x) - x * t
    else:
        loss = x - t * np.log(x + x.dtype.type(call.attr_float("eps")))
    if call.attr_bool("full"):
        stirling = t * np.log(t) - t + np.log(t * x.dtype.type(2 * np.pi)) * x.dtype.type(0.5)
        loss = loss + np.where(t <= 1, x.dtype.type(0), stirling)
    if reduction == "mean":
        return _total(loss) / x.dtype.type(max(loss.size, 1))
    return _sum_then_scale(loss, reduction)


def _lp_loss(call: OpCall, wide: Wide, reduction: str) -> np.ndarray:
    """|predict - label|, summed, times 1 / count for mean (lp_loss.py computes the L1 loss, its only p)."""
    p = call.attr_int("p")
    if p != 1:
        raise call.fail(f"attr 'p' must be 1 (the only norm the operator computes), got {p}")
    return _sum_then_scale(np.abs(wide[0] - wide[1]), reduction)


#: The losses a reduction of sum or mean (batchmean) makes a scalar; the other ops' outputs keep the inputs' shape.
_REDUCING = ("SigmoidCrossEntropyWithLogitsV2", "BinaryCrossEntropy", "SmoothL1LossV2", "SoftMarginLoss", "KLDiv",
             "PoissonNllLoss", "LpLoss")
#: The reduced output's shape where CANN's infer shape gives one other than a scalar: SoftMarginLoss's loss is
#: (1,) for sum and mean (nn_norm_ops.h REG_OP(SoftMarginLoss), nn_norm_ops.cc InferShapeAndTypeSoftMarginLoss).
_REDUCED_SHAPE = {"SoftMarginLoss": (1,)}
#: The kernels, with the inputs each broadcasts to the others' shape (the TBE implementations' broadcasts).
_KERNELS: tuple[tuple[str, Body, tuple[int, ...]], ...] = (
    ("SigmoidCrossEntropyWithLogits", _sce, ()),
    ("SigmoidCrossEntropyWithLogitsV2", _sce_v2, (2, 3)),
    ("SigmoidCrossEntropyWithLogitsGrad", _sce_grad, ()),
    ("SigmoidCrossEntropyWithLogitsGradV2", _sce_grad_v2, (3, 4)),
    ("BinaryCrossEntropy", _bce, (2,)),
    ("BinaryCrossEntropyGrad", _bce_grad, (2, 3)),
    ("SmoothL1Loss", _smooth_l1, ()),
    ("SmoothL1LossV2", _smooth_l1_v2, ()),
    ("SmoothL1LossGrad", _smooth_l1_grad, ()),
    ("SmoothL1LossGradV2", _smooth_l1_grad_v2, (0, 1, 2)),
    ("SoftMarginLoss", _soft_margin, ()),
    ("SoftMarginLossGrad", _soft_margin_grad, (0, 1, 2)),
    ("KLDiv", _kl_div, ()),
    ("KlDivLossGrad", _kl_div_grad, (0,)),
    ("PoissonNllLoss", _poisson_nll, ()),
    ("LpLoss", _lp_loss, ()),
)
for _op_type, _body, _free in _KERNELS:
    builtin(_op_type, _pointwise(_op_type, _body, _free), _infer(_op_type, _free))
