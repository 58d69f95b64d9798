"""An unmodified pyacl program from the documentation: static Add through set_model_dir, plus misuse probes.

    atc --singleop=tests/examples/data/add_op.json --output=op_models --soc_version=$SOC
    python tests/examples/static_add.py op_models

Under the simulator: `aclcts sim run -- sh -c '...'` with the same two commands. Prints one line per
check and exits non-zero if any fails.
"""

import sys

import numpy as np

import acl

ACL_INT32, ACL_FORMAT_ND = 3, 2
ACL_MEM_MALLOC_NORMAL_ONLY = 2
ACL_MEMCPY_HOST_TO_DEVICE, ACL_MEMCPY_DEVICE_TO_HOST = 1, 2
ACL_ERROR_OP_NOT_FOUND = 100024


def main(model_dir: str) -> int:
    """Run Add on [8, 16] int32, check the sum, then check that an unmatched shape gives 100024."""
    failures = 0
    assert acl.init() == 0
    assert acl.rt.set_device(0) == 0
    context, ret = acl.rt.create_context(0)
    stream, ret = acl.rt.create_stream()
    assert acl.op.set_model_dir(model_dir) == 0
    a = np.arange(128, dtype=np.int32).reshape(8, 16)
    b = np.full((8, 16), 1000, dtype=np.int32)
    descs = [acl.create_tensor_desc(ACL_INT32, [8, 16], ACL_FORMAT_ND) for _ in range(3)]
    size = acl.get_tensor_desc_size(descs[0])
    pointers, buffers = [], []
    for array in (a, b, None):
        ptr, ret = acl.rt.malloc(size, ACL_MEM_MALLOC_NORMAL_ONLY)
        if array is not None:
            payload = array.tobytes()
            acl.rt.memcpy(ptr, size, acl.util.bytes_to_ptr(payload), size, ACL_MEMCPY_HOST_TO_DEVICE)
        pointers.append(ptr)
        buffers.append(acl.create_data_buffer(ptr, size))
    attr = acl.op.create_attr()
    ret = acl.op.execute_v2("Add", descs[:2], buffers[:2], descs[2:], buffers[2:], attr, stream)
    print("execute_v2 Add:", ret)
    failures += ret != 0
    failures += acl.rt.synchronize_stream(stream) != 0
    host, ret = acl.rt.malloc_host(size)
    acl.rt.memcpy(host, size, pointers[2], size, ACL_MEMCPY_DEVICE_TO_HOST)
    c = np.frombuffer(acl.util.ptr_to_bytes(host, size), np.int32).reshape(8, 16)
    correct = bool(np.array_equal(c, a + b))
    print("Add result correct:", correct)
    failures += not correct
    wrong = acl.create_tensor_desc(ACL_INT32, [16, 8], ACL_FORMAT_ND)
    ret = acl.op.execute_v2("Add", [wrong, wrong], buffers[:2], [wrong], buffers[2:], attr, stream)
    print("unmatched shape gives 100024:", ret == ACL_ERROR_OP_NOT_FOUND)
    failures += ret != ACL_ERROR_OP_NOT_FOUND
    for handle in descs + [wrong]:
        acl.destroy_tensor_desc(handle)
    for handle in buffers:
        acl.destroy_data_buffer(handle)
    for ptr in pointers:
        acl.rt.free(ptr)
    acl.rt.free_host(host)
    acl.op.destroy_attr(attr)
    acl.rt.destroy_stream(stream)
    acl.rt.destroy_context(context)
    acl.rt.reset_device(0)
    acl.finalize()
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
