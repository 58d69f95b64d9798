"""References of the stateful random family: an independent sample of each op's documented distribution.

As for the stateless ops (aclcts/reference/random.py), the values are judged as a sample, so the reference draws the
same number of values with NumPy's own generator, seeded from the op's seed attributes and the inputs' bytes:
RandomGamma, gamma(alpha, 1) in shape + alpha's shape (tf.raw_ops.RandomGamma); Multinomial, the sample count of
indices per row with probabilities softmax(logits) (tf.raw_ops.Multinomial); Exponential, rate lambda (PyTorch
exponential_); Geometric, trials up to the first success of probability p (PyTorch geometric_); Poisson, of the rates
x (torch.poisson).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from aclcts.reference.base import RefOp, define, needed_value
from aclcts.reference.numeric import round_to
from aclcts.reference.unary_math import fill_shape


def _generator(attrs: dict[str, Any], xs: list[np.ndarray]) -> np.random.Generator:
    """NumPy's generator seeded from the seed attributes and the inputs' bytes."""
    words = [int(attrs.get("seed", 0)) & 0xFFFFFFFF, int(attrs.get("seed2", 0)) & 0xFFFFFFFF]
    words += [b for x in xs for b in np.ascontiguousarray(x).tobytes()[:64]]
    return np.random.default_rng(np.random.SeedSequence(words))


def _gamma(xs: list[np.ndarray], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    alpha = np.asarray(xs[1], np.float64)
    draws = _generator(attrs, xs).gamma(np.broadcast_to(alpha, fill_shape(xs[0]) + alpha.shape))
    return [round_to(draws, out[0])]


def _multinomial(xs: list[np.ndarray], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    logits, count = np.asarray(xs[0], np.float64), int(np.asarray(xs[1]))
    rng = _generator(attrs, xs)
    weights = np.exp(logits - logits.max(axis=-1, keepdims=True))
    probabilities = weights / weights.sum(axis=-1, keepdims=True)
    return [np.stack([rng.choice(row.size, count, p=row) for row in probabilities]).astype(out[0])]


def _filled(draw: Callable[[np.random.Generator, np.ndarray, dict[str, Any]], np.ndarray]) -> Any:
    """The compute of an op that fills x's shape: draw(generator, x, attrs) rounded to y's type."""
    def compute(xs: list[np.ndarray], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
        x = np.asarray(xs[0], np.float64)
        return [round_to(draw(_generator(attrs, xs), x, attrs).astype(np.float64), out[0])]
    return compute


def _gamma_shape(shapes: list[Any], values: list[Any], attrs: dict[str, Any]) -> list[tuple[int, ...]]:
    return [fill_shape(needed_value(values, 0)) + tuple(shapes[1])]


def _multinomial_shape(shapes: list[Any], values: list[Any], attrs: dict[str, Any]) -> list[tuple[int, ...]]:
    return [(shapes[0][0], int(np.asarray(needed_value(values, 1))))]


def _same_shape(shapes: list[Any], values: list[Any], attrs: dict[str, Any]) -> list[tuple[int, ...]]:
    return [tuple(shapes[0])]


OPS: tuple[RefOp, ...] = (
    define("RandomGamma", _gamma, _gamma_shape),
    define("Multinomial", _multinomial, _multinomial_shape),
    define("Exponential", _filled(lambda rng, x, a: rng.exponential(1.0 / float(a["lambda"]), x.shape)), _same_shape),
    define("Geometric", _filled(lambda rng, x, a: rng.geometric(float(a["p"]), x.shape)), _same_shape),
    define("Poisson", _filled(lambda rng, x, a: rng.poisson(x)), _same_shape),
)
