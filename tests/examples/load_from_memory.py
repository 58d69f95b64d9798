"""An unmodified pyacl program: single-op models read into memory and registered with acl.op.load.

    atc --singleop=tests/examples/data/load_from_memory_ops.json --output=op_models --soc_version=$SOC
    python tests/examples/load_from_memory.py op_models

Every .om file of the folder is read into a bytes object, passed to acl.op.load and then dropped (load
copies the model). Sub and Mul then run from the registered models. Prints one line per check and exits
non-zero if a result or an error code of the misuse probes is wrong.
"""

import gc
import os
import sys

import numpy as np

import acl

ACL_FLOAT, ACL_INT32 = 0, 3
ACL_FORMAT_ND = 2
ACL_MEM_MALLOC_NORMAL_ONLY = 2
ACL_MEMCPY_HOST_TO_DEVICE, ACL_MEMCPY_DEVICE_TO_HOST = 1, 2
ACL_ERROR_INVALID_PARAM = 100000
ACL_ERROR_DESERIALIZE_MODEL = 100012
ACL_ERROR_PARSE_MODEL = 100013
ACL_ERROR_OP_NOT_FOUND = 100024
ACL_TYPES = {np.dtype(np.float32): ACL_FLOAT, np.dtype(np.int32): ACL_INT32}


def probe(name, got, expected):
    """Print one check and return 1 if it failed."""
    print(f"{name}: {got} (expected {expected})")
    return int(got != expected)


def load_folder(model_dir):
    """acl.op.load every .om file of model_dir from a bytes copy; return the list of return codes."""
    codes = []
    for name in sorted(os.listdir(model_dir)):
        if name.endswith(".om"):
            with open(os.path.join(model_dir, name), "rb") as handle:
                data = handle.read()
            codes.append(acl.op.load(acl.util.bytes_to_ptr(data), len(data)))
            del data
    gc.collect()
    return codes


def run(op_type, a, b, stream, cleanup):
    """Execute a two-input op on device copies of a and b; return (ret, result array)."""
    acl_type = ACL_TYPES[a.dtype]
    descs = [acl.create_tensor_desc(acl_type, list(a.shape), ACL_FORMAT_ND) for _ in range(3)]
    size = acl.get_tensor_desc_size(descs[0])
    buffers, pointers = [], []
    payloads = [a.tobytes(), b.tobytes(), None]
    for payload in payloads:
        ptr, ret = acl.rt.malloc(size, ACL_MEM_MALLOC_NORMAL_ONLY)
        if payload is not None:
            acl.rt.memcpy(ptr, size, acl.util.bytes_to_ptr(payload), size, ACL_MEMCPY_HOST_TO_DEVICE)
        pointers.append(ptr)
        buffers.append(acl.create_data_buffer(ptr, size))
    ret = acl.op.execute_v2(op_type, descs[:2], buffers[:2], descs[2:], buffers[2:], 0, stream)
    acl.rt.synchronize_stream(stream)
    host, _ = acl.rt.malloc_host(size)
    acl.rt.memcpy(host, size, pointers[2], size, ACL_MEMCPY_DEVICE_TO_HOST)
    result = np.frombuffer(acl.util.ptr_to_bytes(host, size), a.dtype).reshape(a.shape)
    cleanup.append((descs, buffers, pointers, host))
    return ret, result


def main(model_dir):
    """Load the models from memory, run them, and probe acl.op.load's error codes."""
    failures = 0
    acl.init()
    acl.rt.set_device(0)
    context, ret = acl.rt.create_context(0)
    stream, ret = acl.rt.create_stream()
    codes = load_folder(model_dir)
    failures += probe("acl.op.load of every model", codes, [0, 0])
    cleanup = []
    a = np.arange(128, dtype=np.int32).reshape(8, 16)
    ret, diff = run("Sub", a, np.full((8, 16), 50, np.int32), stream, cleanup)
    failures += probe("Sub from a loaded model", (ret, bool(np.array_equal(diff, a - 50))), (0, True))
    x = np.linspace(-1.5, 1.5, 16, dtype=np.float32).reshape(4, 4)
    ret, product = run("Mul", x, x, stream, cleanup)
    failures += probe("Mul from a loaded model", (ret, bool(np.array_equal(product, x * x))), (0, True))
    ret, _ = run("Mul", a, a, stream, cleanup)
    failures += probe("Mul on int32 [8, 16] (not compiled)", ret, ACL_ERROR_OP_NOT_FOUND)

    garbage = b"this is not a single-operator model" * 4
    failures += probe("load(0, size)", acl.op.load(0, len(garbage)), ACL_ERROR_INVALID_PARAM)
    failures += probe("load(ptr, 0)", acl.op.load(acl.util.bytes_to_ptr(garbage), 0), ACL_ERROR_INVALID_PARAM)
    ret = acl.op.load(acl.util.bytes_to_ptr(garbage), len(garbage))
    failures += probe("load of garbage is 100012 or 100013", ret in (ACL_ERROR_DESERIALIZE_MODEL,
                                                                      ACL_ERROR_PARSE_MODEL), True)

    for descs, buffers, pointers, host in cleanup:
        for buf in buffers:
            acl.destroy_data_buffer(buf)
        for ptr in pointers:
            acl.rt.free(ptr)
        for desc in descs:
            acl.destroy_tensor_desc(desc)
        acl.rt.free_host(host)
    acl.rt.destroy_stream(stream)
    acl.rt.destroy_context(context)
    acl.rt.reset_device(0)
    acl.finalize()
    print("load from memory", "OK" if not failures else f"FAILED ({failures})")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
