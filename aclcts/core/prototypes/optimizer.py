"""Records of the optimizer updates: the Apply* ops (TensorFlow's training ops), FusedMulApplyKerasMomentum, SGD,
LarsV2Update and the fused BERT steps AdamApplyOne(WithDecay)(Assign), LambNextMV(WithDecay), LambNextRight,
LambUpdateWithLr.

Source: dengguojie/vue-element-admin@7d77ce32d ops/built-in/op_proto/inc/nn_training_ops.h (the REG_OPs and their
comments, which follow TensorFlow's raw ops ApplyAdam, ApplyMomentum, ... and PyTorch's SGD).

Ref inputs. An optimizer's state tensors (var and its accumulators: m, v, accum, ms, mom, linear ...) are inputs that
the prototype names as outputs too (REG_OP `.INPUT(var, ...)` and `.OUTPUT(var, ...)`): in a graph they are variables
updated in place. In single-operator execution every output has its own buffer, so the suite reads each updated state
tensor from its output and judges it against the reference's updated value; the input buffers are not read back (the
documented API promises nothing about them). A `*D` form outputs every tensor it updates (ApplyAdamD: var, m, v); the
non-D form outputs var alone (ApplyAdam), whose value depends on the updated accumulators, so a wrong accumulator still
shows. The tensor keeps its input's name in the record; case files name such an output as the prototype does (a
case's inputs and outputs are separate lists, so one name in both is not a clash).

Types: the header gives TensorType::NumberType() for the Apply* ops; the op info CANN compiles them with
(ops/built-in/tbe/op_info_cfg/ai_core/<soc>/aic-<soc>-ops-info.ini) pairs only float16 and float32, which the records
keep (FusedMulApplyKerasMomentum: float32 and float16 in the header's NumberType, the same two here). Learning rates,
betas, epsilons and other hyperparameters are shape [1] tensors (the header's "A scalar"), broadcast over var.

Samples: accumulators that are divided by or square-rooted (v, accum, ms, accum_update) are drawn in [0.1, 1] and
epsilons in [1e-4, 1e-3], so no sample divides by a near-zero value; beta and rho in (0, 1), beta powers in
[0.1, 0.9] (1 - beta_power is a divisor), learning rates in [0.01, 0.1], gradients in [-1, 1].
"""

from __future__ import annotations

from aclcts.core.prototypes.spec import Attr, Prototype, Sample, op

POLICY = "nn"
SHAPE_RULE = "given"
#: The value profiles of the default cases: none. The profiles draw every input signed, near 0 or near overflow, which
#: leaves the optimizers' domain (a negative second moment under sqrt; lr * grad overflowing): there the float64
#: reference and a correct float32 kernel part by cancellation, not by a fault.
PROFILES: tuple[str, ...] = ()

_TRAINING = "vue-element-admin@7d77ce32d ops/built-in/op_proto/inc/nn_training_ops.h"
_FP = {"T": ("float16", "float32")}
_LOCKING = Attr("use_locking", "bool", False)
_NESTEROV = Attr("use_nesterov", "bool", False)
_UPDATE_SLOTS = Attr("update_slots", "bool", True)

