"""A pyacl program written from the documentation's asynchronous flow: events around an execute_v2, a host
callback processed on a report thread, device status and utilisation, app_log, and a full teardown.

    atc --singleop=tests/examples/data/add_op.json --output=op_models --soc_version=$SOC
    python tests/examples/async_callback.py op_models

Prints one line per check and exits non-zero if any fails.
"""

import sys

import numpy as np

import acl

ACL_INT32, ACL_FORMAT_ND = 3, 2
ACL_MEM_MALLOC_NORMAL_ONLY = 2
ACL_MEMCPY_HOST_TO_DEVICE, ACL_MEMCPY_DEVICE_TO_HOST = 1, 2
ACL_CALLBACK_BLOCK = 1
ACL_RT_DEVICE_STATUS_NORMAL = 0
ACL_INFO = 1
ACL_EVENT_RECORDED_STATUS_COMPLETE = 1


def check(name, ok):
    """Print one check and return 1 if it failed."""
    print(f"{name}: {'ok' if ok else 'FAILED'}")
    return 0 if ok else 1


def main(model_dir):
    failures = 0
    assert acl.init() == 0
    assert acl.rt.set_device(0) == 0
    context, ret = acl.rt.create_context(0)
    stream, ret = acl.rt.create_stream()
    assert acl.op.set_model_dir(model_dir) == 0

    state = {"running": True, "results": []}

    def report_loop(args):
        acl.rt.set_context(args[0])
        while state["running"]:
            acl.rt.process_report(args[1])

    thread_id, ret = acl.util.start_thread(report_loop, [context, 100])
    failures += check("start_thread", ret == 0)
    failures += check("subscribe_report", acl.rt.subscribe_report(thread_id, stream) == 0)

    a = np.arange(128, dtype=np.int32).reshape(8, 16)
    b = np.full((8, 16), 7, dtype=np.int32)
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
    host, ret = acl.rt.malloc_host(size)
    start, ret = acl.rt.create_event()
    end, ret = acl.rt.create_event()
    attr = acl.op.create_attr()

    def on_result(user_data):
        acl.rt.memcpy(host, size, pointers[2], size, ACL_MEMCPY_DEVICE_TO_HOST)
        state["results"].append((user_data, np.frombuffer(acl.util.ptr_to_bytes(host, size), np.int32).copy()))

    failures += check("record_event start", acl.rt.record_event(start, stream) == 0)
    ret = acl.op.execute_v2("Add", descs[:2], buffers[:2], descs[2:], buffers[2:], attr, stream)
    failures += check("execute_v2 Add", ret == 0)
    failures += check("launch_callback", acl.rt.launch_callback(on_result, "add done", ACL_CALLBACK_BLOCK, stream) == 0)
    failures += check("record_event end", acl.rt.record_event(end, stream) == 0)
    failures += check("synchronize_stream", acl.rt.synchronize_stream(stream) == 0)
    failures += check("query_event_status end", acl.rt.query_event_status(end) == (ACL_EVENT_RECORDED_STATUS_COMPLETE, 0))
    elapsed, ret = acl.rt.event_elapsed_time(start, end)
    failures += check("event_elapsed_time", ret == 0 and elapsed >= 0)
    results = state["results"]
    failures += check("callback ran once with the sum",
                      len(results) == 1 and results[0][0] == "add done" and np.array_equal(results[0][1].reshape(8, 16), a + b))

    status, ret = acl.rt.query_device_status(0)
    failures += check("query_device_status", (status, ret) == (ACL_RT_DEVICE_STATUS_NORMAL, 0))
    rates, ret = acl.rt.get_device_utilization_rate(0)
    failures += check("get_device_utilization_rate", ret == 0 and 0 <= rates["cube_utilization"] <= 100)
    failures += check("app_log", acl.app_log(ACL_INFO, "async_callback: done") is None)

    failures += check("unsubscribe_report", acl.rt.unsubscribe_report(thread_id, stream) == 0)
    state["running"] = False
    failures += check("stop_thread", acl.util.stop_thread(thread_id) == 0)
    for event in (start, end):
        failures += check("destroy_event", acl.rt.destroy_event(event) == 0)
    acl.op.destroy_attr(attr)
    for handle in descs:
        acl.destroy_tensor_desc(handle)
    for handle in buffers:
        failures += check("destroy_data_buffer", acl.destroy_data_buffer(handle) == 0)
    for ptr in pointers:
        failures += check("free", acl.rt.free(ptr) == 0)
    failures += check("free_host", acl.rt.free_host(host) == 0)
    failures += check("destroy_stream", acl.rt.destroy_stream(stream) == 0)
    failures += check("destroy_context", acl.rt.destroy_context(context) == 0)
    failures += check("reset_device", acl.rt.reset_device(0) == 0)
    failures += check("finalize", acl.finalize() == 0)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
