"""Optimizer-update references in float64: one training step of each Apply* op, from TensorFlow's raw-op formulas.

Each step takes the op's inputs in the record's order and returns every state tensor it updates, in the order the op's
`*D` form outputs them (var first); an op outputs as many of them as its record names (a non-D form var alone), each
rounded once to its dtype. Hyperparameters of shape [1] broadcast over var. Sources: the REG_OP comments of CANN's
nn_training_ops.h and the TensorFlow raw ops they name (tf.raw_ops.ApplyAdam, ApplyMomentum, ApplyAdagrad,
ApplyAdagradV2, ApplyAdadelta, ApplyAdaMax, ApplyAdamWithAmsgrad, ApplyAddSign, ApplyPowerSign, ApplyRMSProp,
ApplyCenteredRMSProp, ApplyFtrl, ApplyFtrlV2, ApplyProximalAdagrad, ApplyProximalGradientDescent,
ApplyGradientDescent, ResourceApplyKerasMomentum).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from aclcts.core.prototypes import prototype
from aclcts.reference.base import RefOp, define
from aclcts.reference.numeric import round_to, widen

Array = np.ndarray
Attrs = dict[str, Any]
Step = Callable[..., tuple[Array, ...]]


def gradient_descent(var: Array, alpha: Array, delta: Array, attrs: Attrs) -> tuple[Array, ...]:
    """var - alpha * delta."""
    return (var - alpha * delta,)


def momentum(var: Array, accum: Array, lr: Array, grad: Array, mu: Array, attrs: Attrs) -> tuple[Array, ...]:
    """TensorFlow ApplyMomentum: accum = mu accum + grad; var -= lr accum (Nesterov: lr grad + lr mu accum)."""
    accum = accum * mu + grad
    step = lr * grad + lr * mu * accum if attrs["use_nesterov"] else lr * accum
    return var - step, accum


def keras_momentum(var: Array, accum: Array, lr: Array, grad: Array, mu: Array, attrs: Attrs) -> tuple[Array, ...]:
    """Keras momentum: accum = mu accum - lr grad; var += accum (Nesterov: mu accum - lr grad)."""
    accum = mu * accum - lr * grad
    return var + (mu * accum - lr * grad if attrs["use_nesterov"] else accum), accum


def fused_mul_keras_momentum(var: Array, accum: Array, lr: Array, x1: Array, mu: Array, x2: Array,
                             attrs: Attrs) -> tuple[Array, ...]:
    """Keras momentum with the gradient x1 * x2."""
    return keras_momentum(var, accum, lr, x1 * x2, mu, attrs)


def adagrad(var: Array, accum: Array, lr: Array, grad: Array, attrs: Attrs) -> tuple[Array, ...]:
    """Adagrad: accum += grad^2 (if update_slots); var -= lr grad / sqrt(accum), + epsilon under the root's sum in V2
    (an attribute only V2 has)."""
    if attrs["update_slots"]:
        accum = accum + grad ** 2
    root = np.sqrt(accum) + float(attrs.get("epsilon", 0.0))
    return var - lr * grad / root, accum


def adadelta(var: Array, accum: Array, acc_update: Array, lr: Array, rho: Array, eps: Array, grad: Array,
             attrs: Attrs) -> tuple[Array, ...]:
    """Adadelta: new accum, the update scaled by the RMS ratio with the old update accumulator, then the new one."""
    accum = rho * accum + (1 - rho) * grad * grad
    update = np.sqrt(acc_update + eps) / np.sqrt(accum + eps) * grad
    return var - lr * update, accum, rho * acc_update + (1 - rho) * update * update


def _rate(lr: Array, b1_pow: Array, b2_pow: Array) -> Array:
    """Adam's bias-corrected learning rate."""
    return lr * np.sqrt(1 - b2_pow) / (1 - b1_pow)


def adam(var: Array, m: Array, v: Array, b1_pow: Array, b2_pow: Array, lr: Array, beta1: Array, beta2: Array,
         eps: Array, grad: Array, attrs: Attrs) -> tuple[Array, ...]:
    """Adam; Nesterov steps along beta1 m + (1 - beta1) grad in place of m."""
    m = beta1 * m + (1 - beta1) * grad
    v = beta2 * v + (1 - beta2) * grad * grad
    direction = beta1 * m + (1 - beta1) * grad if attrs["use_nesterov"] else m
    return var - _rate(lr, b1_pow, b2_pow) * direction / (np.sqrt(v) + eps), m, v


