"""Element-wise arithmetic, comparison and unary math references (broadcasting like the IR prototypes).

Every function receives inputs already widened (float64 / int64 / uint64 / bool / complex128) and returns
a wide result; `round_to` then rounds once to the output dtype, so integer results wrap modulo 2**bits
(two's complement, as the integer units do) and float results are rounded to nearest even.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from aclcts.reference import complex_math
from aclcts.reference.base import InputError, RefOp, define
from aclcts.reference.numeric import int_range, is_float_dtype, is_int_dtype, round_to, widen


def add(x1: np.ndarray, x2: np.ndarray) -> np.ndarray:
    """Add: x1 + x2."""
    return x1 + x2


def sub(x1: np.ndarray, x2: np.ndarray) -> np.ndarray:
    """Sub: x1 - x2."""
    return x1 - x2


def mul(x1: np.ndarray, x2: np.ndarray) -> np.ndarray:
    """Mul: x1 * x2."""
    return x1 * x2


def int_div(x1: np.ndarray, x2: np.ndarray, out: np.dtype) -> np.ndarray:
    """Integer division as float division followed by the Cast rule: truncate, x/0 saturates, 0/0 is 0.

    The real-valued quotient is truncated toward zero; a nonzero dividend over zero gives the output
    type's max (positive) or min (negative), 0/0 gives 0 (NaN -> 0).  UNCONFIRMED on hardware.
    """
    lo, hi = int_range(out)
    zero = x2 == 0
    safe = np.where(zero, 1, x2)
    floor = x1 // safe
    q = np.where((x1 % safe != 0) & ((x1 < 0) != (safe < 0)), floor + 1, floor)
    saturated = np.where(x1 > 0, hi, np.where(x1 < 0, lo, 0))
    return np.where(zero, saturated, q)


def real_div(x1: np.ndarray, x2: np.ndarray, out: np.dtype) -> np.ndarray:
    """RealDiv: x1 / x2; IEEE for floats (x/0 = +-inf, 0/0 = NaN), `int_div` for integer outputs."""
    if is_int_dtype(out):
        return int_div(x1, x2, out)
    return np.true_divide(x1, x2)


def maximum(x1: np.ndarray, x2: np.ndarray) -> np.ndarray:
    """Maximum: IEEE 754-2019 maximum — NaN if either is NaN, and +0 is above -0.

    The prototype says "x1 > x2 ? x1 : x2" and "compatible with TensorFlow Maximum", whose CPU kernel
    propagates NaN; the device's NaN behaviour is UNCONFIRMED, so the reference states the IEEE rule.
    """
    r = np.maximum(x1, x2)
    if r.dtype.kind == "f":
        both_zero = (x1 == 0) & (x2 == 0)
        r = np.where(both_zero, np.where(np.signbit(x1) & np.signbit(x2), -0.0, 0.0), r)
    return r


def minimum(x1: np.ndarray, x2: np.ndarray) -> np.ndarray:
    """Minimum: IEEE 754-2019 minimum — NaN if either is NaN, and -0 is below +0 (device UNCONFIRMED)."""
    r = np.minimum(x1, x2)
    if r.dtype.kind == "f":
        both_zero = (x1 == 0) & (x2 == 0)
        r = np.where(both_zero, np.where(np.signbit(x1) | np.signbit(x2), -0.0, 0.0), r)
    return r


def power(x1: np.ndarray, x2: np.ndarray, out: np.dtype) -> np.ndarray:
    """Pow: x1 ** x2; C pow() semantics for floats (pow(x, 0) = 1, pow(1, y) = 1 even for NaN).

    Integers: non-negative exponents are exact with wrap-around; a negative exponent means the real
    value 1 / x1**|x2| truncated by the Cast rule (so 1, +-1 for x1 = -1, 0 otherwise, and 0**-n saturates
    to the type's max).  UNCONFIRMED on hardware.
    """
    if not (is_int_dtype(x1.dtype) and is_int_dtype(x2.dtype)):
        return np.power(x1, x2)
    x1, x2 = np.broadcast_arrays(x1, x2)
    nonneg = np.power(x1, np.where(x2 < 0, 0, x2))
    odd = (x2 % 2) != 0
    negative_exp = np.where(x1 == 1, 1, np.where(x1 == -1, np.where(odd, -1, 1), 0))
    negative_exp = np.where(x1 == 0, int_range(out)[1] if is_int_dtype(out) else 0, negative_exp)
    return np.where(x2 < 0, negative_exp, nonneg)


def equal(x1: np.ndarray, x2: np.ndarray) -> np.ndarray:
    """Equal: x1 == x2 (NaN equals nothing, -0 equals +0)."""
    return np.equal(x1, x2)


def less(x1: np.ndarray, x2: np.ndarray) -> np.ndarray:
    """Less: x1 < x2 (false whenever a NaN is involved)."""
    return np.less(x1, x2)


def greater(x1: np.ndarray, x2: np.ndarray) -> np.ndarray:
    """Greater: x1 > x2 (false whenever a NaN is involved)."""
    return np.greater(x1, x2)


def logical_and(x1: np.ndarray, x2: np.ndarray) -> np.ndarray:
    """LogicalAnd: x1 and x2 on bool tensors."""
    return np.logical_and(x1, x2)


def absolute(x: np.ndarray) -> np.ndarray:
    """Abs: |x|; the most negative integer stays itself after the wrap (two's complement)."""
    return np.abs(x)


def negative(x: np.ndarray) -> np.ndarray:
    """Neg: -x; integers wrap, floats flip the sign bit (so Neg(0) = -0)."""
    return np.negative(x)


def _check_base(base: float) -> None:
    """Reject an Exp/Log `base` attribute other than -1 (meaning e) or a positive number other than 1."""
    if base != -1.0 and (base <= 0 or base == 1.0):
        raise ValueError(f"attribute base={base}: expected -1 (e) or a positive number other than 1")


def _affine(x: np.ndarray, scale: float, shift: float) -> np.ndarray:
    """The affine argument scale * x + shift, skipped when it is the identity (so that a complex -0 imaginary part
    keeps its sign)."""
    return x if (scale, shift) == (1.0, 0.0) else scale * x + shift


def exp(x: np.ndarray, base: float, scale: float, shift: float) -> np.ndarray:
    """Exp: base ** (scale * x + shift), base -1 meaning e (prototype attributes base, scale, shift)."""
    _check_base(base)
    t = _affine(x, scale, shift)
    if t.dtype.kind == "c":
        return complex_math.exp(t if base == -1.0 else t * np.log(base))
    return np.exp(t) if base == -1.0 else np.power(base, t)


def log(x: np.ndarray, base: float, scale: float, shift: float) -> np.ndarray:
    """Log: log_base(scale * x + shift), base -1 meaning e; log(0) = -inf, log(<0) = NaN."""
    _check_base(base)
    t = _affine(x, scale, shift)
    y = complex_math.log(t) if t.dtype.kind == "c" else np.log(t)
    return y if base == -1.0 else y / np.log(base)


def sqrt(x: np.ndarray) -> np.ndarray:
    """Sqrt: square root; NaN for negative real input, sqrt(-0) = -0; the principal root for complex."""
    return complex_math.sqrt(x) if x.dtype.kind == "c" else np.sqrt(x)


def rsqrt(x: np.ndarray) -> np.ndarray:
    """Rsqrt: 1 / sqrt(x), computed in float64 and rounded once (rsqrt(0) = inf); principal root for complex."""
    return complex_math.rsqrt(x) if x.dtype.kind == "c" else 1.0 / np.sqrt(x)


def square(x: np.ndarray) -> np.ndarray:
    """Square: x * x (integers wrap; complex_math.square for complex)."""
    return complex_math.square(x) if x.dtype.kind == "c" else x * x


def reciprocal(x: np.ndarray, out: np.dtype) -> np.ndarray:
    """Reciprocal: 1 / x; integer outputs follow `int_div` (1/0 saturates to max)."""
    if is_int_dtype(out):
        return int_div(np.ones_like(x), x, out)
    return complex_math.reciprocal(x) if x.dtype.kind == "c" else 1.0 / x


def add_n(xs: list[np.ndarray]) -> np.ndarray:
    """AddN: the sum of all inputs, accumulated in the wide type and rounded once."""
    total = xs[0]
    for x in xs[1:]:
        total = total + x
    return total


def _broadcast(shapes: list[tuple[int, ...] | None], values: list[Any], attrs: dict[str, Any]) -> list[tuple[int, ...]]:
    """Output shape of a broadcasting op: the broadcast of all input shapes."""
    return [tuple(np.broadcast_shapes(*[s for s in shapes if s is not None]))]


def _binary(fn: Any, with_out: bool = False) -> Any:
    """Wrap a two-input function into a RefOp compute function."""
    def compute(xs: list[np.ndarray], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
        a, b = widen(xs[0]), widen(xs[1])
        result = fn(a, b, out[0]) if with_out else fn(a, b)
        return [round_to(result, out[0])]
    return compute


def _unary(fn: Any, attr_names: tuple[str, ...] = (), with_out: bool = False) -> Any:
    """Wrap a one-input function (taking the named attributes as extra arguments) into a compute function."""
    def compute(xs: list[np.ndarray], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
        x = widen(xs[0])
        if attr_names and not (is_float_dtype(x.dtype) or x.dtype.kind == "c"):
            x = x.astype(np.float64)
        extra = [float(attrs[n]) for n in attr_names]
        result = fn(x, out[0]) if with_out else fn(x, *extra)
        return [round_to(result, out[0])]
    return compute


def _add_n(xs: list[np.ndarray], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    """AddN compute: checks attribute N against the number of inputs."""
    if int(attrs["N"]) != len(xs):
        raise ValueError(f"attribute N={attrs['N']} but {len(xs)} inputs given")
    return [round_to(add_n([widen(x) for x in xs]), out[0])]


def feature_dim(rank: int, data_format: str) -> int:
    """The feature (channel) dim of BiasAdd and BiasAddGrad: 1 for a channel-first data_format (NCHW, NCDHW), the
    last dim otherwise (NHWC, NDHWC)."""
    if data_format not in ("NHWC", "NCHW", "NDHWC", "NCDHW"):
        raise ValueError(f"attribute data_format={data_format!r}: expected NHWC, NCHW, NDHWC or NCDHW")
    if rank < 2:
        raise InputError(0, lambda name: f"input {name!r} must have at least 2 dims, got {rank}")
    return 1 if data_format.startswith("NC") else rank - 1


def _bias_add(xs: list[np.ndarray], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    """BiasAdd: x + bias, bias laid along x's feature dim."""
    x, bias = widen(xs[0]), widen(xs[1])
    dim = feature_dim(x.ndim, attrs["data_format"])
    if bias.shape != (x.shape[dim],):
        raise InputError((1, 0), lambda b, n: f"input {b!r} of shape {list(bias.shape)} must be 1-D as long as dim "
                                              f"{dim} of {n!r} {list(x.shape)}")
    return [round_to(x + bias.reshape([-1 if d == dim else 1 for d in range(x.ndim)]), out[0])]


def _bias_add_grad(xs: list[np.ndarray], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    """BiasAddGrad: x summed over every dim but the feature dim (exact for integers, float64 for floats)."""
    x = widen(xs[0])
    dim = feature_dim(x.ndim, attrs["data_format"])
    return [round_to(np.sum(x, axis=tuple(d for d in range(x.ndim) if d != dim)), out[0])]


def _bias_add_grad_shape(shapes: list[tuple[int, ...] | None], values: list[Any], attrs: dict[str, Any]) -> list[tuple[int, ...]]:
    """BiasAddGrad's output shape: [x's feature dim]."""
    shape = tuple(shapes[0])
    return [(shape[feature_dim(len(shape), attrs["data_format"])],)]


def caffe_operand(x_shape: tuple[int, ...], operand: np.ndarray, attrs: dict[str, Any], from_blob: str,
                  index: int) -> np.ndarray:
    """Caffe's Bias/Scale operand reshaped to broadcast along x: its dims lie on x's from axis on (num_axes of them
    from blob, -1 all the rest, 0 one value; as many as it has otherwise) and must equal x's there."""
    rank, axis, num_axes = len(x_shape), int(attrs["axis"]), int(attrs["num_axes"])
    if not -rank <= axis < rank:
        raise ValueError(f"attribute axis={axis}: expected a dim of x, in [{-rank}, {rank - 1}]")
    start = axis % rank
    if attrs[from_blob] and num_axes == 0:
        if operand.size != 1:
            raise InputError(index, lambda name: f"input {name!r} must hold one value (num_axes 0)")
        return operand.reshape(())
    count = (rank - start if num_axes == -1 else num_axes) if attrs[from_blob] else operand.ndim
    if num_axes < -1 or operand.shape != tuple(x_shape[start:start + count]) or start + count > rank:
        raise InputError(index, lambda name: f"input {name!r} of shape {list(operand.shape)} must be x's dims "
                                             f"{list(x_shape[start:start + count])} from axis {axis} "
                                             f"(num_axes {num_axes})")
    return operand.reshape(operand.shape + (1,) * (rank - start - count))


def _bias(xs: list[np.ndarray], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    """Bias: x + bias laid along x (caffe_operand)."""
    x = widen(xs[0])
    return [round_to(x + caffe_operand(x.shape, widen(xs[1]), attrs, "bias_from_blob", 1), out[0])]


def _scale(xs: list[np.ndarray], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    """Scale: x * scale, plus bias when given, both laid along x (caffe_operand)."""
    x = widen(xs[0])
    y = x * caffe_operand(x.shape, widen(xs[1]), attrs, "scale_from_blob", 1)
    if len(xs) > 2 and xs[2] is not None:
        y = y + caffe_operand(x.shape, widen(xs[2]), attrs, "scale_from_blob", 2)
    return [round_to(y, out[0])]


def _first(shapes: list[tuple[int, ...] | None], values: list[Any], attrs: dict[str, Any]) -> list[tuple[int, ...]]:
    """Output shape: x's."""
    return [tuple(shapes[0])]


OPS: tuple[RefOp, ...] = (
    define("Add", _binary(add), _broadcast),
    define("Sub", _binary(sub), _broadcast),
    define("Mul", _binary(mul), _broadcast),
    define("RealDiv", _binary(real_div, with_out=True), _broadcast),
    define("Maximum", _binary(maximum), _broadcast),
    define("Minimum", _binary(minimum), _broadcast),
    define("Pow", _binary(power, with_out=True), _broadcast),
    define("Equal", _binary(equal), _broadcast),
    define("Less", _binary(less), _broadcast),
    define("Greater", _binary(greater), _broadcast),
    define("LogicalAnd", _binary(logical_and), _broadcast),
    define("Abs", _unary(absolute), _broadcast),
    define("Neg", _unary(negative), _broadcast),
    define("Exp", _unary(exp, ("base", "scale", "shift")), _broadcast),
    define("Log", _unary(log, ("base", "scale", "shift")), _broadcast),
    define("Sqrt", _unary(sqrt), _broadcast),
    define("Rsqrt", _unary(rsqrt), _broadcast),
    define("Square", _unary(square), _broadcast),
    define("Reciprocal", _unary(reciprocal, with_out=True), _broadcast),
    define("AddN", _add_n, _broadcast),
    define("AccumulateNV2", _add_n, _broadcast),
    define("BiasAdd", _bias_add, _first),
    define("BiasAddGrad", _bias_add_grad, _bias_add_grad_shape),
    define("Bias", _bias, _first),
    define("Scale", _scale, _first),
)
