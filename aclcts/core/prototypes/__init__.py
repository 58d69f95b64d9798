"""The operator records the suite knows, one module per family, looked up by op type.

Every module of this package except those in _NOT_FAMILIES is a family: it defines PROTOTYPES, a tuple of
spec.Prototype, and the family's default precision policy (POLICY) and shape rule (SHAPE_RULE), which a record
overrides by giving its own. The module's name is the family's name everywhere: aclcts/reference/<family>.py,
aclcts/sim/kernels/<family>.py, aclcts/sim/faults/<family>.py and cases/<family>/. Custom operators' prototypes come
from the OPP vendor folders (`vendors`); op types a program gave a custom kernel are recorded in `registered`.
"""

from __future__ import annotations

import dataclasses
import importlib
import pkgutil
from functools import cache

from aclcts.core.prototypes.registered import declared
from aclcts.core.prototypes.spec import REQUIRED, Attr, Prototype, Sample, Tensor, op
from aclcts.core.prototypes.vendors import VendorRecordError, vendor_prototype

#: Modules of this package that are not families.
_NOT_FAMILIES = ("spec", "dtypes", "check", "registered", "vendors")


@cache
def _table() -> dict[str, Prototype]:
    """Every family module's prototypes by op type; an op type defined twice is a programming error."""
    table: dict[str, Prototype] = {}
    for name in families():
        module = importlib.import_module(f"{__name__}.{name}")
        for proto in module.PROTOTYPES:
            if proto.op_type in table:
                raise ValueError(f"prototype {proto.op_type!r} is defined twice (second in {name})")
            table[proto.op_type] = dataclasses.replace(proto, family=name, policy=proto.policy or module.POLICY,
                                                       shape_rule=proto.shape_rule or module.SHAPE_RULE)
    return table


@cache
def families() -> tuple[str, ...]:
    """The family names: the modules of this package that hold records, sorted."""
    return tuple(sorted(m.name for m in pkgutil.iter_modules(__path__) if m.name not in _NOT_FAMILIES))


def prototype(op_type: str) -> Prototype | None:
    """The prototype of a built-in op type, or None if the suite has none."""
    return _table().get(op_type)


def lookup(op_type: str) -> tuple[Prototype | None, str]:
    """What the ATC compiles op_type against: (prototype, "vendor") from an OPP vendor folder, else (prototype,
    "built-in"), else (None, "custom kernel") for an op type a kernel was registered for, else (None, "unknown").

    VendorRecordError if the vendor record is not valid.
    """
    found = vendor_prototype(op_type)
    if found is not None:
        return found, "vendor"
    found = prototype(op_type)
    if found is not None:
        return found, "built-in"
    return None, "custom kernel" if declared(op_type) else "unknown"


def op_types() -> tuple[str, ...]:
    """Every op type with a prototype, sorted."""
    return tuple(sorted(_table()))


__all__ = ["REQUIRED", "Attr", "Prototype", "Sample", "Tensor", "VendorRecordError", "families", "lookup", "op",
           "op_types", "prototype"]