def adamax(var: Array, m: Array, v: Array, b1_pow: Array, lr: Array, beta1: Array, beta2: Array, eps: Array,
           grad: Array, attrs: Attrs) -> tuple[Array, ...]:
    """AdaMax: v is the decayed infinity norm max(beta2 v, |grad|)."""
    m = beta1 * m + (1 - beta1) * grad
    v = np.maximum(beta2 * v, np.abs(grad))
    return var - lr / (1 - b1_pow) * m / (v + eps), m, v


def amsgrad(var: Array, m: Array, v: Array, vhat: Array, b1_pow: Array, b2_pow: Array, lr: Array, grad: Array,
            attrs: Attrs) -> tuple[Array, ...]:
    """Adam with AMSGrad: the step divides by the running maximum vhat of v (betas and epsilon are attributes)."""
    beta1, beta2 = float(attrs["beta1"]), float(attrs["beta2"])
    m = beta1 * m + (1 - beta1) * grad
    v = beta2 * v + (1 - beta2) * grad * grad
    vhat = np.maximum(vhat, v)
    return var - _rate(lr, b1_pow, b2_pow) * m / (np.sqrt(vhat) + float(attrs["epsilon"])), m, v, vhat


def add_sign(var: Array, m: Array, lr: Array, alpha: Array, decay: Array, beta: Array, grad: Array,
             attrs: Attrs) -> tuple[Array, ...]:
    """AddSign: var -= lr (alpha + decay sign(grad) sign(m)) grad, m updated first."""
    m = beta * m + (1 - beta) * grad
    return var - lr * (alpha + decay * np.sign(grad) * np.sign(m)) * grad, m


def power_sign(var: Array, m: Array, lr: Array, logbase: Array, decay: Array, beta: Array, grad: Array,
               attrs: Attrs) -> tuple[Array, ...]:
    """PowerSign: var -= lr exp(logbase decay sign(grad) sign(m)) grad, m updated first."""
    m = beta * m + (1 - beta) * grad
    return var - lr * np.exp(logbase * decay * np.sign(grad) * np.sign(m)) * grad, m


def rms_prop(var: Array, ms: Array, mom: Array, lr: Array, grad: Array, attrs: Attrs) -> tuple[Array, ...]:
    """RMSProp with rho, momentum and epsilon as attributes."""
    rho, mu, eps = (float(attrs[k]) for k in ("rho", "momentum", "epsilon"))
    ms = rho * ms + (1 - rho) * grad ** 2
    mom = mu * mom + lr * grad / np.sqrt(ms + eps)
    return var - mom, ms, mom


def centered_rms_prop(var: Array, mg: Array, ms: Array, mom: Array, lr: Array, rho: Array, mu: Array, eps: Array,
                      grad: Array, attrs: Attrs) -> tuple[Array, ...]:
    """Centered RMSProp: the mean square less the squared mean gradient under the root."""
    mg = rho * mg + (1 - rho) * grad
    ms = rho * ms + (1 - rho) * grad * grad
    mom = mu * mom + lr * grad / np.sqrt(ms - mg * mg + eps)
    return var - mom, mg, ms, mom


def _ftrl(var: Array, accum: Array, linear: Array, grad: Array, moved: Array, lr: Array, l1: Array, l2: Array,
          power: Array) -> tuple[Array, ...]:
    """FTRL-proximal: linear moves by `moved` less the change of the per-coordinate rate times var."""
    new = accum + grad * grad
    linear = linear + moved - (new ** -power - accum ** -power) / lr * var
    quadratic = new ** -power / lr + 2 * l2
    return np.where(np.abs(linear) > l1, (np.sign(linear) * l1 - linear) / quadratic, 0.0), new, linear


def ftrl(var: Array, accum: Array, linear: Array, grad: Array, lr: Array, l1: Array, l2: Array, power: Array,
         attrs: Attrs) -> tuple[Array, ...]:
    """TensorFlow ApplyFtrl."""
    return _ftrl(var, accum, linear, grad, grad, lr, l1, l2, power)


def ftrl_v2(var: Array, accum: Array, linear: Array, grad: Array, lr: Array, l1: Array, l2: Array, shrink: Array,
            power: Array, attrs: Attrs) -> tuple[Array, ...]:
    """TensorFlow ApplyFtrlV2: the gradient in linear's update gains 2 shrink var (accum still adds grad^2)."""
    return _ftrl(var, accum, linear, grad, grad + 2 * shrink * var, lr, l1, l2, power)


