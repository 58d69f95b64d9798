"""MatMul / MatMulV2, BatchMatMul / BatchMatMulV2 (with their optional bias) and GEMM references, exact in
float64/int64. The V2 quantization offsets (an offset input, the offset_x attribute) are not modelled: a case giving
them is refused."""

from __future__ import annotations

from typing import Any

import numpy as np

from aclcts.reference.base import InputError, RefOp, define
from aclcts.reference.numeric import round_to, widen


def _check_2d(index: int, shape: tuple[int, ...]) -> None:
    """Raise unless input index's shape is 2-D."""
    if len(shape) != 2:
        raise InputError(index, lambda name: f"input {name!r} must be 2-D, got shape {shape}")


def _mm_shape(s1: tuple[int, ...], s2: tuple[int, ...], t1: bool, t2: bool) -> tuple[int, int]:
    """Return (M, N) of op(input 0) @ op(input 1) after checking that the inner dimensions agree."""
    m, k1 = (s1[-1], s1[-2]) if t1 else (s1[-2], s1[-1])
    k2, n = (s2[-1], s2[-2]) if t2 else (s2[-2], s2[-1])
    if k1 != k2:
        raise InputError((0, 1), lambda n1, n2: f"inner dimensions differ: {n1} {s1} (transposed={t1}) and {n2} {s2} "
                                                f"(transposed={t2})")
    return m, n


def matmul(x1: np.ndarray, x2: np.ndarray, bias: np.ndarray | None, transpose_x1: bool,
           transpose_x2: bool) -> np.ndarray:
    """MatMul: op(x1) @ op(x2) (+ bias broadcast over rows), op = transpose when its flag is set."""
    a = x1.T if transpose_x1 else x1
    b = x2.T if transpose_x2 else x2
    y = a @ b
    return y if bias is None else y + bias


def batch_matmul(x1: np.ndarray, x2: np.ndarray, adj_x1: bool, adj_x2: bool) -> np.ndarray:
    """BatchMatMul: batched op(x1) @ op(x2) over the last two axes; batch axes broadcast."""
    a = np.swapaxes(x1, -1, -2) if adj_x1 else x1
    b = np.swapaxes(x2, -1, -2) if adj_x2 else x2
    return np.matmul(a, b)


def gemm(a: np.ndarray, b: np.ndarray, c: np.ndarray, alpha: np.ndarray, beta: np.ndarray, transpose_a: bool,
         transpose_b: bool) -> np.ndarray:
    """GEMM: alpha * (op(a) @ op(b)) + beta * c with scalar alpha and beta."""
    for index, v in ((3, alpha), (4, beta)):
        if v.size != 1:
            raise InputError(index, lambda name, v=v: f"input {name!r} must hold one value, got shape {v.shape}")
    return alpha.reshape(()) * (matmul(a, b, None, transpose_a, transpose_b)) + beta.reshape(()) * c


