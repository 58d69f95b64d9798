"""Comparison, logic, bit and Select references.

Comparisons follow IEEE 754: every ordered comparison with a NaN is false and NotEqual is true, -0 equals +0.
Bit operations are computed on the two's-complement bit patterns, as Python ints reduced modulo 2**bits.
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

from aclcts.reference.base import RefOp, define
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


def _bits(v: np.ndarray, dtype: np.dtype) -> list[int]:
    """The two's-complement bit patterns of integers of dtype, as non-negative Python ints."""
    lo, hi = int_range(dtype)
    span = hi - lo + 1
    return [int(i) % span for i in v.reshape(-1)]


def _from_bits(bits: list[int], dtype: np.dtype, shape: tuple[int, ...]) -> np.ndarray:
    """Integers of dtype from bit patterns in [0, 2**bits)."""
    lo, hi = int_range(dtype)
    span = hi - lo + 1
    return np.array([b - span if b > hi else b for b in bits], dtype=dtype).reshape(shape)


def _bitwise(fn: Any) -> Any:
    """A compute function applying fn(bits1, bits2, width) to each broadcast pair of patterns."""
    def compute(xs: list[np.ndarray], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
        dtype = np.dtype(xs[0].dtype)
        a, b = np.broadcast_arrays(xs[0], xs[1])
        width = 8 * dtype.itemsize
        pairs = zip(_bits(a, dtype), [int(i) for i in b.reshape(-1)], _bits(b, dtype))
        return [round_to(_from_bits([fn(x, count, y, width) for x, count, y in pairs], dtype, a.shape), out[0])]
    return compute


def bitwise_and(x: int, count: int, y: int, width: int) -> int:
    """BitwiseAnd of two patterns."""
    return x & y


def bitwise_or(x: int, count: int, y: int, width: int) -> int:
    """BitwiseOr of two patterns."""
    return x | y


def bitwise_xor(x: int, count: int, y: int, width: int) -> int:
    """BitwiseXor of two patterns."""
    return x ^ y


def _clamped(count: int, width: int) -> int:
    """A shift count clamped to [0, width - 1] (TensorFlow's rule)."""
    return min(max(count, 0), width - 1)


def left_shift(x: int, count: int, y: int, width: int) -> int:
    """x * 2**count with the bits beyond the type's width dropped."""
    return (x * 2 ** _clamped(count, width)) % 2 ** width


def _right_shift(signed: bool) -> Any:
    """x // 2**count on the value (floor: arithmetic for signed types), as a pattern again."""
    def shift(x: int, count: int, y: int, width: int) -> int:
        value = x - 2 ** width if signed and x >= 2 ** (width - 1) else x
        return (value // 2 ** _clamped(count, width)) % 2 ** width
    return shift


def _right_shift_compute(xs: list[np.ndarray], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    """RightShift: arithmetic for signed, logical for unsigned types."""
    return _bitwise(_right_shift(np.dtype(xs[0].dtype).kind == "i"))(xs, attrs, out)


def _invert(xs: list[np.ndarray], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    """Invert: every bit flipped, i.e. the pattern subtracted from 2**bits - 1."""
    dtype = np.dtype(xs[0].dtype)
    top = 2 ** (8 * dtype.itemsize) - 1
    return [round_to(_from_bits([top - p for p in _bits(xs[0], dtype)], dtype, xs[0].shape), out[0])]


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
    define("LeftShift", _bitwise(left_shift), _broadcast),
    define("RightShift", _right_shift_compute, _broadcast),
    define("Select", _select, _select_shape),
)