def _proximal(prox: Array, rate: Array, l1: Array, l2: Array) -> Array:
    """FOBOS' proximal step: soft-threshold by rate l1, then shrink by 1 + rate l2."""
    return np.sign(prox) * np.maximum(np.abs(prox) - rate * l1, 0.0) / (1 + rate * l2)


def proximal_adagrad(var: Array, accum: Array, lr: Array, l1: Array, l2: Array, grad: Array,
                     attrs: Attrs) -> tuple[Array, ...]:
    """Proximal Adagrad: FOBOS with the Adagrad rate lr / sqrt(accum), the accumulator updated first."""
    accum = accum + grad ** 2
    rate = lr / np.sqrt(accum)
    return _proximal(var - rate * grad, rate, l1, l2), accum


def proximal_gradient_descent(var: Array, alpha: Array, l1: Array, l2: Array, delta: Array,
                              attrs: Attrs) -> tuple[Array, ...]:
    """Proximal gradient descent: FOBOS with the fixed rate alpha."""
    return (_proximal(var - alpha * delta, alpha, l1, l2),)


def sgd(param: Array, grad: Array, lr: Array, accum: Array, mu: Array, first: Array, attrs: Attrs) -> tuple[Array, ...]:
    """PyTorch SGD with weight decay, dampening and Nesterov momentum; `first` (stat) is 1 at the first step, where
    no dampening applies."""
    g = grad + float(attrs["weight_decay"]) * param
    accum = mu * accum + g - float(attrs["dampening"]) * (1 - first) * g
    return param - lr * (g + mu * accum if attrs["nesterov"] else accum), accum


def lars(w: Array, g: Array, w_sq: Array, g_sq: Array, decay: Array, lr: Array, attrs: Attrs) -> tuple[Array, ...]:
    """LARS: the gradient plus weight decay, scaled by the layer-wise trust ratio (clipped by lr with use_clip)."""
    local = float(attrs["hyperpara"]) * np.sqrt(w_sq) / (np.sqrt(g_sq) + decay * np.sqrt(w_sq) +
                                                         float(attrs["epsilon"]))
    if attrs["use_clip"]:
        local = np.clip(local / lr, 0.0, 1.0)
    return (local * (g + decay * w),)


def adam_apply_one(g: Array, v: Array, m: Array, var: Array, lr: Array, beta1: Array, one_minus_b1: Array,
                   beta2: Array, one_minus_b2: Array, eps: Array, attrs: Attrs) -> tuple[Array, ...]:
    """BERT's fused Adam step: (v, m, var) with the betas and their complements given separately."""
    v = beta2 * v + one_minus_b2 * g * g
    m = beta1 * m + one_minus_b1 * g
    return v, m, var - lr * m / (np.sqrt(v) + eps)


def adam_apply_one_with_decay(g: Array, v: Array, m: Array, var: Array, lr: Array, beta1: Array,
                              one_minus_b1: Array, beta2: Array, one_minus_b2: Array, decay: Array, eps: Array,
                              attrs: Attrs) -> tuple[Array, ...]:
    """The fused Adam step with decoupled weight decay (AdamW): decay var is added to the step's direction."""
    v = beta2 * v + one_minus_b2 * g * g
    m = beta1 * m + one_minus_b1 * g
    return v, m, var - lr * (m / (np.sqrt(v) + eps) + decay * var)


def _lamb_moments(sq: Array, v: Array, v_corr: Array, g: Array, m: Array, m_corr: Array, beta1: Array,
                  one_minus_b1: Array, beta2: Array, one_minus_b2: Array) -> tuple[Array, ...]:
    """LAMB's moments and their bias-corrected values (m, v, m_hat, v_hat)."""
    m = beta1 * m + one_minus_b1 * g
    v = beta2 * v + one_minus_b2 * sq
    return m, v, m / m_corr, v / v_corr


