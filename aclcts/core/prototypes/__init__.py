"""The CANN operator prototypes the suite knows, one module per family, looked up by op type.

Every module of this package except `spec` and `dtypes` defines PROTOTYPES, a tuple of spec.Prototype.
"""

from __future__ import annotations

import importlib
import pkgutil
from functools import cache

from aclcts.core.prototypes.spec import REQUIRED, Attr, Prototype, Tensor, op

_NOT_FAMILIES = ("spec", "dtypes")


@cache
def _table() -> dict[str, Prototype]:
    """Every family module's prototypes by op type; an op type defined twice is a programming error."""
    table: dict[str, Prototype] = {}
    for module in sorted(m.name for m in pkgutil.iter_modules(__path__) if m.name not in _NOT_FAMILIES):
        for proto in importlib.import_module(f"{__name__}.{module}").PROTOTYPES:
            if proto.op_type in table:
                raise ValueError(f"prototype {proto.op_type!r} is defined twice (second in {module})")
            table[proto.op_type] = proto
    return table


def prototype(op_type: str) -> Prototype | None:
    """The prototype of a built-in op type, or None if the suite has none."""
    return _table().get(op_type)


def op_types() -> tuple[str, ...]:
    """Every op type with a prototype, sorted."""
    return tuple(sorted(_table()))


__all__ = ["REQUIRED", "Attr", "Prototype", "Tensor", "op", "op_types", "prototype"]
