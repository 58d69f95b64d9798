"""Records of the batch-normalisation training and inference steps CANN splits BatchNorm into: BNTrainingReduce,
BNTrainingUpdate(V2, V3), BNTrainingReduceGrad, BNTrainingUpdateGrad, BNInfer, BNInferGrad and the 3-D
BN3DTrainingReduce, BN3DTrainingUpdate.

Source: dengguojie/vue-element-admin@7d77ce32d ops/built-in/op_proto/inc/reduce_ops.h (the REG_OPs and their
comments). Where a comment leaves a number out (which variance is "the variance of x", what the moving averages
weigh), the TBE implementation of the same snapshot says it (ops/built-in/tbe/impl/bn_training_update.py and its
siblings): batch_variance of BNTrainingUpdate and BNTrainingUpdateV2 is the biased one (divided by n), the moving
variance is updated with the unbiased one (n / (n - 1) times it; 0 when n = 1), and `factor` weighs the batch:
new = factor * batch + (1 - factor) * old.

Layout. CANN runs these in NC1HWC0 (3-D: NDC1HWC0); the records are written on the origin layout, NCHW (NCDHW):
x is [N, C, H, W], and every per-channel tensor (sum, square_sum, scale, offset, mean, variance, batch_mean, ...) is
[1, C, 1, 1], C at axis 1 and 1 elsewhere, as its 5HD shape [1, C1, 1, 1, C0] reads back. n is the element count of
x per channel (N*H*W; N*D*H*W in 3-D).

Samples: sum and square_sum are drawn so that square_sum / n - (sum / n)^2, the batch variance the op derives from
them, is at least 0.2 at every sample shape (n = 24 or 48): an independent draw of the two would otherwise give a
negative variance under the square root. Variances are drawn in [0.5, 2], away from 0 (they are divided by).
"""

from __future__ import annotations

from aclcts.core.prototypes.spec import Attr, Prototype, Sample, op

POLICY = "nn"
SHAPE_RULE = "given"
#: The value profiles of the default cases: none (signed or huge variances and square sums leave the ops' domain).
PROFILES: tuple[str, ...] = ()

_HEADER = "vue-element-admin@7d77ce32d ops/built-in/op_proto/inc/reduce_ops.h REG_OP({})"
_TBE = "vue-element-admin@7d77ce32d ops/built-in/tbe/impl/{}.py"
_T = {"T": ("float16", "float32"), "F": ("float32",)}
_EPSILON = Attr("epsilon", "float", 0.0001)

#: Value ranges by tensor name (a name has one role in every record).
_RANGES = {
    "x": (-2.0, 2.0, "the batch"), "grads": (-1.0, 1.0, "a gradient"),
    "sum": (-4.0, 4.0, "a channel sum: |sum / n| <= 1/6 at n >= 24"),
    "square_sum": (12.0, 36.0, "a channel square sum: square_sum / n >= 0.25 at n <= 48"),
    "scale": (0.5, 2.0, "a scale"), "offset": (-1.0, 1.0, "an offset"),
    "mean": (-1.0, 1.0, "a mean"), "batch_mean": (-1.0, 1.0, "a mean"),
    "variance": (0.5, 2.0, "a variance, divided by"), "batch_variance": (0.5, 2.0, "a variance, divided by"),
    "diff_scale": (-2.0, 2.0, "a gradient sum"), "diff_offset": (-2.0, 2.0, "a gradient sum"),
}
#: The sample shapes: x [N, C, H, W] (two C1 blocks in NC1HWC0) and [N, C, D, H, W], per-channel tensors [1, C, 1, ...].
_BATCH_2D, _CHANNEL_2D = (2, 32, 3, 4), (1, 32, 1, 1)
_BATCH_3D, _CHANNEL_3D = (2, 16, 2, 3, 4), (1, 16, 1, 1, 1)
_BATCHES = ("x", "grads")
_FORMATS_2D = ("NC1HWC0", "NDC1HWC0")


def _bn(op_type: str, inputs: str, outputs: str, attrs: tuple[Attr, ...], note: str, *, three_d: bool = False,
        formats: tuple[str, ...] = _FORMATS_2D, sample_attrs: dict[str, object] | None = None) -> Prototype:
    """A record whose tensors are x-shaped (x, grads, y) or per-channel, drawn from _RANGES."""
    names = [t.split(":")[0] for t in inputs.split(", ")]
    tensors = names + [t.split(":")[0] for t in outputs.split(", ")]
    shapes = ((_BATCH_3D, _CHANNEL_3D),) if three_d else ((_BATCH_2D, _CHANNEL_2D), (_BATCH_3D, _CHANNEL_3D))
    return op(op_type, inputs, outputs, _T, attrs, source=f"{_HEADER.format(op_type)}: {note}",
              samples={n: Sample(*_RANGES[n]) for n in names},
              sample_shapes=tuple(tuple(batch if n in _BATCHES else channel for n in names)
                                  for batch, channel in shapes),
              sample_attrs=sample_attrs, formats=dict.fromkeys(tensors, formats), profiles=PROFILES)


