"""An unmodified pyacl program: ArgMaxV2 whose `dimension` input is a constant compiled into the model.

    atc --singleop=tests/examples/data/const_input_op.json --output=op_models --soc_version=$SOC
    python tests/examples/const_input.py op_models

As in the official classification sample, the constant is given with acl.set_tensor_const (the same
bytes as const_value) and its data buffer is the empty (0, 0) buffer; the documented alternative, a
host-placed input holding the bytes, is run too. Prints one line per check and exits non-zero if a
result or an error code of the misuse probes is wrong.
"""

import sys

import numpy as np

import acl

ACL_FLOAT16, ACL_INT32 = 1, 3
ACL_FORMAT_ND = 2
ACL_MEMTYPE_HOST = 1
ACL_MEM_MALLOC_NORMAL_ONLY = 2
ACL_MEMCPY_HOST_TO_DEVICE, ACL_MEMCPY_DEVICE_TO_HOST = 1, 2
ACL_ERROR_OP_NOT_FOUND = 100024
COUNT = 1000
WINNER = 637


def probe(name, got, expected):
    """Print one check and return 1 if it failed."""
    print(f"{name}: {got} (expected {expected})")
    return int(got != expected)


def main(model_dir):
    """Run ArgMaxV2 with the dimension as a const desc and as a host-placed input; probe other const bytes."""
    failures = 0
    acl.init()
    acl.rt.set_device(0)
    context, ret = acl.rt.create_context(0)
    stream, ret = acl.rt.create_stream()
    failures += probe("set_model_dir", acl.op.set_model_dir(model_dir), 0)
    scores = np.sin(np.arange(COUNT, dtype=np.float32)).astype(np.float16)
    scores[WINNER] = 7.5
    payload = scores.tobytes()
    x_desc = acl.create_tensor_desc(ACL_FLOAT16, [COUNT], ACL_FORMAT_ND)
    x_size = acl.get_tensor_desc_size(x_desc)
    dev_x, ret = acl.rt.malloc(x_size, ACL_MEM_MALLOC_NORMAL_ONLY)
    acl.rt.memcpy(dev_x, x_size, acl.util.bytes_to_ptr(payload), x_size, ACL_MEMCPY_HOST_TO_DEVICE)
    x_buf = acl.create_data_buffer(dev_x, x_size)
    y_desc = acl.create_tensor_desc(ACL_INT32, [1], ACL_FORMAT_ND)
    dev_y, ret = acl.rt.malloc(4, ACL_MEM_MALLOC_NORMAL_ONLY)
    y_buf = acl.create_data_buffer(dev_y, 4)
    host, ret = acl.rt.malloc_host(4)
    attr = acl.op.create_attr()
    dimension = np.array([0], dtype=np.int32).tobytes()

    def argmax(dim_desc, dim_buf):
        acl.rt.memset(dev_y, 4, 0, 4)
        ret = acl.op.execute_v2("ArgMaxV2", [x_desc, dim_desc], [x_buf, dim_buf], [y_desc], [y_buf], attr, stream)
        acl.rt.synchronize_stream(stream)
        acl.rt.memcpy(host, 4, dev_y, 4, ACL_MEMCPY_DEVICE_TO_HOST)
        return ret, int(np.frombuffer(acl.util.ptr_to_bytes(host, 4), np.int32)[0])

    const_desc = acl.create_tensor_desc(ACL_INT32, [1], ACL_FORMAT_ND)
    failures += probe("set_tensor_const", acl.set_tensor_const(const_desc, acl.util.bytes_to_ptr(dimension), 4), 0)
    empty = acl.create_data_buffer(0, 0)
    failures += probe("ArgMaxV2 with a const dimension", argmax(const_desc, empty), (0, WINNER))

    host_desc = acl.create_tensor_desc(ACL_INT32, [1], ACL_FORMAT_ND)
    failures += probe("set_tensor_place_ment", acl.set_tensor_place_ment(host_desc, ACL_MEMTYPE_HOST), 0)
    host_dim = acl.create_data_buffer(acl.util.bytes_to_ptr(dimension), 4)
    failures += probe("ArgMaxV2 with a host-placed dimension", argmax(host_desc, host_dim), (0, WINNER))

    other = np.array([1], dtype=np.int32).tobytes()
    other_desc = acl.create_tensor_desc(ACL_INT32, [1], ACL_FORMAT_ND)
    acl.set_tensor_const(other_desc, acl.util.bytes_to_ptr(other), 4)
    failures += probe("const bytes not compiled", argmax(other_desc, empty)[0], ACL_ERROR_OP_NOT_FOUND)
    plain_desc = acl.create_tensor_desc(ACL_INT32, [1], ACL_FORMAT_ND)
    dev_dim, ret = acl.rt.malloc(4, ACL_MEM_MALLOC_NORMAL_ONLY)
    acl.rt.memcpy(dev_dim, 4, acl.util.bytes_to_ptr(dimension), 4, ACL_MEMCPY_HOST_TO_DEVICE)
    plain_buf = acl.create_data_buffer(dev_dim, 4)
    failures += probe("dimension neither const nor host-placed", argmax(plain_desc, plain_buf)[0],
                      ACL_ERROR_OP_NOT_FOUND)

    for buf in (x_buf, y_buf, empty, host_dim, plain_buf):
        acl.destroy_data_buffer(buf)
    for ptr in (dev_x, dev_y, dev_dim):
        acl.rt.free(ptr)
    for desc in (x_desc, y_desc, const_desc, host_desc, other_desc, plain_desc):
        acl.destroy_tensor_desc(desc)
    acl.op.destroy_attr(attr)
    acl.rt.free_host(host)
    acl.rt.destroy_stream(stream)
    acl.rt.destroy_context(context)
    acl.rt.reset_device(0)
    acl.finalize()
    print("const input", "OK" if not failures else f"FAILED ({failures})")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
