"""`aclcts atc`: a model file name built from an operator type never leaves --output; legal names still work."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from aclcts.atc import compile_singleop

TENSOR = {"format": "ND", "shape": [3], "type": "float"}


def element(op, **extra):
    return {"op": op, "input_desc": [TENSOR, TENSOR], "output_desc": [TENSOR], **extra}


def files(folder: Path) -> set[str]:
    return {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()}


def atc(tmp_path, elements, output):
    source = tmp_path / "op.json"
    source.write_text(json.dumps(elements))
    return subprocess.run([sys.executable, "-m", "aclcts.atc", f"--singleop={source}", f"--output={output}",
                           "--soc_version=Ascend910B1"], capture_output=True, text=True, timeout=120)


def test_an_op_type_that_climbs_out_of_output_writes_nothing_outside_and_fails_in_one_line(tmp_path):
    output = tmp_path / "a" / "b" / "c" / "out"
    (output / "0_a").mkdir(parents=True)  # a folder the file name's first part can climb out of
    result = atc(tmp_path, [element("a/../../../escaped"), element("Add")], output)
    assert result.returncode != 0
    assert files(tmp_path) == {"op.json", "a/b/c/out/1_Add_0_2_3_0_2_3_0_2_3.om"}
    (line,) = [x for x in result.stderr.splitlines() if "escaped" in x]
    assert line.startswith(f"{tmp_path / 'op.json'}:1: element 0 (op \"a/../../../escaped\"): op: ")
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize("op", ["../escaped", "/abs/escaped", "a/b", "nul\0type"])
def test_op_types_that_are_no_plain_file_name_get_no_model(tmp_path, op):
    output = tmp_path / "out"
    (output / "0_").mkdir(parents=True)
    (output / "0_a").mkdir()
    result = compile_singleop(_write(tmp_path, [element(op)]), output, "Ascend910B1")
    assert not result.ok and not result.written
    assert [e for e in result.errors if ": op: " in e and "\n" not in e]
    assert files(tmp_path) == {"op.json"}
    assert not result.operators[0].ok


def test_legal_cann_names_and_op_types_still_compile(tmp_path, monkeypatch):
    record = tmp_path / "opp" / "vendors" / "acme" / "op_proto" / "aclcts" / "AddCustom.json"
    record.parent.mkdir(parents=True)
    record.write_text(json.dumps({"op": "AddCustom", "inputs": "x:T, y:T", "outputs": "z:T",
                                  "types": {"T": ["float32"]}}))
    monkeypatch.setenv("ASCEND_OPP_PATH", str(tmp_path / "opp"))
    output = tmp_path / "out"
    result = compile_singleop(_write(tmp_path, [element("AddCustom"), element("Add", name="my.model-1_x"),
                                                element("Add", name="bad#name")]), output, "Ascend910B1")
    assert result.ok, result.errors
    assert sorted(files(output)) == ["0_AddCustom_0_2_3_0_2_3_0_2_3.om", "2_Add_0_2_3_0_2_3_0_2_3.om",
                                     "my.model-1_x.om"]


def _write(tmp_path, elements):
    source = tmp_path / "op.json"
    source.write_text(json.dumps(elements))
    return source
