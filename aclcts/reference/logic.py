"""Comparison, logic, bit and Select references.

Comparisons follow IEEE 754: every ordered comparison with a NaN is false and NotEqual is true, -0 equals +0.
Bit operations are computed on the two's-complement bit patterns, held as uint64 values reduced modulo 2**bits
(arithmetic on the patterns, not NumPy's bit operations on the type).
Shifts: the prototype leaves counts outside [0, bits) undefined; the suite follows TensorFlow's LeftShift and
RightShift kernels, which the prototype names as compatible (UNCONFIRMED on hardware): the count is clamped to
[0, bits - 1], the left shift drops the bits shifted out of the type, the right shift of a signed type is arithmetic
(copies of the sign bit come in) and of an unsigned type logical.
Select follows TensorFlow Select: x1 and x2 have one shape; condition has that shape, is a scalar, or is a vector as
long as x1's first dimension (choosing whole rows).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from aclcts.reference.base import InputError, RefOp, define
from aclcts.reference.numeric import int_range, round_to, widen


def less_equal(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """LessEqual: not (x1 > x2), and false when either is NaN."""
    return ~(a > b) & (a == a) & (b == b)


def greater_equal(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """GreaterEqual: not (x1 < x2), and false when either is NaN."""
    return ~(a < b) & (a == a) & (b == b)


def not_equal(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """NotEqual: not (x1 == x2), so true when either is NaN."""
    return ~(a == b)


def logical_or(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """LogicalOr: false only where both are false."""
    return ~(~a & ~b)


def logical_not(a: np.ndarray) -> np.ndarray:
    """LogicalNot: true where x is false."""
    return a == False  # noqa: E712  (elementwise comparison, not an identity test)


def _bits(v: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """The two's-complement bit patterns of integers of dtype, as uint64 values in [0, 2**bits): a negative value v
    is the pattern 2**bits + v (uint64 arithmetic is modulo 2**64, which 2**bits divides)."""
    lo, hi = int_range(dtype)
    patterns = np.asarray(v).astype(np.int64).astype(np.uint64) if lo < 0 else np.asarray(v).astype(np.uint64)
    return _modulo_width(patterns, dtype)


def _modulo_width(patterns: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """uint64 values reduced modulo 2**bits of dtype."""
    lo, hi = int_range(dtype)
    return patterns if hi - lo + 1 == 2 ** 64 else patterns % np.uint64(hi - lo + 1)


def _from_bits(patterns: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """Integers of dtype from uint64 bit patterns in [0, 2**bits): a pattern p above the type's maximum is the value
    p - 2**bits, computed as -((2**bits - 1) - p) - 1 so that no step leaves int64."""
    lo, hi = int_range(dtype)
    patterns = np.asarray(patterns)
    if lo == 0:
        return patterns.astype(dtype)
    high = patterns > np.uint64(hi)
    negative = -(np.uint64(hi - lo) - patterns[high]).astype(np.int64) - 1
    values = patterns.astype(np.int64)
    values[high] = negative
    return values.astype(dtype)


def _counts(b: np.ndarray, width: int) -> np.ndarray:
    """Shift counts clamped to [0, width - 1] (TensorFlow's rule), as int64."""
    lo, _ = int_range(b.dtype)
    wide = np.asarray(b).astype(np.int64 if lo < 0 else np.uint64)
    return np.clip(wide, 0, width - 1).astype(np.int64)


def _powers_of_two(counts: np.ndarray, dtype: type) -> tuple[np.ndarray, np.ndarray]:
    """2**counts as two factors of dtype, 2**(count // 2) and 2**(count - count // 2), each at most 2**32 (looked
    up in a table of the 33 powers)."""
    half = counts // 2
    table = np.array([2 ** k for k in range(33)], dtype)
    return table[half], table[counts - half]


def _bitwise(fn: Any) -> Any:
    """A compute function applying fn(patterns1, patterns2) to the broadcast uint64 bit patterns."""
    def compute(xs: list[np.ndarray], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
        dtype = np.dtype(xs[0].dtype)
        a, b = np.broadcast_arrays(xs[0], xs[1])
        return [round_to(_from_bits(fn(_bits(a, dtype), _bits(b, dtype)), dtype), out[0])]
    return compute


def bitwise_and(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """BitwiseAnd of two patterns."""
    return x & y


def bitwise_or(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """BitwiseOr of two patterns."""
    return x | y


def bitwise_xor(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """BitwiseXor of two patterns."""
    return x ^ y


def _left_shift_compute(xs: list[np.ndarray], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    """LeftShift: x * 2**count with the bits beyond the type's width dropped (the product modulo 2**bits)."""
    dtype = np.dtype(xs[0].dtype)
    a, b = np.broadcast_arrays(xs[0], xs[1])
    first, second = _powers_of_two(_counts(b, 8 * dtype.itemsize), np.uint64)
    return [round_to(_from_bits(_modulo_width(_bits(a, dtype) * first * second, dtype), dtype), out[0])]


def _right_shift_compute(xs: list[np.ndarray], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    """RightShift: x // 2**count on the value, floor division (arithmetic for signed, logical for unsigned types),
    in two exact steps (floor(floor(x / p) / q) is floor(x / (p * q)) for positive integers p and q)."""
    dtype = np.dtype(xs[0].dtype)
    a, b = np.broadcast_arrays(xs[0], xs[1])
    wide = np.int64 if int_range(dtype)[0] < 0 else np.uint64
    first, second = _powers_of_two(_counts(b, 8 * dtype.itemsize), wide)
    return [round_to((a.astype(wide) // first // second).astype(dtype), out[0])]


def _invert(xs: list[np.ndarray], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    """Invert: every bit flipped, i.e. the pattern subtracted from 2**bits - 1."""
    dtype = np.dtype(xs[0].dtype)
    lo, hi = int_range(dtype)
    return [round_to(_from_bits(np.uint64(hi - lo) - _bits(xs[0], dtype), dtype), out[0])]


def _compare(fn: Any) -> Any:
    """A compute function of a comparison or logic op on the widened inputs."""
    def compute(xs: list[np.ndarray], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
        return [round_to(fn(*[widen(x) for x in xs if x is not None]), out[0])]
    return compute


def select_condition(condition: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """Select's condition expanded to x1's shape: same shape, scalar, or one value per row of dimension 0."""
    if condition.shape == shape or condition.ndim == 0:
        return np.broadcast_to(condition, shape)
    if condition.ndim == 1 and len(shape) >= 1 and condition.shape[0] == shape[0]:
        return np.broadcast_to(condition.reshape((-1,) + (1,) * (len(shape) - 1)), shape)
    raise ValueError(f"condition of shape {list(condition.shape)} does not fit x1 of shape {list(shape)}: expected "
                     f"the same shape, a scalar or a vector of length {shape[0] if shape else 1}")


def _select(xs: list[np.ndarray], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    """Select: x1 where condition is true, else x2 (the values as given, bit for bit)."""
    condition, x1, x2 = xs
    if x1.shape != x2.shape:
        raise ValueError(f"x1 {list(x1.shape)} and x2 {list(x2.shape)} must have the same shape")
    chosen = select_condition(np.asarray(condition, dtype=bool), x1.shape)
    return [round_to(np.array([p if c else q for c, p, q in zip(chosen.reshape(-1), x1.reshape(-1), x2.reshape(-1))],
                              dtype=x1.dtype).reshape(x1.shape), out[0])]


def _select_shape(shapes: list[tuple[int, ...] | None], values: list[Any], attrs: dict[str, Any]) -> list[tuple[int, ...]]:
    """Select's output shape: x1's, once condition and x2 are checked against it."""
    condition, x1, x2 = shapes
    if x1 != x2:
        raise ValueError(f"x1 {list(x1)} and x2 {list(x2)} must have the same shape")
    select_condition(np.zeros(condition, dtype=bool), x1)
    return [x1]


def _broadcast(shapes: list[tuple[int, ...] | None], values: list[Any], attrs: dict[str, Any]) -> list[tuple[int, ...]]:
    """Output shape: the broadcast of the inputs."""
    return [tuple(np.broadcast_shapes(*[s for s in shapes if s is not None]))]


def _select_v2(xs: list[np.ndarray], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    """SelectV2: then where condition is true, else else, the three broadcast together (values as given)."""
    condition, then, otherwise = np.broadcast_arrays(np.asarray(xs[0], dtype=bool), xs[1], xs[2])
    picked = [t if c else e for c, t, e in zip(condition.reshape(-1), then.reshape(-1), otherwise.reshape(-1))]
    return [np.array(picked, dtype=out[0]).reshape(condition.shape)]


def _tensor_equal(xs: list[np.ndarray], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    """TensorEqual: [True] when the two tensors have one shape and every pair of elements is equal (a NaN equals
    nothing), else [False]."""
    x, y = (widen(v) for v in xs)
    return [np.array([x.shape == y.shape and bool(np.all(x == y))])]


def _tensor_equal_shape(shapes: list[tuple[int, ...] | None], values: list[Any], attrs: dict[str, Any]) -> list[tuple[int, ...]]:
    """TensorEqual's output shape: [1], the inputs holding one number of elements."""
    counts = [int(np.prod(s, dtype=np.int64)) for s in shapes[:2]]
    if counts[0] != counts[1]:
        raise InputError((0, 1), lambda x, y: f"inputs {x!r} and {y!r} must hold one number of elements, got shapes "
                                              f"{list(shapes[0])} and {list(shapes[1])}")
    return [(1,)]


def _compare_and_bitpack(xs: list[np.ndarray], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    """CompareAndBitpack: bits b_k = x[..., 8j + k] > threshold (a bool x: x itself), y[..., j] = sum_k b_k 2^(7-k)."""
    x, threshold = widen(xs[0]), widen(xs[1])
    if threshold.size != 1:
        raise InputError(1, lambda name: f"input {name!r} must be a scalar, got shape {list(threshold.shape)}")
    bits = x if x.dtype == bool else x > threshold.reshape(())
    groups = bits.reshape(bits.shape[:-1] + (bits.shape[-1] // 8, 8)).astype(np.int64)
    weights = np.array([2 ** (7 - k) for k in range(8)], dtype=np.int64)
    return [np.sum(groups * weights, axis=-1).astype(np.uint8)]


def _compare_and_bitpack_shape(shapes: list[tuple[int, ...] | None], values: list[Any], attrs: dict[str, Any]) -> list[tuple[int, ...]]:
    """CompareAndBitpack's output shape: x's, its innermost dim divided by 8."""
    x = tuple(shapes[0])
    if not x or x[-1] % 8:
        raise InputError(0, lambda name: f"input {name!r} of shape {list(x)} must have an innermost dim divisible by 8")
    return [x[:-1] + (x[-1] // 8,)]


OPS: tuple[RefOp, ...] = (
    define("LessEqual", _compare(less_equal), _broadcast),
    define("GreaterEqual", _compare(greater_equal), _broadcast),
    define("NotEqual", _compare(not_equal), _broadcast),
    define("LogicalOr", _compare(logical_or), _broadcast),
    define("LogicalNot", _compare(logical_not), _broadcast),
    define("BitwiseAnd", _bitwise(bitwise_and), _broadcast),
    define("BitwiseOr", _bitwise(bitwise_or), _broadcast),
    define("BitwiseXor", _bitwise(bitwise_xor), _broadcast),
    define("Invert", _invert, _broadcast),
    define("LeftShift", _left_shift_compute, _broadcast),
    define("RightShift", _right_shift_compute, _broadcast),
    define("Select", _select, _select_shape),
    define("SelectV2", _select_v2, _broadcast),
    define("TensorEqual", _tensor_equal, _tensor_equal_shape),
    define("CompareAndBitpack", _compare_and_bitpack, _compare_and_bitpack_shape),
)
