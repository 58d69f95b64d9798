"""Records of the loss family: L2Loss, PyTorch's pointwise losses (BCE, BCE with logits, smooth L1, soft margin) and
their gradients, and the gradients of MSELoss and L1Loss.

Sources: canndev's op_proto headers (dengguojie/vue-element-admin@7d77ce32d ops/built-in/op_proto/inc/
matrix_calculation_ops.h, nn_norm_ops.h and math_ops.h). `reduction` is PyTorch's: "none" keeps the elementwise loss,
"sum" adds it up and "mean" divides the sum by the element count, both giving a scalar; a gradient op's output always
has the input's shape, divided by the element count for "mean".
"""

from __future__ import annotations

from aclcts.core.prototypes.dtypes import FLOAT64, FLOATS
from aclcts.core.prototypes.spec import Attr, OneOf, Prototype, Sample, op

POLICY = "nn"
SHAPE_RULE = "same"

_HEADER = "dengguojie/vue-element-admin@7d77ce32d ops/built-in/op_proto/inc/{} REG_OP({})"
_REDUCTION = (Attr("reduction", "str", "mean", domain=OneOf(("mean", "sum", "none"))),)
_TORCH = "https://pytorch.org/docs/stable/generated/torch.nn.{}.html"
_NORM = "nn_norm_ops.h"
FP16_FP32 = ("float16", "float32")
#: The default cases' shapes (rank 2, inside the dynamic case's ranges), one per case, every required input alike.
_SHAPES = ((2, 3), (8, 20))
_DYNAMIC = ((1, 8), (1, 32))
#: The dynamic default case draws values over the whole range of the dtype, as the `large` profile does: the losses
#: that leave that profile out (and SigmoidCrossEntropyWithLogits, whose infinite logits give inf - inf in the TBE
#: order) have no dynamic default case until that case takes the record's sample ranges; nor, for now, SmoothL1LossV2
#: and the two smooth L1 gradients, whose dynamic runs did not finish in this change's time (not yet diagnosed).
_WHOLE_RANGE_OVERFLOWS = False
_BATCHMEAN = "batchmean (the sum divided by the first dim)"
_KL_TARGET = Sample(0.05, 1.0, "probabilities, positive where log(target) is taken")
_LOG_PROBABILITY = Sample(-3.0, 0.0, "log-probabilities")
_RATE = Sample(0.1, 3.0, "positive rates: log(input_x + eps) is taken when log_input is false")
_COUNT = Sample(0.0, 5.0, "counts on both sides of 1, where the Stirling term of full starts")
_SIGMA = Attr("sigma", "float", 1.0)
#: Where the loss ops' values are drawn.
_LOGITS = Sample(-5.0, 5.0, "logits of both signs, inside exp's range")
_PROBABILITY = Sample(0.05, 0.95, "probabilities away from 0 and 1, where BCE's logarithms are clamped")
_TARGET = Sample(0.0, 1.0, "targets are probabilities")
_SIGNED_LABEL = Sample(-1.0, 1.0, "labels in [-1, 1] (the documented labels are -1 and 1)")
_DOUT = Sample(-2.0, 2.0, "incoming gradients of both signs")
_WIDE = Sample(-3.0, 3.0, "differences on both sides of sigma = 1, the branch point")
#: BCE's x is a probability in (0, 1): every value profile (subnormals and tiny values of both signs, large values)
#: leaves that domain, where PyTorch and the TBE implementation clamp differently.
_IN_DOMAIN_ONLY: tuple[str, ...] = ()
#: The losses whose TBE order takes e^x of the logits (e^x / (e^x + 1), e^(-x y)), or scales a float16 target by 1024
#: (KLDiv's mask of target > 0): at `large` inputs these overflow and the result is NaN or infinite, as on a device,
#: where the float64 reference stays finite.
_NO_LARGE = ("subnormal",)


def _pointwise(op_type: str, inputs: str, output: str, note: str, samples: dict[str, Sample], *,
               attrs: tuple[Attr, ...] = _REDUCTION, header: str = _NORM, profiles: tuple[str, ...] | None = None,
               sample_attrs: dict[str, object] | None = None, reduces: bool = False,
               types: tuple[str, ...] = FP16_FP32, shape_rule: str = "", dynamic: bool = True) -> Prototype:
    """A pointwise loss or its gradient over float16/float32 tensors of one type, with a dynamic default case of rank-2
    tensors; a loss that `reduces` (to a scalar, by its default reduction mean) runs its default cases with reduction
    none, so that the dynamic one has a -1 output (mean and sum run in the attribute's domain cases); without dynamic,
    or where its profiles leave out `large`, no dynamic default case."""
    whole_range = profiles is None or "large" in profiles
    ranges = {name: _DYNAMIC for name in (*samples, output)} if dynamic and whole_range else {}
    required = len([name for name in inputs.split(",") if "?" not in name])
    shapes = tuple((shape,) * required for shape in _SHAPES)
    if reduces:
        sample_attrs = {"reduction": "none", **(sample_attrs or {})}
    return op(op_type, inputs, f"{output}:T", {"T": types}, attrs,
              source=f"{_HEADER.format(header, op_type)}: {note}", samples=samples, profiles=profiles,
              sample_attrs=sample_attrs, sample_ranges=ranges, sample_shapes=shapes, shape_rule=shape_rule)


