"""Faulty device numerics that only inputs of a value profile reach: a narrowed accumulator, float32 subnormals flushed
to zero, a softmax without its max subtraction. Substitutes for built-in kernel registry entries."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

import numpy as np

from aclcts.sim.faults.kernels import TRANSPOSE_ATTRS, Lookup, kernel_entries
from aclcts.sim.kernels.base import ComputeFn, Kernel

#: The integer matrix products whose accumulator accumulator_narrowed narrows.
INTEGER_MATMULS = ("MatMul", "MatMulV2", "BatchMatMul", "BatchMatMulV2")
#: The integer matrix products whose third input is a bias, added in the accumulator.
BIASED = ("MatMul", "MatMulV2", "BatchMatMulV2")
#: The kernel modules of the elementwise and arithmetic ops, whose float32 values subnormals_flushed_float32 flushes.
ELEMENTWISE_MODULES = frozenset(f"aclcts.sim.kernels.{name}" for name in ("elementwise", "unary", "unary_math",
                                                                          "binary_math"))
FLOAT32_TINY = np.finfo(np.float32).tiny


def accumulates_in_float32(op_type: str) -> Callable[[ComputeFn], ComputeFn]:
    """An integer matrix product whose K products (and bias) are added in a float32 accumulator, then converted to the
    output."""
    names = TRANSPOSE_ATTRS[op_type]

    def wrap(compute: ComputeFn) -> ComputeFn:
        def faulty(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list) -> list[np.ndarray]:
            results = compute(inputs, attrs, outputs)
            x1, x2 = inputs[0], inputs[1]
            if x1 is None or x2 is None or x1.dtype.kind not in "iu" or not results:
                return results
            a = np.swapaxes(x1, -1, -2) if attrs.get(names[0], False) else x1
            b = np.swapaxes(x2, -1, -2) if attrs.get(names[1], False) else x2
            y = results[0]
            bias = inputs[2] if len(inputs) > 2 and op_type in BIASED else None
            with np.errstate(all="ignore"):
                acc = np.matmul(a.astype(np.float32), b.astype(np.float32))
                if bias is not None:
                    acc = acc + bias.astype(np.float32)
                narrowed = acc.astype(np.int64).astype(y.dtype)
            return [narrowed.reshape(y.shape), *results[1:]]

        return faulty

    return wrap


def narrowed_accumulator(lookup: Lookup) -> Lookup:
    """The kernel lookup with every integer matrix product accumulating in float32."""
    for op_type in INTEGER_MATMULS:
        lookup = kernel_entries([op_type], accumulates_in_float32(op_type))(lookup)
    return lookup


def _flushed(x: np.ndarray | None) -> np.ndarray | None:
    """x with its float32 subnormals replaced by zeros of the same sign (other arrays as they are)."""
    if x is None or np.asarray(x).dtype != np.float32:
        return x
    x = np.asarray(x)
    return np.where(np.abs(x) < FLOAT32_TINY, np.copysign(np.float32(0), x), x).astype(np.float32)


def flushes_subnormals(compute: ComputeFn) -> ComputeFn:
    """A kernel that reads float32 subnormal inputs as zero and writes float32 subnormal results as zero."""

    def faulty(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list) -> list[np.ndarray]:
        results = compute([_flushed(x) for x in inputs], attrs, outputs)
        return [_flushed(y) for y in results]

    return faulty


def elementwise_flush_subnormals(lookup: Lookup) -> Lookup:
    """The kernel lookup with every elementwise and arithmetic kernel flushing float32 subnormals to zero."""
    wrapped: dict[Kernel, Kernel] = {}

    def find(op_type: str) -> Kernel | None:
        kernel = lookup(op_type)
        if kernel is None or getattr(kernel.compute, "__module__", "") not in ELEMENTWISE_MODULES:
            return kernel
        if kernel not in wrapped:
            wrapped[kernel] = replace(kernel, compute=flushes_subnormals(kernel.compute))
        return wrapped[kernel]

    return find


def softmax_without_max(compute: ComputeFn) -> ComputeFn:
    """SoftmaxV2 as exp(x) / sum(exp(x)) in float32, without subtracting the maximum first."""

    def faulty(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list) -> list[np.ndarray]:
        results = compute(inputs, attrs, outputs)
        x = inputs[0]
        if x is None or not results or x.size == 0:
            return results
        axes = tuple(sorted({a % x.ndim for a in attrs.get("axes", [-1])}))
        with np.errstate(all="ignore"):
            exps = np.exp(x.astype(np.float32))
            y = exps / np.sum(exps, axis=axes, keepdims=True, dtype=np.float32)
        return [y.astype(results[0].dtype), *results[1:]]

    return faulty
