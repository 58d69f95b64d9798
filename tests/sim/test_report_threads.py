"""Report-thread subscriptions beyond what conformance/test_sync.py holds a backend to."""

import threading

import pytest

from aclcts.sim import SimWarning


def test_subscribing_a_thread_that_is_not_running_succeeds_with_a_warning(session):
    # The runtime does not check the thread id (hicann/runtime src/runtime/core/src/utils/subscribe.cc); the simulator
    # warns, since no thread will ever run the stream's callbacks.
    acl, finished = session.acl, threading.Thread(target=lambda: None)
    finished.start()
    finished.join()
    with pytest.warns(SimWarning, match=f"{finished.ident} is not a running thread"):
        assert acl.rt.subscribe_report(finished.ident, session.stream) == 0
    assert acl.rt.unsubscribe_report(finished.ident, session.stream) == 0
