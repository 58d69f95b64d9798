"""The simulator as MODULE:ATTR backends that declare one capability each (`--backend=capability_backends:real`)."""

import types

from aclcts.sim import acl as simulated


def declaring(**capabilities: bool) -> types.SimpleNamespace:
    """A pyacl-compatible wrapper of the simulator with these capability attributes."""
    wrapper = types.SimpleNamespace(**{name: getattr(simulated, name) for name in dir(simulated)
                                       if not name.startswith("__")})
    vars(wrapper).update(capabilities)
    return wrapper


plain = declaring()
real = declaring(real_device=True)
calm = declaring(never_hangs=True)
sim_devices = declaring(simulated_devices=True)
