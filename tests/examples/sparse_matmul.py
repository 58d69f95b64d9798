"""A pyacl program written from the documentation: SparseTensorDenseMatMul of a COO matrix and a dense one.

    atc --singleop=tests/examples/data/sparse_matmul_op.json --output=op_models --soc_version=$SOC
    python tests/examples/sparse_matmul.py op_models

A [4, 5] holds six entries in COO form (x1_indices [6, 2] int64, x1_values [6], x1_shape [2]), one index given
twice; every input is device memory, as the operator prototype's inputs are. The program runs A @ B and, with
adjoint_a, A^T @ C, and compares each with a NumPy reference that builds A from its COO entries. Prints one line
per check and exits non-zero if any fails.
"""

import sys

import numpy as np

import acl

ACL_FLOAT, ACL_INT64, ACL_FORMAT_ND = 0, 9, 2
ACL_MEM_MALLOC_NORMAL_ONLY = 2
ACL_MEMCPY_HOST_TO_DEVICE, ACL_MEMCPY_DEVICE_TO_HOST = 1, 2
INDICES = np.array([[0, 1], [1, 4], [2, 2], [3, 0], [1, 4], [0, 3]], dtype=np.int64)
VALUES = np.array([1.5, -2.0, 0.25, 3.0, 0.5, -1.0], dtype=np.float32)
DENSE_SHAPE = np.array([4, 5], dtype=np.int64)


def coo_reference(indices, values, shape, other, adjoint_a):
    """A (entries at one index add up) as a dense float64 matrix, times other."""
    a = np.zeros(tuple(shape), dtype=np.float64)
    np.add.at(a, (indices[:, 0], indices[:, 1]), values.astype(np.float64))
    return (a.T if adjoint_a else a) @ other.astype(np.float64)


class Device:
    """Device buffers of one run, freed together."""

    def __init__(self):
        self.pointers, self.buffers, self.descs = [], [], []

    def tensor(self, array, acl_type):
        """A desc and a data buffer holding array on the device."""
        size = array.nbytes
        ptr, ret = acl.rt.malloc(max(size, 1), ACL_MEM_MALLOC_NORMAL_ONLY)
        assert ret == 0, f"acl.rt.malloc: {ret}"
        if size:
            host = np.ascontiguousarray(array).tobytes()
            assert acl.rt.memcpy(ptr, size, acl.util.bytes_to_ptr(host), size, ACL_MEMCPY_HOST_TO_DEVICE) == 0
        self.pointers.append(ptr)
        self.descs.append(acl.create_tensor_desc(acl_type, list(array.shape), ACL_FORMAT_ND))
        self.buffers.append(acl.create_data_buffer(ptr, size))
        return self.descs[-1], self.buffers[-1]

    def read(self, index, shape):
        """The float32 array of shape held by tensor index."""
        size = int(np.prod(shape)) * 4
        host, ret = acl.rt.malloc_host(size)
        assert acl.rt.memcpy(host, size, self.pointers[index], size, ACL_MEMCPY_DEVICE_TO_HOST) == 0
        array = np.frombuffer(acl.util.ptr_to_bytes(host, size), dtype=np.float32).reshape(shape).copy()
        acl.rt.free_host(host)
        return array

    def free(self):
        """Release every desc, data buffer and device buffer."""
        for buf in self.buffers:
            acl.destroy_data_buffer(buf)
        for desc in self.descs:
            acl.destroy_tensor_desc(desc)
        for ptr in self.pointers:
            acl.rt.free(ptr)


def run(stream, other, adjoint_a):
    """op(A) @ other on the device; (return code, result)."""
    rows = DENSE_SHAPE[1] if adjoint_a else DENSE_SHAPE[0]
    out_shape = (int(rows), other.shape[1])
    device = Device()
    inputs = [device.tensor(INDICES, ACL_INT64), device.tensor(VALUES, ACL_FLOAT),
              device.tensor(DENSE_SHAPE, ACL_INT64), device.tensor(other, ACL_FLOAT)]
    out_desc, out_buf = device.tensor(np.zeros(out_shape, np.float32), ACL_FLOAT)
    attr = acl.op.create_attr()
    if adjoint_a:
        assert acl.op.set_attr_bool(attr, "adjoint_a", 1) == 0
    ret = acl.op.execute_v2("SparseTensorDenseMatMul", [d for d, _ in inputs], [b for _, b in inputs],
                            [out_desc], [out_buf], attr, stream)
    result = None
    if ret == 0:
        assert acl.rt.synchronize_stream(stream) == 0
        result = device.read(4, out_shape)
    acl.op.destroy_attr(attr)
    device.free()
    return ret, result


def main(model_dir):
    failures = 0
    assert acl.init() == 0
    assert acl.rt.set_device(0) == 0
    context, ret = acl.rt.create_context(0)
    stream, ret = acl.rt.create_stream()
    assert acl.op.set_model_dir(model_dir) == 0
    rng = np.random.default_rng(3)
    for adjoint_a, other in ((False, rng.uniform(-2, 2, (5, 3)).astype(np.float32)),
                             (True, rng.uniform(-2, 2, (4, 3)).astype(np.float32))):
        ret, got = run(stream, other, adjoint_a)
        expected = coo_reference(INDICES, VALUES, DENSE_SHAPE, other, adjoint_a)
        ok = ret == 0 and np.allclose(got, expected, rtol=1e-6, atol=1e-6)
        print(f"SparseTensorDenseMatMul adjoint_a={adjoint_a}: ret {ret}, matches the COO reference: {ok}")
        failures += not ok
    acl.rt.destroy_stream(stream)
    acl.rt.destroy_context(context)
    acl.rt.reset_device(0)
    acl.finalize()
    print("sparse matmul", "OK" if not failures else f"FAILED ({failures})")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