#: Value ranges by input name (the same name means the same role in every optimizer).
_RANGES = {
    "var": (-1.0, 1.0, "the variable"), "grad": (-1.0, 1.0, "a gradient"), "delta": (-1.0, 1.0, "a gradient"),
    "x1": (-1.0, 1.0, "one factor of the gradient"), "x2": (0.5, 1.0, "the other factor of the gradient"),
    "m": (-1.0, 1.0, "a first moment"), "mg": (-0.3, 0.3, "a mean gradient, mg^2 well below ms"),
    "mom": (-1.0, 1.0, "a momentum buffer"), "linear": (-1.0, 1.0, "FTRL's linear term"),
    "v": (0.1, 1.0, "a second moment, square-rooted and divided by"),
    "vhat": (0.1, 1.0, "the largest second moment, square-rooted and divided by"),
    "accum": (0.1, 1.0, "an accumulator, divided by (positive, away from 0)"),
    "ms": (0.1, 1.0, "a mean square, square-rooted and divided by"),
    "accum_update": (0.1, 1.0, "Adadelta's update accumulator"),
    "lr": (0.01, 0.1, "a learning rate"), "alpha": (0.01, 0.1, "a learning rate"),
    "beta1": (0.8, 0.95, "a decay rate in (0, 1)"), "beta2": (0.9, 0.999, "a decay rate in (0, 1)"),
    "beta": (0.8, 0.95, "a decay rate in (0, 1)"), "rho": (0.8, 0.95, "a decay rate in (0, 1)"),
    "momentum": (0.5, 0.95, "a momentum factor"),
    "beta1_power": (0.1, 0.9, "beta1^t: 1 - beta1_power is divided by"),
    "beta2_power": (0.1, 0.9, "beta2^t"),
    "epsilon": (1e-4, 1e-3, "an epsilon"),
    "l1": (0.0, 0.05, "an L1 strength"), "l2": (0.0, 0.05, "an L2 strength"),
    "l2_shrinkage": (0.0, 0.05, "an L2 shrinkage strength"),
    "lr_power": (-0.8, -0.2, "FTRL's learning-rate power (negative, as TensorFlow's default -0.5)"),
    "sign_decay": (0.5, 1.0, "a sign decay"), "logbase": (0.5, 1.0, "a log base"),
    "parameters": (-1.0, 1.0, "the variable"), "gradient": (-1.0, 1.0, "a gradient"),
    "learning_rate": (0.01, 0.1, "a learning rate"), "stat": (0.0, 1.0, "the first-step flag (1: first step)"),
    "w": (-1.0, 1.0, "the weights"), "g": (-1.0, 1.0, "a gradient"),
    "w_square_sum": (1.0, 10.0, "the weights' squared norm, square-rooted"),
    "g_square_sum": (1.0, 10.0, "the gradient's squared norm, square-rooted"),
    "weight_decay": (0.0, 0.05, "a weight decay"),
    # the fused BERT steps (AdamApplyOne*, LambNext*): inputs named after the graph nodes they feed
    "input0": (-1.0, 1.0, "the gradient"), "input1": (0.1, 1.0, "the second moment (square-rooted)"),
    "input2": (-1.0, 1.0, "the first moment"), "input3": (-1.0, 1.0, "the variable"),
    "input4": (0.01, 0.1, "the learning rate"), "mul0_x": (0.8, 0.95, "beta1"), "mul1_x": (0.05, 0.2, "1 - beta1"),
    "mul2_x": (0.9, 0.999, "beta2"), "mul3_x": (0.001, 0.1, "1 - beta2"), "mul4_x": (0.0, 0.05, "a weight decay"),
    "add2_y": (1e-4, 1e-3, "an epsilon"),
    "input_mul3": (0.1, 1.0, "the squared gradient"), "input_mul2": (0.1, 1.0, "the second moment"),
    "input_realdiv1": (0.1, 1.0, "1 - beta2^t, divided by"), "input_mul1": (-1.0, 1.0, "the gradient"),
    "input_mul0": (-1.0, 1.0, "the first moment"), "input_realdiv0": (0.1, 1.0, "1 - beta1^t, divided by"),
    "input_mul4": (-1.0, 1.0, "the variable"), "mul1_sub": (0.05, 0.2, "1 - beta1"),
    "mul3_sub1": (0.001, 0.1, "1 - beta2"), "input_square": (-1.0, 1.0, "the gradient (squared)"),
    "truediv1_recip": (1.0, 10.0, "1 / (1 - beta2^t)"),
    "input_greater1": (0.1, 1.0, "the weight norm"), "input_greater_realdiv": (0.1, 1.0, "the update norm"),
    "input_realdiv": (0.1, 1.0, "the divisor of the trust ratio (away from 0)"),
    "input_mul0": (0.01, 0.1, "the learning rate"), "input_mul1": (-1.0, 1.0, "the update"),
    "input_sub": (-1.0, 1.0, "the variable"),
    "greater_y": (0.0, 0.5, "the threshold (and lower clip) of the norms: about half the elements fall below it"),
    "select_e": (0.5, 1.5, "the ratio where a norm is below the threshold"),
    "minimum_y": (5.0, 10.0, "the upper clip of the trust ratio"),
}
#: The scalar (shape [1]) inputs: hyperparameters.
_SCALARS = {"lr", "alpha", "beta1", "beta2", "beta", "rho", "momentum", "beta1_power", "beta2_power", "epsilon",
            "l1", "l2", "l2_shrinkage", "lr_power", "sign_decay", "logbase", "x2", "learning_rate", "w_square_sum",
            "g_square_sum", "weight_decay", "input4", "mul0_x", "mul1_x", "mul2_x", "mul3_x", "mul4_x", "add2_y",
            "input_realdiv1", "input_realdiv0", "mul1_sub", "mul3_sub1", "truediv1_recip", "greater_y", "select_e",
            "minimum_y"}


