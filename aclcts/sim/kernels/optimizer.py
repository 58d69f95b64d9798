"""Optimizer-update kernels: the Apply* ops, their *D forms, FusedMulApplyKerasMomentum, SGD, LarsV2Update and the
fused BERT steps (AdamApplyOne*, LambNextMV*, LambNextRight, LambUpdateWithLr).

Prototypes: aclcts.core.prototypes.optimizer (nn_training_ops.h); SGD and LarsV2Update in the order of tbe/impl/sgd.py
and lars_v2_update.py. Every input shares one dtype (float16 or float32);
var and the state tensors share one shape, the hyperparameters are one value each (shape [1], or the state's shape)
and broadcast. A kernel returns the tensors its record outputs (a *D form every updated state tensor, a non-D form var
alone), each in a buffer of its own: the ref inputs are not written.
Numerics: as CANN's TBE implementations (ops/built-in/tbe/impl/apply_*_d.py, sgd.py ...): the ops in WIDENED cast
float16 inputs to float32 (their impl's cast_to), compute there and round each output once; the others compute in the
input dtype, each primitive operation rounded to it (NumPy's float16 arithmetic). Moving averages follow the impls'
order, m + (1 - beta1) (grad - m) (apply_adam_d.py), not the documented beta1 m + (1 - beta1) grad. The step of var
uses the updated accumulators (the seam `optimizer step moment`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from aclcts.sim.kernels.base import InferredShape, TensorInfo
from aclcts.sim.kernels.call import OpCall, Outputs
from aclcts.sim.kernels.numerics import FLOAT32
from aclcts.sim.kernels.registry import builtin
from aclcts.sim.kernels.shapes import broadcast, inferred
from aclcts.sim.seams import Seam

Array = np.ndarray
Updated = tuple[np.ndarray, ...]
#: The op types whose TBE implementation computes float16 in float32.
WIDENED = frozenset({"ApplyMomentumD", "ApplyAdagrad", "ApplyAdagradD", "ApplyAdadelta", "ApplyAdadeltaD",
                     "ApplyAdaMaxD", "ApplyPowerSign", "ApplyPowerSignD", "ApplyCenteredRMSPropD", "ApplyFtrl",
                     "ApplyFtrlD", "ApplyFtrlV2", "ApplyFtrlV2D", "ApplyProximalAdagradD",
                     "ApplyProximalGradientDescent", "SGD"})
Update = Callable[..., Updated]
#: The fused BERT steps, which broadcast all their inputs to one shape (tbe/impl/adam_apply_one.py shape_broadcast).
BROADCASTING = frozenset({"AdamApplyOne", "AdamApplyOneAssign", "AdamApplyOneWithDecay", "AdamApplyOneWithDecayAssign",
                          "LambNextMV", "LambNextMVWithDecay", "LambNextRight", "LambUpdateWithLr"})


def _updated(old: np.ndarray, new: np.ndarray) -> np.ndarray:
    """The accumulator value a step of var reads: the updated one, as every optimizer documents."""
    return new


#: Which value of an accumulator (old, new) the step of var reads.
step_moment = Seam("optimizer step moment", _updated)


def _decayed(old: np.ndarray, target: np.ndarray, rate: np.ndarray) -> np.ndarray:
    """old + (1 - rate) (target - old): an exponential moving average in the TBE kernels' order."""
    return old + (rate.dtype.type(1) - rate) * (target - old)


def _descent(call: OpCall, var: Array, alpha: Array, delta: Array) -> Updated:
    return (var - delta * alpha,)


def _momentum(call: OpCall, var: Array, accum: Array, lr: Array, grad: Array, mu: Array) -> Updated:
    new = accum * mu + grad
    used = step_moment(accum, new)
    if call.attr_bool("use_nesterov"):
        return var - (grad * lr + used * mu * lr), new
    return var - used * lr, new


def _keras(call: OpCall, var: Array, accum: Array, lr: Array, grad: Array, mu: Array) -> Updated:
    scaled = grad * lr
    new = accum * mu - scaled
    used = step_moment(accum, new)
    return var + (used * mu - scaled if call.attr_bool("use_nesterov") else used), new


def _fused_keras(call: OpCall, var: Array, accum: Array, lr: Array, x1: Array, mu: Array, x2: Array) -> Updated:
    return _keras(call, var, accum, lr, x1 * x2, mu)


def _adagrad(call: OpCall, var: Array, accum: Array, lr: Array, grad: Array) -> Updated:
    new = accum + grad * grad if call.attr_bool("update_slots") else accum
    root = np.sqrt(step_moment(accum, new))
    if call.record.attr("epsilon") is not None:
        root = root + root.dtype.type(call.attr_float("epsilon"))
    return var - lr * grad / root, new


