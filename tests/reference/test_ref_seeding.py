"""The seeding references against TensorFlow's recorded answers and the Philox4x32-10 known-answer vectors."""

import numpy as np
import pytest

from aclcts.reference import reference
from aclcts.reference.seeding import philox_block

#: tf.raw_ops.StatelessRandomGetKeyCounter on TensorFlow 2.21 (CPU): seed -> key, counter.
TENSORFLOW_ANSWERS = [
    (np.array([7, 11], np.int64), 6232233517653123107, [0, 17336993267840886171]),
    (np.array([-7, 11], np.int32), 15442613171476168854, [0, 10009476460426641528]),
    (np.array([2**40 + 3, -5], np.int64), 14322670115599762379, [0, 2703017749191257330]),
]

#: The output dtypes of the two seed-scrambling ops.
OUTPUT_DTYPES = {"StatelessRandomGetKeyCounter": ["uint64", "uint64"],
                 "StatelessRandomGetKeyCounterAlg": ["uint64", "uint64", "int32"]}


def test_one_philox_block_gives_random123s_known_answers():
    assert philox_block([0, 0, 0, 0], (0, 0)) == [0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8]
    assert philox_block([0xFFFFFFFF] * 4, (0xFFFFFFFF, 0xFFFFFFFF)) == [0x408F276D, 0x41C83B0E, 0xA20BC7C6,
                                                                        0x6D5451FD]


@pytest.mark.parametrize("seed, key, counter", TENSORFLOW_ANSWERS, ids=["int64", "negative-int32", "wide-int64"])
@pytest.mark.parametrize("op_type", ["StatelessRandomGetKeyCounter", "StatelessRandomGetKeyCounterAlg"])
def test_a_seed_scrambles_to_tensorflows_key_and_counter(op_type, seed, key, counter):
    outputs = reference(op_type).compute([seed], {}, OUTPUT_DTYPES[op_type])
    assert outputs[0].tolist() == [key] and outputs[1].tolist() == counter
    assert outputs[2:] in ([], [1])


def test_the_alg_is_philox():
    assert int(reference("StatelessRandomGetAlg").compute([], {}, ["int32"])[0]) == 1
