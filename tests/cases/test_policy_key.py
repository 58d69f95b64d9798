"""A case file names its precision class with `policy:`; the old name `family:` is read for one release with one
warning per file, both names in one file is one error line, and the generators of case files write `policy:`."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest
import yaml

from aclcts.cases import CaseFileError, expand_file
from aclcts.cases.schema import CaseKeyRenamed
from aclcts.core.prototypes import prototype
from aclcts.tools.msopst import convert
from aclcts.tools.newop import main as new_op

MSOPST_DATA = Path(__file__).resolve().parents[1] / "msopst" / "data"

#: A valid case file of four cases; line 2 names the precision class.
CASE = ["op: Add", "policy: elementwise", "source: \"REG_OP(Add): inputs x1, x2; output y\"", "inputs: [x1, x2]",
        "outputs: [y]", "dtypes: [float16, float32]", "shapes:", "  - [[2, 1, 3], [4, 3]]", "  - [[], [5]]"]


def write(tmp_path: Path, lines: list[str]) -> str:
    """Write a case file made of lines; return its path."""
    path = tmp_path / "case.yaml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return str(path)


def with_line(number: int, text: str) -> list[str]:
    """CASE with its (1-based) line number replaced by text."""
    return [text if i == number else line for i, line in enumerate(CASE, 1)]


def test_the_policy_key_loads_without_a_warning(tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        cases = expand_file(write(tmp_path, CASE))
    assert cases and {case.family for case in cases} == {"elementwise"}


def test_the_old_family_key_warns_once_per_file_and_loads_the_same_cases(tmp_path):
    (tmp_path / "new").mkdir()
    new = expand_file(write(tmp_path / "new", with_line(2, "policy: reduction")))
    source = write(tmp_path, with_line(2, "family: reduction"))
    with pytest.warns(CaseKeyRenamed) as caught:
        old = expand_file(source)
    renamed = [w for w in caught if issubclass(w.category, CaseKeyRenamed)]
    assert len(renamed) == 1 and len(old) > 1
    message = str(renamed[0].message)
    assert message.startswith(f"{source}:2: family: ") and "'policy'" in message and "\n" not in message
    assert issubclass(CaseKeyRenamed, FutureWarning)
    assert [c.id for c in old] == [c.id for c in new] and {c.family for c in old} == {"reduction"}


def test_both_keys_in_one_file_are_one_error_line_naming_file_line_and_field(tmp_path):
    source = write(tmp_path, CASE + ["family: elementwise"])
    with pytest.raises(CaseFileError) as info:
        expand_file(source)
    message = str(info.value)
    assert message.startswith(f"{source}:10: family: expected only 'policy'") and "\n" not in message


def test_a_file_with_neither_key_takes_the_records_policy(tmp_path):
    cases = expand_file(write(tmp_path, [line for line in CASE if not line.startswith("policy:")]))
    assert {case.family for case in cases} == {prototype("Add").policy}


def test_a_file_of_an_op_without_a_record_and_neither_key_names_the_new_one(tmp_path):
    lines = [line for line in CASE if not line.startswith("policy:")]
    source = write(tmp_path, ["op: NoSuchOp" if line.startswith("op:") else line for line in lines])
    with pytest.raises(CaseFileError, match=r"case\.yaml:1: \(file\): expected the key 'policy' \(no operator record"):
        expand_file(source)


def test_the_old_key_must_still_be_a_string(tmp_path):
    source = write(tmp_path, with_line(2, "family: [elementwise]"))
    with pytest.raises(CaseFileError, match=r"case\.yaml:2: policy: expected a string"), \
            warnings.catch_warnings():
        warnings.simplefilter("ignore", CaseKeyRenamed)
        expand_file(source)


def test_new_op_writes_the_policy_key(tmp_path):
    assert new_op(["MyPolicy", "--dir", str(tmp_path), "--no-kernel"]) == 0
    (record,) = tmp_path.rglob("MyPolicy.json")
    data = json.loads(record.read_text(encoding="utf-8"))
    assert data["policy"] == "elementwise" and "family" not in data


def test_msopst_convert_writes_the_policy_key(tmp_path):
    convert(str(MSOPST_DATA / "add_case.json"), tmp_path / "out")
    written = [yaml.safe_load(p.read_text(encoding="utf-8")) for p in (tmp_path / "out").glob("*.yaml")]
    assert written and all("policy" in doc and "family" not in doc for doc in written)
