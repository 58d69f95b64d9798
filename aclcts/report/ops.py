"""The op a case id is about, for grouping report rows by op."""

from __future__ import annotations

import re

from aclcts.core.dtypes import JSON_TYPE_NAMES

_DTYPE = "|".join(sorted(map(re.escape, JSON_TYPE_NAMES.values()), key=len, reverse=True))
# A case-library id is OP-DTYPES-SHAPES[-attrsN] (aclcts.cases.load): a CANN prototype name (a capital first, no
# underscore), then the case's data type names joined by "_"; other tests' parameters (FLOAT16-input0, ACL_INT8,
# HUGE_FIRST) are not followed by data type names.
_OP_PARAMETER = re.compile(rf"\[([A-Z][A-Za-z0-9]*)-(?:{_DTYPE})(?:_(?:{_DTYPE}))*[-\]]")


def op_of(case_id: str) -> str | None:
    """The op type of a case-library test id such as `test_x[Add-float16-2x3]`, or None for other tests."""
    match = _OP_PARAMETER.search(case_id)
    return match.group(1) if match else None


def group_of(case_id: str) -> str:
    """The op of a case id, or the test function (file::name without parameters) of a test that has no op."""
    op = op_of(case_id)
    return op if op is not None else case_id.split("[", 1)[0]
