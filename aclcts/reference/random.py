"""References of the stateless random family: an independent sample of each op's documented distribution.

The output of a random op is judged as a sample (docs/precision-policy.md, "Random ops"), so the reference does not
reproduce the device's generator: it draws the same number of values from the distribution tf.raw_ops documents for
the op (StatelessRandomUniformV2: uniform on [0, 1); StatelessRandomNormalV2: standard normal;
StatelessTruncatedNormalV2: standard normal with values beyond two standard deviations dropped and drawn again) with
NumPy's own generator, seeded from the case's key, counter and alg so that a failure reproduces.
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


def _generator(key: np.ndarray, counter: np.ndarray, alg: np.ndarray) -> np.random.Generator:
    """NumPy's generator seeded from every word of key, counter and alg."""
    words = [int(w) for part in (key, counter, alg) for w in np.asarray(part).ravel()]
    return np.random.default_rng(np.random.SeedSequence(words))


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
        rng = _generator(xs[1], xs[2], xs[3])
        return [round_to(draw(rng, fill_shape(xs[0])), out[0])]
    return compute


def _shape(shapes: list[Any], values: list[Any], attrs: dict[str, Any]) -> list[tuple[int, ...]]:
    return [fill_shape(needed_value(values, 0))]


OPS: tuple[RefOp, ...] = (
    define("StatelessRandomUniformV2", _stateless(lambda rng, shape: rng.random(shape)), _shape),
    define("StatelessRandomNormalV2", _stateless(lambda rng, shape: rng.standard_normal(shape)), _shape),
    define("StatelessTruncatedNormalV2", _stateless(_truncated_normal), _shape),
)
