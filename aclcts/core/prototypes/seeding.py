"""Records of the seeding family: StatelessRandomGetAlg, StatelessRandomGetKeyCounter and
StatelessRandomGetKeyCounterAlg, the ops that turn a user's seed into the key, counter and alg of the stateless
random ops (aclcts/core/prototypes/random.py).

Source: dengguojie/vue-element-admin@7d77ce32d ops/built-in/op_proto/inc/stateless_random_ops.h, each "Compatible
with TensorFlow" op of the same name. TensorFlow documents (tf.raw_ops.StatelessRandomGetKeyCounter) that the op
"scrambles a shape-[2] seed into a key and a counter"; its scrambling is one Philox4x32-10 block: the counter is the
two seed words as four 32-bit words, the key the constant pair 0x3ec8f720, 0x02461e29; the block's first two words
make the 64-bit key, its last two the high word of the 128-bit counter, whose low word is 0. The alg is Philox (1)
on every device but a TPU. The outputs are a function of the seed, judged exactly.
"""

from __future__ import annotations

from aclcts.core.prototypes.spec import Prototype, Sample, op

_HEADER = "dengguojie/vue-element-admin@7d77ce32d ops/built-in/op_proto/inc/stateless_random_ops.h"
#: The outputs are exact functions of the seed.
POLICY = "index"
SHAPE_RULE = "given"
_SEED = {"seed": Sample(0, 2**31 - 1, "any two words seed the generator")}
_TYPES = {"S": ("int32", "int64"), "K": ("uint64",), "A": ("int32",)}
_SCRAMBLE = ("the seed's two words scrambled by one Philox4x32-10 block into a key and a counter "
             "(tf.raw_ops.StatelessRandomGetKeyCounter)")


def _seeded(op_type: str, outputs: str, what: str) -> Prototype:
    """seed (shape [2]) -> outputs, one function of the seed."""
    return op(op_type, "seed:S", outputs, _TYPES, samples=_SEED, sample_shapes=(((2,),),),
              source=f"{_HEADER} REG_OP({op_type}): {what}")


PROTOTYPES: tuple[Prototype, ...] = (
    op("StatelessRandomGetAlg", "", "alg:A", _TYPES, sample_shapes=((),),
       source=f"{_HEADER} REG_OP(StatelessRandomGetAlg): the RNG algorithm, Philox (1) off a TPU"),
    _seeded("StatelessRandomGetKeyCounter", "key:K, counter:K", _SCRAMBLE),
    _seeded("StatelessRandomGetKeyCounterAlg", "key:K, counter:K, alg:A", f"{_SCRAMBLE}, and the alg Philox (1)"),
)
