"""MatMul family and GEMM: hand-computed products, fp32/int32 accumulation, transposes, batching, errors."""

import numpy as np
import pytest

from aclcts.sim.kernels import KernelError

F16, F32, I8, I32 = np.float16, np.float32, np.int8, np.int32


def test_matmul_float32_small_example(run):
    a = np.array([[1, 2], [3, 4]], F32)
    b = np.array([[5, 6], [7, 8]], F32)
    (y,) = run("MatMul", [a, b, None], [(F32, (2, 2))])
    assert y.tolist() == [[19, 22], [43, 50]]


def test_matmul_fp16_accumulates_in_fp32_and_rounds_once(run):
    # 2048 + 1 + 1 = 2050 is an fp16 value; accumulating in fp16 would stick at 2048 (2049 ties to 2048).
    a = np.array([[2048, 1, 1]], F16)
    b = np.array([[1], [1], [1]], F16)
    (y,) = run("MatMul", [a, b, None], [(F16, (1, 1))])
    assert y.tolist() == [[2050.0]]


def test_matmul_fp16_with_fp32_output_keeps_the_accumulator(run):
    a = np.array([[2048, 1]], F16)
    b = np.array([[1], [1]], F16)
    (y,) = run("MatMul", [a, b, None], [(F32, (1, 1))])
    assert y.dtype == F32 and y.tolist() == [[2049.0]]


def test_matmul_bias_is_added_in_the_accumulator(run):
    # 2048 + 1 (product) + 1 (bias) = 2050 in fp32, one rounding; rounding before the bias would give 2048 + 1 -> 2048.
    a = np.array([[2048, 1]], F16)
    b = np.array([[1], [1]], F16)
    (y,) = run("MatMul", [a, b, np.array([1], F16)], [(F16, (1, 1))])
    assert y.tolist() == [[2050.0]]


def test_matmul_transpose_attributes(run):
    a_t = np.array([[1, 3], [2, 4]], F32)  # transpose of [[1, 2], [3, 4]]
    b_t = np.array([[5, 7], [6, 8]], F32)  # transpose of [[5, 6], [7, 8]]
    (y,) = run("MatMul", [a_t, b_t, None], [(F32, (2, 2))], {"transpose_x1": True, "transpose_x2": True})
    assert y.tolist() == [[19, 22], [43, 50]]


def test_matmul_int32_accumulator_wraps(run):
    a = np.array([[2**30, 2**30]], I32)
    b = np.array([[2], [1]], I32)
    (y,) = run("MatMul", [a, b, None], [(I32, (1, 1))])
    assert y.tolist() == [[-(2**30)]]  # 2^31 + 2^30 wraps by 2^32


def test_matmulv2_int8_inputs_give_int32(run):
    a = np.array([[127, -128]], I8)
    b = np.array([[127], [127]], I8)
    (y,) = run("MatMulV2", [a, b, None, None], [(I32, (1, 1))])
    assert y.tolist() == [[127 * 127 - 128 * 127]]


def test_batchmatmul_broadcasts_batch_dims_and_adjoints(run):
    x1 = np.array([[[1, 0], [0, 1]], [[2, 0], [0, 2]]], F32)  # [2, 2, 2]
    x2 = np.array([[[1, 2], [3, 4]]], F32)  # [1, 2, 2]
    (y,) = run("BatchMatMul", [x1, x2], [(F32, (2, 2, 2))], {"adj_x2": True})
    assert y.tolist() == [[[1, 3], [2, 4]], [[2, 6], [4, 8]]]


def test_batchmatmul_adds_its_optional_bias_in_the_accumulator(run):
    # 2048 + 1 (product) + 1 (bias) = 2050 in fp32, one rounding; BatchMatMul's bias is optional, as for MatMul.
    x1 = np.array([[[2048, 1]], [[1, 0]]], F16)  # [2, 1, 2]
    x2 = np.array([[[1], [1]]], F16)  # [1, 2, 1]
    (y,) = run("BatchMatMul", [x1, x2, np.array([1], F16)], [(F16, (2, 1, 1))])
    assert y.tolist() == [[[2050.0]], [[2.0]]]


def test_gemm_fp16_alpha_beta(run):
    a = np.eye(2, dtype=F16)
    b = np.array([[1, 2], [3, 4]], F16)
    c = np.ones((2, 2), F16)
    (y,) = run("GEMM", [a, b, c, np.array(2, F16), np.array(1, F16)], [(F16, (2, 2))])
    assert y.tolist() == [[3, 5], [7, 9]]  # 2 * b + 1


