"""Two blocking host callbacks, then synchronize_stream while a report thread runs them (issue 38's reproducer).

    aclcts sim run -- python tests/examples/two_blocking_callbacks.py
"""
import time
import acl

acl.init(); acl.rt.set_device(0)
context, _ = acl.rt.create_context(0); stream, _ = acl.rt.create_stream()
state = {"running": True, "seen": []}
def serve(args):
    acl.rt.set_context(args[0])
    while state["running"]: acl.rt.process_report(10)
thread, _ = acl.util.start_thread(serve, [context])
assert acl.rt.subscribe_report(thread, stream) == 0
for number in range(2):
    assert acl.rt.launch_callback(lambda n: (time.sleep(0.05), state["seen"].append(n)), number, 1, stream) == 0
assert acl.rt.synchronize_stream(stream) == 0 and state["seen"] == [0, 1], state["seen"]
state["running"] = False; acl.util.stop_thread(thread); acl.rt.unsubscribe_report(thread, stream)
acl.rt.destroy_stream(stream); acl.rt.destroy_context(context); acl.rt.reset_device(0); acl.finalize()
print("both callbacks ran before synchronize_stream returned")
