"""References of the seeding family: the alg and the key and counter TensorFlow scrambles from a seed.

Written from tf.raw_ops.StatelessRandomGetKeyCounter's description and the Philox4x32-10 definition of Salmon et
al., "Parallel random numbers: as easy as 1, 2, 3" (SC'11): ten rounds on four 32-bit words with the multipliers
0xD2511F53 and 0xCD9E8D57 and the key bumped by 0x9E3779B9, 0xBB67AE85 after each round. One block, in Python
integers.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from aclcts.reference.base import RefOp, define

#: TensorFlow's RNG_ALG_PHILOX.
PHILOX = 1
#: The key the seed words are scrambled under.
SCRAMBLE_KEY = (0x3EC8F720, 0x02461E29)
_MASK = 0xFFFFFFFF


def philox_block(counter: list[int], key: tuple[int, int]) -> list[int]:
    """One Philox4x32-10 block: four 32-bit words from a four-word counter and a two-word key."""
    c, (k0, k1) = list(counter), key
    for _ in range(10):
        hi0, lo0 = divmod(0xD2511F53 * c[0], 1 << 32)
        hi1, lo1 = divmod(0xCD9E8D57 * c[2], 1 << 32)
        c = [hi1 ^ c[1] ^ k0, lo1, hi0 ^ c[3] ^ k1, lo0]
        k0, k1 = (k0 + 0x9E3779B9) & _MASK, (k1 + 0xBB67AE85) & _MASK
    return c


def key_and_counter(seed: np.ndarray) -> tuple[int, tuple[int, int]]:
    """The 64-bit key and the two 64-bit counter words TensorFlow scrambles from a shape-[2] seed."""
    words = [int(w) & 0xFFFFFFFFFFFFFFFF for w in np.asarray(seed).ravel()[:2]]
    counter = [words[0] & _MASK, words[0] >> 32, words[1] & _MASK, words[1] >> 32]
    mixed = philox_block(counter, SCRAMBLE_KEY)
    return mixed[0] | mixed[1] << 32, (0, mixed[2] | mixed[3] << 32)


def _key_counter(xs: list[np.ndarray], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    key, counter = key_and_counter(xs[0])
    return [np.array([key], np.uint64), np.array(counter, np.uint64)]


def _alg(xs: list[np.ndarray], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    return [np.array(PHILOX, np.int32)]


def _key_counter_alg(xs: list[np.ndarray], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    return [*_key_counter(xs, attrs, out), *_alg(xs, attrs, out)]


OPS: tuple[RefOp, ...] = (
    define("StatelessRandomGetAlg", _alg, lambda shapes, values, attrs: [()]),
    define("StatelessRandomGetKeyCounter", _key_counter, lambda shapes, values, attrs: [(1,), (2,)]),
    define("StatelessRandomGetKeyCounterAlg", _key_counter_alg, lambda shapes, values, attrs: [(1,), (2,), ()]),
)
