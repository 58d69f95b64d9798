"""Faulty device numerics: substitutes for built-in kernel registry entries and for the kernels' numeric routines."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import Any

import numpy as np

from aclcts.sim.kernels.base import ComputeFn, InferredShape, Kernel

Lookup = Callable[[str], Kernel | None]
ComputeWrapper = Callable[[ComputeFn], ComputeFn]

#: The transpose attributes of each matrix-product op, for its inputs 0 and 1.
TRANSPOSE_ATTRS = {
    "MatMul": ("transpose_x1", "transpose_x2"),
    "MatMulV2": ("transpose_x1", "transpose_x2"),
    "BatchMatMul": ("adj_x1", "adj_x2"),
    "BatchMatMulV2": ("adj_x1", "adj_x2"),
    "GEMM": ("transpose_a", "transpose_b"),
}
TRANSCENDENTAL = ("Exp", "Log", "Tanh", "Sigmoid", "Sin", "Cos", "Tan", "Asin", "Acos", "Atan", "Sinh", "Cosh", "Asinh",
                  "Acosh", "Atanh", "Erf", "Erfc", "Log1p", "Expm1", "Gelu", "FastGelu", "Swish", "Mish", "Elu", "Selu",
                  "Celu", "Softplus", "LogSigmoid")
#: The op whose kernel never finishes under kernel_hangs (one that few conformance tests run), and the seconds each sleep of
#: its endless wait lasts (short, so that a signal-based timeout interrupts it at once).
HANGING_OP = "LogicalAnd"
HANG_POLL = 0.05


def inputs_swapped(first: int, second: int) -> ComputeWrapper:
    """A kernel binding its inputs first and second the wrong way round (when both are given)."""

    def wrap(compute: ComputeFn) -> ComputeFn:
        def faulty(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list) -> list[np.ndarray]:
            if len(inputs) > max(first, second):
                inputs = list(inputs)
                inputs[first], inputs[second] = inputs[second], inputs[first]
            return compute(inputs, attrs, outputs)

        return faulty

    return wrap


def kernel_entries(op_types: Iterable[str], wrap: ComputeWrapper) -> Callable[[Lookup], Lookup]:
    """A substitute for the built-in kernel lookup: the named op types' compute functions wrapped by wrap."""
    chosen = frozenset(op_types)

    def substitute(lookup: Lookup) -> Lookup:
        wrapped: dict[Kernel, Kernel] = {}

        def find(op_type: str) -> Kernel | None:
            kernel = lookup(op_type)
            if kernel is None or op_type not in chosen:
                return kernel
            if kernel not in wrapped:
                wrapped[kernel] = replace(kernel, compute=wrap(kernel.compute))
            return wrapped[kernel]

        return find

    return substitute


