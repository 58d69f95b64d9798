"""An unmodified pyacl program: C = alpha * A @ B + beta * C with acl.blas.gemm_ex and its handle form.

    atc --singleop=tests/examples/data/gemm.json --output=op_models --soc_version=$SOC
    python tests/examples/gemm.py op_models

Follows the official BLAS sample: m = n = k = 16, fp16 A, B and C, alpha 2 and beta 1 in device memory.
Prints one line per check and exits non-zero if a result or an error code of the misuse probes is wrong.
"""

import sys

import numpy as np

import acl

ACL_FLOAT16 = 1
ACL_TRANS_N, ACL_TRANS_T = 0, 1
ACL_COMPUTE_HIGH_PRECISION, ACL_COMPUTE_LOW_PRECISION = 0, 1
ACL_MEM_MALLOC_NORMAL_ONLY = 2
ACL_MEMCPY_HOST_TO_DEVICE, ACL_MEMCPY_DEVICE_TO_HOST = 1, 2
ACL_ERROR_INVALID_PARAM = 100000
ACL_ERROR_OP_NOT_FOUND = 100024
M = N = K = 16


def to_device(array):
    """Copy a NumPy array into new device memory; return the pointer."""
    payload = array.tobytes()
    size = max(len(payload), 4)
    ptr, ret = acl.rt.malloc(size, ACL_MEM_MALLOC_NORMAL_ONLY)
    acl.rt.memcpy(ptr, size, acl.util.bytes_to_ptr(payload), len(payload), ACL_MEMCPY_HOST_TO_DEVICE)
    return ptr


def read_c(ptr, host):
    """Copy C (fp16, M x N) back through page-locked host memory."""
    size = M * N * 2
    acl.rt.memcpy(host, size, ptr, size, ACL_MEMCPY_DEVICE_TO_HOST)
    return np.frombuffer(acl.util.ptr_to_bytes(host, size), np.float16).reshape(M, N)


def probe(name, got, expected):
    """Print one check and return 1 if it failed."""
    print(f"{name}: {got} (expected {expected})")
    return int(got != expected)


def main(model_dir):
    """Run gemm_ex, the handle form, and the documented argument checks."""
    failures = 0
    acl.init()
    acl.rt.set_device(0)
    context, ret = acl.rt.create_context(0)
    stream, ret = acl.rt.create_stream()
    failures += probe("set_model_dir", acl.op.set_model_dir(model_dir), 0)
    rng = np.random.default_rng(7)
    a = rng.integers(-4, 5, size=(M, K)).astype(np.float16)
    b = rng.integers(-4, 5, size=(K, N)).astype(np.float16)
    c = rng.integers(-8, 9, size=(M, N)).astype(np.float16)
    golden = (2.0 * (a.astype(np.float32) @ b.astype(np.float32)) + 1.0 * c.astype(np.float32)).astype(np.float16)
    alpha, beta = to_device(np.array(2.0, np.float16)), to_device(np.array(1.0, np.float16))
    dev_a, dev_b, dev_c = to_device(a), to_device(b), to_device(c)
    host, ret = acl.rt.malloc_host(M * N * 2)

    def gemm(trans_c=ACL_TRANS_N, m=M, lda=-1, compute=ACL_COMPUTE_HIGH_PRECISION, alpha_ptr=alpha):
        return acl.blas.gemm_ex(ACL_TRANS_N, ACL_TRANS_N, trans_c, m, N, K, alpha_ptr, dev_a, lda, ACL_FLOAT16,
                                dev_b, -1, ACL_FLOAT16, beta, dev_c, -1, ACL_FLOAT16, compute, stream)

    failures += probe("gemm_ex", gemm(), 0)
    acl.rt.synchronize_stream(stream)
    failures += probe("gemm_ex result correct", bool(np.array_equal(read_c(dev_c, host), golden)), True)

    handle, ret = acl.blas.create_handle_for_gemm_ex(ACL_TRANS_N, ACL_TRANS_N, ACL_TRANS_N, M, N, K, ACL_FLOAT16,
                                                     ACL_FLOAT16, ACL_FLOAT16, ACL_COMPUTE_HIGH_PRECISION)
    failures += probe("create_handle_for_gemm_ex", ret, 0)
    acl.rt.memcpy(dev_c, M * N * 2, acl.util.bytes_to_ptr(c.tobytes()), M * N * 2, ACL_MEMCPY_HOST_TO_DEVICE)
    sizes = [M * K * 2, K * N * 2, M * N * 2, 4, 4]
    in_bufs = [acl.create_data_buffer(p, s) for p, s in zip([dev_a, dev_b, dev_c, alpha, beta], sizes)]
    out_buf = acl.create_data_buffer(dev_c, M * N * 2)
    failures += probe("execute_with_handle", acl.op.execute_with_handle(handle, in_bufs, [out_buf], stream), 0)
    acl.rt.synchronize_stream(stream)
    failures += probe("handle result correct", bool(np.array_equal(read_c(dev_c, host), golden)), True)

    failures += probe("null alpha", gemm(alpha_ptr=0), ACL_ERROR_INVALID_PARAM)
    failures += probe("m = 0", gemm(m=0), ACL_ERROR_INVALID_PARAM)
    failures += probe("trans_c = T", gemm(trans_c=ACL_TRANS_T), ACL_ERROR_INVALID_PARAM)
    failures += probe("lda = 16", gemm(lda=16), ACL_ERROR_INVALID_PARAM)
    failures += probe("low precision", gemm(compute=ACL_COMPUTE_LOW_PRECISION), ACL_ERROR_INVALID_PARAM)
    failures += probe("m = 8 (not compiled)", gemm(m=8), ACL_ERROR_OP_NOT_FOUND)

    acl.op.destroy_handle(handle)
    for buf in in_bufs + [out_buf]:
        acl.destroy_data_buffer(buf)
    for ptr in (alpha, beta, dev_a, dev_b, dev_c):
        acl.rt.free(ptr)
    acl.rt.free_host(host)
    acl.rt.destroy_stream(stream)
    acl.rt.destroy_context(context)
    acl.rt.reset_device(0)
    acl.finalize()
    print("gemm", "OK" if not failures else f"FAILED ({failures})")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