def _samples(names: list[str]) -> dict[str, Sample]:
    return {n: Sample(*_RANGES[n]) for n in names}


def _shapes(names: list[str]) -> tuple[tuple[tuple[int, ...], ...], ...]:
    """Two default cases: the state tensors [16, 16], then [2, 3, 5]; every hyperparameter [1]."""
    return tuple(tuple((1,) if n in _SCALARS else shape for n in names) for shape in ((16, 16), (2, 3, 5)))


def _apply(op_type: str, inputs: str, outputs: str, note: str, attrs: tuple[Attr, ...] = (_LOCKING,), *,
           sample_attrs: dict[str, object] | None = None, types: dict[str, tuple[str, ...]] | None = None,
           source: str = _TRAINING) -> Prototype:
    """An optimizer record: every input of one type T, state tensors shaped alike, hyperparameters [1]."""
    names = [n.strip() for n in inputs.split(",")]
    spec = ", ".join(f"{n}:T" for n in names)
    out = ", ".join(f"{n.strip()}:T" for n in outputs.split(","))
    return op(op_type, spec, out, types or _FP, attrs, source=f"{source} REG_OP({op_type}): {note}",
              samples=_samples(names), sample_shapes=_shapes(names), sample_attrs=sample_attrs, profiles=PROFILES)


_ADAM = ("lr_t = lr * sqrt(1 - beta2_power) / (1 - beta1_power); m = beta1 m + (1 - beta1) grad; v = beta2 v + "
         "(1 - beta2) grad^2; var -= lr_t m / (sqrt(v) + epsilon), with use_nesterov lr_t (beta1 m + (1 - beta1) "
         "grad) / (sqrt(v) + epsilon) (TensorFlow ApplyAdam)")
_ADAM_IN = "var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad"
_ADAGRAD = "accum += grad^2 if update_slots; var -= lr grad / sqrt(accum) (TensorFlow ApplyAdagrad)"
_ADADELTA = ("accum = rho accum + (1 - rho) grad^2; update = sqrt(accum_update + epsilon) / sqrt(accum + epsilon) "
             "grad; accum_update = rho accum_update + (1 - rho) update^2; var -= lr update (TensorFlow ApplyAdadelta)")
_ADADELTA_IN = "var, accum, accum_update, lr, rho, epsilon, grad"
_ADD_SIGN = ("m = beta m + (1 - beta) grad; var -= lr (alpha + sign_decay sign(grad) sign(m)) grad "
             "(TensorFlow ApplyAddSign)")
_POWER_SIGN = ("m = beta m + (1 - beta) grad; var -= lr exp(logbase sign_decay sign(grad) sign(m)) grad "
               "(TensorFlow ApplyPowerSign)")
_FTRL = ("accum_new = accum + grad^2; linear += grad - (accum_new^-lr_power - accum^-lr_power) / lr var; "
         "var = (sign(linear) l1 - linear) / (accum_new^-lr_power / lr + 2 l2) where |linear| > l1, else 0 "
         "(TensorFlow ApplyFtrl)")
