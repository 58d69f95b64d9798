"""A memory-management pyacl program that uses DVPP memory: acl.media.dvpp_malloc and dvpp_free around copies.

    aclcts sim run -- python tests/examples/dvpp_memory.py

DVPP memory is device memory whose start is 128-byte aligned; any device work may use it. Prints one line per check;
the first failed check exits non-zero.
"""

import sys

import acl

ACL_MEM_MALLOC_NORMAL_ONLY = 2
ACL_MEMCPY_HOST_TO_DEVICE, ACL_MEMCPY_DEVICE_TO_HOST, ACL_MEMCPY_DEVICE_TO_DEVICE = 1, 2, 3
SIZES = (1, 100, 4096, 1 << 20)


def check(name, ok, got=None):
    """Print one check; exit non-zero with a message if it failed."""
    if not ok:
        sys.exit(f"{name}: FAILED (returned {got!r})")
    print(f"{name}: ok")


def value(name, result):
    """Check a (value, ret) pair has ret 0 and return the value."""
    check(name, result[1] == 0, result)
    return result[0]


def main():
    check("init", acl.init() == 0)
    check("set_device", acl.rt.set_device(0) == 0)
    context = value("create_context", acl.rt.create_context(0))
    for size in SIZES:
        payload = bytes(i % 251 for i in range(size))
        dvpp = value(f"dvpp_malloc({size})", acl.media.dvpp_malloc(size))
        check(f"dvpp_malloc({size}) is 128-byte aligned", dvpp % 128 == 0, hex(dvpp))
        device = value("malloc", acl.rt.malloc(size, ACL_MEM_MALLOC_NORMAL_ONLY))
        host = value("malloc_host", acl.rt.malloc_host(size))
        check("memcpy host to DVPP memory", acl.rt.memcpy(dvpp, size, acl.util.bytes_to_ptr(payload), size,
                                                          ACL_MEMCPY_HOST_TO_DEVICE) == 0)
        check("memcpy DVPP to device memory", acl.rt.memcpy(device, size, dvpp, size,
                                                            ACL_MEMCPY_DEVICE_TO_DEVICE) == 0)
        check("memcpy device to host", acl.rt.memcpy(host, size, device, size, ACL_MEMCPY_DEVICE_TO_HOST) == 0)
        check("the bytes came back", acl.util.ptr_to_bytes(host, size) == payload)
        check("free_host", acl.rt.free_host(host) == 0)
        check("free", acl.rt.free(device) == 0)
        check("dvpp_free", acl.media.dvpp_free(dvpp) == 0)
    check("destroy_context", acl.rt.destroy_context(context) == 0)
    check("reset_device", acl.rt.reset_device(0) == 0)
    check("finalize", acl.finalize() == 0)
    print("DVPP memory round trips intact")
    return 0


if __name__ == "__main__":
    sys.exit(main())
