"""Assemble the pyacl-shaped module objects (acl, acl.rt, acl.op, acl.util, acl.blas, acl.media) from the exports."""

from __future__ import annotations

import types

from aclcts.sim.api_media import not_simulated
from aclcts.sim.core import EXPORTS

_SUBMODULES = ("rt", "op", "util", "blas", "media")


def build_acl_module() -> types.ModuleType:
    """Return a fresh module object `acl` whose attributes are the simulated binding functions."""
    acl = types.ModuleType("acl", "Simulated pyacl (aclcts.sim): the Ascend CANN Python API without hardware.")
    for name, function in EXPORTS[""].items():
        setattr(acl, name, function)
    for sub in _SUBMODULES:
        module = types.ModuleType(f"acl.{sub}")
        for name, function in EXPORTS[sub].items():
            setattr(module, name, function)
        setattr(acl, sub, module)
    acl.media.__getattr__ = _raise_not_simulated
    return acl


def _raise_not_simulated(name: str) -> None:
    """acl.media's module __getattr__: every name it does not hold is a function the simulator does not provide."""
    raise not_simulated(name)
