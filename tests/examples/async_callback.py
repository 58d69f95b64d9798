"""A pyacl program written from the documentation's asynchronous flow: events around an execute_v2, a host
callback processed on a report thread, device status and utilisation, app_log, and a full teardown.

    atc --singleop=tests/examples/data/add_op.json --output=op_models --soc_version=$SOC
    python tests/examples/async_callback.py op_models

Every call's documented return value is checked: a return code is 0, a handle is non-zero. Prints one line per
check; the first failed check exits non-zero with a message naming the call and what it returned.
"""

import sys
import threading

import numpy as np

import acl

ACL_INT32, ACL_FORMAT_ND = 3, 2
ACL_MEM_MALLOC_NORMAL_ONLY = 2
ACL_MEMCPY_HOST_TO_DEVICE, ACL_MEMCPY_DEVICE_TO_HOST = 1, 2
ACL_CALLBACK_BLOCK = 1
ACL_RT_DEVICE_STATUS_NORMAL = 0
ACL_INFO = 1
ACL_EVENT_RECORDED_STATUS_COMPLETE = 1
ACL_ERROR_RT_REPORT_TIMEOUT = 507012
REPORT_TIMEOUT_MS = 100


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


def handle(name, result):
    """Check a handle-returning call gave a non-zero handle and return it."""
    check(name, bool(result), result)
    return result


def start_report_thread(context, state):
    """Start the report thread; it polls process_report once state['subscribed'] is set, until state['running'] ends."""

    def report_loop(args):
        state["set_context"] = acl.rt.set_context(args[0])
        state["subscribed"].wait()
        while state["running"]:
            state["reports"].append(acl.rt.process_report(args[1]))

    return value("start_thread", acl.util.start_thread(report_loop, [context, REPORT_TIMEOUT_MS]))


def device_buffers(arrays, size):
    """Device memory of size bytes for each array (None: left unfilled), with a data buffer over each."""
    pointers, buffers = [], []
    for array in arrays:
        ptr = value("malloc", acl.rt.malloc(size, ACL_MEM_MALLOC_NORMAL_ONLY))
        if array is not None:
            payload = array.tobytes()
            code("memcpy host to device",
                 acl.rt.memcpy(ptr, size, acl.util.bytes_to_ptr(payload), size, ACL_MEMCPY_HOST_TO_DEVICE))
        pointers.append(ptr)
        buffers.append(handle("create_data_buffer", acl.create_data_buffer(ptr, size)))
    return pointers, buffers


def main(model_dir):
    code("init", acl.init())
    code("set_device", acl.rt.set_device(0))
    context = value("create_context", acl.rt.create_context(0))
    stream = value("create_stream", acl.rt.create_stream())
    code("set_model_dir", acl.op.set_model_dir(model_dir))

    state = {"running": True, "subscribed": threading.Event(), "reports": [], "results": []}
    thread_id = start_report_thread(context, state)
    code("subscribe_report", acl.rt.subscribe_report(thread_id, stream))
    state["subscribed"].set()

    a = np.arange(128, dtype=np.int32).reshape(8, 16)
    b = np.full((8, 16), 7, dtype=np.int32)
    descs = [handle("create_tensor_desc", acl.create_tensor_desc(ACL_INT32, [8, 16], ACL_FORMAT_ND)) for _ in range(3)]
    size = acl.get_tensor_desc_size(descs[0])
    check("get_tensor_desc_size", size == a.nbytes, size)
    pointers, buffers = device_buffers((a, b, None), size)
    host = value("malloc_host", acl.rt.malloc_host(size))
    start = value("create_event start", acl.rt.create_event())
    end = value("create_event end", acl.rt.create_event())
    attr = handle("create_attr", acl.op.create_attr())

    def on_result(user_data):
        ret = acl.rt.memcpy(host, size, pointers[2], size, ACL_MEMCPY_DEVICE_TO_HOST)
        state["results"].append((user_data, ret, np.frombuffer(acl.util.ptr_to_bytes(host, size), np.int32).copy()))

    code("record_event start", acl.rt.record_event(start, stream))
    code("execute_v2 Add", acl.op.execute_v2("Add", descs[:2], buffers[:2], descs[2:], buffers[2:], attr, stream))
    code("launch_callback", acl.rt.launch_callback(on_result, "add done", ACL_CALLBACK_BLOCK, stream))
    code("record_event end", acl.rt.record_event(end, stream))
    code("synchronize_stream", acl.rt.synchronize_stream(stream))
    status = acl.rt.query_event_status(end)
    check("query_event_status end", status == (ACL_EVENT_RECORDED_STATUS_COMPLETE, 0), status)
    elapsed = acl.rt.event_elapsed_time(start, end)
    check("event_elapsed_time", elapsed[1] == 0 and elapsed[0] > 0, elapsed)
    results = state["results"]
    check("callback ran once", len(results) == 1 and results[0][0] == "add done", results)
    code("memcpy device to host in the callback", results[0][1])
    check("callback saw the sum", np.array_equal(results[0][2].reshape(8, 16), a + b), results[0][2])

    status = acl.rt.query_device_status(0)
    check("query_device_status", status == (ACL_RT_DEVICE_STATUS_NORMAL, 0), status)
    rates = acl.rt.get_device_utilization_rate(0)
    check("get_device_utilization_rate", rates[1] == 0 and 0 <= rates[0]["cube_utilization"] <= 100, rates)
    logged = acl.app_log(ACL_INFO, "async_callback: done")
    check("app_log", logged is None, logged)

    state["running"] = False  # the thread ends after its current process_report, so it never polls unsubscribed
    code("unsubscribe_report", acl.rt.unsubscribe_report(thread_id, stream))
    code("stop_thread", acl.util.stop_thread(thread_id))
    code("set_context in the report thread", state["set_context"])
    reports = state["reports"]
    check("process_report ran the callback once, else timed out",
          reports.count(0) == 1 and all(ret in (0, ACL_ERROR_RT_REPORT_TIMEOUT) for ret in reports), reports)

    for name, event in (("start", start), ("end", end)):
        code(f"destroy_event {name}", acl.rt.destroy_event(event))
    check("destroy_attr", acl.op.destroy_attr(attr) is None)
    for desc in descs:
        check("destroy_tensor_desc", acl.destroy_tensor_desc(desc) is None)
    for buffer in buffers:
        code("destroy_data_buffer", acl.destroy_data_buffer(buffer))
    for ptr in pointers:
        code("free", acl.rt.free(ptr))
    code("free_host", acl.rt.free_host(host))
    code("destroy_stream", acl.rt.destroy_stream(stream))
    code("destroy_context", acl.rt.destroy_context(context))
    code("reset_device", acl.rt.reset_device(0))
    code("finalize", acl.finalize())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
