"""Device arithmetic: storage-type rounding after each primitive op, fp32/int32 accumulation, fixed summation order.

Model (see the brief and design.md invariant 3):
- fp16 and bf16 elementwise ops compute in float32 and round to the storage type after every primitive op
  (for + - * / sqrt the float32 result rounded to fp16/bf16 equals the correctly rounded fp16/bf16 result, since
  float32 carries more than twice their precision plus two bits); fp32 ops are numpy's float32 ops; float64 as is.
- reductions accumulate fp16/bf16/fp32 in fp32 as a 64-lane vector unit does (one 256-byte repeat of float32):
  lane j adds elements j, j + 64, j + 128, ... in order, then the lanes are combined with a pairwise tree (pairs
  (0,1), (2,3), ... combined level by level, an odd tail element padded with -0.0, the exact additive identity);
  fewer than 64 elements go straight to the tree.
- matrix units accumulate fp16/bf16 in fp32 and int8/int32 in int32 (two's complement wrap), then round once to
  the output type. The fp32 accumulation order is BLAS's blocked order by default (np.matmul on float32 operands),
  as legitimate an fp32 order as any; the `sequential` accumulation mode (setting matmul_accumulation) adds the
  products over k = 0, 1, ..., K-1 one at a time instead. Integer products are exact in either mode.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

import ml_dtypes
import numpy as np

from aclcts.sim.seams import Seam

FLOAT16 = np.dtype(np.float16)
BFLOAT16 = np.dtype(ml_dtypes.bfloat16)
FLOAT32 = np.dtype(np.float32)
FLOAT64 = np.dtype(np.float64)
LOW_PRECISION = (FLOAT16, BFLOAT16)
#: Storage types that are their own compute type: their ops need no rounding step.
EXACT_FLOATS = (FLOAT32, FLOAT64)
FLOATS = (FLOAT16, BFLOAT16, FLOAT32, FLOAT64)
COMPLEX = (np.dtype(np.complex64), np.dtype(np.complex128))
#: Storage types whose arithmetic runs in the type itself: the exact floats and complex (complex64 in float32 parts).
OWN_TYPES = EXACT_FLOATS + COMPLEX
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
    """An array in its compute type (exact for every storage type); the array itself when it already is."""
    array = np.asarray(array)
    return array.astype(compute_dtype(array.dtype), copy=False)


def rounder(storage: np.dtype) -> Rounder:
    """The function rounding a compute-type result to the storage type (and back), applied after each primitive op."""
    storage = np.dtype(storage)
    if storage in LOW_PRECISION:
        return lambda value: _round_through(np.asarray(value, dtype=FLOAT32), storage)
    compute = compute_dtype(storage)
    return lambda value: np.asarray(value, dtype=compute)


def _round_through(value: np.ndarray, storage: np.dtype) -> np.ndarray:
    """value rounded to storage and back to float32: in place when value is an array of its own, else a new one."""
    rounded = value.astype(storage)
    if value.flags.owndata and value.flags.writeable and value.ndim:
        np.copyto(value, rounded, casting="unsafe")
        return value
    return rounded.astype(FLOAT32)


#: Rows of a tree sum are added this many elements at a time, so each level's buffers stay in the cache.
TREE_CHUNK_ELEMENTS = 1 << 20


def _tree_levels(block: np.ndarray, first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """The pairwise tree over the last axis of a 2-D block, each level written into first or second in turn."""
    source = block
    level = 0
    while source.shape[-1] > 1:
        width = source.shape[-1]
        half = width // 2
        target = (first, second)[level % 2][: source.shape[0], : (width + 1) // 2]
        np.add(source[:, 0 : 2 * half : 2], source[:, 1 : 2 * half : 2], out=target[:, :half])
        if width % 2:
            np.add(source[:, width - 1], source.dtype.type(-0.0), out=target[:, half])
        source = target
        level += 1
    return source[:, 0]


def tree_sum(array: np.ndarray, axis: int) -> np.ndarray:
    """Sum along axis in array's (floating) dtype with the fixed pairwise tree order; the axis is removed.

    Level by level, pairs (0, 1), (2, 3), ... are added; an odd tail element is added to -0.0 (the exact additive
    identity). Rows are processed in chunks of about TREE_CHUNK_ELEMENTS elements.
    """
    values = np.moveaxis(np.asarray(array), axis, -1)
    width = values.shape[-1]
    if width == 0:
        return np.zeros(values.shape[:-1], dtype=values.dtype)
    rows = values.reshape(-1, width)
    count = rows.shape[0]
    total = np.empty(count, dtype=values.dtype)
    chunk = max(1, TREE_CHUNK_ELEMENTS // width)
    first = np.empty((min(chunk, count), (width + 1) // 2), dtype=values.dtype)
    second = np.empty((min(chunk, count), (width + 3) // 4), dtype=values.dtype)
    for start in range(0, count, chunk):
        total[start : start + chunk] = _tree_levels(rows[start : start + chunk], first, second)
    return total.reshape(values.shape[:-1])


#: Float32 lanes of the vector unit: one 256-byte repeat.
VECTOR_LANES = 64


def vector_sum(array: np.ndarray, axis: int) -> np.ndarray:
    """Sum along axis in array's (floating) dtype in the vector unit's lane order (module docstring); axis removed."""
    values = np.moveaxis(np.asarray(array), axis, -1)
    width = values.shape[-1]
    blocks = width // VECTOR_LANES
    if blocks == 0:
        return tree_sum(values, -1)
    whole = blocks * VECTOR_LANES
    blocked = values[..., :whole].reshape(values.shape[:-1] + (blocks, VECTOR_LANES))
    lanes = np.add.reduce(blocked, axis=-2)
    zero = lanes == 0
    if zero.any():  # NumPy starts each lane from +0.0; a lane of only -0.0 sums to -0.0
        only_negative_zeros = np.logical_and.reduce(np.signbit(blocked) & (blocked == 0), axis=-2)
        lanes[zero & only_negative_zeros] = -0.0
    if whole < width:
        lanes[..., : width - whole] += values[..., whole:]
    return tree_sum(lanes, -1)


def vector_sum_over(array: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
    """Sum of array over axes in the vector unit's lane order (vector_sum of the axes flattened), keeping them as 1."""
    kept = [i for i in range(array.ndim) if i not in axes]
    moved = np.transpose(array, kept + list(axes))
    flat = moved.reshape(tuple(array.shape[i] for i in kept) + (-1,))
    total = vector_sum(flat, -1) if flat.shape[-1] else np.zeros(flat.shape[:-1], array.dtype)
    return total.reshape(tuple(1 if i in axes else d for i, d in enumerate(array.shape)))


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

