"""The simulator with one table fault switched on, as a `--backend=MODULE:ATTR` backend (one the suite does not know
to be the simulator, so it runs as it would against a third-party pyacl)."""

from __future__ import annotations

from typing import Any

import aclcts.sim


def changed_output_element() -> Any:
    """The simulator with execute_overwrites_output on: every op execution overwrites its first output's first byte."""
    aclcts.sim.configure(faults="execute_overwrites_output")
    return aclcts.sim.acl
