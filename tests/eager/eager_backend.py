"""A MODULE:ATTR backend that completes all work eagerly: the simulator with every queued task run when queued.

`--backend=eager_backend:make` (with this folder on PYTHONPATH). The simulator runs queued work at once through its
stream seams (the `work_completes_eagerly` deviation of aclcts.sim.faults); the object handed to the suite is a copy
of the simulator's acl that declares no deferred execution, as a wrapper around a real device would not.
"""

from __future__ import annotations

import types

from aclcts.drive.backends import mutable_copy

#: The deviation that makes the simulator run queued work as soon as it is queued.
EAGER = "work_completes_eagerly"


def make() -> types.SimpleNamespace:
    """The simulator's acl, every queued stream task run when it is queued (other faults named in the environment
    stay on)."""
    from aclcts import sim

    sim.configure(faults=sim.settings().faults | {EAGER})
    return mutable_copy(sim.acl)
