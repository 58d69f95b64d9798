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


SHAPE = np.array([3], np.int32)
ALPHA = np.full(3, 2.0, np.float32)
KEY, PHILOX = np.array([5], np.uint64), np.array([1], np.int32)


@pytest.mark.parametrize("seed", [np.array([7], np.int64), np.array([7, 1, 2], np.int64), np.array([[7, 1]])],
                         ids=["one", "three", "2-D"])
def test_a_seed_not_of_shape_2_is_refused(seed):
    """tf.raw_ops.StatelessRandomGammaV2 and StatelessRandomUniformFullInt: seed is 2 seeds, shape [2]."""
    with pytest.raises(ValueError, match=r"seed must be shape \[2\]"):
        reference("StatelessRandomGammaV2").compute([SHAPE, seed, ALPHA], {}, [np.dtype("float32")])
    with pytest.raises(ValueError, match=r"seed must be shape \[2\]"):
        reference("StatelessRandomUniformFullInt").compute([SHAPE, seed], {}, [np.dtype("int32")])


@pytest.mark.parametrize("key, counter, alg, taken", [
    (KEY, np.array([1, 2], np.uint64), PHILOX, True),
    (KEY, np.array([1, 2, 3], np.uint64), PHILOX, True),
    (KEY, np.array([1], np.uint64), np.array([2], np.int32), True),
    (KEY, np.array([1], np.uint64), PHILOX, False),
    (np.array([5, 6], np.uint64), np.array([1, 2], np.uint64), PHILOX, False),
    (KEY, np.array([1, 2], np.uint64), np.array([4], np.int32), False),
], ids=["philox", "longer-counter", "threefry-one-word", "philox-one-word", "two-word-key", "alg-4"])
def test_a_v2_op_takes_a_key_of_shape_1_and_the_counter_words_of_its_alg(key, counter, alg, taken):
    """tf.raw_ops.StatelessRandomUniformV2: key shape [1]; counter [2] for Philox, [1] for ThreeFry, a longer one
    used from the left."""
    compute = reference("StatelessRandomUniformV2").compute
    if taken:
        assert compute([SHAPE, key, counter, alg], {}, [np.dtype("float32")])[0].shape == (3,)
    else:
        with pytest.raises(ValueError):
            compute([SHAPE, key, counter, alg], {}, [np.dtype("float32")])