def _adadelta(call: OpCall, var: Array, accum: Array, acc_update: Array, lr: Array, rho: Array, eps: Array,
              grad: Array) -> Updated:
    new = _decayed(accum, grad * grad, rho)
    update = np.sqrt(acc_update + eps) / np.sqrt(step_moment(accum, new) + eps) * grad
    return var - update * lr, new, _decayed(acc_update, update * update, rho)


def _bias_corrected(lr: Array, b1_pow: Array, b2_pow: Array) -> Array:
    one = lr.dtype.type(1)
    return lr * np.sqrt(one - b2_pow) / (one - b1_pow)


def _adam(call: OpCall, var: Array, m: Array, v: Array, b1_pow: Array, b2_pow: Array, lr: Array, beta1: Array,
          beta2: Array, eps: Array, grad: Array) -> Updated:
    new_m, new_v = _decayed(m, grad, beta1), _decayed(v, grad * grad, beta2)
    m_used, v_used = step_moment(m, new_m), step_moment(v, new_v)
    if call.attr_bool("use_nesterov"):
        m_used = m_used * beta1 + (beta1.dtype.type(1) - beta1) * grad
    return var - _bias_corrected(lr, b1_pow, b2_pow) * m_used / (eps + np.sqrt(v_used)), new_m, new_v


def _adamax(call: OpCall, var: Array, m: Array, v: Array, b1_pow: Array, lr: Array, beta1: Array, beta2: Array,
            eps: Array, grad: Array) -> Updated:
    new_m = _decayed(m, grad, beta1)
    new_v = np.maximum(v * beta2, np.abs(grad))
    rate = lr / (lr.dtype.type(1) - b1_pow)
    return var - rate * step_moment(m, new_m) / (step_moment(v, new_v) + eps), new_m, new_v


def _amsgrad(call: OpCall, var: Array, m: Array, v: Array, vhat: Array, b1_pow: Array, b2_pow: Array, lr: Array,
             grad: Array) -> Updated:
    kind = var.dtype.type
    new_m = _decayed(m, grad, kind(call.attr_float("beta1")))
    new_v = _decayed(v, grad * grad, kind(call.attr_float("beta2")))
    new_vhat = np.maximum(vhat, new_v)
    root = np.sqrt(step_moment(vhat, new_vhat)) + kind(call.attr_float("epsilon"))
    return var - _bias_corrected(lr, b1_pow, b2_pow) * step_moment(m, new_m) / root, new_m, new_v, new_vhat


def _sign_step(var: Array, m: Array, grad: Array, lr: Array, beta: Array,
               factor: Callable[[Array], Array]) -> Updated:
    new = _decayed(m, grad, beta)
    agree = np.sign(grad) * np.sign(step_moment(m, new))
    return var - factor(agree) * grad * lr, new


def _add_sign(call: OpCall, var: Array, m: Array, lr: Array, alpha: Array, decay: Array, beta: Array,
              grad: Array) -> Updated:
    return _sign_step(var, m, grad, lr, beta, lambda agree: alpha + agree * decay)


def _power_sign(call: OpCall, var: Array, m: Array, lr: Array, logbase: Array, decay: Array, beta: Array,
                grad: Array) -> Updated:
    return _sign_step(var, m, grad, lr, beta, lambda agree: np.exp(agree * decay * logbase))


def _rms_prop(call: OpCall, var: Array, ms: Array, mom: Array, lr: Array, grad: Array) -> Updated:
    kind = var.dtype.type
    rho, mu, eps = (kind(call.attr_float(k)) for k in ("rho", "momentum", "epsilon"))
    new_ms = _decayed(ms, grad * grad, rho)
    new_mom = mom * mu + grad * lr / np.sqrt(step_moment(ms, new_ms) + eps)
    return var - step_moment(mom, new_mom), new_ms, new_mom


def _centered_rms_prop(call: OpCall, var: Array, mg: Array, ms: Array, mom: Array, lr: Array, rho: Array,
                       mu: Array, eps: Array, grad: Array) -> Updated:
    new_mg, new_ms = _decayed(mg, grad, rho), _decayed(ms, grad * grad, rho)
    mg_used = step_moment(mg, new_mg)
    new_mom = mom * mu + grad * lr / np.sqrt(step_moment(ms, new_ms) - mg_used * mg_used + eps)
    return var - step_moment(mom, new_mom), new_mg, new_ms, new_mom


def _ftrl_step(var: Array, accum: Array, linear: Array, grad: Array, moved: Array, lr: Array, l1: Array, l2: Array,
               power: Array) -> Updated:
    new = accum + grad * grad
    new_rate = np.power(step_moment(accum, new), -power)
    new_linear = linear + moved - (new_rate - np.power(accum, -power)) / lr * var
    quadratic = new_rate / lr + var.dtype.type(2) * l2
    shrunk = (np.sign(new_linear) * l1 - new_linear) / quadratic
    return np.where(np.abs(new_linear) > l1, shrunk, var.dtype.type(0)), new, new_linear


