"""Stateless random kernels: StatelessRandomUniformV2, StatelessRandomNormalV2, StatelessTruncatedNormalV2,
StatelessRandomUniformIntV2, StatelessRandomUniformFullIntV2, StatelessRandomUniformFullInt, StatelessRandomGammaV2,
StatelessRandomPoisson.

Record: aclcts/core/prototypes/random.py. The generator is the counter-based Philox4x32-10 of Salmon et al.,
"Parallel random numbers: as easy as 1, 2, 3" (SC'11), the algorithm TensorFlow's stateless ops name RNG_ALG_PHILOX
(alg 1; 3, auto-select, picks it too): the uint64 key gives the 2 x 32-bit key, the two uint64 counter words the
4 x 32-bit counter, and block i of four 32-bit words is the cipher of counter + i. Floats come from the words as
TensorFlow describes: float32 keeps 23 random mantissa bits of one word in [1, 2) and subtracts 1, float16 10 bits,
double 52 bits of two words; normal values are the Box-Muller transform of two uniforms; truncated normal values drop
those beyond two standard deviations and take the next ones of the stream. Integers take one word each (32-bit
types) or two, low word first (64-bit types); the FullInt ops reinterpret those bits as y's type, UniformIntV2 adds
their remainder modulo maxval - minval to minval. StatelessRandomUniformFullInt's seed is scrambled into a key and
counter as StatelessRandomGetKeyCounter does (aclcts/sim/kernels/seeding.py's op), as is the seed of the gamma and
Poisson ops. Those draw float64 uniforms of 53 bits (two words each) from the stream: gamma by Marsaglia and Tsang's
squeeze-and-reject method ("A simple method for generating gamma variables", ACM TOMS 26(3), 2000; alpha < 1 through
alpha + 1 and U^(1/alpha)), Poisson by inverting its distribution function term by term. The same key, counter and
alg give the same values, bit for bit.
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
#: The key a shape-[2] seed is scrambled under, as one 64-bit word.
SCRAMBLE_KEY = 0x02461E29_3EC8F720
#: y's types of the integer ops, as aclDataType.
_INTEGER_TYPES = tuple(acl_data_type(np.dtype(name)) for name in ("int32", "int64", "uint32", "uint64"))
_WORD64 = 0xFFFFFFFFFFFFFFFF
#: StatelessRandomPoisson's y types, as aclDataType.
_POISSON_TYPES = _OUTPUT_TYPES + _INTEGER_TYPES[:2]


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


def scrambled(seed: np.ndarray) -> tuple[int, tuple[int, int]]:
    """The Philox key and counter words of a shape-[2] seed: the seed taken as the counter of one block under
    SCRAMBLE_KEY gives the key (the block's first 64 bits) and the counter's high word (its last 64; the low is 0)."""
    first, second = (int(w) & _WORD64 for w in seed[:2])
    words = [int(w) for w in philox_words(SCRAMBLE_KEY, (first, second), 4)]
    return (words[1] << 32) | words[0], (0, (words[3] << 32) | words[2])


def integer_bits(key: int, counter: tuple[int, int], count: int, dtype: np.dtype) -> np.ndarray:
    """count random words of dtype's width, as unsigned integers of that width."""
    if dtype.itemsize == 8:
        pairs = philox_words(key, counter, 2 * count).reshape(-1, 2)
        return pairs[:, 0] | (pairs[:, 1] << _SHIFT)
    return philox_words(key, counter, count).astype(np.uint32)


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


def read_seed(call: OpCall, index: int) -> tuple[int, tuple[int, int]]:
    """The key and counter of the shape-[2] seed input at index."""
    seed = np.asarray(call.input(index)).ravel()
    if seed.size != 2:
        raise call.fail(f"input {call.quoted(index)} must hold 2 seeds (shape [2]), got {seed.size} values")
    return scrambled(seed)


def _seed(call: OpCall) -> tuple[int, tuple[int, int]]:
    """The key and counter words; the alg must select Philox."""
    key, counter = np.asarray(call.input(1)).ravel(), np.asarray(call.input(2)).ravel()
    alg = call.one_value(3, call.input(3))
    if alg not in PHILOX_ALGS:
        raise call.fail(f"input 'alg' is {alg}; the simulator implements Philox only (alg 1, or 3 = auto-select)")
    if key.size < 1 or counter.size < 2:
        raise call.fail(f"Philox takes 1 key word and 2 counter words, got {key.size} and {counter.size}")
    return int(key[0]), (int(counter[0]), int(counter[1]))


class Stream:
    """Float64 uniforms on (0, 1) read off one key's Philox stream, the counter moving on with every draw."""

    def __init__(self, key: int, counter: tuple[int, int]) -> None:
        self.key, self.low, self.high = key, counter[0], counter[1]

    def uniforms(self, count: int) -> np.ndarray:
        """count uniforms of 53 random bits, never 0."""
        words = philox_words(self.key, (self.low, self.high), 2 * count).reshape(-1, 2)
        blocks = -(-2 * count // 4)
        self.low, carry = (self.low + blocks) & _WORD64, (self.low + blocks) >> 64
        self.high = (self.high + carry) & _WORD64
        bits = ((words[:, 0] << _SHIFT) | words[:, 1]) >> np.uint64(11)
        return (bits.astype(np.float64) + 0.5) * 2.0**-53

    def normals(self, count: int) -> np.ndarray:
        """count standard normals (Box-Muller)."""
        u = self.uniforms(2 * count).reshape(-1, 2)
        return np.sqrt(-2.0 * np.log(u[:, 0])) * np.cos(2.0 * np.pi * u[:, 1])


def gamma_values(stream: Stream, alpha: np.ndarray) -> np.ndarray:
    """Gamma(alpha, 1) values, Marsaglia-Tsang on alpha (or alpha + 1, scaled by U^(1/alpha), below 1)."""
    boosted = np.where(alpha < 1.0, alpha + 1.0, alpha)
    d = boosted - 1.0 / 3.0
    c = 1.0 / np.sqrt(9.0 * d)
    values, pending = np.zeros(alpha.shape), np.ones(alpha.shape, bool)
    while pending.any():
        at = np.flatnonzero(pending)
        x, u = stream.normals(at.size), stream.uniforms(at.size)
        v = (1.0 + c[at] * x) ** 3
        with np.errstate(invalid="ignore", divide="ignore"):
            ok = (v > 0) & (np.log(u) < 0.5 * x * x + d[at] - d[at] * v + d[at] * np.log(v))
        values[at[ok]] = d[at[ok]] * v[ok]
        pending[at[ok]] = False
    small = alpha < 1.0
    with np.errstate(divide="ignore"):
        values[small] *= stream.uniforms(int(small.sum())) ** (1.0 / alpha[small])
    return values


#: The Poisson inversion stops after lam + POISSON_SPAN * sqrt(lam) + POISSON_SPAN terms (beyond any float64 tail).
POISSON_SPAN = 40
#: The largest lam the inversion takes: exp(-lam) is a normal float64 below it.
POISSON_MAX_LAM = 700.0


def poisson_values(stream: Stream, lam: np.ndarray) -> np.ndarray:
    """Poisson(lam) values: the least k whose distribution function reaches a uniform."""
    u = stream.uniforms(lam.size).reshape(lam.shape)
    term = np.exp(-lam)
    total, k = term.copy(), np.zeros(lam.shape)
    steps = int(np.max(lam + POISSON_SPAN * np.sqrt(lam), initial=0.0)) + POISSON_SPAN
    for step in range(1, steps):
        below = u > total
        if not below.any():
            break
        k += below
        term = term * lam / step
        total = total + np.where(below, term, 0.0)
    return k


def _parameterized(sample: Callable[[Stream, np.ndarray], np.ndarray], what: str, lowest: float,
                   upper: float = np.inf) -> Any:
    """A sampler of an op whose input 2 (alpha, lam) matches the rightmost dims of shape."""

    def draw(call: OpCall, key: int, counter: tuple[int, int], count: int, dtype: np.dtype) -> np.ndarray:
        shape = tuple(call.index_values(0, call.input(0)))
        parameter = np.asarray(call.input(2), np.float64)
        if parameter.ndim > len(shape) or shape[len(shape) - parameter.ndim:] != parameter.shape:
            raise call.fail(f"input {call.quoted(2)}'s shape {list(parameter.shape)} must be the rightmost dims of "
                            f"the shape {list(shape)}")
        if np.any(~(parameter >= lowest)) or np.any(parameter > upper):
            raise call.fail(f"input {call.quoted(2)} must hold {what}")
        return sample(Stream(key, counter), np.broadcast_to(parameter, shape).ravel())

    return draw


def _uniform_int(call: OpCall, key: int, counter: tuple[int, int], count: int, dtype: np.dtype) -> np.ndarray:
    """Integers on [minval, maxval): minval plus the random bits modulo the range."""
    low, high = (int(np.asarray(call.input(i)).ravel()[0]) for i in (4, 5))
    if low >= high:
        raise call.fail(f"minval {low} must be less than maxval {high}")
    offsets = integer_bits(key, counter, count, dtype).astype(np.uint64) % np.uint64(high - low)
    wrapped = offsets + np.uint64(low & _WORD64)
    return wrapped.astype(np.dtype(f"u{dtype.itemsize}")).view(dtype)


def _full_int(call: OpCall, key: int, counter: tuple[int, int], count: int, dtype: np.dtype) -> np.ndarray:
    """The random bits read as y's type."""
    return integer_bits(key, counter, count, dtype).view(dtype)


def _floats(sample: Sampler) -> Callable[..., np.ndarray]:
    """A float sampler called as the kernels call samplers."""
    return lambda call, key, counter, count, dtype: sample(key, counter, count, dtype)


def _kernel(op_type: str, sample: Callable[..., np.ndarray], *, count: int = 4,
            seeded: Callable[[OpCall], tuple[int, tuple[int, int]]] = _seed, types: tuple[int, ...] = _OUTPUT_TYPES,
            dtype_of: int | None = None) -> None:
    """Register op_type: y of the shape input, filled from the stateless stream of seeded(call); y's dtype is the
    dtype attribute's (one of types) or, with dtype_of, that input's."""

    def y_dtype(call: OpCall, inputs: list[Any]) -> int:
        if dtype_of is None:
            return call.attr_dtype("dtype", types)
        given = inputs[dtype_of].dtype
        return int(given) if isinstance(given, (int, np.integer)) else acl_data_type(given)

    def compute(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list[TensorInfo]) -> list[np.ndarray]:
        call = OpCall(op_type, inputs, attrs)
        call.require_count(count)
        shape = tuple(call.index_values(0, call.input(0)))
        if any(d < 0 for d in shape):
            raise call.fail(f"input 'shape' must hold sizes >= 0, got {list(shape)}")
        key, counter = seeded(call)
        out = Outputs(call, outputs)
        dtype = out.require_dtype(0, numpy_dtype(y_dtype(call, inputs)), "the dtype attribute or minval's type")
        size = int(np.prod(shape, dtype=np.int64))
        return [out.emit(0, sample(call, key, counter, size, dtype).astype(dtype).reshape(shape))]

    def infer(inputs: list[TensorInfo], values: list[np.ndarray | None], attrs: dict[str, Any]) -> list[InferredShape]:
        call = OpCall(op_type, inputs, attrs)
        call.require_count(count)
        dtype = y_dtype(call, inputs)
        known = values[0] if values else None
        if known is not None:
            return [inferred(dtype, call.index_values(0, known))]
        dims = call.input(0)
        if unknown_rank(tuple(dims.shape)) or not dims.shape or dims.shape[0] < 0:
            return [inferred(dtype, (UNKNOWN_RANK,))]
        return [inferred(dtype, [UNKNOWN] * int(dims.shape[0]))]

    builtin(op_type, compute, infer)


_kernel("StatelessRandomUniformV2", _floats(_uniform_values))
_kernel("StatelessRandomNormalV2", _floats(_normal_values))
_kernel("StatelessTruncatedNormalV2", _floats(_truncated_values))
_kernel("StatelessRandomUniformIntV2", _uniform_int, count=6, dtype_of=4)
_kernel("StatelessRandomUniformFullIntV2", _full_int, types=_INTEGER_TYPES)
_kernel("StatelessRandomUniformFullInt", _full_int, count=2, seeded=lambda call: read_seed(call, 1),
        types=_INTEGER_TYPES)
_kernel("StatelessRandomGammaV2", _parameterized(gamma_values, "concentrations > 0", np.finfo(np.float64).tiny),
        count=3, seeded=lambda call: read_seed(call, 1), dtype_of=2)
_kernel("StatelessRandomPoisson",
        _parameterized(poisson_values, f"means in [0, {POISSON_MAX_LAM:g}]", 0.0, POISSON_MAX_LAM),
        count=3, seeded=lambda call: read_seed(call, 1), types=_POISSON_TYPES)
