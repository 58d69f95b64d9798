"""An unmodified pyacl program: the documented dynamic-shape single-op flow, on Where.

    atc --singleop=tests/examples/data/dynamic_shape_op.json --output=op_models --soc_version=$SOC
    python tests/examples/dynamic_shape.py op_models

The model is compiled with -1 dims and shape_range (the ATC guide's Where template). The program runs
acl.op.infer_shape on the real input, takes the range maximum of every -1 dim, allocates the output for
that maximal shape, runs execute_v2 and reads the real output dims back from the same output desc.
infer_shape needs ASCEND_OPP_PATH, as on a CANN installation. Prints one line per check and exits
non-zero if a shape, a value or an error code of the misuse probes is wrong.
"""

import sys

import numpy as np

import acl

ACL_INT32, ACL_INT64 = 3, 9
ACL_FORMAT_ND = 2
ACL_MEM_MALLOC_NORMAL_ONLY = 2
ACL_MEMCPY_HOST_TO_DEVICE, ACL_MEMCPY_DEVICE_TO_HOST = 1, 2
ACL_ERROR_INVALID_PARAM = 100000
ACL_ERROR_OP_NOT_FOUND = 100024
ACL_UNKNOWN_RANK = 0xFFFFFFFFFFFFFFFE


def probe(name, got, expected):
    """Print one check and return 1 if it failed."""
    print(f"{name}: {got} (expected {expected})")
    return int(got != expected)


def desc_dims(desc):
    """The dims of a tensor desc, read with get_tensor_desc_dim_v2."""
    count = acl.get_tensor_desc_num_dims(desc)
    if count == ACL_UNKNOWN_RANK:
        return None
    return [acl.get_tensor_desc_dim_v2(desc, index)[0] for index in range(count)]


def max_dims(desc):
    """The inferred dims with every -1 replaced by the maximum of its range."""
    dims = []
    for index, dim in enumerate(desc_dims(desc)):
        if dim == -1:
            dim_range, ret = acl.get_tensor_desc_dim_range(desc, index, 2)
            dim = dim_range[1]
        dims.append(dim)
    return dims


def main(model_dir):
    """Infer, allocate for the maximum, execute, read the real shape; then the misuse probes."""
    failures = 0
    acl.init()
    acl.rt.set_device(0)
    context, ret = acl.rt.create_context(0)
    stream, ret = acl.rt.create_stream()
    failures += probe("set_model_dir", acl.op.set_model_dir(model_dir), 0)
    x = np.array([0, 3, 0, 0, 7, -1, 0, 2, 0, 0, 0, 5], dtype=np.int32)
    x_bytes = x.tobytes()
    x_desc = acl.create_tensor_desc(ACL_INT32, [x.size], ACL_FORMAT_ND)
    x_size = acl.get_tensor_desc_size(x_desc)
    host_x = acl.create_data_buffer(acl.util.bytes_to_ptr(x_bytes), x_size)
    inferred = acl.create_tensor_desc(ACL_INT64, [1], ACL_FORMAT_ND)
    attr = acl.op.create_attr()
    failures += probe("infer_shape", acl.op.infer_shape("Where", [x_desc], [host_x], 1, [inferred], attr), 0)
    failures += probe("inferred dims", desc_dims(inferred), [-1, 1])
    dims = max_dims(inferred)
    failures += probe("dims by range maximum", dims, [x.size, 1])

    dev_x, ret = acl.rt.malloc(x_size, ACL_MEM_MALLOC_NORMAL_ONLY)
    acl.rt.memcpy(dev_x, x_size, acl.util.bytes_to_ptr(x_bytes), x_size, ACL_MEMCPY_HOST_TO_DEVICE)
    x_buf = acl.create_data_buffer(dev_x, x_size)
    y_desc = acl.create_tensor_desc(acl.get_tensor_desc_type(inferred), dims, ACL_FORMAT_ND)
    y_capacity = acl.get_tensor_desc_size(y_desc)
    dev_y, ret = acl.rt.malloc(y_capacity, ACL_MEM_MALLOC_NORMAL_ONLY)
    y_buf = acl.create_data_buffer(dev_y, y_capacity)
    failures += probe("execute_v2", acl.op.execute_v2("Where", [x_desc], [x_buf], [y_desc], [y_buf], attr, stream), 0)
    acl.rt.synchronize_stream(stream)
    real = desc_dims(y_desc)
    expected = np.flatnonzero(x).reshape(-1, 1)
    failures += probe("real output dims", real, list(expected.shape))
    y_size = acl.get_tensor_desc_size(y_desc)
    failures += probe("real output size", y_size, expected.nbytes)
    host, ret = acl.rt.malloc_host(y_capacity)
    acl.rt.memcpy(host, y_capacity, dev_y, y_size, ACL_MEMCPY_DEVICE_TO_HOST)
    y = np.frombuffer(acl.util.ptr_to_bytes(host, y_size), np.int64).reshape(real)
    failures += probe("coordinates correct", bool(np.array_equal(y, expected)), True)

    unknown = acl.create_tensor_desc(ACL_INT32, [-1], ACL_FORMAT_ND)
    failures += probe("execute_v2 with a -1 input dim",
                      acl.op.execute_v2("Where", [unknown], [x_buf], [y_desc], [y_buf], attr, stream),
                      ACL_ERROR_INVALID_PARAM)
    wrong_type = acl.create_tensor_desc(ACL_INT64, [x.size], ACL_FORMAT_ND)
    acl.set_tensor_origin_shape(y_desc, dims)
    failures += probe("execute_v2 with an int64 input (not compiled)",
                      acl.op.execute_v2("Where", [wrong_type], [x_buf], [y_desc], [y_buf], attr, stream),
                      ACL_ERROR_OP_NOT_FOUND)

    for buf in (host_x, x_buf, y_buf):
        acl.destroy_data_buffer(buf)
    for ptr in (dev_x, dev_y):
        acl.rt.free(ptr)
    for desc in (x_desc, inferred, y_desc, unknown, wrong_type):
        acl.destroy_tensor_desc(desc)
    acl.op.destroy_attr(attr)
    acl.rt.free_host(host)
    acl.rt.destroy_stream(stream)
    acl.rt.destroy_context(context)
    acl.rt.reset_device(0)
    acl.finalize()
    print("dynamic shape", "OK" if not failures else f"FAILED ({failures})")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
