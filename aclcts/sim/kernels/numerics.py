"""Device arithmetic: storage-type rounding after each primitive op, fp32/int32 accumulation, fixed summation order.

Model (see the brief and design.md invariant 3):
- fp16 and bf16 elementwise ops compute in float32 and round to the storage type after every primitive op
  (for + - * / sqrt the float32 result rounded to fp16/bf16 equals the correctly rounded fp16/bf16 result, since
  float32 carries more than twice their precision plus two bits); fp32 ops are numpy's float32 ops; float64 as is.
- reductions accumulate fp16/bf16/fp32 in fp32 with a pairwise tree (pairs (0,1), (2,3), ... combined level by
  level, an odd tail element padded with -0.0, which is the exact additive identity).
- matrix units accumulate fp16/bf16 in fp32 and int8/int32 in int32 (two's complement wrap), sequentially over
  the contraction index k = 0, 1, ..., K-1, then round once to the output type.
"""

from __future__ import annotations

from collections.abc import Callable

import ml_dtypes
import numpy as np

from aclcts.sim.seams import Seam

FLOAT16 = np.dtype(np.float16)
BFLOAT16 = np.dtype(ml_dtypes.bfloat16)
FLOAT32 = np.dtype(np.float32)
FLOAT64 = np.dtype(np.float64)
LOW_PRECISION = (FLOAT16, BFLOAT16)
FLOATS = (FLOAT16, BFLOAT16, FLOAT32, FLOAT64)
SIGNED_INTS = tuple(np.dtype(t) for t in (np.int8, np.int16, np.int32, np.int64))
UNSIGNED_INTS = tuple(np.dtype(t) for t in (np.uint8, np.uint16, np.uint32, np.uint64))
INTS = SIGNED_INTS + UNSIGNED_INTS
BOOL = np.dtype(np.bool_)

Rounder = Callable[[np.ndarray], np.ndarray]


def is_float(dtype: np.dtype) -> bool:
    """Whether dtype is one of the floating storage types the elementwise kernels compute in."""
    return np.dtype(dtype) in FLOATS


def compute_dtype(dtype: np.dtype) -> np.dtype:
    """The type arithmetic on a storage type is carried out in: float32 for fp16/bf16/fp32, else the type itself."""
    dtype = np.dtype(dtype)
    return FLOAT32 if dtype in LOW_PRECISION else dtype


def widen(array: np.ndarray) -> np.ndarray:
    """An array converted to its compute type (exact for every storage type)."""
    return np.asarray(array).astype(compute_dtype(np.asarray(array).dtype))


def rounder(storage: np.dtype) -> Rounder:
    """The function rounding a compute-type result to the storage type (and back), applied after each primitive op."""
    storage = np.dtype(storage)
    if storage in LOW_PRECISION:
        return lambda value: np.asarray(value, dtype=FLOAT32).astype(storage).astype(FLOAT32)
    compute = compute_dtype(storage)
    return lambda value: np.asarray(value, dtype=compute)


def tree_sum(array: np.ndarray, axis: int) -> np.ndarray:
    """Sum along axis in array's (floating) dtype with the fixed pairwise tree order; the axis is removed."""
    values = np.moveaxis(np.asarray(array), axis, -1)
    if values.shape[-1] == 0:
        return np.zeros(values.shape[:-1], dtype=values.dtype)
    while values.shape[-1] > 1:
        if values.shape[-1] % 2:
            pad = np.full(values.shape[:-1] + (1,), -0.0, dtype=values.dtype)
            values = np.concatenate([values, pad], axis=-1)
        values = values[..., 0::2] + values[..., 1::2]
    return values[..., 0]


def accumulator_dtype(dtype: np.dtype) -> np.dtype:
    """The matrix-unit accumulator for an input type: fp32 for floats up to fp32, int32 for int8/int32, f64 for f64."""
    dtype = np.dtype(dtype)
    if dtype in (FLOAT16, BFLOAT16, FLOAT32):
        return FLOAT32
    if dtype in (np.dtype(np.int8), np.dtype(np.int32)):
        return np.dtype(np.int32)
    if dtype == FLOAT64:
        return FLOAT64
    raise TypeError(f"no matrix-unit accumulator for {dtype}")


#: The order in which the matrix unit accumulates the K products: range(k).
accumulation_order = Seam("accumulation order", range)


def batched_matmul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a[..., M, K] @ b[..., K, N] accumulated in the matrix-unit accumulator type; batch dims broadcast."""
    acc = accumulator_dtype(a.dtype)
    if acc.kind == "i":
        product = np.matmul(a.astype(np.int64), b.astype(np.int64))
        return product.astype(acc)
    a_wide, b_wide = a.astype(acc), b.astype(acc)
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    total = np.zeros(batch + (a.shape[-2], b.shape[-1]), dtype=acc)
    for k in accumulation_order(a.shape[-1]):
        total = total + a_wide[..., :, k : k + 1] * b_wide[..., k : k + 1, :]
    return total


def saturating_int(values: np.ndarray, target: np.dtype) -> np.ndarray:
    """Floats converted to an integer type: truncation toward zero, saturation at the type's bounds, NaN to 0."""
    target = np.dtype(target)
    info = np.iinfo(target)
    wide = np.trunc(np.asarray(values, dtype=FLOAT64))
    result = np.zeros(wide.shape, dtype=target)
    high = wide >= float(info.max)
    low = wide <= float(info.min)
    inside = ~(high | low | np.isnan(wide))
    result[inside] = wide[inside].astype(target)
    result[high] = info.max
    result[low] = info.min
    return result