#: The matrix-unit accumulation modes: BLAS's blocked order, or one product at a time over k.
ACCUMULATION_MODES = ("blocked", "sequential")
_MODE: ContextVar[str] = ContextVar("matmul accumulation", default="blocked")
#: int8 products (at most 2^14 in magnitude) summed over K <= this many stay below 2^24, exact in float32.
INT8_FLOAT32_EXACT_K = 1 << 10
#: ... and below 2^31 (no int32 wrap) for K <= this many.
INT8_NO_WRAP_K = (1 << 17) - 1


@contextmanager
def accumulation(mode: str) -> Iterator[None]:
    """Run the block's matrix-unit products in one of ACCUMULATION_MODES."""
    if mode not in ACCUMULATION_MODES:
        raise ValueError(f"matrix-unit accumulation {mode!r}: expected one of {', '.join(ACCUMULATION_MODES)}")
    token = _MODE.set(mode)
    try:
        yield
    finally:
        _MODE.reset(token)


def _permutation(order: Iterable[int], k: int) -> np.ndarray | None:
    """The K order as an index array, or None for the natural order 0, 1, ..., K-1."""
    if isinstance(order, range) and order == range(k):
        return None
    return np.fromiter(order, dtype=np.intp, count=k)


def _sequential(a: np.ndarray, b: np.ndarray, acc: np.dtype, order: Iterable[int]) -> np.ndarray:
    """sum over k in order of a[..., :, k] * b[..., k, :], each product and sum rounded to acc."""
    a_wide, b_wide = a.astype(acc, copy=False), b.astype(acc, copy=False)
    shape = np.broadcast_shapes(a.shape[:-2], b.shape[:-2]) + (a.shape[-2], b.shape[-1])
    total = np.zeros(shape, dtype=acc)
    product = np.empty(shape, dtype=acc)
    for k in order:
        np.multiply(a_wide[..., :, k : k + 1], b_wide[..., k : k + 1, :], out=product)
        np.add(total, product, out=total)
    return total


def _integer(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a @ b for int8 or int32 operands in int32 with two's complement wrap (exact; any order gives the same)."""
    k = a.shape[-1]
    if a.dtype == np.int8 and k <= INT8_FLOAT32_EXACT_K:
        return np.matmul(a.astype(FLOAT32), b.astype(FLOAT32)).astype(np.int32)
    if a.dtype == np.int8 and k <= INT8_NO_WRAP_K:
        return np.matmul(a.astype(FLOAT64), b.astype(FLOAT64)).astype(np.int32)
    wrapped = np.matmul(a.astype(np.uint32, copy=False), b.astype(np.uint32, copy=False))
    return wrapped.view(np.int32)


def batched_matmul(a: np.ndarray, b: np.ndarray, order: Callable[[int], Iterable[int]] = accumulation_order) -> np.ndarray:
    """a[..., M, K] @ b[..., K, N] accumulated in the matrix-unit accumulator type; batch dims broadcast.

    Floating products are fed to the accumulation in the order order(K) gives (the accumulation-order seam).
    """
    acc = accumulator_dtype(a.dtype)
    if acc.kind == "i":
        return _integer(a, b)
    k = a.shape[-1]
    if _MODE.get() == "sequential":
        return _sequential(a, b, acc, order(k))
    permutation = _permutation(order(k), k)
    if permutation is not None:
        a, b = np.take(a, permutation, axis=-1), np.take(b, permutation, axis=-2)
    return np.matmul(a.astype(acc, copy=False), b.astype(acc, copy=False))


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
