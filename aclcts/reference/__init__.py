"""Independent NumPy float64 reference implementations of the suite's operators, looked up by IR op type.

Each RefOp takes the inputs exactly as given to the device (their real dtypes), computes in a wide type
(float64, int64/uint64, bool or complex128) and rounds once to each output dtype with `round_to`.
This package never imports the simulator: the two must not share numerics.
"""

from __future__ import annotations

from aclcts.reference import cast, elementwise, index, matmul, nn, reduction, shape
from aclcts.reference.base import REQUIRED, RefOp
from aclcts.reference.numeric import round_to

_REGISTRY: dict[str, RefOp] = {
    op.op_type: op
    for family in (elementwise, reduction, matmul, shape, index, nn, cast)
    for op in family.OPS
}

OP_TYPES: tuple[str, ...] = tuple(sorted(_REGISTRY))


def reference(op_type: str) -> RefOp:
    """Return the reference of an IR op type; KeyError naming it and listing the known ones."""
    try:
        return _REGISTRY[op_type]
    except KeyError:
        raise KeyError(f"no reference for op type {op_type!r}; known: {', '.join(OP_TYPES)}") from None


__all__ = ["OP_TYPES", "REQUIRED", "RefOp", "reference", "round_to"]
