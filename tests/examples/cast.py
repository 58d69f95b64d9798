"""An unmodified pyacl program: fp32 -> fp16 with acl.op.cast and with create_handle_for_cast.

    atc --singleop=tests/examples/data/cast_op.json --output=op_models --soc_version=$SOC
    python tests/examples/cast.py op_models

The model is the Cast of the official classification sample (truncate false, dst_type 1). The values
include exact ties between two fp16 numbers, which must round to the even one. Prints one line per check
and exits non-zero if a result or an error code of the misuse probes is wrong.
"""

import sys

import numpy as np

import acl

ACL_FLOAT, ACL_FLOAT16, ACL_INT32 = 0, 1, 3
ACL_FORMAT_ND = 2
ACL_MEM_MALLOC_NORMAL_ONLY = 2
ACL_MEMCPY_HOST_TO_DEVICE, ACL_MEMCPY_DEVICE_TO_HOST = 1, 2
ACL_ERROR_INVALID_PARAM = 100000
ACL_ERROR_OP_NOT_FOUND = 100024
COUNT = 1000


def inputs():
    """1000 float32 values: ties (1 + 2**-11 -> 1, 1 + 3 * 2**-11 -> 1 + 2**-9), overflow, and a ramp."""
    ties = [1.0 + 2.0 ** -11, 1.0 + 3 * 2.0 ** -11, 2049.0, 2051.0, 65520.0, -65520.0, 2.0 ** -25, 0.0]
    ramp = np.linspace(-70000.0, 70000.0, COUNT - len(ties))
    return np.concatenate([np.array(ties), ramp]).astype(np.float32)


def expected_bits():
    """The fp16 bit patterns the ties and the ramp must give (round to nearest, ties to even)."""
    ties = [1.0, 1.0 + 2.0 ** -9, 2048.0, 2052.0, np.inf, -np.inf, 0.0, 0.0]
    with np.errstate(over="ignore"):
        golden = inputs().astype(np.float16)
    golden[: len(ties)] = np.array(ties, np.float16)
    return golden.view(np.uint16)


def probe(name, got, expected):
    """Print one check and return 1 if it failed."""
    print(f"{name}: {got} (expected {expected})")
    return int(got != expected)


def main(model_dir):
    """Cast through acl.op.cast and a cast handle, then probe the documented error codes."""
    failures = 0
    acl.init()
    acl.rt.set_device(0)
    context, ret = acl.rt.create_context(0)
    stream, ret = acl.rt.create_stream()
    failures += probe("set_model_dir", acl.op.set_model_dir(model_dir), 0)
    x = inputs()
    src_desc = acl.create_tensor_desc(ACL_FLOAT, [COUNT], ACL_FORMAT_ND)
    dst_desc = acl.create_tensor_desc(ACL_FLOAT16, [COUNT], ACL_FORMAT_ND)
    src_size, dst_size = acl.get_tensor_desc_size(src_desc), acl.get_tensor_desc_size(dst_desc)
    src_ptr, ret = acl.rt.malloc(src_size, ACL_MEM_MALLOC_NORMAL_ONLY)
    payload = x.tobytes()
    acl.rt.memcpy(src_ptr, src_size, acl.util.bytes_to_ptr(payload), src_size, ACL_MEMCPY_HOST_TO_DEVICE)
    dst_ptr, ret = acl.rt.malloc(dst_size, ACL_MEM_MALLOC_NORMAL_ONLY)
    src_buf = acl.create_data_buffer(src_ptr, src_size)
    dst_buf = acl.create_data_buffer(dst_ptr, dst_size)
    host, ret = acl.rt.malloc_host(dst_size)

    def result_bits():
        acl.rt.memset(host, dst_size, 0, dst_size)
        acl.rt.memcpy(host, dst_size, dst_ptr, dst_size, ACL_MEMCPY_DEVICE_TO_HOST)
        return np.frombuffer(acl.util.ptr_to_bytes(host, dst_size), np.uint16)

    failures += probe("cast", acl.op.cast(src_desc, src_buf, dst_desc, dst_buf, 0, stream), 0)
    acl.rt.synchronize_stream(stream)
    failures += probe("cast result correct", bool(np.array_equal(result_bits(), expected_bits())), True)

    acl.rt.memset(dst_ptr, dst_size, 0, dst_size)
    handle, ret = acl.op.create_handle_for_cast(src_desc, dst_desc, 0)
    failures += probe("create_handle_for_cast", ret, 0)
    failures += probe("execute_with_handle", acl.op.execute_with_handle(handle, [src_buf], [dst_buf], stream), 0)
    acl.rt.synchronize_stream(stream)
    failures += probe("handle result correct", bool(np.array_equal(result_bits(), expected_bits())), True)

    failures += probe("cast with dst desc 0", acl.op.cast(src_desc, src_buf, 0, dst_buf, 0, stream),
                      ACL_ERROR_INVALID_PARAM)
    int_desc = acl.create_tensor_desc(ACL_INT32, [COUNT], ACL_FORMAT_ND)
    failures += probe("cast to int32 (not compiled)", acl.op.cast(src_desc, src_buf, int_desc, src_buf, 0, stream),
                      ACL_ERROR_OP_NOT_FOUND)
    missing, ret = acl.op.create_handle_for_cast(src_desc, int_desc, 0)
    failures += probe("cast handle to int32", (missing, ret), (0, ACL_ERROR_OP_NOT_FOUND))

    acl.op.destroy_handle(handle)
    for buf in (src_buf, dst_buf):
        acl.destroy_data_buffer(buf)
    for ptr in (src_ptr, dst_ptr):
        acl.rt.free(ptr)
    for desc in (src_desc, dst_desc, int_desc):
        acl.destroy_tensor_desc(desc)
    acl.rt.free_host(host)
    acl.rt.destroy_stream(stream)
    acl.rt.destroy_context(context)
    acl.rt.reset_device(0)
    acl.finalize()
    print("cast", "OK" if not failures else f"FAILED ({failures})")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
