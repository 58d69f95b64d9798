"""References of the stateless random family: an independent sample of each op's documented distribution.

The output of a random op is judged as a sample (docs/precision-policy.md, "Random ops"), so the reference does not
reproduce the device's generator: it draws the same number of values from the distribution tf.raw_ops documents for
the op (StatelessRandomUniformV2: uniform on [0, 1); StatelessRandomNormalV2: standard normal;
StatelessTruncatedNormalV2: standard normal with values beyond two standard deviations dropped and drawn again;
StatelessRandomUniformIntV2: integers uniform on [minval, maxval); the FullInt ops: integers uniform over y's type;
StatelessRandomGammaV2: gamma of concentration alpha and scale 1; StatelessRandomPoisson: Poisson of mean lam, the
parameter repeated over the leading dims of `shape`)
with NumPy's own generator, seeded from the case's key, counter and alg (or seed) so that a failure reproduces.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from aclcts.reference.base import RefOp, define, needed_value
from aclcts.reference.numeric import round_to
from aclcts.reference.unary_math import fill_shape

#: Truncated normal values lie within this many standard deviations of the mean.
TRUNCATE_AT = 2.0

Draw = Callable[[np.random.Generator, tuple[int, ...]], np.ndarray]


#: The counter words each alg of the V2 ops reads (tf.raw_ops: Philox 1 and auto-select 3 take 2, ThreeFry 2 takes 1;
#: a longer counter is used from the left).
COUNTER_WORDS = {1: 2, 2: 1, 3: 2}


def _generator(*seeds: np.ndarray) -> np.random.Generator:
    """NumPy's generator seeded from every word of the seed inputs (key, counter and alg, or seed)."""
    words = [int(w) & 0xFFFFFFFFFFFFFFFF for part in seeds for w in np.asarray(part).ravel()]
    return np.random.default_rng(np.random.SeedSequence(words))


def _keyed(key: np.ndarray, counter: np.ndarray, alg: np.ndarray) -> np.random.Generator:
    """The generator of a V2 op, whose key is shape [1] and counter holds at least its alg's words (tf.raw_ops)."""
    number = int(np.asarray(alg).ravel()[0])
    if number not in COUNTER_WORDS:
        raise ValueError(f"alg {number} is none of {sorted(COUNTER_WORDS)}")
    if np.shape(key) != (1,) or np.ndim(counter) != 1 or np.size(counter) < COUNTER_WORDS[number]:
        raise ValueError(f"key must be shape [1] and counter 1-D of at least {COUNTER_WORDS[number]} words for alg "
                         f"{number}, got {list(np.shape(key))} and {list(np.shape(counter))}")
    return _generator(key, counter, alg)


def _seeded(seed: np.ndarray) -> np.random.Generator:
    """The generator of an op seeded by 2 seeds (shape [2], tf.raw_ops)."""
    if np.shape(seed) != (2,):
        raise ValueError(f"seed must be shape [2], got {list(np.shape(seed))}")
    return _generator(seed)


def _truncated_normal(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    """Standard normal values, those beyond TRUNCATE_AT drawn again until none is."""
    values = rng.standard_normal(shape)
    outside = np.abs(values) > TRUNCATE_AT
    while outside.any():
        values[outside] = rng.standard_normal(int(outside.sum()))
        outside = np.abs(values) > TRUNCATE_AT
    return values


def _stateless(draw: Draw) -> Any:
    """The compute of a stateless op: draw(generator, shape) in float64, rounded to y's dtype."""
    def compute(xs: list[np.ndarray], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
        rng = _keyed(xs[1], xs[2], xs[3])
        return [round_to(draw(rng, fill_shape(xs[0])), out[0])]
    return compute


def _uniform_int(xs: list[np.ndarray], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    """Integers uniform on [minval, maxval)."""
    low, high = int(np.asarray(xs[4]).ravel()[0]), int(np.asarray(xs[5]).ravel()[0])
    if low >= high:
        raise ValueError(f"StatelessRandomUniformIntV2: minval {low} must be less than maxval {high}")
    return [_keyed(*xs[1:4]).integers(low, high, fill_shape(xs[0]), dtype=out[0])]


def _full_int(seeded: Callable[..., np.random.Generator], seeds: slice) -> Any:
    """The compute of a FullInt op whose generator is seeded(*inputs at seeds): integers uniform over y's every
    value."""
    def compute(xs: list[np.ndarray], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
        info = np.iinfo(out[0])
        return [seeded(*xs[seeds]).integers(info.min, info.max, fill_shape(xs[0]), dtype=out[0], endpoint=True)]
    return compute


def _parameterized(draw: Callable[[np.random.Generator, np.ndarray], np.ndarray]) -> Any:
    """The compute of a seeded op whose input 2 (alpha, lam) matches the rightmost dims of shape."""
    def compute(xs: list[np.ndarray], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
        shape, parameter = fill_shape(xs[0]), np.asarray(xs[2], np.float64)
        if parameter.ndim > len(shape) or shape[len(shape) - parameter.ndim:] != parameter.shape:
            raise ValueError(f"input 2's shape {list(parameter.shape)} must be the rightmost dims of {list(shape)}")
        values = draw(_seeded(xs[1]), np.broadcast_to(parameter, shape))
        return [values.astype(out[0]) if np.issubdtype(out[0], np.integer) else round_to(values, out[0])]
    return compute


def _shape(shapes: list[Any], values: list[Any], attrs: dict[str, Any]) -> list[tuple[int, ...]]:
    return [fill_shape(needed_value(values, 0))]


OPS: tuple[RefOp, ...] = (
    define("StatelessRandomUniformV2", _stateless(lambda rng, shape: rng.random(shape)), _shape),
    define("StatelessRandomNormalV2", _stateless(lambda rng, shape: rng.standard_normal(shape)), _shape),
    define("StatelessTruncatedNormalV2", _stateless(_truncated_normal), _shape),
    define("StatelessRandomUniformIntV2", _uniform_int, _shape),
    define("StatelessRandomUniformFullIntV2", _full_int(_keyed, slice(1, 4)), _shape),
    define("StatelessRandomUniformFullInt", _full_int(_seeded, slice(1, 2)), _shape),
    define("StatelessRandomGammaV2", _parameterized(lambda rng, alpha: rng.gamma(alpha)), _shape),
    define("StatelessRandomPoisson", _parameterized(lambda rng, lam: rng.poisson(lam).astype(np.float64)), _shape),
)