def _ftrl(call: OpCall, var: Array, accum: Array, linear: Array, grad: Array, lr: Array, l1: Array, l2: Array,
          power: Array) -> Updated:
    return _ftrl_step(var, accum, linear, grad, grad, lr, l1, l2, power)


def _ftrl_v2(call: OpCall, var: Array, accum: Array, linear: Array, grad: Array, lr: Array, l1: Array, l2: Array,
             shrink: Array, power: Array) -> Updated:
    moved = grad + var.dtype.type(2) * shrink * var
    return _ftrl_step(var, accum, linear, grad, moved, lr, l1, l2, power)


def _proximal(prox: Array, rate: Array, l1: Array, l2: Array) -> Array:
    one, zero = prox.dtype.type(1), prox.dtype.type(0)
    return np.sign(prox) * np.maximum(np.abs(prox) - rate * l1, zero) / (one + rate * l2)


def _proximal_adagrad(call: OpCall, var: Array, accum: Array, lr: Array, l1: Array, l2: Array,
                      grad: Array) -> Updated:
    new = accum + grad * grad
    rate = lr / np.sqrt(step_moment(accum, new))
    return _proximal(var - grad * rate, rate, l1, l2), new


def _proximal_descent(call: OpCall, var: Array, alpha: Array, l1: Array, l2: Array, delta: Array) -> Updated:
    return (_proximal(var - delta * alpha, alpha, l1, l2),)


def _sgd(call: OpCall, param: Array, grad: Array, lr: Array, accum: Array, mu: Array, first: Array) -> Updated:
    kind = param.dtype.type
    g = grad + param * kind(call.attr_float("weight_decay")) if call.attr_float("weight_decay") != 0.0 else grad
    new = accum * mu + g
    if call.attr_float("dampening") != 0.0:
        new = new - g * ((kind(1) - first) * kind(call.attr_float("dampening")))
    used = step_moment(accum, new)
    step = g * lr + used * mu * lr if call.attr_bool("nesterov") else used * lr
    return param - step, new


def _lars(call: OpCall, w: Array, g: Array, w_sq: Array, g_sq: Array, decay: Array, lr: Array) -> Updated:
    kind = w.dtype.type
    w_norm = np.sqrt(w_sq)
    coeff = w_norm * kind(call.attr_float("hyperpara")) / (w_norm * decay + np.sqrt(g_sq) +
                                                            kind(call.attr_float("epsilon")))
    if call.attr_bool("use_clip"):
        coeff = np.maximum(np.minimum(coeff / lr, kind(1)), kind(0))
    return ((w * decay + g) * coeff,)


def _adam_one(call: OpCall, g: Array, v: Array, m: Array, var: Array, lr: Array, beta1: Array, c1: Array,
              beta2: Array, c2: Array, *rest: Array) -> Updated:
    """The fused BERT Adam step in adam_apply_one(_with_decay).py's order; rest is (decay, eps) or (eps,)."""
    eps = rest[-1]
    new_v = v * beta2 + g * g * c2
    new_m = m * beta1 + g * c1
    direction = step_moment(m, new_m) / (np.sqrt(step_moment(v, new_v)) + eps)
    if len(rest) == 2:
        direction = direction + var * rest[0]
    return new_v, new_m, var - direction * lr


def _lamb_mv(call: OpCall, sq: Array, v: Array, v_corr: Array, g: Array, m: Array, m_corr: Array, var: Array,
             beta1: Array, c1: Array, beta2: Array, c2: Array, decay: Array, eps: Array) -> Updated:
    """LambNextMV(WithDecay) in lamb_next_m_v.py's order."""
    new_v = v * beta2 + sq * c2
    v_hat = step_moment(v, new_v) / v_corr
    new_m = m * beta1 + g * c1
    m_hat = step_moment(m, new_m) / m_corr
    decayed = var * decay
    last = m_hat / (np.sqrt(v_hat) + eps)
    if call.op_type == "LambNextMVWithDecay":
        last = decayed + last
    return decayed + m_hat / np.sqrt(v_hat + eps), new_m, new_v, last


def _lamb_right(call: OpCall, g: Array, v: Array, beta2: Array, c2: Array, recip: Array, eps: Array) -> Updated:
    new_v = v * beta2 + g * g * c2
    return new_v, eps + np.sqrt(step_moment(v, new_v) * recip)


def _lamb_update(call: OpCall, w_norm: Array, u_norm: Array, divisor: Array, lr: Array, update: Array, var: Array,
                 low: Array, fallback: Array, high: Array) -> Updated:
    """LambUpdateWithLr in lamb_update_with_lr.py's order: two selects, minimum, maximum, two products, the difference."""
    inner = np.where(w_norm > low, u_norm / divisor, fallback)
    ratio = np.maximum(np.minimum(np.where(u_norm > low, inner, fallback), high), low)
    return (var - ratio * lr * update,)


