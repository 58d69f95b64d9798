"""Records of the loss family: L2Loss and the gradients of PyTorch's MSELoss and L1Loss.

Sources: canndev's op_proto headers (dengguojie/vue-element-admin@7d77ce32d ops/built-in/op_proto/inc/
matrix_calculation_ops.h and nn_norm_ops.h). `reduction` is PyTorch's: "mean" divides by the element count, "sum"
and "none" do not (the gradient of a sum and of the unreduced loss are the same elementwise values).
"""

from __future__ import annotations

from aclcts.core.prototypes.dtypes import FLOAT64, FLOATS
from aclcts.core.prototypes.spec import Attr, OneOf, Prototype, op

POLICY = "nn"
SHAPE_RULE = "same"

_HEADER = "dengguojie/vue-element-admin@7d77ce32d ops/built-in/op_proto/inc/{} REG_OP({})"
_REDUCTION = (Attr("reduction", "str", "mean", domain=OneOf(("mean", "sum", "none"))),)
_TORCH = "https://pytorch.org/docs/stable/generated/torch.nn.{}.html"

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
)