def test_gemm_fp16_epilogue_rounds_once(run):
    # alpha * (2048 + 1) + beta * 1 = 2050 in fp32; per-step fp16 rounding would give 2048.
    a, b = np.array([[2048, 1]], F16), np.array([[1], [1]], F16)
    (y,) = run("GEMM", [a, b, np.ones((1, 1), F16), np.array(1, F16), np.array(1, F16)], [(F16, (1, 1))])
    assert y.tolist() == [[2050.0]]


def test_gemm_transpose_a_and_fp32_c(run):
    a_t = np.array([[1, 3], [2, 4]], F16)
    b = np.eye(2, dtype=F16)
    c = np.full((2, 2), 10, F32)
    (y,) = run(
        "GEMM", [a_t, b, c, np.array(1, F32), np.array(0.5, F32)], [(F32, (2, 2))], {"transpose_a": True}
    )
    assert y.tolist() == [[6, 7], [8, 9]]


def test_gemm_int8_with_int32_c_wraps(run):
    a, b = np.array([[1, 1]], I8), np.array([[1], [1]], I8)
    (y,) = run("GEMM", [a, b, np.zeros((1, 1), I32), np.array(2**30, I32), np.array(0, I32)], [(I32, (1, 1))])
    assert y.tolist() == [[-(2**31)]]  # 2 * 2^30 wraps


def test_gemm_rejects_unsupported_type_pair(run):
    with pytest.raises(KernelError, match=r"GEMM: a/b dtype float16 with c dtype int32 is not supported"):
        a = np.ones((1, 1), F16)
        run("GEMM", [a, a, np.ones((1, 1), I32), np.array(1, I32), np.array(1, I32)], [(I32, (1, 1))])


def test_gemm_alpha_must_have_the_dtype_of_c(run):
    a = np.ones((1, 1), F16)
    with pytest.raises(KernelError, match=r"GEMM: input 'alpha' has dtype float32, expected float16 \(the dtype of 'c'\)"):
        run("GEMM", [a, a, a, np.array(1, F32), np.array(1, F16)], [(F16, (1, 1))])


def test_inner_dimension_mismatch_names_both_inputs(run):
    with pytest.raises(KernelError, match=r"MatMul: inner dimensions differ: x1 \[2, 3\] \(transpose_x1=False\) gives K=3"):
        run("MatMul", [np.ones((2, 3), F32), np.ones((2, 3), F32), None], [(F32, (2, 3))])


def test_matmul_requires_2d_inputs(run):
    with pytest.raises(KernelError, match=r"MatMul: input 'x1' must be 2-D, got shape \[2, 2, 2\]"):
        run("MatMul", [np.ones((2, 2, 2), F32), np.ones((2, 2), F32), None], [(F32, (2, 2))])


def test_matmul_rejects_an_output_dtype_the_unit_cannot_give(run):
    with pytest.raises(KernelError, match=r"MatMul: output 'y' has dtype float16, expected float32 for float32 inputs"):
        run("MatMul", [np.ones((1, 1), F32), np.ones((1, 1), F32), None], [(F16, (1, 1))])


def test_bias_shape_must_be_n(run):
    with pytest.raises(KernelError, match=r"MatMul: input 'bias' must have shape \[2\] \(N\), got \[3\]"):
        run("MatMul", [np.ones((1, 1), F32), np.ones((1, 2), F32), np.ones(3, F32)], [(F32, (1, 2))])


def test_matmul_infer_shape(infer):
    (out,) = infer("MatMul", [(F16, (3, 4)), (F16, (5, 3))], attrs={"transpose_x1": True, "transpose_x2": True})
    assert (out.dtype, out.shape) == (1, (4, 5))
    (out,) = infer("BatchMatMul", [(F32, (-1, 1, 2, 3)), (F32, (4, 3, 6))])
    assert out.shape == (-1, 4, 2, 6)
    assert out.shape_range == ((0, -1), (4, 4), (2, 2), (6, 6))
    (out,) = infer("MatMulV2", [(I8, (2, 3)), (I8, (3, 4))])
    assert (out.dtype, out.shape) == (3, (2, 4))  # ACL_INT32
    (out,) = infer("GEMM", [(F16, (2, 3)), (F16, (3, 4)), (F16, (2, 4)), (F16, ()), (F16, ())])
    assert out.shape == (2, 4)
