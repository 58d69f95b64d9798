"""The stateless random kernels: Philox4x32-10 against the published known answers, floats as TensorFlow forms them."""

from __future__ import annotations

import numpy as np
import pytest

from aclcts.core.dtypes import acl_data_type
from aclcts.sim.kernels.base import KernelError, TensorInfo
from aclcts.sim.kernels.random import philox_words
from aclcts.sim.kernels.registry import get_kernel
from aclcts.sim.kernels.random import scrambled

# The known-answer vectors of Random123 (Salmon et al., SC'11), philox4x32_10: counter words c0..c3, key words k0, k1.
KNOWN_ANSWERS = [
    ((0, 0, 0, 0), (0, 0), (0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8)),
    ((0xFFFFFFFF,) * 4, (0xFFFFFFFF,) * 2, (0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD)),
    ((0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344), (0xA4093822, 0x299F31D0),
     (0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1)),
]


@pytest.mark.parametrize("counter, key, expected", KNOWN_ANSWERS)
def test_philox_gives_the_published_known_answers(counter, key, expected):
    words = philox_words(key[0] | key[1] << 32, (counter[0] | counter[1] << 32, counter[2] | counter[3] << 32), 4)
    assert [int(w) for w in words] == list(expected)


def test_the_next_block_is_the_cipher_of_the_next_counter_with_the_carry():
    low = 2**64 - 1
    joined = philox_words(7, (low, 5), 8)
    assert [int(w) for w in joined[4:]] == [int(w) for w in philox_words(7, (0, 6), 4)]


def _run(op: str, dtype: str, shape: list[int], key: int = 1, counter: tuple[int, int] = (2, 3), alg: int = 1):
    code = acl_data_type(np.dtype(dtype))
    inputs = [np.array(shape, np.int32), np.array([key], np.uint64), np.array(counter, np.uint64),
              np.array(alg, np.int32)]
    return get_kernel(op).compute(inputs, {"dtype": code}, [TensorInfo(code, tuple(shape), 2)])[0]


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_uniform_values_lie_in_zero_one_on_the_mantissa_grid(dtype):
    y = _run("StatelessRandomUniformV2", dtype, [64, 64])
    mantissa = {"float16": 10, "float32": 23, "float64": 52}[dtype]
    assert y.dtype == np.dtype(dtype) and y.shape == (64, 64)
    assert 0 <= y.min() and y.max() < 1
    scaled = y.astype(np.float64) * 2.0**mantissa
    assert np.array_equal(scaled, np.floor(scaled))


def test_truncated_normal_values_lie_within_two_standard_deviations():
    y = _run("StatelessTruncatedNormalV2", "float32", [4096])
    assert np.abs(y).max() <= 2 and 0.85 < y.std() < 0.9  # the std of N(0, 1) cut at 2 is 0.880


def test_the_same_seed_gives_the_same_values_and_another_key_others():
    first, again = _run("StatelessRandomNormalV2", "float32", [1000]), _run("StatelessRandomNormalV2", "float32", [1000])
    other = _run("StatelessRandomNormalV2", "float32", [1000], key=2)
    assert np.array_equal(first, again) and not np.any(first == other)


def test_an_alg_other_than_philox_is_refused_with_its_value():
    with pytest.raises(KernelError, match="'alg' is 2"):
        _run("StatelessRandomUniformV2", "float32", [4], alg=2)


@pytest.mark.parametrize("seed, key, counter", [((7, 11), 6232233517653123107, (0, 17336993267840886171)),
                                                ((-7, 11), 15442613171476168854, (0, 10009476460426641528))])
def test_a_seed_scrambles_to_tensorflows_key_and_counter(seed, key, counter):
    # tf.raw_ops.StatelessRandomGetKeyCounter's answers on TensorFlow 2.21 (CPU)
    assert scrambled(np.array(seed, np.int64)) == (key, counter)


#: The key and counter StatelessRandomGetKeyCounter gives seed [7, 11] (TensorFlow 2.21, CPU; see above).
TF_KEY, TF_COUNTER = 6232233517653123107, (0, 17336993267840886171)


def test_uniform_ints_are_tensorflows_for_the_same_key_and_counter():
    # tf.raw_ops.StatelessRandomUniformIntV2(shape=[8], key, counter, alg=1, minval=3, maxval=100) as int64
    inputs = [np.array([8], np.int32), np.array([TF_KEY], np.uint64), np.array(TF_COUNTER, np.uint64),
              np.array(1, np.int32), np.array(3, np.int64), np.array(100, np.int64)]
    code = acl_data_type(np.dtype(np.int64))
    y = get_kernel("StatelessRandomUniformIntV2").compute(inputs, {}, [TensorInfo(code, (8,), 2)])[0]
    assert y.tolist() == [47, 20, 21, 71, 58, 54, 41, 79]


@pytest.mark.parametrize("op", ["StatelessRandomUniformFullIntV2", "StatelessRandomUniformFullInt"])
def test_full_range_ints_are_tensorflows_for_the_same_seed(op):
    # tf.raw_ops.StatelessRandomUniformFullIntV2 (key and counter above) and StatelessRandomUniformFullInt
    # (seed [7, 11]), shape [4], dtype uint32
    seeds = ([np.array([TF_KEY], np.uint64), np.array(TF_COUNTER, np.uint64), np.array(1, np.int32)]
             if op.endswith("V2") else [np.array([7, 11], np.int64)])
    code = acl_data_type(np.dtype(np.uint32))
    y = get_kernel(op).compute([np.array([4], np.int32), *seeds], {"dtype": code}, [TensorInfo(code, (4,), 2)])[0]
    assert y.tolist() == [3478966605, 2685001747, 3603258962, 916558780]