def lamb_next_mv(sq: Array, v: Array, v_corr: Array, g: Array, m: Array, m_corr: Array, var: Array, beta1: Array,
                 one_minus_b1: Array, beta2: Array, one_minus_b2: Array, decay: Array, eps: Array,
                 attrs: Attrs, with_decay: bool = False) -> tuple[Array, ...]:
    """LAMB's update direction: decay var + m_hat / sqrt(v_hat + eps), the moments, and m_hat / (sqrt(v_hat) + eps)
    (plus decay var in the WithDecay form)."""
    m, v, m_hat, v_hat = _lamb_moments(sq, v, v_corr, g, m, m_corr, beta1, one_minus_b1, beta2, one_minus_b2)
    ratio = m_hat / (np.sqrt(v_hat) + eps)
    return decay * var + m_hat / np.sqrt(v_hat + eps), m, v, decay * var + ratio if with_decay else ratio


def lamb_next_mv_with_decay(*args: Any) -> tuple[Array, ...]:
    """LambNextMV whose last output adds the weight decay term."""
    return lamb_next_mv(*args, with_decay=True)


def lamb_next_right(g: Array, v: Array, beta2: Array, one_minus_b2: Array, recip: Array, eps: Array,
                    attrs: Attrs) -> tuple[Array, ...]:
    """LAMB's second moment and eps + sqrt(v / (1 - beta2^t)), the reciprocal bias correction given."""
    v = beta2 * v + one_minus_b2 * g * g
    return v, eps + np.sqrt(v * recip)


def lamb_update_with_lr(w_norm: Array, u_norm: Array, divisor: Array, lr: Array, update: Array, var: Array,
                        low: Array, fallback: Array, high: Array, attrs: Attrs) -> tuple[Array, ...]:
    """LAMB's step with the trust ratio u_norm / divisor where both norms exceed low (else fallback), clipped into
    [low, high]."""
    ratio = np.where((w_norm > low) & (u_norm > low), u_norm / divisor, fallback)
    return (var - np.clip(np.minimum(ratio, high), low, None) * lr * update,)


def _step(op_type: str, step: Step) -> RefOp:
    """The RefOp of one optimizer: step's updated tensors, as many as the op outputs, in var's shape."""

    def compute(xs: list[Any], attrs: Attrs, out: list[np.dtype]) -> list[Array]:
        wide = [widen(x) for x in xs]
        shape = np.broadcast_shapes(*(x.shape for x in wide))
        updated = step(*wide, attrs)
        return [round_to(np.broadcast_to(u, shape), d) for u, d in zip(updated, out)]

    def shape(shapes: list[Any], values: list[Any], attrs: Attrs) -> list[tuple[int, ...]]:
        state = tuple(np.broadcast_shapes(*(tuple(s) for s in shapes)))
        return [state] * len(prototype(op_type).outputs)

    return define(op_type, compute, shape)


OPS: tuple[RefOp, ...] = tuple(_step(op_type, step) for op_type, step in (
    ("ApplyGradientDescent", gradient_descent), ("ApplyMomentumD", momentum), ("ApplyKerasMomentumD", keras_momentum),
    ("FusedMulApplyKerasMomentum", fused_mul_keras_momentum), ("ApplyAdagrad", adagrad), ("ApplyAdagradD", adagrad),
    ("ApplyAdagradV2D", adagrad), ("ApplyAdadelta", adadelta), ("ApplyAdadeltaD", adadelta), ("ApplyAdam", adam),
    ("ApplyAdamD", adam), ("ApplyAdaMaxD", adamax), ("ApplyAdamWithAmsgradD", amsgrad), ("ApplyAddSign", add_sign),
    ("ApplyAddSignD", add_sign), ("ApplyPowerSign", power_sign), ("ApplyPowerSignD", power_sign),
    ("ApplyRMSPropD", rms_prop), ("ApplyCenteredRMSPropD", centered_rms_prop), ("ApplyFtrl", ftrl),
    ("ApplyFtrlD", ftrl), ("ApplyFtrlV2", ftrl_v2), ("ApplyFtrlV2D", ftrl_v2),
    ("ApplyProximalAdagradD", proximal_adagrad), ("SGD", sgd), ("LarsV2Update", lars),
    ("AdamApplyOne", adam_apply_one), ("AdamApplyOneAssign", adam_apply_one),
    ("AdamApplyOneWithDecay", adam_apply_one_with_decay), ("AdamApplyOneWithDecayAssign", adam_apply_one_with_decay),
    ("LambNextMV", lamb_next_mv), ("LambNextMVWithDecay", lamb_next_mv_with_decay),
    ("LambNextRight", lamb_next_right), ("LambUpdateWithLr", lamb_update_with_lr), ("ApplyProximalGradientDescent", proximal_gradient_descent),
))
