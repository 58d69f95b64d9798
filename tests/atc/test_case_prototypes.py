"""Case files checked against their op's prototype (issue 23 "Bad input"): one line naming file, line and field, with
the allowed values; custom ops are checked only against a vendor prototype record."""

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from aclcts.cases import load_cases
from aclcts.cases.schema import CaseFileError
from aclcts.core.prototypes import op
from aclcts.core.prototypes.vendors import RECORD_FOLDER, record_text

ROOT = Path(__file__).resolve().parents[2]

CAST = """\
op: Cast
policy: cast
source: "graphengine elewise_calculation_ops.h REG_OP(Cast)"
inputs: [x]
outputs: [y]
dtypes:
  - {x: float32, y: float16}
shapes:
  - [[4]]
attrs:
  - {dst_type: {type: int, value: 1}}
"""
ADD = """\
op: Add
policy: elementwise
source: "add_proto.h REG_OP(Add)"
inputs: [x1, x2]
outputs: [y]
dtypes: [float32, int32]
shapes:
  - [[4], [4]]
"""


def load(tmp_path, text, name="case.yaml"):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return load_cases([str(path)])


def refused(tmp_path, text, monkeypatch):
    monkeypatch.delenv("ASCEND_OPP_PATH", raising=False)
    with pytest.raises(CaseFileError) as info:
        load(tmp_path, text)
    message = str(info.value)
    assert "\n" not in message and message.startswith(str(tmp_path / "case.yaml") + ":")
    return message.split(":", 1)[1]


def test_the_valid_files_load(tmp_path, monkeypatch):
    monkeypatch.delenv("ASCEND_OPP_PATH", raising=False)
    assert len(load(tmp_path, CAST)) >= 1 and len(load(tmp_path, ADD, "add.yaml")) >= 2


@pytest.mark.parametrize("old, new, expected", [
    ("{dst_type: {type: int, value: 1}}", "{dst_type: {type: int, value: 1}, round: {type: bool, value: true}}",
     '11: attrs[0].round: Cast has no attribute "round"; its attributes: dst_type (int), truncate (bool)'),
    ("{dst_type: {type: int, value: 1}}", "{dst_type: {type: float, value: 1.0}}",
     '11: attrs[0].dst_type: type "float": Cast\'s dst_type is "int"'),
    ("{dst_type: {type: int, value: 1}}", "{truncate: {type: bool, value: true}}",
     '11: attrs[0]: Cast requires attribute "dst_type" (int, REQUIRED_ATTR)'),
    ("{x: float32, y: float16}", "{x: float32, y: int32}",
     '7: dtypes[0].y: "int32": expected "float16", the dtype attribute dst_type sets (1)'),
    ("{x: float32, y: float16}", "{x: complex32, y: float16}",
     '7: dtypes[0].x: "complex32": Cast\'s x takes one of bool, float16'),
    ("inputs: [x]\n", "inputs: [x, z]\nconst: {z: [1]}\n", "4: inputs: 2 inputs named; Cast's prototype has x"),
])
def test_a_case_file_breaking_the_prototype_is_one_line_naming_line_field_and_allowed(tmp_path, monkeypatch, old, new,
                                                                                       expected):
    assert old in CAST
    text = CAST.replace(old, new)
    if "const: {z" in text:
        text = text.replace("{x: float32, y: float16}", '{"*": float32, y: float16}')
    got = refused(tmp_path, text, monkeypatch)
    assert got.startswith(expected), got


def test_a_plain_dtype_entry_names_the_entry_and_the_tensor(tmp_path, monkeypatch):
    got = refused(tmp_path, ADD.replace("[float32, int32]", "[float32, uint16]"), monkeypatch)
    assert got.startswith('6: dtypes[1] (for x1): "uint16": Add\'s x1 takes one of ')


def test_tensors_sharing_a_constraint_must_share_a_dtype(tmp_path, monkeypatch):
    got = refused(tmp_path, ADD.replace("[float32, int32]", "[{x1: float32, x2: float16, y: float32}]"), monkeypatch)
    assert got.startswith('6: dtypes[0].x2: "float16": expected "float32", the dtype of x1')


def test_dynamic_inputs_fit_any_count_from_one(tmp_path, monkeypatch):
    addn = ADD.replace("op: Add", "op: AddN").replace("inputs: [x1, x2]", "inputs: [x0, x1, x2]").replace(
        "[[4], [4]]", "[[4], [4], [4]]") + "dynamic_input: x\nattrs:\n  - {N: {type: int, value: 3}}\n"
    monkeypatch.delenv("ASCEND_OPP_PATH", raising=False)
    assert load(tmp_path, addn, "addn.yaml")
    got = refused(tmp_path, addn.replace("outputs: [y]", "outputs: [y, z]").replace("[float32, int32]", "[float32]"),
                  monkeypatch)
    assert got.startswith("5: outputs: 2 outputs named; AddN's prototype has y"), got


CUSTOM = """\
op: MyCustom
policy: elementwise
source: "custom"
reference: my_custom_reference:MY_CUSTOM
inputs: [x]
outputs: [y]
dtypes: [int8]
shapes:
  - [[4]]
"""
REFERENCE = """\
from aclcts.reference.base import define
MY_CUSTOM = define("MyCustom", lambda xs, attrs, out: [xs[0].astype(out[0])], lambda s, v, a: [s[0]])
"""


def test_a_custom_op_is_checked_only_against_its_vendor_record(tmp_path, monkeypatch):
    (tmp_path / "my_custom_reference.py").write_text(REFERENCE)
    record = tmp_path / "opp" / "vendors" / "acme" / RECORD_FOLDER / "MyCustom.json"
    record.parent.mkdir(parents=True)
    record.write_text(record_text(op("MyCustom", "x:T", "y:T", {"T": ("int8",)})))
    monkeypatch.setenv("ASCEND_OPP_PATH", str(tmp_path / "opp"))
    assert load(tmp_path, CUSTOM)
    record.write_text(record_text(op("MyCustom", "x:T", "y:T", {"T": ("float16",)})))
    with pytest.raises(CaseFileError, match=r"case\.yaml:7: dtypes\[0\] \(for x\): \"int8\": MyCustom's x takes one of "
                                            r"float16$"):
        load(tmp_path, CUSTOM)


def test_aclcts_singleop_refuses_the_file_in_one_line_with_the_usage_exit_status(tmp_path):
    path = tmp_path / "case.yaml"
    path.write_text(CAST.replace("{x: float32, y: float16}", "{x: float32, y: int32}"))
    done = subprocess.run([sys.executable, "-m", "aclcts.cli", "singleop", str(path), "-o", str(tmp_path / "o.json")],
                          capture_output=True, text=True, timeout=120, cwd=tmp_path, check=False)
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert f"{path}:7: dtypes[0].y: " in done.stderr