_FTRL_V2 = ("as ApplyFtrl with grad + 2 l2_shrinkage var in place of grad in linear's update (accum still adds "
            "grad^2) (TensorFlow ApplyFtrlV2)")

_ELEWISE = "vue-element-admin@7d77ce32d ops/built-in/op_proto/inc/elewise_calculation_ops.h"
#: The fused steps' REG_OPs give every input its own TensorType({DT_FLOAT16, DT_FLOAT}); the op info pairs them in one
#: column (all float16 or all float32), which the records keep as one type T. Their formulas are the graph patterns
#: the TBE implementations fuse (tbe/impl/adam_apply_one.py, lamb_next_m_v.py, ...); the headers give none.
_FUSED_NOTE = "one type for every tensor (the op info's columns); the formula is the fused graph's (tbe/impl)"
_ADAM_ONE_IN = "input0, input1, input2, input3, input4, mul0_x, mul1_x, mul2_x, mul3_x, add2_y"
_ADAM_ONE = ("output0 = input1 mul2_x + input0^2 mul3_x (v), output1 = input2 mul0_x + input0 mul1_x (m), output2 = "
             "input3 - input4 output1 / (sqrt(output0) + add2_y) (var)")
_ADAM_ONE_DECAY_IN = "input0, input1, input2, input3, input4, mul0_x, mul1_x, mul2_x, mul3_x, mul4_x, add2_y"
_ADAM_ONE_DECAY = ("as AdamApplyOne with output2 = input3 - input4 (output1 / (sqrt(output0) + add2_y) + mul4_x "
                   "input3) (decoupled weight decay)")
_LAMB_MV_IN = ("input_mul3, input_mul2, input_realdiv1, input_mul1, input_mul0, input_realdiv0, input_mul4, mul0_x, "
               "mul1_sub, mul2_x, mul3_sub1, mul4_x, add2_y")
_LAMB_MV = ("m = input_mul0 mul0_x + input_mul1 mul1_sub (y2), v = input_mul2 mul2_x + input_mul3 mul3_sub1 (y3), "
            "m_hat = m / input_realdiv0, v_hat = v / input_realdiv1, y1 = input_mul4 mul4_x + m_hat / sqrt(v_hat + "
            "add2_y)")

