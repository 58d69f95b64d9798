"""Prototypes of the normalisations: LayerNorm, RmsNorm, L2Normalize, LpNormV2 and SoftmaxCrossEntropyWithLogits.

Sources: hicann/ops-nn norm/layer_norm, norm/rms_norm, norm/lp_norm_v2 op_graph/*_proto.h,
common/inc/op_graph/op_nn_proto_extend.h (L2Normalize) and activation/softmax_cross_entropy_with_logits. The issue's
LpNorm is LpNormV2 in the current operator library. LayerNorm's gamma/beta may also be float32 with a float16 x (the
header's "dtype must match input x or be float32"); the suite gives them x's dtype.
"""

from __future__ import annotations

import math

from aclcts.core.prototypes.dtypes import FLOAT64, FLOATS
from aclcts.core.prototypes.spec import Attr, Axes, Prototype, op

POLICY = "nn"
SHAPE_RULE = "each"

_NN = "hicann/ops-nn {}/op_graph/{}_proto.h REG_OP({})"

#: The shape rule of the norms whose gamma (and beta) have x's trailing dims: their dynamic cases run at their own
#: runtime shapes (drawn independently, gamma missed x's dims and every example was refused).
_PARAMS_OF_X = "given"

PROTOTYPES: tuple[Prototype, ...] = (
    op("LayerNorm", "x:T, gamma:T, beta:T", "y:T, mean:T, variance:T", {"T": FLOATS},
       (Attr("begin_norm_axis", "int", 0, domain=Axes("x")), Attr("begin_params_axis", "int", 0, domain=Axes("x")),
        Attr("epsilon", "float", 1e-7)),
       source=_NN.format("norm/layer_norm", "layer_norm", "LayerNorm"),
       formats={"x": ("FRACTAL_NZ",), "y": ("FRACTAL_NZ",)}, shape_rule=_PARAMS_OF_X),
    op("RmsNorm", "x:T, gamma:T", "y:T, rstd:R", {"T": FLOATS, "R": ("float32",)}, (Attr("epsilon", "float", 1e-6),),
       source=_NN.format("norm/rms_norm", "rms_norm", "RmsNorm"), shape_rule=_PARAMS_OF_X),
    op("L2Normalize", "x:T", "y:T", {"T": ("float16", "float32")},
       (Attr("axis", "list_int", [], domain=Axes("x", many=True)), Attr("eps", "float", 1e-4)),
       source="hicann/ops-nn common/inc/op_graph/op_nn_proto_extend.h REG_OP(L2Normalize)"),
    op("LpNormV2", "x:T", "y:T", {"T": FLOATS},
       (Attr("p", "float", 2.0), Attr("axes", "list_int", [], domain=Axes("x", many=True)), Attr("keepdim", "bool", False),
        Attr("epsilon", "float", 1e-12)),
       source=_NN.format("norm/lp_norm_v2", "lp_norm_v2", "LpNormV2")),
    op("SoftmaxCrossEntropyWithLogits", "features:T, labels:T", "loss:T, backprop:T", {"T": FLOATS + FLOAT64},
       source=_NN.format("activation/softmax_cross_entropy_with_logits", "softmax_cross_entropy_with_logits",
                         "SoftmaxCrossEntropyWithLogits"), shape_rule="same",
       open_points=(math.inf,)),
)
