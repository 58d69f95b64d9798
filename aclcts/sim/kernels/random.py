"""Stateless random kernels: StatelessRandomUniformV2, StatelessRandomNormalV2, StatelessTruncatedNormalV2.

Record: aclcts/core/prototypes/random.py. The generator is the counter-based Philox4x32-10 of Salmon et al.,
"Parallel random numbers: as easy as 1, 2, 3" (SC'11), the algorithm TensorFlow's stateless ops name RNG_ALG_PHILOX
(alg 1; 3, auto-select, picks it too): the uint64 key gives the 2 x 32-bit key, the two uint64 counter words the
4 x 32-bit counter, and block i of four 32-bit words is the cipher of counter + i. Floats come from the words as
TensorFlow describes: float32 keeps 23 random mantissa bits of one word in [1, 2) and subtracts 1, float16 10 bits,
double 52 bits of two words; normal values are the Box-Muller transform of two uniforms; truncated normal values drop
those beyond two standard deviations and take the next ones of the stream. The same key, counter and alg give the
same values, bit for bit.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from aclcts.core.dtypes import acl_data_type, numpy_dtype
from aclcts.sim.kernels.base import InferredShape, TensorInfo
from aclcts.sim.kernels.call import OpCall, Outputs
from aclcts.sim.kernels.registry import builtin
from aclcts.sim.kernels.shapes import UNKNOWN, UNKNOWN_RANK, inferred, unknown_rank

#: Philox4x32's round multipliers and key increments (the Weyl constants), and its round count.
_M0, _M1 = np.uint64(0xD2511F53), np.uint64(0xCD9E8D57)
_W0, _W1 = np.uint64(0x9E3779B9), np.uint64(0xBB67AE85)
_ROUNDS = 10
_LOW = np.uint64(0xFFFFFFFF)
_SHIFT = np.uint64(32)
#: The alg values that select Philox: RNG_ALG_PHILOX and RNG_ALG_AUTO_SELECT.
PHILOX_ALGS = (1, 3)
#: y's types, as aclDataType.
_OUTPUT_TYPES = tuple(acl_data_type(np.dtype(name)) for name in ("float16", "float32", "float64"))
#: Truncated normal values lie within this many standard deviations.
TRUNCATE_AT = 2.0


def philox_words(key: int, counter: tuple[int, int], count: int) -> np.ndarray:
    """The first count 32-bit words (as uint64) of the Philox4x32-10 stream of a 64-bit key and 128-bit counter."""
    blocks = -(-count // 4)
    low = np.uint64(counter[0]) + np.arange(blocks, dtype=np.uint64)
    carry = (low < np.uint64(counter[0])).astype(np.uint64)
    high = np.uint64(counter[1]) + carry
    c = [low & _LOW, low >> _SHIFT, high & _LOW, high >> _SHIFT]
    k0, k1 = np.uint64(key) & _LOW, np.uint64(key) >> _SHIFT
    for _ in range(_ROUNDS):
        p0, p1 = _M0 * c[0], _M1 * c[2]
        c = [(p1 >> _SHIFT) ^ c[1] ^ k0, p1 & _LOW, (p0 >> _SHIFT) ^ c[3] ^ k1, p0 & _LOW]
        k0, k1 = (k0 + _W0) & _LOW, (k1 + _W1) & _LOW
    return np.stack(c, axis=-1).reshape(-1)[:count]


def _uniform(words: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """Uniform values on [0, 1) of dtype from the words: one word each (two for double)."""
    if dtype == np.float64:
        pairs = words.reshape(-1, 2)
        bits = ((pairs[:, 0] << _SHIFT) | pairs[:, 1]) >> np.uint64(12)
        return (bits | np.uint64(0x3FF0000000000000)).view(np.float64) - 1.0
    if dtype == np.float16:
        bits = (words & np.uint64(0x3FF)) | np.uint64(0x3C00)
        return bits.astype(np.uint16).view(np.float16) - np.float16(1.0)
    bits = (words & np.uint64(0x7FFFFF)) | np.uint64(0x3F800000)
    return bits.astype(np.uint32).view(np.float32) - np.float32(1.0)


def _normal(words: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """Standard normal values of dtype, two from each pair of uniforms (Box-Muller); half computes in float32."""
    work = np.float64 if dtype == np.float64 else np.float32
    u = _uniform(words, np.dtype(work)).reshape(-1, 2)
    radius = np.sqrt(-2.0 * np.log(np.maximum(u[:, 0], np.finfo(work).eps)))
    angle = (2.0 * np.pi) * u[:, 1]
    return np.stack([np.sin(angle) * radius, np.cos(angle) * radius], axis=-1).reshape(-1).astype(work)


def _words_per_value(dtype: np.dtype) -> int:
    return 2 if dtype == np.float64 else 1


def _uniform_values(key: int, counter: tuple[int, int], count: int, dtype: np.dtype) -> np.ndarray:
    return _uniform(philox_words(key, counter, count * _words_per_value(dtype)), dtype)


def _normal_values(key: int, counter: tuple[int, int], count: int, dtype: np.dtype) -> np.ndarray:
    even = count + count % 2
    return _normal(philox_words(key, counter, even * _words_per_value(dtype)), dtype)[:count]


def _truncated_values(key: int, counter: tuple[int, int], count: int, dtype: np.dtype) -> np.ndarray:
    """The first count values of the normal stream that lie within TRUNCATE_AT."""
    drawn = max(count, 1)
    while True:
        values = _normal_values(key, counter, drawn, dtype)
        kept = values[np.abs(values) <= TRUNCATE_AT]
        if kept.size >= count:
            return kept[:count]
        drawn *= 2


Sampler = Callable[[int, tuple[int, int], int, np.dtype], np.ndarray]


def _seed(call: OpCall) -> tuple[int, tuple[int, int]]:
    """The key and counter words; the alg must select Philox."""
    key, counter = np.asarray(call.input(1)).ravel(), np.asarray(call.input(2)).ravel()
    alg = call.one_value(3, call.input(3))
    if alg not in PHILOX_ALGS:
        raise call.fail(f"input 'alg' is {alg}; the simulator implements Philox only (alg 1, or 3 = auto-select)")
    if key.size < 1 or counter.size < 2:
        raise call.fail(f"Philox takes 1 key word and 2 counter words, got {key.size} and {counter.size}")
    return int(key[0]), (int(counter[0]), int(counter[1]))


def _kernel(op_type: str, sample: Sampler) -> None:
    """Register op_type: y of the shape input, filled from the stateless stream."""

    def compute(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list[TensorInfo]) -> list[np.ndarray]:
        call = OpCall(op_type, inputs, attrs)
        call.require_count(4)
        shape = tuple(call.index_values(0, call.input(0)))
        if any(d < 0 for d in shape):
            raise call.fail(f"input 'shape' must hold sizes >= 0, got {list(shape)}")
        key, counter = _seed(call)
        out = Outputs(call, outputs)
        wanted = call.attr_dtype("dtype", _OUTPUT_TYPES)
        dtype = out.require_dtype(0, numpy_dtype(wanted), "the dtype attribute")
        count = int(np.prod(shape, dtype=np.int64))
        return [out.emit(0, sample(key, counter, count, dtype).astype(dtype).reshape(shape))]

    def infer(inputs: list[TensorInfo], values: list[np.ndarray | None], attrs: dict[str, Any]) -> list[InferredShape]:
        call = OpCall(op_type, inputs, attrs)
        call.require_count(4)
        dtype = call.attr_int("dtype")
        known = values[0] if values else None
        if known is not None:
            return [inferred(dtype, call.index_values(0, known))]
        dims = call.input(0)
        if unknown_rank(tuple(dims.shape)) or not dims.shape or dims.shape[0] < 0:
            return [inferred(dtype, (UNKNOWN_RANK,))]
        return [inferred(dtype, [UNKNOWN] * int(dims.shape[0]))]

    builtin(op_type, compute, infer)


_kernel("StatelessRandomUniformV2", _uniform_values)
_kernel("StatelessRandomNormalV2", _normal_values)
_kernel("StatelessTruncatedNormalV2", _truncated_values)
