"""Records of the stateless random family: StatelessRandomUniformV2, StatelessRandomNormalV2,
StatelessTruncatedNormalV2, StatelessRandomUniformIntV2, StatelessRandomUniformFullIntV2 and
StatelessRandomUniformFullInt, StatelessRandomGammaV2 and StatelessRandomPoisson.

Source: dengguojie/vue-element-admin@7d77ce32d ops/built-in/op_proto/inc/stateless_random_ops.h, each "Compatible
with TensorFlow" op of the same name (tf.raw_ops.StatelessRandomUniformV2 and its siblings): `shape` is the output
shape (a constant), `key` (uint64, shape [1]) and `counter` (uint64, shape [2] for Philox) seed a counter-based
generator, `alg` (int32, 0-D) chooses it (1 = Philox), and the `dtype` attribute is y's type. The same key, counter
and alg give the same values; the values are judged as a sample of the documented distribution, never element by
element (docs/precision-policy.md, "Random ops"): uniform on [0, 1), standard normal, and standard normal with values
beyond two standard deviations dropped and drawn again; integers uniform on [minval, maxval), or over every value of
y's type (the FullInt ops). StatelessRandomUniformFullInt takes a shape-[2] `seed` instead of key, counter and alg,
scrambled into them as StatelessRandomGetKeyCounter does (aclcts/core/prototypes/seeding.py), as do
StatelessRandomGammaV2 (gamma of concentration alpha, scale 1) and StatelessRandomPoisson (Poisson of mean lam),
whose parameter matches the rightmost dims of `shape` and is repeated over the others.
"""

from __future__ import annotations

from aclcts.core.prototypes.dtypes import FLOAT64
from aclcts.core.prototypes.spec import REQUIRED, Attr, Prototype, Sample, op

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


#: y's types of the integer ops.
INTEGER_TYPES = ("int32", "int64", "uint32", "uint64")
#: lam's and y's types of StatelessRandomPoisson.
POISSON_TYPES = ("float32", "float16") + FLOAT64 + ("int32", "int64")
_SEED = {"seed": Sample(0, 2**31 - 1, "any two words seed the generator")}


def _full_int(op_type: str, seeds: str, samples: dict[str, Sample]) -> Prototype:
    """shape and the seed inputs -> y of the dtype attribute (default int32), uniform over its every value."""
    return op(op_type, f"shape:I, {seeds}", "y:T",
              {"I": ("int32", "int64"), "K": ("uint64",), "A": ("int32",), "S": ("int32", "int64"),
               "T": INTEGER_TYPES},
              attrs=(Attr("dtype", "type", 3),), dtype_from={"y": "dtype"}, samples=samples,
              source=f"{_HEADER} REG_OP({op_type}): integers uniform over y's type; ATTR(dtype, Type, DT_INT32)")


PROTOTYPES: tuple[Prototype, ...] = (
    _stateless("StatelessRandomUniformV2", "uniform on [0, 1)"),
    _stateless("StatelessRandomNormalV2", "standard normal"),
    _stateless("StatelessTruncatedNormalV2", "standard normal, values beyond 2 standard deviations drawn again"),
    op("StatelessRandomUniformIntV2", "shape:I, key:K, counter:K, alg:A, minval:T, maxval:T", "y:T",
       {"I": ("int32", "int64"), "K": ("uint64",), "A": ("int32",), "T": INTEGER_TYPES}, samples=_SEEDS,
       source=f"{_HEADER} REG_OP(StatelessRandomUniformIntV2): integers uniform on [minval, maxval)"),
    _full_int("StatelessRandomUniformFullIntV2", "key:K, counter:K, alg:A", _SEEDS),
    _full_int("StatelessRandomUniformFullInt", "seed:S", _SEED),
    op("StatelessRandomGammaV2", "shape:I, seed:S, alpha:T", "y:T",
       {"I": ("int32", "int64"), "S": ("int32", "int64"), "T": ("float32", "float16") + FLOAT64},
       samples={**_SEED, "alpha": Sample(0.1, 10.0, "a positive concentration")},
       source=f"{_HEADER} REG_OP(StatelessRandomGammaV2): gamma of concentration alpha (scale 1); alpha matches the "
              "rightmost dims of shape"),
    op("StatelessRandomPoisson", "shape:I, seed:S, lam:L", "y:T",
       {"I": ("int32", "int64"), "S": ("int32", "int64"), "L": POISSON_TYPES, "T": POISSON_TYPES},
       attrs=(Attr("dtype", "type", REQUIRED),), dtype_from={"y": "dtype"},
       samples={**_SEED, "lam": Sample(0.0, 50.0, "a mean >= 0")},
       source=f"{_HEADER} REG_OP(StatelessRandomPoisson): Poisson of mean lam; lam matches the rightmost dims of "
              "shape; REQUIRED_ATTR(dtype, Type)"),
)
