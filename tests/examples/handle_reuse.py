"""An unmodified pyacl program: one operator handle created once and executed many times with fresh data.

    atc --singleop=tests/examples/data/handle_reuse_op.json --output=op_models --soc_version=$SOC
    python tests/examples/handle_reuse.py op_models

Under the simulator: `aclcts sim run -- sh -c '...'` with the same two commands. Prints one line per
check and exits non-zero if a result or an error code of the misuse probes is wrong.
"""

import sys

import numpy as np

import acl

ACL_FLOAT, ACL_FORMAT_ND = 0, 2
ACL_MEM_MALLOC_NORMAL_ONLY = 2
ACL_MEMCPY_HOST_TO_DEVICE, ACL_MEMCPY_DEVICE_TO_HOST = 1, 2
ACL_ERROR_INVALID_PARAM = 100000
ACL_ERROR_OP_INPUT_NOT_MATCH = 100021
ACL_ERROR_OP_OUTPUT_NOT_MATCH = 100022
ACL_ERROR_OP_NOT_FOUND = 100024
SHAPE = (4, 8)
RUNS = 5


def to_device(array):
    """Copy a NumPy array into new device memory; return (pointer, size)."""
    payload = array.tobytes()
    size = len(payload)
    ptr, ret = acl.rt.malloc(size, ACL_MEM_MALLOC_NORMAL_ONLY)
    acl.rt.memcpy(ptr, size, acl.util.bytes_to_ptr(payload), size, ACL_MEMCPY_HOST_TO_DEVICE)
    return ptr, size


def from_device(ptr, size, host):
    """Copy a float32 tensor back through page-locked host memory."""
    acl.rt.memcpy(host, size, ptr, size, ACL_MEMCPY_DEVICE_TO_HOST)
    return np.frombuffer(acl.util.ptr_to_bytes(host, size), np.float32).reshape(SHAPE)


def probe(name, got, expected):
    """Print one check and return 1 if it failed."""
    print(f"{name}: {got} (expected {expected})")
    return int(got != expected)


def main(model_dir):
    """Create the Mul handle once, run it RUNS times with new inputs, then probe its misuse codes."""
    failures = 0
    acl.init()
    acl.rt.set_device(0)
    context, ret = acl.rt.create_context(0)
    stream, ret = acl.rt.create_stream()
    failures += probe("set_model_dir", acl.op.set_model_dir(model_dir), 0)
    descs = [acl.create_tensor_desc(ACL_FLOAT, list(SHAPE), ACL_FORMAT_ND) for _ in range(3)]
    attr = acl.op.create_attr()
    handle, ret = acl.op.create_handle("Mul", descs[:2], descs[2:], attr)
    failures += probe("create_handle", ret, 0)
    size = acl.get_tensor_desc_size(descs[2])
    host, ret = acl.rt.malloc_host(size)
    out_ptr, ret = acl.rt.malloc(size, ACL_MEM_MALLOC_NORMAL_ONLY)
    out_buf = acl.create_data_buffer(out_ptr, size)
    pointers, buffers = [out_ptr], [out_buf]
    correct = 0
    for run in range(RUNS):
        a = np.linspace(-2.0, 2.0, 32, dtype=np.float32).reshape(SHAPE) + run
        b = np.full(SHAPE, 0.5 * (run + 1), dtype=np.float32)
        in_bufs = []
        for array in (a, b):
            ptr, nbytes = to_device(array)
            pointers.append(ptr)
            in_bufs.append(acl.create_data_buffer(ptr, nbytes))
        buffers += in_bufs
        ret = acl.op.execute_with_handle(handle, in_bufs, [out_buf], stream)
        failures += ret != 0
        acl.rt.synchronize_stream(stream)
        correct += bool(np.array_equal(from_device(out_ptr, size, host), a * b))
    failures += probe("runs with correct results", correct, RUNS)
    failures += probe("execute_with_handle(0, ...)", acl.op.execute_with_handle(0, buffers[1:3], [out_buf], stream),
                      ACL_ERROR_INVALID_PARAM)
    failures += probe("one input too few", acl.op.execute_with_handle(handle, buffers[1:2], [out_buf], stream),
                      ACL_ERROR_OP_INPUT_NOT_MATCH)
    failures += probe("one output too many",
                      acl.op.execute_with_handle(handle, buffers[1:3], [out_buf, out_buf], stream),
                      ACL_ERROR_OP_OUTPUT_NOT_MATCH)
    other = acl.create_tensor_desc(ACL_FLOAT, [8, 4], ACL_FORMAT_ND)
    missing, ret = acl.op.create_handle("Mul", [other, other], [other], attr)
    failures += probe("create_handle for an uncompiled shape", (missing, ret), (0, ACL_ERROR_OP_NOT_FOUND))
    acl.op.destroy_handle(handle)
    for buf in buffers:
        acl.destroy_data_buffer(buf)
    for ptr in pointers:
        acl.rt.free(ptr)
    for desc in descs + [other]:
        acl.destroy_tensor_desc(desc)
    acl.op.destroy_attr(attr)
    acl.rt.free_host(host)
    acl.rt.destroy_stream(stream)
    acl.rt.destroy_context(context)
    acl.rt.reset_device(0)
    acl.finalize()
    print("handle reuse", "OK" if not failures else f"FAILED ({failures})")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
