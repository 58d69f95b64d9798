"""Records of the stateful random family: RandomGamma, Multinomial, Exponential, Geometric and Poisson.

Source: dengguojie/vue-element-admin@7d77ce32d ops/built-in/op_proto/inc/random_ops.h. Each op is seeded by its
`seed` (and `seed2`) attributes, "seeded by a random seed" when they are 0, and, like the framework op it is
compatible with, draws new values at every execution: only the distribution is documented, so the values are judged
as a sample of it (docs/precision-policy.md, "Random ops"), never for determinism. RandomGamma (tf.raw_ops.RandomGamma):
y of shape `shape` followed by alpha's shape, gamma of concentration alpha and scale 1. Multinomial
(tf.raw_ops.Multinomial): for each row of logits [batch, classes], num_samples class indices drawn with probabilities
softmax(row). Exponential, Geometric and Poisson fill a tensor of x's shape and type as PyTorch's exponential_(lambd),
geometric_(p) (trials up to the first success, 1, 2, ...) and torch.poisson (x holds the rates) do.
"""

from __future__ import annotations

from aclcts.core.prototypes.dtypes import FLOAT64
from aclcts.core.prototypes.random import POLICY as RANDOM
from aclcts.core.prototypes.spec import REQUIRED, Attr, Prototype, Sample, op

_HEADER = "dengguojie/vue-element-admin@7d77ce32d ops/built-in/op_proto/inc/random_ops.h"
#: Judged as samples of a distribution, as the stateless random ops are.
POLICY = RANDOM
SHAPE_RULE = "given"
_SEEDS = (Attr("seed", "int", 0), Attr("seed2", "int", 0))
_FLOATS = ("float16", "float32") + FLOAT64


def _fill(op_type: str, types: tuple[str, ...], attrs: tuple[Attr, ...], samples: dict[str, Sample],
          sample_attrs: dict[str, object], what: str) -> Prototype:
    """x -> y of x's shape and type, filled from a distribution."""
    return op(op_type, "x:T", "y:T", {"T": types}, attrs=(*attrs, Attr("seed", "int", 0)), samples=samples,
              sample_attrs=sample_attrs, sample_shapes=(((256, 256),),), source=f"{_HEADER} REG_OP({op_type}): {what}")


PROTOTYPES: tuple[Prototype, ...] = (
    op("RandomGamma", "shape:I, alpha:T", "y:T", {"I": ("int32", "int64"), "T": _FLOATS}, attrs=_SEEDS,
       samples={"alpha": Sample(0.1, 10.0, "a positive concentration")},
       source=f"{_HEADER} REG_OP(RandomGamma): gamma of concentration alpha, y's shape is shape + alpha's shape"),
    op("Multinomial", "logits:T, num_samples:N", "y:Y", {"T": _FLOATS, "N": ("int32",), "Y": ("int32", "int64")},
       attrs=(Attr("dtype", "type", 9), *_SEEDS), dtype_from={"y": "dtype"},
       samples={"logits": Sample(-3.0, 3.0, "any logits")},
       source=f"{_HEADER} REG_OP(Multinomial): num_samples class indices per row, drawn with probabilities "
              "softmax(logits row); ATTR(dtype, Type, DT_INT64)"),
    _fill("Exponential", _FLOATS, (Attr("lambda", "float", 1.0),), {"x": Sample(0.0, 1.0, "x gives the shape only")},
          {"lambda": 2.5}, "values of density lambda exp(-lambda x) in x's shape (PyTorch exponential_)"),
    _fill("Geometric", ("float16", "float32"), (Attr("p", "float", REQUIRED),),
          {"x": Sample(0.0, 1.0, "x gives the shape only")}, {"p": 0.3},
          "trials up to the first success of probability p, in x's shape (PyTorch geometric_)"),
    _fill("Poisson", ("float16", "float32"), (), {"x": Sample(0.0, 20.0, "the rates, >= 0")}, {},
          "Poisson values of the rates x (torch.poisson)"),
)
