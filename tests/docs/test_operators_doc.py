"""docs/operators.md lists exactly the op types of the case library, each with a prototype, and states their count."""

from __future__ import annotations

import re
from pathlib import Path

from aclcts.cases import load_cases
from aclcts.core.prototypes import prototype

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "operators.md"


def test_the_operator_list_is_the_case_librarys():
    text = DOC.read_text(encoding="utf-8")
    listed = re.findall(r"^\| ([A-Z][A-Za-z0-9]*) \|", text, flags=re.MULTILINE)
    library = {case.op for case in load_cases([str(ROOT / "cases")], kind="all")}
    assert len(listed) == len(set(listed)), "an op type is listed twice"
    assert set(listed) == library, (f"missing from the doc: {sorted(library - set(listed))}; "
                                    f"not in the case library: {sorted(set(listed) - library)}")
    assert f"**{len(library)} CANN operator types**" in text
    assert all(prototype(op) is not None for op in library)