def _wrong_axis(x: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """x expanded to shape with its values repeated along the wrong axis (the transposed expansion)."""
    if x.shape == tuple(shape) or x.size <= 1 or len(shape) < 2:
        return x
    return np.ascontiguousarray(np.broadcast_to(x, shape).T).reshape(shape)


def never_finishes(_: ComputeFn) -> ComputeFn:
    """A kernel that never returns: a device hang, as an endless wait in short sleeps."""

    def hung(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list) -> list[np.ndarray]:
        while True:
            time.sleep(HANG_POLL)

    return hung


def broadcast_wrong_axis(compute: ComputeFn) -> ComputeFn:
    """Both inputs of a broadcasting binary op expanded along the wrong axis before the op runs."""

    def faulty(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list) -> list[np.ndarray]:
        if len(inputs) == 2 and all(x is not None for x in inputs):
            try:
                shape = np.broadcast_shapes(inputs[0].shape, inputs[1].shape)
            except ValueError:
                return compute(inputs, attrs, outputs)
            inputs = [_wrong_axis(x, shape) for x in inputs]
        return compute(inputs, attrs, outputs)

    return faulty


def matmul_ignores_transpose(op_type: str) -> ComputeWrapper:
    """A matrix product that reads a transposed operand's memory as if it were untransposed."""
    names = TRANSPOSE_ATTRS[op_type]

    def wrap(compute: ComputeFn) -> ComputeFn:
        def faulty(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list) -> list[np.ndarray]:
            inputs, attrs = list(inputs), dict(attrs)
            for index, name in enumerate(names):
                x = inputs[index] if index < len(inputs) else None
                flag = attrs.get(name, False)
                if x is not None and x.ndim >= 2 and isinstance(flag, (bool, np.bool_)) and flag:
                    inputs[index] = x.reshape(x.shape[:-2] + (x.shape[-1], x.shape[-2]))
                    attrs[name] = False
            return compute(inputs, attrs, outputs)

        return faulty

    return wrap


def matmul_ignores_transpose_everywhere(lookup: Lookup) -> Lookup:
    """The kernel lookup with every matrix-product op ignoring its transpose flags."""
    for op_type in TRANSPOSE_ATTRS:
        lookup = kernel_entries([op_type], matmul_ignores_transpose(op_type))(lookup)
    return lookup


def gemm_ignores_beta(compute: ComputeFn) -> ComputeFn:
    """GEMM computed with beta and C zeroed: alpha * op(A) * op(B) only."""

    def faulty(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list) -> list[np.ndarray]:
        if len(inputs) == 5 and inputs[2] is not None and inputs[4] is not None:
            inputs = [*inputs[:2], np.zeros_like(inputs[2]), inputs[3], np.zeros_like(inputs[4])]
        return compute(inputs, attrs, outputs)

    return faulty


def _toward_zero(values: np.ndarray, rounded: np.ndarray) -> np.ndarray:
    """rounded moved one step toward zero wherever rounding to nearest went away from zero (finite inputs)."""
    away = np.isfinite(values) & (np.abs(rounded.astype(values.dtype)) > np.abs(values))
    return np.where(away, np.nextafter(rounded, rounded.dtype.type(0)), rounded)


def cast_truncates_to_float16(compute: ComputeFn) -> ComputeFn:
    """Cast float32 -> float16 rounded toward zero instead of to nearest even."""

    def faulty(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list) -> list[np.ndarray]:
        results = compute(inputs, attrs, outputs)
        x = inputs[0] if inputs else None
        if x is not None and x.dtype == np.float32 and results and results[0].dtype == np.float16:
            y = results[0]
            results = [_toward_zero(np.asarray(x).reshape(y.shape), y).astype(np.float16), *results[1:]]
        return results

    return faulty


def _one_ulp_off(y: np.ndarray) -> np.ndarray:
    """y with every third finite non-zero element moved one ulp away from zero (in y's own dtype); the largest finite
    magnitude moves toward zero instead, as a one-ulp error cannot overflow."""
    flat = y.reshape(-1).copy()
    picked = np.zeros(flat.shape, bool)
    picked[::3] = True
    picked &= np.isfinite(flat) & (flat != 0)
    away = np.nextafter(flat[picked], np.copysign(flat.dtype.type(np.inf), flat[picked]))
    toward = np.nextafter(flat[picked], flat.dtype.type(0))
    flat[picked] = np.where(np.isfinite(away), away, toward)
    return flat.reshape(y.shape)


def one_ulp_off_in(dtype: type) -> ComputeWrapper:
    """A unary op whose result is one ulp off on every third element when its input has the given dtype."""

    def wrap(compute: ComputeFn) -> ComputeFn:
        def deviating(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list) -> list[np.ndarray]:
            results = compute(inputs, attrs, outputs)
            x = inputs[0] if inputs else None
            if x is not None and x.dtype == dtype and results and results[0].dtype == dtype:
                results = [_one_ulp_off(results[0]), *results[1:]]
            return results

        return deviating

    return wrap


#: A float32 unary op whose result is one ulp off on every third element.
transcendental_one_ulp = one_ulp_off_in(np.float32)


def reversed_order(order: Callable[[int], Iterable[int]]) -> Callable[[int], Iterable[int]]:
    """The matrix unit's accumulation order over K, reversed."""
    return lambda k: reversed(order(k))


def sequential_sum(_: Callable[[np.ndarray], np.ndarray]) -> Callable[[np.ndarray], np.ndarray]:
    """A floating-point sum over the last axis that adds left to right instead of in a pairwise tree."""

    def add_left_to_right(flat: np.ndarray) -> np.ndarray:
        total = np.zeros(flat.shape[:-1], flat.dtype)
        for k in range(flat.shape[-1]):
            total = total + flat[..., k]
        return total

    return add_left_to_right


def narrowed_ranges(infer: Callable[..., list[InferredShape]]) -> Callable[..., list[InferredShape]]:
    """Host shape inference whose output dim ranges are narrowed to their lower bound."""

    def narrowed(*args: Any) -> list[InferredShape]:
        return [replace(result, shape_range=tuple((lo, lo) if hi > lo else (lo, hi) for lo, hi in result.shape_range))
                for result in infer(*args)]

    return narrowed

