"""An unmodified pyacl program from the documentation: copy bytes to the device, across, and back.

Run it with `aclcts sim run -- python tests/examples/copy_roundtrip.py` (or on an NPU host with
`python tests/examples/copy_roundtrip.py`). Pass `--skip-sync` to leave out the synchronize: the
program then reads stale device memory, which is what a conformance suite must be able to catch.
"""

import sys

import acl

ACL_MEM_MALLOC_NORMAL_ONLY = 2
ACL_MEMCPY_HOST_TO_DEVICE = 1
ACL_MEMCPY_DEVICE_TO_HOST = 2
ACL_MEMCPY_DEVICE_TO_DEVICE = 3


def check(ret: int, what: str) -> None:
    """Stop the program with a message if a pyacl call failed."""
    if ret != 0:
        raise SystemExit(f"{what} failed with {ret}")


def main() -> int:
    """Run the round trip and print the bytes that came back."""
    skip_sync = "--skip-sync" in sys.argv
    payload = bytes(range(256)) * 4
    size = len(payload)
    check(acl.init(), "acl.init")
    check(acl.rt.set_device(0), "set_device")
    context, ret = acl.rt.create_context(0)
    check(ret, "create_context")
    stream, ret = acl.rt.create_stream()
    check(ret, "create_stream")
    first, ret = acl.rt.malloc(size, ACL_MEM_MALLOC_NORMAL_ONLY)
    check(ret, "malloc")
    second, ret = acl.rt.malloc(size, ACL_MEM_MALLOC_NORMAL_ONLY)
    check(ret, "malloc")
    check(acl.rt.memset(second, size, 0, size), "memset")
    check(acl.rt.memcpy(first, size, acl.util.bytes_to_ptr(payload), size, ACL_MEMCPY_HOST_TO_DEVICE), "memcpy H2D")
    check(acl.rt.memcpy_async(second, size, first, size, ACL_MEMCPY_DEVICE_TO_DEVICE, stream), "memcpy_async D2D")
    if not skip_sync:
        check(acl.rt.synchronize_stream(stream), "synchronize_stream")
    host, ret = acl.rt.malloc_host(size)
    check(ret, "malloc_host")
    check(acl.rt.memcpy(host, size, second, size, ACL_MEMCPY_DEVICE_TO_HOST), "memcpy D2H")
    result = acl.util.ptr_to_bytes(host, size)
    check(acl.rt.synchronize_stream(stream), "synchronize_stream")
    check(acl.rt.free_host(host), "free_host")
    check(acl.rt.free(first), "free")
    check(acl.rt.free(second), "free")
    check(acl.rt.destroy_stream(stream), "destroy_stream")
    check(acl.rt.destroy_context(context), "destroy_context")
    check(acl.rt.reset_device(0), "reset_device")
    check(acl.finalize(), "finalize")
    print("round trip", "intact" if result == payload else "STALE")
    return 0 if result == payload else 1


if __name__ == "__main__":
    sys.exit(main())