_UPDATE_ATTRS = (Attr("factor", "float"), Attr("epsilon", "float"))
_UPDATE_SAMPLE_ATTRS: dict[str, object] = {"factor": 0.2, "epsilon": 0.0001}
_UPDATE_INPUTS = "x:T, sum:F, square_sum:F, scale:F, offset:F, mean:F, variance:F"
_UPDATE_OUTPUTS = "y:T, mean:F, variance:F, batch_mean:F, batch_variance:F"
_UPDATE_NOTE = ("batch_mean = sum / n, batch_variance = square_sum / n - batch_mean^2 (biased), y = scale * (x - "
                "batch_mean) / sqrt(batch_variance + epsilon) + offset; mean = factor * batch_mean + (1 - factor) * "
                "mean, variance = factor * batch_variance * n / (n - 1) + (1 - factor) * variance (TBE {})")

PROTOTYPES: tuple[Prototype, ...] = (
    _bn("BNTrainingReduce", "x:T", "sum:F, square_sum:F", (),
        f"sum and square sum of x per channel (over every axis but 1); {_TBE.format('bn_training_reduce')} also "
        "takes an NCHW x (ori_format NCHW)"),
    _bn("BNTrainingUpdate", _UPDATE_INPUTS, _UPDATE_OUTPUTS, _UPDATE_ATTRS,
        _UPDATE_NOTE.format(_TBE.format("bn_training_update")), sample_attrs=_UPDATE_SAMPLE_ATTRS),
    _bn("BNTrainingUpdateV2", "x:T, sum:F, square_sum:F, scale:F, offset:F", "y:T, batch_mean:F, batch_variance:F",
        (Attr("epsilon", "float"),),
        "BNTrainingUpdate without the moving averages: y, batch_mean and the biased batch_variance "
        f"({_TBE.format('bn_training_update_v2')})", sample_attrs={"epsilon": 0.0001}),
    _bn("BNTrainingUpdateV3", "x:T, sum:F, square_sum:F, scale:F, offset:F",
        "y:T, batch_mean:F, batch_variance:F, reserve_1:F, reserve_2:F", (Attr("epsilon", "float"),),
        "y as BNTrainingUpdate; batch_mean = sum / n, batch_variance the unbiased variance, reserve_1 the mean and "
        f"reserve_2 the biased variance ({_TBE.format('bn_training_update_v3')})", sample_attrs={"epsilon": 0.0001}),
    _bn("BNTrainingUpdateGrad", "grads:T, x:T, batch_mean:F, batch_variance:F", "diff_scale:F, diff_offset:F",
        (_EPSILON,), "diff_scale = sum of grads * (x - batch_mean) / sqrt(batch_variance + epsilon), diff_offset = "
                     "sum of grads, per channel"),
    _bn("BNTrainingReduceGrad", "grads:T, x:T, diff_scale:F, diff_offset:F, scale:F, batch_mean:F, batch_variance:F",
        "y:T", (_EPSILON,),
        "y = scale / sqrt(batch_variance + epsilon) * (grads - (diff_offset + x_norm * diff_scale) / n), x_norm = "
        "(x - batch_mean) / sqrt(batch_variance + epsilon): the gradient of BatchNorm's x"),
    _bn("BNInfer", "x:T, scale:F, offset:F, mean:F, variance:F", "y:T", (Attr("epsilon", "float"),),
        "y = scale * (x - mean) / sqrt(variance + epsilon) + offset", formats=("NC1HWC0",),
        sample_attrs={"epsilon": 0.0001}),
    _bn("BNInferGrad", "grads:T, scale:F, batch_variance:F", "x_backprop:T", (_EPSILON,),
        "x_backprop = grads * scale / sqrt(batch_variance + epsilon)", formats=("NC1HWC0",)),
    _bn("BN3DTrainingReduce", "x:T", "sum:F, square_sum:F", (),
        "BNTrainingReduce of an NCDHW x (NDC1HWC0): sums over N, D, H and W", three_d=True, formats=("NDC1HWC0",)),
    _bn("BN3DTrainingUpdate", _UPDATE_INPUTS, _UPDATE_OUTPUTS, _UPDATE_ATTRS,
        "BNTrainingUpdate of an NCDHW x (NDC1HWC0), n = N*D*H*W: "
        + _UPDATE_NOTE.format(_TBE.format("bn3d_training_update")), three_d=True, formats=("NDC1HWC0",),
        sample_attrs=_UPDATE_SAMPLE_ATTRS),
)