def _state_shape(call: OpCall, arrays: list[Any]) -> tuple[int, ...]:
    """var's shape, after checking every input is var-shaped or holds one value; for the fused BERT steps, which
    broadcast every input (their impls' shape_broadcast), the shape all inputs broadcast to."""
    if call.op_type in BROADCASTING:
        return _broadcast(call, [tuple(a.shape) for a in arrays])
    shape = tuple(arrays[0].shape)
    for index, array in enumerate(arrays):
        if tuple(array.shape) != shape and int(np.prod(array.shape, dtype=np.int64)) != 1:
            raise call.fail(f"input {call.quoted(index)} has shape {list(array.shape)}, expected {list(shape)} (the "
                            f"shape of {call.quoted(0)}) or a single value")
    return shape


def _broadcast(call: OpCall, shapes: list[tuple[int, ...]]) -> tuple[int, ...]:
    try:
        return tuple(np.broadcast_shapes(*shapes))
    except ValueError:
        raise call.fail(f"the input shapes {[list(s) for s in shapes]} do not broadcast to one shape") from None


def _register(op_type: str, update: Update) -> None:
    """Register op_type's kernel: update takes the call and the inputs in the record's order and gives the updated
    tensors in the *D form's output order (var first); the op returns as many as its record outputs."""

    def compute(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list[TensorInfo]) -> list[np.ndarray]:
        call = OpCall(op_type, inputs, attrs)
        call.require_inputs()
        arrays = [call.input(i) for i in range(len(inputs))]
        call.require_simulated(0, arrays[0].dtype)
        call.require_same_dtype(list(range(len(arrays))), [a.dtype for a in arrays])
        shape = _state_shape(call, arrays)
        out = Outputs(call, outputs)
        kind = FLOAT32 if op_type in WIDENED else arrays[0].dtype
        keep = op_type in BROADCASTING
        flat = [(a if keep or a.shape == shape else a.reshape(())).astype(kind) for a in arrays]
        with np.errstate(all="ignore"):
            updated = update(call, *flat)
        results = []
        for index, value in enumerate(updated[:len(out.names)]):
            out.require_input_dtype(index, 0, arrays[0].dtype)
            results.append(out.emit(index, np.broadcast_to(value, shape).astype(arrays[0].dtype)))
        return results

    def infer_shape(inputs: list[TensorInfo], values: list[np.ndarray | None], attrs: dict[str, Any]) -> list[InferredShape]:
        call = OpCall(op_type, inputs, attrs)
        call.require_inputs()
        var = call.input(0)
        if op_type in BROADCASTING:
            shape = broadcast(call, list(range(len(inputs))), [tuple(call.input(i).shape) for i in range(len(inputs))])
        else:
            shape = tuple(var.shape)
        return [inferred(var.dtype, shape) for _ in call.record.outputs]

    builtin(op_type, compute, infer_shape)


for _op_type, _update in (
        ("ApplyGradientDescent", _descent), ("ApplyMomentumD", _momentum),
        ("ApplyKerasMomentumD", _keras), ("FusedMulApplyKerasMomentum", _fused_keras),
        ("ApplyAdagrad", _adagrad), ("ApplyAdagradD", _adagrad), ("ApplyAdagradV2D", _adagrad),
        ("ApplyAdadelta", _adadelta), ("ApplyAdadeltaD", _adadelta), ("ApplyAdam", _adam), ("ApplyAdamD", _adam),
        ("ApplyAdaMaxD", _adamax), ("ApplyAdamWithAmsgradD", _amsgrad), ("ApplyAddSign", _add_sign),
        ("ApplyAddSignD", _add_sign), ("ApplyPowerSign", _power_sign), ("ApplyPowerSignD", _power_sign),
        ("ApplyRMSPropD", _rms_prop), ("ApplyCenteredRMSPropD", _centered_rms_prop), ("ApplyFtrl", _ftrl),
        ("ApplyFtrlD", _ftrl), ("ApplyFtrlV2", _ftrl_v2), ("ApplyFtrlV2D", _ftrl_v2),
        ("ApplyProximalAdagradD", _proximal_adagrad), ("SGD", _sgd), ("LarsV2Update", _lars),
        ("AdamApplyOne", _adam_one), ("AdamApplyOneAssign", _adam_one), ("AdamApplyOneWithDecay", _adam_one),
        ("AdamApplyOneWithDecayAssign", _adam_one), ("LambNextMV", _lamb_mv), ("LambNextMVWithDecay", _lamb_mv),
        ("LambNextRight", _lamb_right), ("LambUpdateWithLr", _lamb_update), ("ApplyProximalGradientDescent", _proximal_descent)):
    _register(_op_type, _update)
