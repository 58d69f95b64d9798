"""Faults away from the defaults (issue 40): attribute values resolved wrongly (negative axes, axes other than the last,
enum branches) and kernels that are right everywhere except at a function's special points."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from aclcts.sim.kernels.base import ComputeFn

ComputeWrapper = Callable[[ComputeFn], ComputeFn]
#: A rewrite of one attribute value given the rank of the first input.
Resolve = Callable[[Any, int], Any]
#: The elements of the first output to change, from the inputs (float64 views), and their new value.
Where = Callable[[list[np.ndarray]], np.ndarray]


def _rank(inputs: list[np.ndarray | None]) -> int:
    """The rank of the first input (of the first tensor of a dynamic input)."""
    first = inputs[0]
    return np.asarray(first[0] if isinstance(first, (list, tuple)) else first).ndim


def attr_rewritten(name: str, resolve: Resolve) -> ComputeWrapper:
    """A kernel that reads attribute name through resolve (a defect in how the value is resolved)."""

    def wrap(compute: ComputeFn) -> ComputeFn:
        def faulty(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list) -> list[np.ndarray]:
            if name in attrs:
                attrs = {**attrs, name: resolve(attrs[name], _rank(inputs))}
            return compute(inputs, attrs, outputs)

        return faulty

    return wrap


def each_axis(resolve: Callable[[int, int], int]) -> Resolve:
    """resolve applied to every axis of an int or list-of-ints attribute."""

    def apply(value: Any, rank: int) -> Any:
        if isinstance(value, (list, tuple)):
            return [resolve(int(a), rank) for a in value]
        return resolve(int(value), rank)

    return apply


def negative_off_by_one(axis: int, rank: int) -> int:
    """-2 read as -1, -3 as -2, ...: a negative axis other than -1 counted one too far."""
    return axis + 1 if axis < -1 else axis


def negative_from_front(axis: int, rank: int) -> int:
    """A negative axis other than -1 mirrored to the front (-2 -> 1, -3 -> 2)."""
    return -axis - 1 if axis < -1 else axis


def negative_as_zero(axis: int, rank: int) -> int:
    """Every negative axis read as 0."""
    return 0 if axis < 0 else axis


def negative_against_input_rank(axis: int, rank: int) -> int:
    """A negative axis of an op whose output has one more dim, resolved against the input's rank."""
    return axis + rank if axis < 0 else axis


def always_last(axis: int, rank: int) -> int:
    """Every axis read as the last one."""
    return -1


def negative_minus_one(axis: int, rank: int) -> int:
    """A negative axis resolved one dim too low (rank + axis - 1, wrapping)."""
    return (axis + rank - 1) % rank if axis < 0 and rank else axis


def negative_from_front_flat(axis: Any, rank: int) -> Any:
    """Flatten's negative axis read as its magnitude (-1 -> 1)."""
    return -int(axis) if int(axis) < 0 else axis


def replaced(mapping: dict[str, str]) -> Resolve:
    """An enum attribute whose listed values take another value's branch."""
    return lambda value, rank: mapping.get(value, value)


def _floats(inputs: list[np.ndarray | None]) -> list[np.ndarray]:
    """The inputs as float64 arrays (None kept out)."""
    return [np.asarray(x).astype(np.float64) for x in inputs if x is not None]


def output_overridden(where: Where, value: float | Callable[[list[np.ndarray]], np.ndarray]) -> ComputeWrapper:
    """A kernel whose first output takes value at the elements where selects (a wrong special-point branch)."""

    def wrap(compute: ComputeFn) -> ComputeFn:
        def faulty(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list) -> list[np.ndarray]:
            results = compute(inputs, attrs, outputs)
            y = np.array(results[0], copy=True)
            values = _floats(inputs)
            with np.errstate(all="ignore"):
                mask = np.broadcast_to(where(values), y.shape)
                if not mask.any():
                    return results
                new = value(values) if callable(value) else value
                y[mask] = np.broadcast_to(np.asarray(new, dtype=np.float64), y.shape)[mask].astype(y.dtype)
            return [y, *results[1:]]

        return faulty

    return wrap


def _is(x: np.ndarray, zero_sign: float) -> np.ndarray:
    """Where x is a zero of the given sign."""
    return (x == 0) & (np.signbit(x) == (zero_sign < 0))


def nan_dropped(inputs: list[np.ndarray]) -> np.ndarray:
    """Where exactly one of two inputs is NaN."""
    a, b = np.broadcast_arrays(*inputs[:2])
    return np.isnan(a) ^ np.isnan(b)


def the_other_of_nan(inputs: list[np.ndarray]) -> np.ndarray:
    """The input that is not NaN (fmax/fmin's result)."""
    a, b = np.broadcast_arrays(*inputs[:2])
    return np.where(np.isnan(a), b, a)


def nan_ignored_in_max(compute: ComputeFn) -> ComputeFn:
    """A max reduction that skips NaN (reads it as -inf) instead of propagating it."""

    def faulty(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list) -> list[np.ndarray]:
        x = None if inputs[0] is None else np.asarray(inputs[0])
        if x is not None and (x.dtype.kind == "f" or x.dtype.name == "bfloat16"):
            x = np.where(np.isnan(x.astype(np.float64)), np.array(-np.inf).astype(x.dtype), x)
        return compute([x, *inputs[1:]], attrs, outputs)

    return faulty


SPECIAL_POINT_FAULTS: dict[str, tuple[tuple[str, ...], ComputeWrapper]] = {
    "reciprocal_neg_zero_positive_inf": (
        ("Reciprocal",), output_overridden(lambda v: _is(v[0], -1.0), np.inf)),
    "log_zero_finite": (
        ("Log",), output_overridden(lambda v: v[0] == 0, -65504.0)),
    "rsqrt_neg_zero_positive_inf": (
        ("Rsqrt",), output_overridden(lambda v: _is(v[0], -1.0), np.inf)),
    "maximum_minimum_drop_nan": (
        ("Maximum", "Minimum"), output_overridden(nan_dropped, the_other_of_nan)),
    "realdiv_neg_zero_divisor_sign_lost": (
        ("RealDiv",), output_overridden(lambda v: _is(np.broadcast_arrays(*v[:2])[1], -1.0) &
                                        (np.broadcast_arrays(*v[:2])[0] != 0) &
                                        ~np.isnan(np.broadcast_arrays(*v[:2])[0]),
                                        lambda v: np.copysign(np.inf, np.broadcast_arrays(*v[:2])[0]))),
    "atan2_neg_zero_y_positive_pi": (
        ("Atan2",), output_overridden(lambda v: _is(np.broadcast_arrays(*v[:2])[0], -1.0) &
                                      (np.broadcast_arrays(*v[:2])[1] < 0), np.pi)),
    "sign_nan_as_zero": (
        ("Sign",), output_overridden(lambda v: np.isnan(v[0]), 0.0)),
    "sqrt_negative_as_zero": (
        ("Sqrt",), output_overridden(lambda v: v[0] < 0, 0.0)),
    "exp_neg_inf_nan": (
        ("Exp",), output_overridden(lambda v: v[0] == -np.inf, np.nan)),
    "tanh_inf_nan": (
        ("Tanh",), output_overridden(lambda v: np.isinf(v[0]), np.nan)),
    "isinf_negative_missed": (
        ("IsInf",), output_overridden(lambda v: v[0] == -np.inf, 0.0)),
}
