"""Stateful random kernels: RandomGamma, Multinomial, Exponential, Geometric, Poisson.

Record: aclcts/core/prototypes/random_stateful.py. Each (op type, seed, seed2) owns one Philox4x32-10 stream of the
simulator (aclcts/sim/kernels/random.py) that every execution moves on, so a second execution draws new values as a
stateful framework op does; seeds 0 and 0 take a key from the operating system's randomness once per process ("seeded
by a random seed"). Gamma values come from the Marsaglia-Tsang sampler and Poisson values from inversion, both shared
with the stateless ops; Multinomial inverts each row's softmax distribution function, Exponential is -log(U) / lambda
and Geometric ceil(log(U) / log(1 - p)).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import numpy as np

from aclcts.core.dtypes import acl_data_type, numpy_dtype
from aclcts.sim.kernels.base import InferredShape, TensorInfo
from aclcts.sim.kernels.call import OpCall, Outputs
from aclcts.sim.kernels.random import Stream, gamma_values, poisson_values, scrambled
from aclcts.sim.kernels.registry import builtin
from aclcts.sim.kernels.shapes import UNKNOWN, UNKNOWN_RANK, inferred, unknown_rank

#: The streams of the process, by (op type, seed, seed2).
_STREAMS: dict[tuple[str, int, int], Stream] = {}


def stream(call: OpCall) -> Stream:
    """The op's stream for its seed attributes, made on first use."""
    seed, seed2 = call.attr_int("seed"), call.attr_int("seed2", 0)
    found = _STREAMS.get((call.op_type, seed, seed2))
    if found is None:
        words = (seed, seed2) if seed or seed2 else tuple(int.from_bytes(os.urandom(8), "little") for _ in range(2))
        found = _STREAMS[(call.op_type, seed, seed2)] = Stream(*scrambled(np.array(words, np.uint64)))
    return found


def _gamma(call: OpCall) -> np.ndarray:
    shape = tuple(call.index_values(0, call.input(0)))
    alpha = np.asarray(call.input(1), np.float64)
    if np.any(~(alpha > 0)):
        raise call.fail(f"input {call.quoted(1)} must hold concentrations > 0")
    return gamma_values(stream(call), np.broadcast_to(alpha, shape + alpha.shape).ravel()).reshape(shape + alpha.shape)


def _multinomial(call: OpCall) -> np.ndarray:
    logits = np.asarray(call.input(0), np.float64)
    count = call.one_value(1, call.input(1))
    if logits.ndim != 2 or count < 0:
        raise call.fail(f"input {call.quoted(0)} must be 2-D and input {call.quoted(1)} >= 0, got shape "
                        f"{list(logits.shape)} and {count}")
    cumulative = np.cumsum(np.exp(logits - logits.max(axis=1, keepdims=True)), axis=1)
    u = stream(call).uniforms(logits.shape[0] * count).reshape(logits.shape[0], count) * cumulative[:, -1:]
    return np.stack([np.minimum(np.searchsorted(row, draws, side="right"), row.size - 1)
                     for row, draws in zip(cumulative, u)]).reshape(logits.shape[0], count)


def _exponential(call: OpCall) -> np.ndarray:
    rate = call.attr_float("lambda")
    if not rate > 0:
        raise call.fail(f"attr 'lambda' must be > 0, got {rate}")
    x = np.asarray(call.input(0))
    return (-np.log(stream(call).uniforms(x.size)) / rate).reshape(x.shape)


def _geometric(call: OpCall) -> np.ndarray:
    p = call.attr_float("p")
    if not 0 < p <= 1:
        raise call.fail(f"attr 'p' must lie in (0, 1], got {p}")
    x = np.asarray(call.input(0))
    if p == 1:
        return np.ones(x.shape)
    return np.maximum(np.ceil(np.log(stream(call).uniforms(x.size)) / np.log1p(-p)), 1.0).reshape(x.shape)


def _poisson(call: OpCall) -> np.ndarray:
    rates = np.asarray(call.input(0), np.float64)
    if np.any(~(rates >= 0)):
        raise call.fail(f"input {call.quoted(0)} must hold rates >= 0")
    return poisson_values(stream(call), rates.ravel()).reshape(rates.shape)


def _kernel(op_type: str, draw: Callable[[OpCall], np.ndarray], count: int,
            infer_shape: Callable[[OpCall, list[TensorInfo], list[Any]], list[int]],
            dtype_attr: tuple[int, ...] = ()) -> None:
    """Register op_type: y drawn by draw(call), of the dtype attribute (one of dtype_attr) or input 0's type."""

    def y_dtype(call: OpCall, inputs: list[Any]) -> int:
        if dtype_attr:
            return call.attr_dtype("dtype", dtype_attr)
        given = inputs[-1].dtype
        return int(given) if isinstance(given, (int, np.integer)) else acl_data_type(given)

    def compute(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list[TensorInfo]) -> list[np.ndarray]:
        call = OpCall(op_type, inputs, attrs)
        call.require_count(count)
        out = Outputs(call, outputs)
        dtype = out.require_dtype(0, numpy_dtype(y_dtype(call, inputs)), "the dtype attribute or x's type")
        return [out.emit(0, draw(call).astype(dtype))]

    def infer(inputs: list[TensorInfo], values: list[np.ndarray | None], attrs: dict[str, Any]) -> list[InferredShape]:
        call = OpCall(op_type, inputs, attrs)
        call.require_count(count)
        return [inferred(y_dtype(call, inputs), infer_shape(call, inputs, values))]

    builtin(op_type, compute, infer)


def _gamma_shape(call: OpCall, inputs: list[TensorInfo], values: list[Any]) -> list[int]:
    alpha = list(inputs[1].shape)
    if values and values[0] is not None:
        return call.index_values(0, values[0]) + alpha
    dims = tuple(inputs[0].shape)
    if unknown_rank(dims) or unknown_rank(tuple(alpha)) or not dims or dims[0] < 0:
        return [UNKNOWN_RANK]
    return [UNKNOWN] * dims[0] + alpha


def _multinomial_shape(call: OpCall, inputs: list[TensorInfo], values: list[Any]) -> list[int]:
    rows = list(inputs[0].shape)[:1] if not unknown_rank(tuple(inputs[0].shape)) else [UNKNOWN]
    known = values[1] if len(values) > 1 else None
    return rows + [call.one_value(1, known) if known is not None else UNKNOWN]


def _like_x(call: OpCall, inputs: list[TensorInfo], values: list[Any]) -> list[int]:
    return list(inputs[0].shape)


#: Multinomial's y types, as aclDataType.
_INDEX_TYPES = (acl_data_type(np.dtype(np.int32)), acl_data_type(np.dtype(np.int64)))
_kernel("RandomGamma", _gamma, 2, _gamma_shape)
_kernel("Multinomial", _multinomial, 2, _multinomial_shape, _INDEX_TYPES)
_kernel("Exponential", _exponential, 1, _like_x)
_kernel("Geometric", _geometric, 1, _like_x)
_kernel("Poisson", _poisson, 1, _like_x)
