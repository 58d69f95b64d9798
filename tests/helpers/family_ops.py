"""A fixed selection of the case library for self-tests whose cost would otherwise grow with it: one op type per record
family (the first of each, by name), so a new family joins it by itself and a new op type of a family does not."""

from __future__ import annotations

from aclcts.core.prototypes import families, op_types, prototype


def family_ops() -> list[str]:
    """The first op type (by name) of each record family, in family order."""
    first: dict[str, str] = {}
    for op_type in op_types():
        first.setdefault(prototype(op_type).family, op_type)
    return [first[family] for family in families() if family in first]
