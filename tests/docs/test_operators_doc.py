"""docs/operators.md is what `aclcts docs operators` writes from the operator records and the case library, and the
command lists every record once, with what the record states and the case files that run it."""

from __future__ import annotations

import difflib
import re
import shutil
from pathlib import Path

from aclcts.cli import main as aclcts
from aclcts.core.prototypes import op_types
from aclcts.tools.opsdoc import main, operators_page

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "operators.md"
CASES = ROOT / "cases"
ROW = re.compile(r"^\| ([A-Z][A-Za-z0-9]*) \| (.*?) \| (.*?) \| (.*?) \| (.*?) \| (\w+) \| (\w+) \| (.*?) \| (.*) \|$",
                 re.MULTILINE)


def test_the_page_is_current():
    want = operators_page(str(CASES))
    have = DOC.read_text(encoding="utf-8")
    diff = "\n".join(list(difflib.unified_diff(have.splitlines(), want.splitlines(), "docs/operators.md",
                                               "aclcts docs operators", lineterm=""))[:40])
    assert have == want, f"docs/operators.md is stale; run `aclcts docs operators` in the repository:\n{diff}"


def test_the_page_lists_every_record_once_with_their_count():
    text = operators_page(str(CASES))
    listed = [row[0] for row in ROW.findall(text)]
    assert len(listed) == len(set(listed)) and set(listed) == set(op_types())
    assert f"**{len(op_types())} CANN operator types**" in text


def test_a_row_states_the_private_formats_each_tensor_may_take():
    rows = {row[0]: row[1:] for row in ROW.findall(operators_page(str(CASES)))}
    assert rows["MatMul"][3] == "x1, x2, y: FRACTAL_NZ"
    assert rows["GEMM"][3] == "a, c, y: FRACTAL_NZ; b: FRACTAL_NZ, FRACTAL_Z"


def test_a_row_states_the_record_and_its_case_files():
    rows = {row[0]: row[1:] for row in ROW.findall(operators_page(str(CASES)))}
    tensors, dtypes, attrs, formats, policy, rule, files, source = rows["GatherV2"]
    assert tensors == "x, indices, axis → y" and "I: int32, int64" in dtypes
    assert "batch_dims (int = 0)" in attrs and (formats, policy, rule) == ("plain", "index", "given")
    assert "`gather_scatter/gather_v2.yaml`" in files.split(", ") and "REG_OP(GatherV2)" in source
    assert rows["ReduceSumD"][6] == "default cases" and "axes (list_int)," in rows["ReduceSumD"][2]


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
    rows = {r[0]: r for r in ROW.findall(text)}
    assert rows["Add"][7] == "`add.yaml`" and rows["Sub"][7] == "default cases"
    page.write_text(text.replace("| Add |", "| Adds |"), encoding="utf-8")
    assert main([*args, "--check"]) == 1


def test_a_missing_case_library_is_one_usage_line(tmp_path, capsys):
    assert main(["operators", "--cases", str(tmp_path / "nope"), "-o", str(tmp_path / "x.md")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--cases" in err and "no such case library folder" in err
