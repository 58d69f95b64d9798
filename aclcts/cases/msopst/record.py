"""The facts of an op type that an msopst sub-case takes from the op's record: its shape rule and its policy class."""

from __future__ import annotations

from aclcts.core.prototypes import Prototype, lookup
from aclcts.core.prototypes.vendors import VendorRecordError


def _record(op_type: str) -> Prototype | None:
    try:
        return lookup(op_type)[0]
    except VendorRecordError:
        return None


def record_shape_rule(op_type: str) -> str:
    """The shape rule of an op type's dynamic cases (one of aclcts.cases.schema.SHAPE_RULES): its record's, "each"
    for an op without a record."""
    record = _record(op_type)
    return record.shape_rule if record is not None else "each"


def record_policy_class(op_type: str) -> str:
    """The precision policy class of an op type: its record's, "elementwise" for an op without a record."""
    record = _record(op_type)
    return record.policy if record is not None else "elementwise"