PROTOTYPES: tuple[Prototype, ...] = (
    op("L2Loss", "x:T", "y:T", {"T": FLOATS + FLOAT64},
       source=f"{_HEADER.format('matrix_calculation_ops.h', 'L2Loss')}: y = sum(x^2) / 2, a scalar (tf.nn.l2_loss)",
       shape_rule="each"),
    op("MseLossGrad", "predict:T, label:T, dout:T", "y:T", {"T": ("float32", "float16")}, _REDUCTION,
       source=f"{_HEADER.format('nn_norm_ops.h', 'MseLossGrad')}: y = 2 (predict - label) dout, divided by the "
              f"element count for mean; the gradient of {_TORCH.format('MSELoss')}"),
    op("L1LossGrad", "grads:T, predict:T, label:T", "y:T", {"T": ("float16", "float32")}, _REDUCTION,
       source=f"{_HEADER.format('nn_norm_ops.h', 'L1LossGrad')}: y = sign(predict - label) grads, divided by the "
              f"element count for mean; the gradient of {_TORCH.format('L1Loss')}"),
    _pointwise("SigmoidCrossEntropyWithLogits", "predict:T, target:T", "loss",
               f"max(predict, 0) - predict target + log(1 + e^-|predict|), elementwise; "
               f"{_TORCH.format('BCEWithLogitsLoss')} with reduction none",
               {"predict": _LOGITS, "target": _TARGET}, attrs=(), dynamic=_WHOLE_RANGE_OVERFLOWS),
    _pointwise("SigmoidCrossEntropyWithLogitsV2", "predict:T, target:T, weight?:T, pos_weight?:T", "loss",
               f"weight ((1 - target) predict + (1 + (pos_weight - 1) target) log(1 + e^-predict)), weight and "
               f"pos_weight broadcast to predict; {_TORCH.format('BCEWithLogitsLoss')}. UNCONFIRMED: "
               f"sigmoid_cross_entropy_with_logits_v2.py reduces nothing while the infer shape (nn_norm_ops.cc) gives "
               f"a scalar for mean and sum; here PyTorch's reduction",
               {"predict": _LOGITS, "target": _TARGET}, profiles=_NO_LARGE, reduces=True),
    _pointwise("SigmoidCrossEntropyWithLogitsGrad", "predict:T, target:T, dout:T", "gradient",
               "(sigmoid(predict) - target) dout, the gradient of SigmoidCrossEntropyWithLogits",
               {"predict": _LOGITS, "target": _TARGET, "dout": _DOUT}, attrs=(), profiles=_NO_LARGE),
    _pointwise("SigmoidCrossEntropyWithLogitsGradV2",
               "predict:T, target:T, dout:T, weight?:T, pos_weight?:T", "gradient",
               "weight dout ((1 + (pos_weight - 1) target) sigmoid(predict) - pos_weight target), divided by the "
               "element count for mean; the gradient of SigmoidCrossEntropyWithLogitsV2",
               {"predict": _LOGITS, "target": _TARGET, "dout": _DOUT}, profiles=_NO_LARGE),
    _pointwise("BinaryCrossEntropy", "x:T, y:T, weight?:T", "output",
               f"-weight (y log(x) + (1 - y) log(1 - x)), {_TORCH.format('BCELoss')}; x in (0, 1). UNCONFIRMED: "
               f"where x is 0 or 1 PyTorch clamps the logarithm at -100, binary_cross_entropy.py clamps x and 1 - x "
               f"at 1e-12 (its samples stay away)", {"x": _PROBABILITY, "y": _TARGET}, profiles=_IN_DOMAIN_ONLY,
               reduces=True),
    _pointwise("BinaryCrossEntropyGrad", "x:T, y:T, grad_output:T, weight?:T", "output",
               "weight grad_output (x - y) / (x (1 - x)), divided by the element count for mean; the gradient of "
               "BinaryCrossEntropy (binary_cross_entropy_grad.py clamps x (1 - x) at 1e-12)",
               {"x": _PROBABILITY, "y": _TARGET, "grad_output": _DOUT}, profiles=_IN_DOMAIN_ONLY),
    _pointwise("SmoothL1Loss", "predict:T, label:T", "loss",
               "0.5 d^2 / sigma where |d| < sigma, else |d| - 0.5 sigma, d = predict - label, elementwise "
               f"({_TORCH.format('SmoothL1Loss')} with beta = sigma, reduction none)",
               {"predict": _WIDE, "label": _WIDE}, attrs=(_SIGMA,)),
    _pointwise("SmoothL1LossV2", "predict:T, label:T", "loss",
               f"SmoothL1Loss reduced: {_TORCH.format('SmoothL1Loss')} with beta = sigma",
               {"predict": _WIDE, "label": _WIDE}, attrs=(_SIGMA,) + _REDUCTION, reduces=True,
               dynamic=_WHOLE_RANGE_OVERFLOWS),
    _pointwise("SmoothL1LossGrad", "predict:T, label:T, dout:T", "gradient",
               "clip(predict - label, -sigma, sigma) / sigma times dout, the gradient of SmoothL1Loss",
               {"predict": _WIDE, "label": _WIDE, "dout": _DOUT}, attrs=(_SIGMA,), dynamic=_WHOLE_RANGE_OVERFLOWS),
    _pointwise("SmoothL1LossGradV2", "predict:T, label:T, dout:T", "gradient",
               "clip(predict - label, -sigma, sigma) / sigma times dout, divided by the element count for mean; the "
               "gradient of SmoothL1LossV2", {"predict": _WIDE, "label": _WIDE, "dout": _DOUT},
               attrs=(_SIGMA,) + _REDUCTION, shape_rule="broadcast", dynamic=_WHOLE_RANGE_OVERFLOWS),
    _pointwise("SoftMarginLoss", "input_x:T, input_y:T", "output_z",
               f"log(1 + e^(-input_y input_x)), {_TORCH.format('SoftMarginLoss')}",
               {"input_x": _LOGITS, "input_y": _SIGNED_LABEL}, profiles=_NO_LARGE, reduces=True),
    _pointwise("SoftMarginLossGrad", "predict:T, label:T, dout:T", "gradient",
               "-label e^z / (1 + e^z) dout, z = -label predict, divided by the element count for mean; the gradient "
               "of SoftMarginLoss", {"predict": _LOGITS, "label": _SIGNED_LABEL, "dout": _DOUT}, header="math_ops.h",
               profiles=_NO_LARGE, shape_rule="broadcast"),
    _pointwise("KLDiv", "x:T, target:T", "y",
               "target (log(target) - x) where target > 0, else 0, reduced by sum or " + _BATCHMEAN + " as "
               "https://pytorch.org/docs/stable/generated/torch.nn.functional.kl_div.html (log_target false); the "
               "header documents sum and batchmean, kl_div.py also takes none", {"x": _LOG_PROBABILITY,
                                                                                  "target": _KL_TARGET},
               header="elewise_calculation_ops.h", types=FP16_FP32 + FLOAT64, reduces=True, profiles=_NO_LARGE,
               attrs=(Attr("reduction", "str", domain=OneOf(("none", "sum", "batchmean"))),)),
    _pointwise("KlDivLossGrad", "grad:T, input:T, target:T", "y",
               "-target grad where target > 0, else 0 (target = e^target with log_target), divided by the element "
               "count for mean and by the first dim for batchmean; the gradient of KLDivLoss. UNCONFIRMED: "
               "kl_div_loss_grad.py divides by the first dim for mean too",
               {"grad": _DOUT, "input": _LOG_PROBABILITY, "target": _KL_TARGET},
               attrs=(Attr("reduction", "str", "mean", domain=OneOf(("none", "sum", "mean", "batchmean"))),
                      Attr("log_target", "bool", False)), profiles=_NO_LARGE),
    _pointwise("PoissonNllLoss", "input_x:T, target:T", "loss",
               "e^input_x - target input_x (log_input), else input_x - target log(input_x + eps); full adds "
               "target log(target) - target + log(2 pi target) / 2 where target > 1; "
               f"{_TORCH.format('PoissonNLLLoss')}", {"input_x": _RATE, "target": _COUNT}, reduces=True,
               attrs=(Attr("log_input", "bool", True), Attr("full", "bool", False), Attr("eps", "float", 1e-8))
               + _REDUCTION),
    _pointwise("LpLoss", "predict:T, label:T", "y",
               f"|predict - label|, reduced ({_TORCH.format('L1Loss')}); the header allows p = 1 only",
               {"predict": _WIDE, "label": _WIDE}, reduces=True, sample_attrs={"p": 1},
               attrs=(Attr("p", "int", domain=OneOf((1,))),) + _REDUCTION),
)
