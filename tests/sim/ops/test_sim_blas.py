"""acl.blas: gemm_ex, hgemm, s8gemm, gemv_ex and their handle forms on the GEMM op (pyacl-api.md §7, §13)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from opkit import FLOAT, FLOAT16, INT8, INT32, Device, attr, op, tensor

from aclcts.core.constants import ErrorCode
from aclcts.core.dtypes import JSON_TYPE_NAMES, numpy_dtype

OK = 0
INVALID_PARAM = int(ErrorCode.ACL_ERROR_INVALID_PARAM)
OP_NOT_FOUND = int(ErrorCode.ACL_ERROR_OP_NOT_FOUND)
N_, T_, NZ_, NZ_T_ = 0, 1, 2, 3
M, N, K = 4, 6, 5


def gemm_model(m: int, n: int, k: int, trans_a: int = N_, trans_b: int = N_, dta: int = FLOAT16,
               dtb: int = FLOAT16, dtc: int = FLOAT16) -> dict:
    """The GEMM op description the BLAS wrappers execute (inputs A, B, C, alpha, beta; output C)."""
    a_shape = [k, m] if trans_a == T_ else [m, k]
    b_shape = [n, k] if trans_b == T_ else [k, n]
    ta, tb, tc = JSON_TYPE_NAMES[dta], JSON_TYPE_NAMES[dtb], JSON_TYPE_NAMES[dtc]
    return op("GEMM", [tensor(ta, a_shape), tensor(tb, b_shape), tensor(tc, [m, n]), tensor(tc, []), tensor(tc, [])],
              [tensor(tc, [m, n])],
              [attr("transpose_a", "bool", trans_a == T_), attr("transpose_b", "bool", trans_b == T_)])


@dataclass
class Gemm:
    """Device operands of one GEMM call and the expected result."""

    alpha: int
    a: int
    b: int
    beta: int
    c: int
    expected: np.ndarray
    c_dtype: np.dtype


def _operands(dev: Device, m: int, n: int, k: int, trans_a: int, trans_b: int, dta: int, dtb: int, dtc: int,
              alpha: float, beta: float, seed: int = 0) -> Gemm:
    """Small integer-valued operands (exact in every dtype) on the device, with the golden C."""
    rng = np.random.default_rng(seed)
    a = rng.integers(-3, 4, size=(m, k))
    b = rng.integers(-3, 4, size=(k, n))
    c = rng.integers(-5, 6, size=(m, n))
    stored_a = a.T if trans_a == T_ else a
    stored_b = b.T if trans_b == T_ else b
    c_dtype = numpy_dtype(dtc)
    expected = (alpha * (a.astype(np.float64) @ b) + beta * c).astype(c_dtype)
    return Gemm(
        alpha=dev.put(np.array(alpha, c_dtype)),
        a=dev.put(stored_a.astype(numpy_dtype(dta))),
        b=dev.put(stored_b.astype(numpy_dtype(dtb))),
        beta=dev.put(np.array(beta, c_dtype)),
        c=dev.put(c.astype(c_dtype)),
        expected=expected,
        c_dtype=c_dtype,
    )


def _gemm_ex(dev: Device, g: Gemm, trans_a: int = N_, trans_b: int = N_, trans_c: int = N_, m: int = M, n: int = N,
             k: int = K, dta: int = FLOAT16, dtb: int = FLOAT16, dtc: int = FLOAT16, lda: int = -1, ldb: int = -1,
             ldc: int = -1, compute_type: int = 0, **null: bool) -> int:
    pointers = {name: 0 if null.get(name) else getattr(g, name) for name in ("alpha", "a", "b", "beta", "c")}
    return dev.acl.blas.gemm_ex(trans_a, trans_b, trans_c, m, n, k, pointers["alpha"], pointers["a"], lda, dta,
                                pointers["b"], ldb, dtb, pointers["beta"], pointers["c"], ldc, dtc, compute_type,
                                dev.stream)


@pytest.fixture
def operands(dev: Device) -> Gemm:
    """fp16 operands for M x N x K without transposes, alpha 2 and beta 1 (the official sample's values)."""
    return _operands(dev, M, N, K, N_, N_, FLOAT16, FLOAT16, FLOAT16, 2.0, 1.0)


# ---- argument checks: all before the model lookup ----------------------------------------------


@pytest.mark.parametrize("name", ["alpha", "a", "b", "beta", "c"])
def test_gemm_ex_with_a_null_pointer_is_invalid_param(dev: Device, operands: Gemm, name: str) -> None:
    assert _gemm_ex(dev, operands, **{name: True}) == INVALID_PARAM


@pytest.mark.parametrize("m,n,k", [(0, N, K), (M, 0, K), (M, N, 0), (-1, N, K), (M, -4, K), (M, N, -16)])
def test_gemm_ex_with_m_n_or_k_not_positive_is_invalid_param(dev: Device, operands: Gemm, m: int, n: int,
                                                             k: int) -> None:
    assert _gemm_ex(dev, operands, m=m, n=n, k=k) == INVALID_PARAM


@pytest.mark.parametrize("which", ["trans_a", "trans_b"])
@pytest.mark.parametrize("value", [NZ_T_, -1, 4, 100])
def test_gemm_ex_with_trans_a_or_b_outside_n_t_nz_is_invalid_param(dev: Device, operands: Gemm, which: str,
                                                                   value: int) -> None:
    assert _gemm_ex(dev, operands, **{which: value}) == INVALID_PARAM


@pytest.mark.parametrize("value", [T_, NZ_T_, -1, 7])
def test_gemm_ex_with_trans_c_not_n_or_nz_is_invalid_param(dev: Device, operands: Gemm, value: int) -> None:
    assert _gemm_ex(dev, operands, trans_c=value) == INVALID_PARAM


@pytest.mark.parametrize("which", ["lda", "ldb", "ldc"])
@pytest.mark.parametrize("value", [0, 1, K, 16, -2])
def test_gemm_ex_with_a_leading_dimension_other_than_minus_one_is_invalid_param(
        dev: Device, operands: Gemm, which: str, value: int) -> None:
    assert _gemm_ex(dev, operands, **{which: value}) == INVALID_PARAM


@pytest.mark.parametrize("compute_type", [1, 2, -1])
def test_gemm_ex_with_a_compute_type_other_than_high_precision_is_invalid_param(
        dev: Device, operands: Gemm, compute_type: int) -> None:
    assert _gemm_ex(dev, operands, compute_type=compute_type) == INVALID_PARAM


@pytest.mark.parametrize("trans", [(N_, N_, N_), (T_, T_, N_), (NZ_, N_, N_), (N_, NZ_, N_), (N_, N_, NZ_)],
                         ids=["NNN", "TTN", "NZ-a", "NZ-b", "NZ-c"])
def test_gemm_ex_with_valid_arguments_and_no_gemm_model_returns_op_not_found(
        dev: Device, operands: Gemm, trans: tuple[int, int, int]) -> None:
    assert _gemm_ex(dev, operands, trans_a=trans[0], trans_b=trans[1], trans_c=trans[2]) == OP_NOT_FOUND


def test_gemm_ex_with_a_gemm_model_of_other_shapes_returns_op_not_found(
        acl: Any, dev: Device, operands: Gemm, models: Callable[..., Path]) -> None:
    assert acl.op.set_model_dir(str(models([gemm_model(16, 16, 16)]))) == OK
    assert _gemm_ex(dev, operands) == OP_NOT_FOUND


# ---- results -----------------------------------------------------------------------------------


@pytest.mark.parametrize("trans_a", [N_, T_], ids=["A", "At"])
@pytest.mark.parametrize("trans_b", [N_, T_], ids=["B", "Bt"])
@pytest.mark.parametrize("alpha,beta", [(2.0, 1.0), (1.0, 0.0), (-0.5, 3.0)])
def test_gemm_ex_computes_alpha_op_a_op_b_plus_beta_c(acl: Any, dev: Device, models: Callable[..., Path],
                                                     trans_a: int, trans_b: int, alpha: float, beta: float) -> None:
    assert acl.op.set_model_dir(str(models([gemm_model(M, N, K, trans_a, trans_b)]))) == OK
    g = _operands(dev, M, N, K, trans_a, trans_b, FLOAT16, FLOAT16, FLOAT16, alpha, beta)
    assert _gemm_ex(dev, g, trans_a=trans_a, trans_b=trans_b) == OK
    dev.sync()
    np.testing.assert_array_equal(dev.get(g.c, np.float16, [M, N]), g.expected)


def test_gemm_ex_is_asynchronous(acl: Any, dev: Device, models: Callable[..., Path], operands: Gemm) -> None:
    assert acl.op.set_model_dir(str(models([gemm_model(M, N, K)]))) == OK
    before = dev.get(operands.c, np.float16, [M, N])
    assert _gemm_ex(dev, operands) == OK
    np.testing.assert_array_equal(dev.get(operands.c, np.float16, [M, N]), before)
    dev.sync()
    np.testing.assert_array_equal(dev.get(operands.c, np.float16, [M, N]), operands.expected)


@pytest.mark.parametrize("dta,dtb,dtc", [(FLOAT16, FLOAT16, FLOAT16), (FLOAT16, FLOAT16, FLOAT), (INT8, INT8, FLOAT),
                                         (INT8, INT8, INT32)], ids=["fp16-fp16-fp16", "fp16-fp16-fp32",
                                                                    "int8-int8-fp32", "int8-int8-int32"])
def test_gemm_ex_supports_the_documented_dtype_triples(acl: Any, dev: Device, models: Callable[..., Path], dta: int,
                                                       dtb: int, dtc: int) -> None:
    assert acl.op.set_model_dir(str(models([gemm_model(M, N, K, dta=dta, dtb=dtb, dtc=dtc)]))) == OK
    g = _operands(dev, M, N, K, N_, N_, dta, dtb, dtc, 2.0, 1.0)
    assert _gemm_ex(dev, g, dta=dta, dtb=dtb, dtc=dtc) == OK
    dev.sync()
    np.testing.assert_array_equal(dev.get(g.c, g.c_dtype, [M, N]), g.expected)


def test_gemm_ex_matches_the_sample_gemm_json(acl: Any, dev: Device, models: Callable[..., Path]) -> None:
    assert acl.op.set_model_dir(str(models([gemm_model(16, 16, 16)]))) == OK
    g = _operands(dev, 16, 16, 16, N_, N_, FLOAT16, FLOAT16, FLOAT16, 2.0, 1.0)
    assert _gemm_ex(dev, g, m=16, n=16, k=16) == OK
    dev.sync()
    np.testing.assert_array_equal(dev.get(g.c, np.float16, [16, 16]), g.expected)


# ---- handle form -------------------------------------------------------------------------------


@pytest.mark.parametrize("trans_a,trans_b", [(N_, N_), (T_, N_), (N_, T_), (T_, T_)])
def test_create_handle_for_gemm_ex_runs_with_execute_with_handle(acl: Any, dev: Device, models: Callable[..., Path],
                                                                 trans_a: int, trans_b: int) -> None:
    assert acl.op.set_model_dir(str(models([gemm_model(M, N, K, trans_a, trans_b, dtc=FLOAT)]))) == OK
    handle, ret = acl.blas.create_handle_for_gemm_ex(trans_a, trans_b, N_, M, N, K, FLOAT16, FLOAT16, FLOAT, 0)
    assert ret == OK and handle != 0
    for seed in range(3):
        g = _operands(dev, M, N, K, trans_a, trans_b, FLOAT16, FLOAT16, FLOAT, 2.0, 1.0, seed)
        sizes = [M * K * 2, K * N * 2, M * N * 4, 4, 4]
        ptrs = [g.a, g.b, g.c, g.alpha, g.beta]
        ins = [acl.create_data_buffer(p, s) for p, s in zip(ptrs, sizes)]
        out = acl.create_data_buffer(g.c, M * N * 4)
        assert acl.op.execute_with_handle(handle, ins, [out], dev.stream) == OK
        dev.sync()
        np.testing.assert_array_equal(dev.get(g.c, np.float32, [M, N]), g.expected)
    acl.op.destroy_handle(handle)


def test_create_handle_for_gemm_ex_without_a_gemm_model_returns_op_not_found(dev: Device) -> None:
    result = dev.acl.blas.create_handle_for_gemm_ex(N_, N_, N_, M, N, K, FLOAT16, FLOAT16, FLOAT16, 0)
    assert result == (0, OP_NOT_FOUND)


@pytest.mark.parametrize("args", [
    (N_, N_, N_, 0, N, K, 0), (N_, N_, T_, M, N, K, 0), (NZ_T_, N_, N_, M, N, K, 0), (N_, N_, N_, M, N, K, 1),
], ids=["m-0", "trans_c-T", "trans_a-NZ_T", "compute-type-1"])
def test_create_handle_for_gemm_ex_checks_its_arguments(acl: Any, dev: Device, models: Callable[..., Path],
                                                        args: tuple) -> None:
    assert acl.op.set_model_dir(str(models([gemm_model(M, N, K)]))) == OK
    ta, tb, tc, m, n, k, compute_type = args
    assert acl.blas.create_handle_for_gemm_ex(ta, tb, tc, m, n, k, FLOAT16, FLOAT16, FLOAT16, compute_type) == (
        0, INVALID_PARAM)


# ---- hgemm, s8gemm -----------------------------------------------------------------------------


def test_hgemm_is_gemm_ex_with_fp16_a_b_and_c(acl: Any, dev: Device, models: Callable[..., Path]) -> None:
    assert acl.op.set_model_dir(str(models([gemm_model(M, N, K, T_, N_)]))) == OK
    g = _operands(dev, M, N, K, T_, N_, FLOAT16, FLOAT16, FLOAT16, 2.0, 1.0)
    assert acl.blas.hgemm(T_, N_, N_, M, N, K, g.alpha, g.a, -1, g.b, -1, g.beta, g.c, -1, 0, dev.stream) == OK
    dev.sync()
    np.testing.assert_array_equal(dev.get(g.c, np.float16, [M, N]), g.expected)


def test_hgemm_checks_like_gemm_ex(acl: Any, dev: Device, operands: Gemm) -> None:
    g = operands
    with_lda = acl.blas.hgemm(N_, N_, N_, M, N, K, g.alpha, g.a, K, g.b, -1, g.beta, g.c, -1, 0, dev.stream)
    assert with_lda == INVALID_PARAM
    valid = acl.blas.hgemm(N_, N_, N_, M, N, K, g.alpha, g.a, -1, g.b, -1, g.beta, g.c, -1, 0, dev.stream)
    assert valid == OP_NOT_FOUND


def test_s8gemm_is_gemm_ex_with_int8_a_and_b_and_int32_c(acl: Any, dev: Device, models: Callable[..., Path]) -> None:
    assert acl.op.set_model_dir(str(models([gemm_model(M, N, K, N_, T_, INT8, INT8, INT32)]))) == OK
    g = _operands(dev, M, N, K, N_, T_, INT8, INT8, INT32, 3, 2)
    assert acl.blas.s8gemm(N_, T_, N_, M, N, K, g.alpha, g.a, -1, g.b, -1, g.beta, g.c, -1, 0, dev.stream) == OK
    dev.sync()
    np.testing.assert_array_equal(dev.get(g.c, np.int32, [M, N]), g.expected)


def test_handle_forms_of_hgemm_and_s8gemm_match_their_dtypes(acl: Any, dev: Device,
                                                             models: Callable[..., Path]) -> None:
    assert acl.op.set_model_dir(str(models([gemm_model(M, N, K), gemm_model(M, N, K, dta=INT8, dtb=INT8,
                                                                              dtc=INT32)]))) == OK
    half, ret = acl.blas.create_handle_for_hgemm(N_, N_, N_, M, N, K, 0)
    assert ret == OK and half != 0
    int8, ret = acl.blas.create_handle_for_s8gemm(N_, N_, N_, M, N, K, 0)
    assert ret == OK and int8 != 0
    assert acl.blas.create_handle_for_hgemm(N_, T_, N_, M, N, K, 0) == (0, OP_NOT_FOUND)


# ---- gemv_ex -----------------------------------------------------------------------------------


def _gemv(dev: Device, trans_a: int, dta: int, dty: int, incx: int, incy: int) -> tuple[int, Gemm]:
    g = _operands(dev, M, 1, K, trans_a, N_, dta, dta, dty, 2.0, 1.0)
    ret = dev.acl.blas.gemv_ex(trans_a, M, K, g.alpha, g.a, -1, dta, g.b, incx, dta, g.beta, g.c, incy, dty, 0,
                               dev.stream)
    return ret, g


@pytest.mark.parametrize("trans_a", [N_, T_])
def test_gemv_ex_is_gemm_ex_with_n_equal_to_one(acl: Any, dev: Device, models: Callable[..., Path],
                                                trans_a: int) -> None:
    assert acl.op.set_model_dir(str(models([gemm_model(M, 1, K, trans_a)]))) == OK
    ret, g = _gemv(dev, trans_a, FLOAT16, FLOAT16, -1, -1)
    assert ret == OK
    dev.sync()
    np.testing.assert_array_equal(dev.get(g.c, np.float16, [M, 1]), g.expected)


@pytest.mark.parametrize("incx", [1, 2, 0, 16])
def test_gemv_ex_ignores_incx_because_the_binding_passes_incy_in_its_place(
        acl: Any, dev: Device, models: Callable[..., Path], incx: int) -> None:
    assert acl.op.set_model_dir(str(models([gemm_model(M, 1, K)]))) == OK
    ret, g = _gemv(dev, N_, FLOAT16, FLOAT16, incx, -1)
    assert ret == OK
    dev.sync()
    np.testing.assert_array_equal(dev.get(g.c, np.float16, [M, 1]), g.expected)


@pytest.mark.parametrize("incy", [1, 0, 2])
def test_gemv_ex_with_incy_other_than_minus_one_is_invalid_param(acl: Any, dev: Device, models: Callable[..., Path],
                                                                 incy: int) -> None:
    assert acl.op.set_model_dir(str(models([gemm_model(M, 1, K)]))) == OK
    ret, _ = _gemv(dev, N_, FLOAT16, FLOAT16, -1, incy)
    assert ret == INVALID_PARAM


def test_gemv_ex_without_a_gemm_model_returns_op_not_found(dev: Device) -> None:
    ret, _ = _gemv(dev, N_, INT8, INT32, -1, -1)
    assert ret == OP_NOT_FOUND


def test_create_handle_for_gemv_ex_runs_with_execute_with_handle(acl: Any, dev: Device,
                                                                 models: Callable[..., Path]) -> None:
    assert acl.op.set_model_dir(str(models([gemm_model(M, 1, K, dta=INT8, dtb=INT8, dtc=INT32)]))) == OK
    handle, ret = acl.blas.create_handle_for_gemv_ex(N_, M, K, INT8, INT8, INT32, 0)
    assert ret == OK and handle != 0
    g = _operands(dev, M, 1, K, N_, N_, INT8, INT8, INT32, 2, 1)
    ins = [acl.create_data_buffer(p, s) for p, s in zip([g.a, g.b, g.c, g.alpha, g.beta], [M * K, K, M * 4, 4, 4])]
    assert acl.op.execute_with_handle(handle, ins, [acl.create_data_buffer(g.c, M * 4)], dev.stream) == OK
    dev.sync()
    np.testing.assert_array_equal(dev.get(g.c, np.int32, [M, 1]), g.expected)
