"""`import acl` resolves here under `aclcts sim run`: the simulator stands in for the real pyacl."""

import sys

from aclcts.sim import acl as _simulated

sys.modules["acl"] = _simulated
for _name in ("rt", "op", "util", "blas", "media"):
    sys.modules[f"acl.{_name}"] = getattr(_simulated, _name)
