"""--device-id against the backend's device count: asked once, after acl.init when the count needs it."""

import types

import aclcts.sim
from aclcts.drive.backends import device_problem
from aclcts.sim import acl


def test_a_device_beyond_the_count_is_named_with_the_count():
    with aclcts.sim.isolated(device_count=3):
        assert device_problem(acl, 2) is None
        assert device_problem(acl, 3) == ("--device-id=3: the backend has 3 device(s) (acl.rt.get_device_count); "
                                          "expected 0..2")
        assert device_problem(acl, -1) is not None


def test_a_count_that_needs_acl_init_is_asked_after_it():
    with aclcts.sim.isolated(device_count=2, require_init=True):
        assert device_problem(acl, 2) is not None
        assert acl.init() == 100002  # the session's own acl.init is accepted as a repeat


def test_a_backend_that_cannot_count_leaves_the_check_to_set_device():
    def broken() -> int:
        raise RuntimeError("driver gone")

    assert device_problem(types.SimpleNamespace(rt=types.SimpleNamespace()), 9) is None
    assert device_problem(types.SimpleNamespace(rt=types.SimpleNamespace(get_device_count=broken)), 9) is None
