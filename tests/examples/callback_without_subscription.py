"""launch_callback on a stream that no report thread serves: 107015 (ACL_ERROR_RT_STREAM_NO_CB_REG), as a real
Ascend 910C gave in every such cell of a published run (FlagRT/runtime-team,
dev/device-context/benchmarks/inference/test_107015_exclusivity.py).

    aclcts sim run -- python tests/examples/callback_without_subscription.py

Prints one line per cell with the code it got and the code expected; exits non-zero if any differs.
"""

import sys
import threading

import acl

ACL_CALLBACK_NO_BLOCK, ACL_CALLBACK_BLOCK = 0, 1
ACL_ERROR_RT_STREAM_NO_CB_REG = 107015


def launch(stream, block_type=ACL_CALLBACK_NO_BLOCK):
    """launch_callback of a callback that does nothing."""
    return acl.rt.launch_callback(lambda data: None, None, block_type, stream)


def main():
    assert acl.init() == 0 and acl.rt.set_device(0) == 0
    me = threading.get_ident()
    streams = []

    def stream():
        created, ret = acl.rt.create_stream()
        assert ret == 0, ret
        streams.append(created)
        return created

    cells = []
    cells.append(("a fresh stream, no subscription", launch(stream()), ACL_ERROR_RT_STREAM_NO_CB_REG))
    cells.append(("another fresh stream, no subscription", launch(stream()), ACL_ERROR_RT_STREAM_NO_CB_REG))
    subscribed = stream()
    cells.append(("a subscribed stream: subscribe, launch, synchronize, process_report in this thread",
                  (acl.rt.subscribe_report(me, subscribed), launch(subscribed), acl.rt.synchronize_stream(subscribed),
                   acl.rt.process_report(1000)), (0, 0, 0, 0)))
    unsubscribed = stream()
    cells.append(("subscribed, unsubscribed, then launched",
                  (acl.rt.subscribe_report(me, unsubscribed), acl.rt.unsubscribe_report(me, unsubscribed),
                   launch(unsubscribed)), (0, 0, ACL_ERROR_RT_STREAM_NO_CB_REG)))
    cells.append(("no subscription, ACL_CALLBACK_BLOCK", launch(stream(), ACL_CALLBACK_BLOCK),
                  ACL_ERROR_RT_STREAM_NO_CB_REG))
    assert acl.rt.unsubscribe_report(me, subscribed) == 0
    for created in streams:
        assert acl.rt.destroy_stream(created) == 0
    assert acl.rt.set_device(1) == 0
    on_device_1, ret = acl.rt.create_stream()
    assert ret == 0
    cells.append(("device 1, no subscription", launch(on_device_1), ACL_ERROR_RT_STREAM_NO_CB_REG))
    assert acl.rt.destroy_stream(on_device_1) == 0 and acl.rt.reset_device(1) == 0
    assert acl.rt.reset_device(0) == 0 and acl.finalize() == 0
    failed = False
    for name, got, expected in cells:
        print(f"{name}: {got} (expected {expected})")
        failed = failed or got != expected
    if failed:
        sys.exit("a cell gave another code than a real device")
    print("every cell gave the code a real device gave")
    return 0


if __name__ == "__main__":
    sys.exit(main())
