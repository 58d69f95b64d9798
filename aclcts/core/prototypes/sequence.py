"""Records of the sequence family: RnnGenMask and NormalizeBatch, ops that read each batch entry's valid length.

Source: dengguojie/vue-element-admin@7d77ce32d ops/built-in/op_proto/inc/nn_norm_ops.h. RnnGenMask: seq_mask of
shape [num_step, batch, hidden_size], 1 where the step is below the entry's seq_length, else 0. NormalizeBatch
(speech feature normalisation): each entry's x [c, d] standardised with the mean and the unbiased standard deviation of
its first seq_len[n] frames, per feature (each of c) or over all features: (x - mean) / (std + epsilon), every frame
of the entry written; the TBE implementation (ops/built-in/tbe/impl/normalize_batch.py) computes std as the square
root of |E(x^2) - E(x)^2| * L / (L - 1).
"""

from __future__ import annotations

from aclcts.core.prototypes.spec import REQUIRED, Attr, OneOf, Prototype, Sample, op

_HEADER = "dengguojie/vue-element-admin@7d77ce32d ops/built-in/op_proto/inc/nn_norm_ops.h"
POLICY = "nn"
SHAPE_RULE = "given"

#: NormalizeBatch's value profiles: not "large", whose squares overflow float32 in the TBE's E(x^2) - E(x)^2.
NORMALIZE_PROFILES = ("subnormal", "tiny")

PROTOTYPES: tuple[Prototype, ...] = (
    op("RnnGenMask", "seq_length:I", "seq_mask:T", {"I": ("int32",), "T": ("float16",)},
       attrs=(Attr("num_step", "int", REQUIRED), Attr("hidden_size", "int", REQUIRED)), policy="index",
       samples={"seq_length": Sample(0, 9, "valid lengths around num_step 6")},
       sample_shapes=(((32,),), ((5,),)), sample_attrs={"num_step": 6, "hidden_size": 7},
       source=f"{_HEADER} REG_OP(RnnGenMask): seq_mask[t, b, :] = 1 where t < seq_length[b], else 0"),
    op("NormalizeBatch", "input_x:T, seq_len:I", "output_y:T", {"T": ("float32",), "I": ("int32",)},
       attrs=(Attr("normalize_type", "str", REQUIRED, domain=OneOf(("per_feature", "all_features"))), Attr("epsilon", "float", 1e-5)),
       samples={"input_x": Sample(-1.0, 1.0, "features"), "seq_len": Sample(2, 64, "valid frames, at least 2")},
       sample_shapes=(((4, 3, 64), (4,)), ((2, 5, 100), (2,))), sample_attrs={"normalize_type": "per_feature"},
       profiles=NORMALIZE_PROFILES,
       source=f"{_HEADER} REG_OP(NormalizeBatch): (x - mean) / (std + epsilon) over the first seq_len frames, "
              "per_feature or all_features"),
)
