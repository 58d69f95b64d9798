"""The simulator as MODULE:ATTR backends that declare one capability each (`--backend=capability_backends:real`)."""

import itertools
import types

from aclcts.drive.backends import mutable_copy
from aclcts.sim import acl as simulated

#: Bytes of free device memory a drifting backend's get_mem_info loses at each call (a runtime cache growing).
DRIFT = 4096


def declaring(**capabilities: bool) -> types.SimpleNamespace:
    """A pyacl-compatible copy of the simulator with these capability attributes."""
    wrapper = mutable_copy(simulated)
    vars(wrapper).update(capabilities)
    return wrapper


def drifting(**capabilities: bool) -> types.SimpleNamespace:
    """declaring(...) whose acl.rt.get_mem_info reports DRIFT bytes less free memory at each call."""
    wrapper = declaring(**capabilities)
    calls = itertools.count()

    def get_mem_info(attr):
        free, total, ret = simulated.rt.get_mem_info(attr)
        return free - DRIFT * next(calls), total, ret

    wrapper.rt.get_mem_info = get_mem_info
    return wrapper


plain = declaring()
real = declaring(real_device=True)
calm = declaring(never_hangs=True)
sim_devices = declaring(simulated_devices=True)
drifting_plain = drifting()
drifting_real = drifting(real_device=True)
