"""acl.blas: gemm_ex, hgemm, s8gemm, gemv_ex, hgemv, s8gemv and their handle forms, as the GEMM op on the single-op path
(docs/contract/handles-blas-cast.md)."""

from __future__ import annotations

from aclcts.core.constants import DataType, Format, TransType
from aclcts.core.opmodel import Attr
from aclcts.sim import core
from aclcts.sim.api_op import _execute, make_handle
from aclcts.sim.api_tensor import DataBuffer, TensorDesc
from aclcts.sim.core import INVALID_PARAM, export, fail

_N, _T, _NZ = int(TransType.ACL_TRANS_N), int(TransType.ACL_TRANS_T), int(TransType.ACL_TRANS_NZ)
_ND, _FRACTAL_NZ, _FRACTAL_Z = int(Format.ACL_FORMAT_ND), int(Format.ACL_FORMAT_FRACTAL_NZ), int(Format.ACL_FORMAT_FRACTAL_Z)
_FP16, _FP32, _INT8, _INT32 = (int(DataType.ACL_FLOAT16), int(DataType.ACL_FLOAT), int(DataType.ACL_INT8),
                               int(DataType.ACL_INT32))


def _ceil(value: int, unit: int) -> int:
    return -(-value // unit)


def _matrix(rows: int, cols: int, trans: int, dtype: int, role: str) -> tuple[list[int], int]:
    """Dims and format of one GEMM operand as the runtime describes it (ND, or the documented NZ/Z layouts)."""
    if trans == _NZ:
        if dtype == _INT8:
            if role == "b":
                return [_ceil(rows, 32), _ceil(cols, 16), 16, 32], _FRACTAL_Z
            return [_ceil(cols, 32), _ceil(rows, 16), 16, 32], _FRACTAL_NZ
        return [_ceil(cols, 16), _ceil(rows, 16), 16, 16], _FRACTAL_NZ
    if trans == _T:
        return [cols, rows], _ND
    return [rows, cols], _ND


def _check(api: str, trans_a: int, trans_b: int, trans_c: int, m: int, n: int, k: int, lds: tuple[int, ...],
           compute_type: int) -> int:
    if m <= 0 or n <= 0 or k <= 0:
        return fail(INVALID_PARAM, f"{api}: m={m}, n={n}, k={k} must all be > 0")
    if trans_a not in (_N, _T, _NZ) or trans_b not in (_N, _T, _NZ):
        return fail(INVALID_PARAM, f"{api}: trans_a={trans_a}, trans_b={trans_b} must be N, T or NZ")
    if trans_c not in (_N, _NZ):
        return fail(INVALID_PARAM, f"{api}: trans_c={trans_c} must be N or NZ")
    if any(ld != -1 for ld in lds):
        return fail(INVALID_PARAM, f"{api}: lda, ldb and ldc must be -1 (got {', '.join(map(str, lds))})")
    if compute_type != 0:
        return fail(INVALID_PARAM, f"{api}: compute type {compute_type} must be ACL_COMPUTE_HIGH_PRECISION (0)")
    return 0


def _gemm_descs(trans_a: int, trans_b: int, trans_c: int, m: int, n: int, k: int, dta: int, dtb: int,
                dtc: int) -> tuple[list[TensorDesc], list[TensorDesc], list[Attr]]:
    a_dims, a_format = _matrix(m, k, trans_a, dta, "a")
    b_dims, b_format = _matrix(k, n, trans_b, dtb, "b")
    c_dims, c_format = _matrix(m, n, trans_c, dtc, "c")
    inputs = [TensorDesc(dta, a_format, a_dims), TensorDesc(dtb, b_format, b_dims), TensorDesc(dtc, c_format, c_dims),
              TensorDesc(dtc, _ND, []), TensorDesc(dtc, _ND, [])]
    outputs = [TensorDesc(dtc, c_format, list(c_dims))]
    attrs = [Attr("transpose_a", "bool", trans_a == _T), Attr("transpose_b", "bool", trans_b == _T)]
    return inputs, outputs, attrs


def _temporary(api: str, objects: list, kind: str) -> list[int]:
    st = core.STATE
    return [st.register(kind, obj, api) for obj in objects]


def _run_gemm(api: str, trans_a: int, trans_b: int, trans_c: int, m: int, n: int, k: int, alpha: int, a: int,
              lda: int, dta: int, b: int, ldb: int, dtb: int, beta: int, c: int, ldc: int, dtc: int,
              compute_type: int, stream: int) -> int:
    if 0 in (alpha, beta, a, b, c):
        return fail(INVALID_PARAM, f"{api}: alpha, beta, A, B and C must all be non-null device pointers")
    code = _check(api, trans_a, trans_b, trans_c, m, n, k, (lda, ldb, ldc), compute_type)
    if code:
        return code
    inputs, outputs, attrs = _gemm_descs(trans_a, trans_b, trans_c, m, n, k, dta, dtb, dtc)
    buffers = [DataBuffer(a, inputs[0].size()), DataBuffer(b, inputs[1].size()), DataBuffer(c, inputs[2].size()),
               DataBuffer(alpha, 4), DataBuffer(beta, 4)]
    out_buffers = [DataBuffer(c, outputs[0].size())]
    st = core.STATE
    handles = _temporary(api, inputs + outputs, "desc") + _temporary(api, buffers + out_buffers, "buffer")
    try:
        return _execute(api, "GEMM", handles[:5], handles[6:11], handles[5:6], handles[11:12], attrs, stream, False)
    finally:
        for handle in handles:
            st.release(handle, api)


@export("blas", "gemm_ex", "iiiiiikkiikiikkiiik")
def gemm_ex(trans_a: int, trans_b: int, trans_c: int, m: int, n: int, k: int, alpha: int, a: int, lda: int,
            dta: int, b: int, ldb: int, dtb: int, beta: int, c: int, ldc: int, dtc: int, compute_type: int,
            stream: int) -> int:
    """aclblasGemmEx: C = alpha·op(A)·op(B) + beta·C through the GEMM op model."""
    return _run_gemm("acl.blas.gemm_ex", trans_a, trans_b, trans_c, m, n, k, alpha, a, lda, dta, b, ldb, dtb, beta,
                     c, ldc, dtc, compute_type, stream)


def _gemm_handle(api: str, trans_a: int, trans_b: int, trans_c: int, m: int, n: int, k: int, dta: int, dtb: int,
                 dtc: int, compute_type: int) -> tuple[int, int]:
    code = _check(api, trans_a, trans_b, trans_c, m, n, k, (), compute_type)
    if code:
        return 0, code
    inputs, outputs, attrs = _gemm_descs(trans_a, trans_b, trans_c, m, n, k, dta, dtb, dtc)
    st = core.STATE
    handles = _temporary(api, inputs + outputs, "desc")
    try:
        return make_handle(api, "GEMM", handles[:5], handles[5:], attrs)
    finally:
        for handle in handles:
            st.release(handle, api)


@export("blas", "create_handle_for_gemm_ex", "iiiiiiiiii")
def create_handle_for_gemm_ex(trans_a: int, trans_b: int, trans_c: int, m: int, n: int, k: int, dta: int, dtb: int,
                              dtc: int, compute_type: int) -> tuple[int, int]:
    """aclblasCreateHandleForGemmEx: run it with execute_with_handle(handle, [A, B, C, alpha, beta], [C], stream)."""
    return _gemm_handle("acl.blas.create_handle_for_gemm_ex", trans_a, trans_b, trans_c, m, n, k, dta, dtb, dtc,
                        compute_type)


@export("blas", "hgemm", "iiiiiikkikikkiik")
def hgemm(trans_a: int, trans_b: int, trans_c: int, m: int, n: int, k: int, alpha: int, a: int, lda: int, b: int,
          ldb: int, beta: int, c: int, ldc: int, compute_type: int, stream: int) -> int:
    """aclblasHgemm: gemm_ex with fp16 A, B and C."""
    return _run_gemm("acl.blas.hgemm", trans_a, trans_b, trans_c, m, n, k, alpha, a, lda, _FP16, b, ldb, _FP16, beta,
                     c, ldc, _FP16, compute_type, stream)


@export("blas", "create_handle_for_hgemm", "iiiiiii")
def create_handle_for_hgemm(trans_a: int, trans_b: int, trans_c: int, m: int, n: int, k: int,
                            compute_type: int) -> tuple[int, int]:
    """aclblasCreateHandleForHgemm."""
    return _gemm_handle("acl.blas.create_handle_for_hgemm", trans_a, trans_b, trans_c, m, n, k, _FP16, _FP16, _FP16,
                        compute_type)


@export("blas", "s8gemm", "iiiiiikkikikkiik")
def s8gemm(trans_a: int, trans_b: int, trans_c: int, m: int, n: int, k: int, alpha: int, a: int, lda: int, b: int,
           ldb: int, beta: int, c: int, ldc: int, compute_type: int, stream: int) -> int:
    """aclblasS8gemm: gemm_ex with int8 A and B and int32 C."""
    return _run_gemm("acl.blas.s8gemm", trans_a, trans_b, trans_c, m, n, k, alpha, a, lda, _INT8, b, ldb, _INT8, beta,
                     c, ldc, _INT32, compute_type, stream)


@export("blas", "create_handle_for_s8gemm", "iiiiiii")
def create_handle_for_s8gemm(trans_a: int, trans_b: int, trans_c: int, m: int, n: int, k: int,
                             compute_type: int) -> tuple[int, int]:
    """aclblasCreateHandleForS8gemm."""
    return _gemm_handle("acl.blas.create_handle_for_s8gemm", trans_a, trans_b, trans_c, m, n, k, _INT8, _INT8, _INT32,
                        compute_type)


@export("blas", "gemv_ex", "iiikkiikiikkiiik")
def gemv_ex(trans_a: int, m: int, n: int, alpha: int, a: int, lda: int, dta: int, x: int, incx: int, dtx: int,
            beta: int, y: int, incy: int, dty: int, compute_type: int, stream: int) -> int:
    """aclblasGemvEx = gemm_ex(trans_a, N, N, m, 1, n, ...); the binding passes incy in the incx slot."""
    return _run_gemm("acl.blas.gemv_ex", trans_a, _N, _N, m, 1, n, alpha, a, lda, dta, x, incy, dtx, beta, y, incy,
                     dty, compute_type, stream)


@export("blas", "create_handle_for_gemv_ex", "iiiiiii")
def create_handle_for_gemv_ex(trans_a: int, m: int, n: int, dta: int, dtx: int, dty: int,
                              compute_type: int) -> tuple[int, int]:
    """aclblasCreateHandleForGemvEx."""
    return _gemm_handle("acl.blas.create_handle_for_gemv_ex", trans_a, _N, _N, m, 1, n, dta, dtx, dty, compute_type)


@export("blas", "hgemv", "iiikkikikkiik")
def hgemv(trans_a: int, m: int, n: int, alpha: int, a: int, lda: int, x: int, incx: int, beta: int, y: int, incy: int,
          compute_type: int, stream: int) -> int:
    """aclblasHgemv: gemv_ex with fp16 A, x and y (this wrapper passes incx through)."""
    return _run_gemm("acl.blas.hgemv", trans_a, _N, _N, m, 1, n, alpha, a, lda, _FP16, x, incx, _FP16, beta, y, incy,
                     _FP16, compute_type, stream)


@export("blas", "create_handle_for_hgemv", "iiii")
def create_handle_for_hgemv(trans_a: int, m: int, n: int, compute_type: int) -> tuple[int, int]:
    """aclblasCreateHandleForHgemv."""
    return _gemm_handle("acl.blas.create_handle_for_hgemv", trans_a, _N, _N, m, 1, n, _FP16, _FP16, _FP16,
                        compute_type)


@export("blas", "s8gemv", "iiikkikikkiik")
def s8gemv(trans_a: int, m: int, n: int, alpha: int, a: int, lda: int, x: int, incx: int, beta: int, y: int, incy: int,
           compute_type: int, stream: int) -> int:
    """aclblasS8gemv: gemv_ex with int8 A and x, int32 y, alpha and beta."""
    return _run_gemm("acl.blas.s8gemv", trans_a, _N, _N, m, 1, n, alpha, a, lda, _INT8, x, incx, _INT8, beta, y, incy,
                     _INT32, compute_type, stream)


@export("blas", "create_handle_for_s8gemv", "iiii")
def create_handle_for_s8gemv(trans_a: int, m: int, n: int, compute_type: int) -> tuple[int, int]:
    """aclblasCreateHandleForS8gemv."""
    return _gemm_handle("acl.blas.create_handle_for_s8gemv", trans_a, _N, _N, m, 1, n, _INT8, _INT8, _INT32,
                        compute_type)
