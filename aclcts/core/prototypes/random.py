"""Records of the stateless random family: StatelessRandomUniformV2, StatelessRandomNormalV2 and
StatelessTruncatedNormalV2.

Source: dengguojie/vue-element-admin@7d77ce32d ops/built-in/op_proto/inc/stateless_random_ops.h, each "Compatible
with TensorFlow" op of the same name (tf.raw_ops.StatelessRandomUniformV2 and its siblings): `shape` is the output
shape (a constant), `key` (uint64, shape [1]) and `counter` (uint64, shape [2] for Philox) seed a counter-based
generator, `alg` (int32, 0-D) chooses it (1 = Philox), and the `dtype` attribute is y's type. The same key, counter
and alg give the same values; the values are judged as a sample of the documented distribution, never element by
element (docs/precision-policy.md, "Random ops"): uniform on [0, 1), standard normal, and standard normal with values
beyond two standard deviations dropped and drawn again.
"""

from __future__ import annotations

from aclcts.core.prototypes.dtypes import FLOAT64
from aclcts.core.prototypes.spec import Attr, Prototype, Sample, op

_HEADER = "dengguojie/vue-element-admin@7d77ce32d ops/built-in/op_proto/inc/stateless_random_ops.h"
POLICY = "random"
SHAPE_RULE = "given"
#: y's types in the prototype.
OUTPUT_TYPES = ("float16", "float32") + FLOAT64
#: The Philox generator (TensorFlow's RNG_ALG_PHILOX = 1), the one the default cases run.
PHILOX = 1
#: The key and counter draws of the default cases: any uint64 seeds the generator.
_SEEDS = {"key": Sample(0, 2**32 - 1, "any key seeds the generator"),
          "counter": Sample(0, 2**32 - 1, "any counter seeds the generator")}


def _stateless(op_type: str, distribution: str) -> Prototype:
    """shape, key, counter, alg -> y of the dtype attribute, drawn from distribution."""
    return op(op_type, "shape:I, key:K, counter:K, alg:A", "y:T",
              {"I": ("int32", "int64"), "K": ("uint64",), "A": ("int32",), "T": OUTPUT_TYPES},
              attrs=(Attr("dtype", "type", 0),), dtype_from={"y": "dtype"}, samples=_SEEDS,
              source=f"{_HEADER} REG_OP({op_type}): {distribution}; ATTR(dtype, Type, DT_FLOAT)")


PROTOTYPES: tuple[Prototype, ...] = (
    _stateless("StatelessRandomUniformV2", "uniform on [0, 1)"),
    _stateless("StatelessRandomNormalV2", "standard normal"),
    _stateless("StatelessTruncatedNormalV2", "standard normal, values beyond 2 standard deviations drawn again"),
)
