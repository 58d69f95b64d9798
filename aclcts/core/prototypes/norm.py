"""Prototypes of the normalisations: LayerNorm, RmsNorm, L2Normalize, LpNormV2 and SoftmaxCrossEntropyWithLogits.

Sources: hicann/ops-nn norm/layer_norm, norm/rms_norm, norm/lp_norm_v2 op_graph/*_proto.h,
common/inc/op_graph/op_nn_proto_extend.h (L2Normalize) and activation/softmax_cross_entropy_with_logits. The issue's
LpNorm is LpNormV2 in the current operator library. LayerNorm's gamma/beta may also be float32 with a float16 x (the
header's "dtype must match input x or be float32"); the suite gives them x's dtype.
"""

from __future__ import annotations

import math

from aclcts.core.prototypes.dtypes import FLOAT64, FLOATS
from aclcts.core.prototypes.spec import Attr, Axes, Prototype, Sample, op

POLICY = "nn"
SHAPE_RULE = "each"

_NN = "hicann/ops-nn {}/op_graph/{}_proto.h REG_OP({})"

#: The shape rule of the norms whose gamma (and beta) have x's trailing dims: their dynamic cases run at their own
#: runtime shapes (drawn independently, gamma missed x's dims and every example was refused).
_PARAMS_OF_X = "given"

#: LayerNorm's gradients (vue-element-admin@7d77ce32d ops/built-in/op_proto/inc/nn_norm_ops.h, whose LayerNormGrad
#: comment spells the formulas out): the normalised axes run from the first where mean's dim differs from x's to the
#: last (the last alone when none differs), gamma covers x's trailing dims; epsilon is fixed, 1e-12 (TBE
#: impl/constant_util.py EPSLON), and 1e-5 for a float16 LayerNormXBackpropV2 (impl/layer_norm_x_backprop_v2.py).
_LN_HEADER = "vue-element-admin@7d77ce32d ops/built-in/op_proto/inc/nn_norm_ops.h REG_OP({})"
_LN_GRAD_SAMPLES = {"dy": Sample(-1.0, 1.0, "a gradient"), "x": Sample(-2.0, 2.0, "the input"),
                    "variance": Sample(0.5, 2.0, "a variance, divided by"), "mean": Sample(-1.0, 1.0, "a mean"),
                    "gamma": Sample(0.5, 2.0, "a scale"), "res_for_gamma": Sample(-2.0, 2.0, "a normalised input")}
_LN_GRAD_SHAPES = (((4, 16), (4, 16), (4, 1), (4, 1), (16,)), ((2, 3, 8), (2, 3, 8), (2, 3, 1), (2, 3, 1), (8,)))
_LN_X = "x - mean normalised: pd_xl = dy * gamma, pd_x = pd_xl rstd + pd_var (2/m)(x - mean) + pd_mean / m"
_LN_PARAMS = "pd_gamma = sum of dy (x - mean) rstd and pd_beta = sum of dy over the axes gamma does not cover"


def _ln_grad(op_type: str, inputs: str, outputs: str, note: str, *, count: int = 5,
             attrs: tuple[Attr, ...] = (), sample_attrs: dict[str, object] | None = None,
             nz: tuple[str, ...] = ()) -> Prototype:
    """A LayerNorm gradient record, its samples taken from _LN_GRAD_SAMPLES and the first count tensors of its sample
    shapes (the first set alone for a record with a shape_gamma, which fits that set's gamma); the tensors nz may be
    FRACTAL_NZ (the TBE impl's op_select_format offers it for them)."""
    names = [t.split(":")[0] for t in inputs.split(", ")]
    sets = _LN_GRAD_SHAPES[:1] if attrs else _LN_GRAD_SHAPES
    return op(op_type, inputs, outputs, {"T": ("float32", "float16"), "F": ("float32",)}, attrs,
              source=f"{_LN_HEADER.format(op_type)}: {note}", samples={n: _LN_GRAD_SAMPLES[n] for n in names},
              sample_shapes=tuple(shapes[:count] for shapes in sets), sample_attrs=sample_attrs,
              shape_rule=_PARAMS_OF_X, profiles=(), formats=dict.fromkeys(nz, ("FRACTAL_NZ",)))


_SHAPE_GAMMA = (Attr("shape_gamma", "list_int"),)

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
    _ln_grad("LayerNormGrad", "dy:T, x:T, variance:T, mean:T, gamma:T", "pd_x:T, pd_gamma:T, pd_beta:T",
             f"{_LN_X}; {_LN_PARAMS}, in gamma's shape"),
    _ln_grad("LayerNormXBackprop", "dy:T, x:T, variance:T, mean:T, gamma:T", "pd_x:T", f"LayerNormGrad's pd_x: {_LN_X}"),
    _ln_grad("LayerNormXBackpropV2", "dy:T, x:T, variance:T, mean:T, gamma:T", "pd_x:T, res_for_gamma:F",
             f"LayerNormGrad's pd_x and res_for_gamma = (x - mean) rstd: {_LN_X}",
             nz=("dy", "x", "pd_x", "res_for_gamma")),
    _ln_grad("LayerNormBetaGammaBackprop", "dy:T, x:T, variance:T, mean:T", "pd_gamma:T, pd_beta:T",
             f"LayerNormGrad's {_LN_PARAMS}, in shape_gamma (the suite gives them dy's dtype; GE's infer sets "
             "float32)", count=4, attrs=_SHAPE_GAMMA, sample_attrs={"shape_gamma": [16]}),
    _ln_grad("LayerNormBetaGammaBackpropV2", "dy:T, res_for_gamma:F", "pd_gamma:T, pd_beta:T",
             "pd_gamma = sum of dy * res_for_gamma, pd_beta = sum of dy over the axes shape_gamma does not cover",
             count=2, attrs=_SHAPE_GAMMA, sample_attrs={"shape_gamma": [16]}, nz=("dy", "res_for_gamma")),
)
