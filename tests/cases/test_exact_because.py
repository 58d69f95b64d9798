"""No case is judged more strictly than the documentation (issue 40): every case judged by the exact policy carries
the documentation line that demands exactness, its own (`exact_because:`) or its default rule's."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from aclcts.cases import CaseFileError, domains, expand_file
from aclcts.cases.defaults import SHIPPED_CASES, with_defaults
from aclcts.cases.load import load_cases
from aclcts.cases.schema import EXACT_BECAUSE
from aclcts.judge.decorator import policy_for
from aclcts.judge.policies import BITWISE_FAMILIES, Exact
from aclcts.pytest_plugin.plugin import DEFAULT_SEED

ROOT = Path(__file__).resolve().parents[2]
#: The documentation line of each default rule that judges exactly (docs/precision-policy.md, section 4).
DEFAULT_LINES = {
    "integer": "docs/precision-policy.md#cann-commercial-standard: integer compute must match the golden bitwise",
    "bitwise family": "docs/precision-policy.md#cann-commercial-standard: non-compute operators (data movement, "
                      "Cast) must match the golden bitwise",
}
EXACT_ADD = ["op: Add", "dtypes: [float32]", "shapes:", "  - [[2], [2]]", "precision: exact"]


def headings(page: Path) -> set[str]:
    """The anchors of a Markdown page's headings, as GitHub spells them."""
    found = set()
    for line in page.read_text(encoding="utf-8").splitlines():
        if line.startswith("#"):
            text = line.lstrip("#").strip().lower()
            found.add(re.sub(r"\s", "-", re.sub(r"[^\w\s-]", "", text)))
    return found


def documented(line: str) -> bool:
    """Whether line names an existing heading of an existing docs/ page."""
    if not EXACT_BECAUSE.fullmatch(line):
        return False
    page, _, rest = line.partition("#")
    return (ROOT / page).is_file() and rest.partition(":")[0] in headings(ROOT / page)


def why_exact(case, tensor) -> str:
    """The documentation line demanding that this output be judged exactly: the case's own, else its default rule's;
    "" when nothing demands it."""
    if case.exact_because:
        return case.exact_because
    kind = np.dtype(tensor.np_dtype).kind
    if case.precision is None and (kind in "biu" or case.family == "compare"):
        return DEFAULT_LINES["integer"]
    if case.precision is None and case.family in BITWISE_FAMILIES:
        return DEFAULT_LINES["bitwise family"]
    return ""


@pytest.fixture(scope="module")
def every_case():
    library = with_defaults(load_cases([str(SHIPPED_CASES)], kind="all"), None)
    return library + domains.generated(library, DEFAULT_SEED)


def test_every_exact_judged_output_carries_a_documentation_line(every_case):
    undocumented = sorted({(case.op, case.file.rpartition("cases/")[2]) for case in every_case for tensor in case.outputs
                           if isinstance(policy_for(case, tensor), Exact) and not documented(why_exact(case, tensor))})
    assert undocumented == []


def test_the_shipped_exact_case_files_name_their_line_and_generated_cases_keep_it(every_case):
    own = [c for c in every_case if c.exact_because]
    assert {c.op for c in own} >= {"Floor", "Ceil", "Fill", "ZerosLike", "OnesLike", "ClipByValue", "ReduceAll"}
    assert any(domains.is_generated(c) for c in own)
    assert all(documented(c.exact_because) for c in own)


def test_ops_without_a_documented_demand_are_judged_by_the_standard(every_case):
    for case in every_case:
        if case.op in ("Round", "Rint", "Sign") and case.inputs[0].dtype_name == "float32":
            assert not isinstance(policy_for(case, case.outputs[0]), Exact), case.id


def test_the_default_lines_are_documented():
    assert all(documented(line) for line in DEFAULT_LINES.values())


@pytest.mark.parametrize("extra", [[], ["exact_because: because"], ["exact_because: docs/precision-policy.md"]],
                         ids=["missing", "no-heading", "no-why"])
def test_an_exact_case_file_without_its_documentation_line_is_one_line_naming_the_field(tmp_path, extra):
    path = tmp_path / "add.yaml"
    path.write_text("\n".join(EXACT_ADD + extra) + "\n", encoding="utf-8")
    with pytest.raises(CaseFileError, match=r"add\.yaml:\d+: exact_because: expected the documentation line") as err:
        expand_file(str(path))
    assert "\n" not in str(err.value)


def test_an_exact_case_file_with_its_line_loads_and_the_case_carries_it(tmp_path):
    line = "docs/precision-policy.md#cann-commercial-standard: a test line"
    path = tmp_path / "add.yaml"
    path.write_text("\n".join(EXACT_ADD + [f'exact_because: "{line}"']) + "\n", encoding="utf-8")
    assert {case.exact_because for case in expand_file(str(path))} == {line}


def test_exact_because_without_an_exact_policy_is_refused(tmp_path):
    path = tmp_path / "add.yaml"
    lines = EXACT_ADD[:-1] + ['exact_because: "docs/precision-policy.md#cann-commercial-standard: x"']
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(CaseFileError, match=r"exact_because: expected no exact_because"):
        expand_file(str(path))
