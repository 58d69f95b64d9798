"""placeholder"""

from __future__ import annotations

from aclcts.reference.base import RefOp

OPS: tuple[RefOp, ...] = ()
