"""docs/operators.md is what `aclcts docs operators` writes from the registries and the case library, and the command
lists exactly the case library's op types, each with its prototype module, reference and kernel."""

from __future__ import annotations

import difflib
import re
import shutil
from pathlib import Path

from aclcts.cases import load_cases
from aclcts.cli import main as aclcts
from aclcts.tools.opsdoc import main, operators_page

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "operators.md"
CASES = ROOT / "cases"
ROW = re.compile(r"^\| ([A-Z][A-Za-z0-9]*) \| (.*) \| (.*) \| `(\w+)` \| `(\w+)` \|$", re.MULTILINE)


def test_the_page_is_current():
    want = operators_page(str(CASES))
    have = DOC.read_text(encoding="utf-8")
    diff = "\n".join(list(difflib.unified_diff(have.splitlines(), want.splitlines(), "docs/operators.md",
                                               "aclcts docs operators", lineterm=""))[:40])
    assert have == want, f"docs/operators.md is stale; run `aclcts docs operators` in the repository:\n{diff}"


def test_the_page_lists_the_case_librarys_op_types_once_with_their_count():
    text = operators_page(str(CASES))
    rows = ROW.findall(text)
    listed = [row[0] for row in rows]
    library = {case.op for case in load_cases([str(CASES)], kind="all")}
    assert len(listed) == len(set(listed)) and set(listed) == library
    assert f"**{len(library)} CANN operator types**" in text
    assert all(ref != "none" and kernel != "none" for *_, ref, kernel in rows)
    assert "Op types without a prototype" not in text


def test_a_row_names_case_files_policy_reference_and_kernel_modules():
    rows = {row[0]: row[1:] for row in ROW.findall(operators_page(str(CASES)))}
    files, policy, ref, kernel = rows["GatherV2"]
    assert "`index/gather_v2.yaml`" in files.split(", ") and policy == "index"
    assert (ref, kernel) == ("gather_scatter", "gather_scatter")


def test_check_fails_on_a_stale_page_and_passes_once_written(tmp_path, capsys):
    library = tmp_path / "cases"
    library.mkdir()
    shutil.copy(CASES / "elementwise" / "add.yaml", library / "add.yaml")
    page = tmp_path / "operators.md"
    args = ["operators", "--cases", str(library), "-o", str(page)]
    assert main([*args, "--check"]) == 1
    assert capsys.readouterr().err.strip().endswith("is not current; run `aclcts docs operators -o " f"{page}`")
    assert aclcts(["docs", *args]) == 0
    assert main([*args, "--check"]) == 0
    text = page.read_text(encoding="utf-8")
    assert "**1 CANN operator types**" in text and [r[0] for r in ROW.findall(text)] == ["Add"]
    page.write_text(text.replace("| Add |", "| Sub |"), encoding="utf-8")
    assert main([*args, "--check"]) == 1


def test_a_missing_case_library_is_one_usage_line(tmp_path, capsys):
    assert main(["operators", "--cases", str(tmp_path / "nope"), "-o", str(tmp_path / "x.md")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--cases" in err and "no such case library folder" in err