def _matmul(xs: list[np.ndarray | None], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    """MatMul compute."""
    _matmul_shape([x.shape if x is not None else None for x in xs], [], attrs)
    bias = None if xs[2] is None else widen(xs[2])
    y = matmul(widen(xs[0]), widen(xs[1]), bias, bool(attrs["transpose_x1"]), bool(attrs["transpose_x2"]))
    return [round_to(y, out[0])]


def _matmul_shape(shapes: list[tuple[int, ...] | None], values: list[Any], attrs: dict[str, Any]) -> list[tuple[int, ...]]:
    """MatMul output shape [M, N]."""
    s1, s2 = shapes[0], shapes[1]
    _check_2d(0, s1)
    _check_2d(1, s2)
    m, n = _mm_shape(s1, s2, bool(attrs["transpose_x1"]), bool(attrs["transpose_x2"]))
    if shapes[2] is not None:
        np.broadcast_shapes((m, n), shapes[2])
    return [(m, n)]


def _no_offsets(xs: list[np.ndarray | None], attrs: dict[str, Any]) -> None:
    """Refuse the quantization offsets of MatMulV2 / BatchMatMulV2, which the reference does not model."""
    if xs[3] is not None or int(attrs["offset_x"]) != 0:
        raise InputError(3, lambda name: f"{name} / offset_x (quantization offsets) are not modelled by the reference")


def _matmul_v2(xs: list[np.ndarray | None], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    """MatMulV2 compute: MatMul without quantization offsets."""
    _no_offsets(xs, attrs)
    return _matmul(xs[:3], attrs, out)


def _matmul_v2_shape(shapes: list[tuple[int, ...] | None], values: list[Any],
                     attrs: dict[str, Any]) -> list[tuple[int, ...]]:
    """MatMulV2 output shape: MatMul's."""
    return _matmul_shape(shapes[:3], values, attrs)


def _batch_matmul_v2(xs: list[np.ndarray | None], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    """BatchMatMulV2 compute: BatchMatMul (with its optional bias) without quantization offsets."""
    _no_offsets(xs, attrs)
    return _batch_matmul(xs[:3], attrs, out)


def _batch_matmul_v2_shape(shapes: list[tuple[int, ...] | None], values: list[Any],
                           attrs: dict[str, Any]) -> list[tuple[int, ...]]:
    """BatchMatMulV2 output shape: BatchMatMul's."""
    return _batch_matmul_shape(shapes[:3], values, attrs)


def _batch_matmul(xs: list[np.ndarray | None], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    """BatchMatMul compute: batched product plus an optional bias broadcast over the result."""
    _batch_matmul_shape([None if x is None else x.shape for x in xs], [], attrs)
    y = batch_matmul(widen(xs[0]), widen(xs[1]), bool(attrs["adj_x1"]), bool(attrs["adj_x2"]))
    return [round_to(y if xs[2] is None else y + widen(xs[2]), out[0])]


def _batch_matmul_shape(shapes: list[tuple[int, ...] | None], values: list[Any],
                        attrs: dict[str, Any]) -> list[tuple[int, ...]]:
    """BatchMatMul output shape: broadcast batch axes + [M, N], which a bias must broadcast to."""
    s1, s2 = shapes[0], shapes[1]
    for index, s in enumerate((s1, s2)):
        if len(s) < 2:
            raise InputError(index, lambda name, s=s: f"input {name!r} must have rank >= 2, got shape {s}")
    m, n = _mm_shape(s1, s2, bool(attrs["adj_x1"]), bool(attrs["adj_x2"]))
    shape = tuple(np.broadcast_shapes(s1[:-2], s2[:-2])) + (m, n)
    if shapes[2] is not None and not _broadcasts_to(shapes[2], shape):
        raise ValueError(f"bias {tuple(shapes[2])} does not broadcast to the result {shape}")
    return [shape]


def _broadcasts_to(shape: tuple[int, ...], target: tuple[int, ...]) -> bool:
    """Whether shape broadcasts to target without changing it."""
    try:
        return tuple(np.broadcast_shapes(target, shape)) == tuple(target)
    except ValueError:
        return False


def _gemm(xs: list[np.ndarray | None], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    """GEMM compute."""
    _gemm_shape([x.shape for x in xs], [], attrs)
    a, b, c, alpha, beta = (widen(x) for x in xs)
    return [round_to(gemm(a, b, c, alpha, beta, bool(attrs["transpose_a"]), bool(attrs["transpose_b"])), out[0])]


def _gemm_shape(shapes: list[tuple[int, ...] | None], values: list[Any], attrs: dict[str, Any]) -> list[tuple[int, ...]]:
    """GEMM output shape [M, N]; c must already be [M, N]."""
    _check_2d(0, shapes[0])
    _check_2d(1, shapes[1])
    m, n = _mm_shape(shapes[0], shapes[1], bool(attrs["transpose_a"]), bool(attrs["transpose_b"]))
    if tuple(shapes[2]) != (m, n):
        raise InputError(2, lambda name: f"input {name!r} must have shape {(m, n)}, got {shapes[2]}")
    return [(m, n)]


OPS: tuple[RefOp, ...] = (
    define("MatMul", _matmul, _matmul_shape),
    define("BatchMatMul", _batch_matmul, _batch_matmul_shape),
    define("MatMulV2", _matmul_v2, _matmul_v2_shape),
    define("BatchMatMulV2", _batch_matmul_v2, _batch_matmul_v2_shape),
    define("GEMM", _gemm, _gemm_shape),
)
