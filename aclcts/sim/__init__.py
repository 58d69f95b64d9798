"""The strict pyacl simulator: `from aclcts.sim import acl` behaves like the real `import acl`."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from aclcts.sim import (  # noqa: F401  (register exports)
    api_attr, api_blas, api_callback, api_device, api_media, api_memory, api_op, api_status, api_stream, api_tensor,
    api_util,
)
from aclcts.sim import core
from aclcts.sim.errors import NotSimulatedError, SimMisuseError, SimWarning
from aclcts.sim.kernels import register_kernel, simulation_gap
from aclcts.sim.module import build_acl_module
from aclcts.sim.settings import Settings, updated
from aclcts.sim.tracking import LiveObject

acl = build_acl_module()

__all__ = ["acl", "isolated", "register_kernel", "simulation_gap", "reset", "configure", "settings", "live_objects", "SimMisuseError", "SimWarning", "NotSimulatedError", "LiveObject", "Settings"]


def reset() -> None:
    """Discard all simulator state, as if the process restarted; settings are kept."""
    core.replace_state(core.STATE.settings)


def configure(**changes: object) -> Settings:
    """Change simulator settings (see Settings) and start a fresh simulated process with them."""
    new = updated(core.STATE.settings, **changes)
    core.replace_state(new)
    return settings()


def settings() -> Settings:
    """A copy of the current simulator settings."""
    return updated(core.STATE.settings)


def live_objects(kind: str | None = None) -> list[LiveObject]:
    """Objects created and not yet destroyed (descs, buffers, attrs, handles, streams, contexts, events, memory)."""
    return core.STATE.tracker.objects(kind)


@contextmanager
def isolated(**changes: object) -> Iterator[None]:
    """Run a block in a fresh simulated process (optionally with changed settings), then restore the previous one."""
    saved = core.STATE
    core.replace_state(updated(saved.settings, **changes))
    try:
        yield
    finally:
        core.use_state(saved)