PROTOTYPES: tuple[Prototype, ...] = (
    _apply("ApplyGradientDescent", "var, alpha, delta", "var", "var -= alpha delta"),
    _apply("ApplyMomentumD", "var, accum, lr, grad, momentum", "var, accum",
           "accum = accum momentum + grad; var -= lr accum, with use_nesterov var -= lr grad + lr momentum accum "
           "(TensorFlow ApplyMomentum)", (_NESTEROV, _LOCKING)),
    _apply("ApplyKerasMomentumD", "var, accum, lr, grad, momentum", "var, accum",
           "accum = accum momentum - lr grad; var += accum, with use_nesterov var += momentum accum - lr grad",
           (_LOCKING, _NESTEROV)),
    _apply("FusedMulApplyKerasMomentum", "var, accum, lr, x1, momentum, x2", "var, accum",
           "ApplyKerasMomentumD with grad = x1 x2 (x2 a scalar)", (_LOCKING, _NESTEROV)),
    _apply("ApplyAdagrad", "var, accum, lr, grad", "var", _ADAGRAD, (_UPDATE_SLOTS, _LOCKING)),
    _apply("ApplyAdagradD", "var, accum, lr, grad", "var, accum", _ADAGRAD, (_UPDATE_SLOTS, _LOCKING)),
    _apply("ApplyAdagradV2D", "var, accum, lr, grad", "var, accum",
           "accum += grad^2 if update_slots; var -= lr grad / (sqrt(accum) + epsilon) (TensorFlow ApplyAdagradV2)",
           (Attr("epsilon", "float"), _UPDATE_SLOTS, _LOCKING), sample_attrs={"epsilon": 1e-4}),
    _apply("ApplyAdadelta", _ADADELTA_IN, "var", _ADADELTA),
    _apply("ApplyAdadeltaD", _ADADELTA_IN, "var, accum, accum_update", _ADADELTA),
    _apply("ApplyAdam", _ADAM_IN, "var", _ADAM, (_LOCKING, _NESTEROV)),
    _apply("ApplyAdamD", _ADAM_IN, "var, m, v", _ADAM, (_LOCKING, _NESTEROV)),
    _apply("ApplyAdaMaxD", "var, m, v, beta1_power, lr, beta1, beta2, epsilon, grad", "var, m, v",
           "m = beta1 m + (1 - beta1) grad; v = max(beta2 v, |grad|); var -= lr / (1 - beta1_power) m / (v + "
           "epsilon) (TensorFlow ApplyAdaMax)"),
    _apply("ApplyAdamWithAmsgradD", "var, m, v, vhat, beta1_power, beta2_power, lr, grad", "var, m, v, vhat",
           "m and v as ApplyAdam; vhat = max(vhat, v); var -= lr_t m / (sqrt(vhat) + epsilon) (TensorFlow "
           "ApplyAdamWithAmsgrad)",
           (Attr("beta1", "float"), Attr("beta2", "float"), Attr("epsilon", "float"), _LOCKING),
           sample_attrs={"beta1": 0.9, "beta2": 0.999, "epsilon": 1e-4}),
    _apply("ApplyAddSign", "var, m, lr, alpha, sign_decay, beta, grad", "var", _ADD_SIGN),
    _apply("ApplyAddSignD", "var, m, lr, alpha, sign_decay, beta, grad", "var, m", _ADD_SIGN),
    _apply("ApplyPowerSign", "var, m, lr, logbase, sign_decay, beta, grad", "var", _POWER_SIGN),
    _apply("ApplyPowerSignD", "var, m, lr, logbase, sign_decay, beta, grad", "var, m", _POWER_SIGN),
    _apply("ApplyRMSPropD", "var, ms, mom, lr, grad", "var, ms, mom",
           "ms = rho ms + (1 - rho) grad^2; mom = momentum mom + lr grad / sqrt(ms + epsilon); var -= mom "
           "(TensorFlow ApplyRMSProp; rho, momentum, epsilon are attributes)",
           (Attr("rho", "float"), Attr("momentum", "float"), Attr("epsilon", "float"), _LOCKING),
           sample_attrs={"rho": 0.9, "momentum": 0.9, "epsilon": 1e-4}),
    _apply("ApplyCenteredRMSPropD", "var, mg, ms, mom, lr, rho, momentum, epsilon, grad", "var, mg, ms, mom",
           "mg = rho mg + (1 - rho) grad; ms = rho ms + (1 - rho) grad^2; mom = momentum mom + lr grad / sqrt(ms - "
           "mg^2 + epsilon); var -= mom (TensorFlow ApplyCenteredRMSProp)"),
    _apply("ApplyFtrl", "var, accum, linear, grad, lr, l1, l2, lr_power", "var", _FTRL),
    _apply("ApplyFtrlD", "var, accum, linear, grad, lr, l1, l2, lr_power", "var, accum, linear", _FTRL),
    _apply("ApplyFtrlV2", "var, accum, linear, grad, lr, l1, l2, l2_shrinkage, lr_power", "var", _FTRL_V2),
    _apply("ApplyFtrlV2D", "var, accum, linear, grad, lr, l1, l2, l2_shrinkage, lr_power", "var, accum, linear",
           _FTRL_V2),
    _apply("ApplyProximalAdagradD", "var, accum, lr, l1, l2, grad", "var, accum",
           "accum += grad^2; a = lr / sqrt(accum); prox = var - a grad; var = sign(prox) max(|prox| - a l1, 0) / "
           "(1 + a l2) (TensorFlow ApplyProximalAdagrad: FOBOS with the Adagrad learning rate a)"),
    _apply("SGD", "parameters, gradient, learning_rate, accum, momentum, stat", "parameters",
           "PyTorch SGD: g = gradient + weight_decay parameters; accum = momentum accum + g - dampening (1 - stat) g "
           "(stat 1 marks the first step, where PyTorch's buffer is g: the same when accum starts at 0, UNCONFIRMED "
           "otherwise; this is the TBE implementation's reading, tbe/impl/sgd.py); parameters -= learning_rate (g + "
           "momentum accum if nesterov else accum); the updated accum is no output",
           (Attr("dampening", "float", 0.0), Attr("weight_decay", "float", 0.0), Attr("nesterov", "bool", False)),
           sample_attrs={"dampening": 0.1, "weight_decay": 0.01}),
    _apply("LarsV2Update", "w, g, w_square_sum, g_square_sum, weight_decay, learning_rate", "g_new",
           "LARS (You et al. 2017): local = hyperpara sqrt(w_square_sum) / (sqrt(g_square_sum) + weight_decay "
           "sqrt(w_square_sum) + epsilon), with use_clip clipped as local / learning_rate into [0, 1] (tbe/impl/"
           "lars_v2_update.py); g_new = local (g + weight_decay w)",
           (Attr("hyperpara", "float", 0.001), Attr("epsilon", "float", 0.00001), Attr("use_clip", "bool", False)),
           types={"T": ("float32",)}),
    _apply("AdamApplyOne", _ADAM_ONE_IN, "output0, output1, output2", f"{_ADAM_ONE}; {_FUSED_NOTE}", (),
           source=_ELEWISE),
    _apply("AdamApplyOneAssign", _ADAM_ONE_IN, "output0, output1, output2", f"{_ADAM_ONE}; {_FUSED_NOTE}", (),
           source=_ELEWISE),
    _apply("AdamApplyOneWithDecay", _ADAM_ONE_DECAY_IN, "output0, output1, output2",
           f"{_ADAM_ONE_DECAY}; {_FUSED_NOTE}", (), source=_ELEWISE),
    _apply("AdamApplyOneWithDecayAssign", _ADAM_ONE_DECAY_IN, "output0, output1, output2",
           f"{_ADAM_ONE_DECAY}; {_FUSED_NOTE}", (), source=_ELEWISE),
    _apply("LambNextMV", _LAMB_MV_IN, "y1, y2, y3, y4",
           f"{_LAMB_MV}, y4 = m_hat / (sqrt(v_hat) + add2_y); {_FUSED_NOTE}", (), source=_ELEWISE),
    _apply("LambNextMVWithDecay", _LAMB_MV_IN, "y1, y2, y3, y4",
           f"{_LAMB_MV}, y4 = input_mul4 mul4_x + m_hat / (sqrt(v_hat) + add2_y); {_FUSED_NOTE}", (),
           source=_ELEWISE),
    _apply("LambNextRight", "input_square, input_mul2, mul2_x, mul3_x, truediv1_recip, add2_y", "y1, y2",
           f"y1 = input_mul2 mul2_x + input_square^2 mul3_x, y2 = add2_y + sqrt(y1 truediv1_recip); {_FUSED_NOTE}",
           (), source=_ELEWISE),
    _apply("LambUpdateWithLr", "input_greater1, input_greater_realdiv, input_realdiv, input_mul0, input_mul1, "
                               "input_sub, greater_y, select_e, minimum_y", "y",
           "ratio = input_greater_realdiv / input_realdiv where input_greater1 > greater_y and input_greater_realdiv "
           "> greater_y, else select_e; clipped into [greater_y, minimum_y]; y = input_sub - ratio input_mul0 "
           f"input_mul1 (LAMB's trust-ratio step); {_FUSED_NOTE}", (), source=_ELEWISE),
    _apply("ApplyProximalGradientDescent", "var, alpha, l1, l2, delta", "var",
           "prox = var - alpha delta; var = sign(prox) max(|prox| - alpha l1, 0) / (1 + alpha l2) (TensorFlow "
           "ApplyProximalGradientDescent)"),
)
