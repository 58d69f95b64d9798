"""A pyacl program in the style of a vendor compatibility kit's callback test: a report thread, blocking and
non-blocking host callbacks between asynchronous copies, synchronize_stream, and a full teardown.

    aclcts sim run -- python tests/examples/callback_sequence.py

Every call's return code is checked; the callbacks must run once each, in launch order, in the report thread, and
each must see the copy queued before it. Prints one line per check; the first failed check exits non-zero.
"""

import sys
import threading

import acl

ACL_MEM_MALLOC_NORMAL_ONLY = 2
ACL_MEMCPY_HOST_TO_DEVICE, ACL_MEMCPY_DEVICE_TO_HOST = 1, 2
ACL_CALLBACK_NO_BLOCK, ACL_CALLBACK_BLOCK = 0, 1
ACL_ERROR_RT_REPORT_TIMEOUT = 507012
REPORT_TIMEOUT_MS = 20
ROUNDS = 8
SIZE = 64


def check(name, ok, got=None):
    """Print one check; exit non-zero with a message if it failed."""
    if not ok:
        sys.exit(f"{name}: FAILED (returned {got!r})")
    print(f"{name}: ok")


def code(name, ret):
    """Check a call's return code is 0."""
    check(name, ret == 0, ret)


def value(name, result):
    """Check a (value, ret) pair has ret 0 and return the value."""
    check(name, result[1] == 0, result)
    return result[0]


def main():
    code("init", acl.init())
    code("set_device", acl.rt.set_device(0))
    context = value("create_context", acl.rt.create_context(0))
    stream = value("create_stream", acl.rt.create_stream())
    device = value("malloc", acl.rt.malloc(SIZE, ACL_MEM_MALLOC_NORMAL_ONLY))
    host = value("malloc_host", acl.rt.malloc_host(SIZE))

    state = {"running": True, "subscribed": threading.Event(), "reports": [], "seen": []}

    def report_loop(args):
        state["set_context"] = acl.rt.set_context(args[0])
        state["subscribed"].wait()
        while state["running"]:
            state["reports"].append(acl.rt.process_report(REPORT_TIMEOUT_MS))

    thread_id = value("start_thread", acl.util.start_thread(report_loop, [context]))
    code("subscribe_report", acl.rt.subscribe_report(thread_id, stream))
    state["subscribed"].set()

    def on_copied(number):
        # The copy queued before this callback has landed in host memory.
        state["seen"].append((number, threading.get_ident(), acl.util.ptr_to_bytes(host, SIZE)))

    for number in range(ROUNDS):
        payload = bytes([number]) * SIZE
        code("memcpy host to device", acl.rt.memcpy(device, SIZE, acl.util.bytes_to_ptr(payload), SIZE,
                                                    ACL_MEMCPY_HOST_TO_DEVICE))
        code("memcpy_async device to host", acl.rt.memcpy_async(host, SIZE, device, SIZE,
                                                                ACL_MEMCPY_DEVICE_TO_HOST, stream))
        block = ACL_CALLBACK_BLOCK if number % 2 else ACL_CALLBACK_NO_BLOCK
        code("launch_callback", acl.rt.launch_callback(on_copied, number, block, stream))
        code("synchronize_stream", acl.rt.synchronize_stream(stream))
    for number in range(ROUNDS, 2 * ROUNDS):
        block = ACL_CALLBACK_BLOCK if number % 2 else ACL_CALLBACK_NO_BLOCK
        code("launch_callback", acl.rt.launch_callback(on_copied, number, block, stream))
    code("synchronize_stream", acl.rt.synchronize_stream(stream))  # the last callback blocks: all have run

    state["running"] = False
    code("stop_thread", acl.util.stop_thread(thread_id))
    code("unsubscribe_report", acl.rt.unsubscribe_report(thread_id, stream))
    code("set_context in the report thread", state["set_context"])
    seen = state["seen"]
    check("every callback ran once, in launch order", [n for n, _, _ in seen] == list(range(2 * ROUNDS)),
          [n for n, _, _ in seen])
    check("every callback ran in the report thread", {t for _, t, _ in seen} == {thread_id}, {t for _, t, _ in seen})
    # A blocking callback sees exactly the copy before it; a non-blocking one may run after the next round's copy.
    check("each callback saw the copy before it (or a later one, if it does not block)",
          all(data == bytes([data[0]]) * SIZE and (data[0] == min(n, ROUNDS - 1) if n % 2 else data[0] >= n)
              for n, _, data in seen if n < ROUNDS) and all(data[0] == ROUNDS - 1 for n, _, data in seen if n >= ROUNDS),
          [data[0] for _, _, data in seen])
    reports = state["reports"]
    check("process_report ran each callback once, else timed out",
          reports.count(0) == 2 * ROUNDS and set(reports) <= {0, ACL_ERROR_RT_REPORT_TIMEOUT}, sorted(set(reports)))

    code("free_host", acl.rt.free_host(host))
    code("free", acl.rt.free(device))
    code("destroy_stream", acl.rt.destroy_stream(stream))
    code("destroy_context", acl.rt.destroy_context(context))
    code("reset_device", acl.rt.reset_device(0))
    code("finalize", acl.finalize())
    return 0


if __name__ == "__main__":
    sys.exit(main())
