"""`aclcts atc` / `python -m aclcts.atc`: flags, exit status, messages and the model files written
(docs/contract/single-op-json.md#command-line, #model-file-names)."""

import os
import subprocess
import sys

import pytest

from aclcts.atc import compile_singleop, main
from aclcts.core.opmodel import OpModel

SUCCESS = "ATC run success, welcome to the next use."
ADD = [{"op": "Add", "input_desc": [{"format": "ND", "shape": [3, 3], "type": "int32"}] * 2,
        "output_desc": [{"format": "ND", "shape": [3, 3], "type": "int32"}]}]
OP_LIST = [  # the official sample op_list.json (docs/contract/single-op-json.md#examples)
    {"op": "Cast", "input_desc": [{"format": "ND", "shape": [1000], "type": "float"}],
     "output_desc": [{"format": "ND", "shape": [1000], "type": "float16"}],
     "attr": [{"name": "truncate", "type": "bool", "value": False}, {"name": "dst_type", "type": "int", "value": 1}]},
    {"op": "ArgMaxV2", "input_desc": [{"format": "ND", "shape": [1000], "type": "float16"},
                                      {"format": "ND", "shape": [1], "type": "int32", "is_const": True,
                                       "const_value": [0]}],
     "output_desc": [{"format": "ND", "shape": [1], "type": "int32"}]},
]


def run(argv, capsys):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_success_writes_models_and_prints_the_atc_message(write_json, tmp_path, capsys):
    path = write_json(OP_LIST)
    code, out, err = run([f"--singleop={path}", f"--output={tmp_path / 'op_models'}", "--soc_version=Ascend310"],
                         capsys)
    assert code == 0 and out.strip() == SUCCESS and err == ""
    names = sorted(os.listdir(tmp_path / "op_models"))
    assert names == ["0_Cast_0_2_1000_1_2_1000.om", "1_ArgMaxV2_1_2_1000_3_2_1_3_2_1.om"]
    model = OpModel.from_bytes((tmp_path / "op_models" / names[0]).read_bytes())
    assert model.op_type == "Cast" and model.soc_version == "Ascend310"
    assert [(a.name, a.value) for a in model.attrs] == [("truncate", False), ("dst_type", 1)]


def test_space_separated_values_and_ignored_options(write_json, tmp_path, capsys):
    path = write_json(ADD)
    code, out, _ = run(["--singleop", str(path), "--output", str(tmp_path / "m"), "--soc_version", "Ascend910B",
                        "--precision_mode=allow_fp32_to_fp16", "--log", "error", "--op_select_implmode=high_precision"],
                       capsys)
    assert code == 0 and SUCCESS in out
    assert os.listdir(tmp_path / "m") == ["0_Add_3_2_3_3_3_2_3_3_3_2_3_3.om"]


@pytest.mark.parametrize("argv, text", [
    ([], "--singleop, --output, --soc_version"),
    (["--singleop=a.json", "--output=o"], "--soc_version"),
    (["--singleop=a.json", "--output=o", "--soc_version="], "--soc_version"),
    (["--singleop=a.json", "--output=o", "--soc_version=S", "--framework=3"], "unknown option --framework"),
    (["--singleop=a.json", "--output=o", "--soc_version=S", "--mode", "0"], "unknown option --mode"),
    (["--singleop=a.json", "--output=o", "--soc_version"], "--soc_version needs a value"),
    (["a.json"], "unexpected argument 'a.json'"),
    (["--singleop=a.json", "--singleop=b.json", "--output=o", "--soc_version=S"], "given twice"),
])
def test_usage_errors_exit_2_naming_the_flag(argv, text, capsys):
    code, out, err = run(argv, capsys)
    assert code == 2 and out == "" and text in err and "usage:" in err


def test_help_prints_usage(capsys):
    code, out, _ = run(["--help"], capsys)
    assert code == 0 and "--singleop=FILE" in out


def test_failing_element_gets_no_model_and_exit_1(write_json, tmp_path, capsys):
    bad = dict(ADD[0], input_desc=[{"format": "ND", "shape": [-1], "type": "int32"}] * 2)
    path = write_json([ADD[0], bad])
    code, out, err = run([f"--singleop={path}", f"--output={tmp_path / 'o'}", "--soc_version=S"], capsys)
    assert code == 1 and SUCCESS not in out
    assert "element 1 (op \"Add\"): input_desc[0].shape_range" in err and "[E13014]" in err
    assert "1 of 2 operator(s) not compiled" in err and "Traceback" not in err
    assert os.listdir(tmp_path / "o") == ["0_Add_3_2_3_3_3_2_3_3_3_2_3_3.om"]


def test_e10032_stops_the_whole_file(write_json, tmp_path, capsys):
    path = write_json([ADD[0], dict(ADD[0], attr="none")])
    code, _, err = run([f"--singleop={path}", f"--output={tmp_path / 'o'}", "--soc_version=S"], capsys)
    assert code == 1 and "[E10032]" in err and "no model written" in err
    assert not (tmp_path / "o").exists() or os.listdir(tmp_path / "o") == []


@pytest.mark.parametrize("content, code_text", [("[{", "[E10025]"), ('{"op": "Add"}', "[E10032]")])
def test_file_level_errors(write_json, tmp_path, capsys, content, code_text):
    path = write_json(content)
    code, _, err = run([f"--singleop={path}", f"--output={tmp_path / 'o'}", "--soc_version=S"], capsys)
    assert code == 1 and code_text in err and str(path) in err


def test_missing_singleop_file(tmp_path, capsys):
    code, _, err = run([f"--singleop={tmp_path / 'nope.json'}", f"--output={tmp_path}", "--soc_version=S"], capsys)
    assert code == 1 and "nope.json" in err and "no such file" in err


def test_file_name_need_not_end_in_json(write_json, tmp_path, capsys):
    path = write_json(ADD, name="ops.txt")
    code, _, _ = run([f"--singleop={path}", f"--output={tmp_path / 'o'}", "--soc_version=S"], capsys)
    assert code == 0


def test_name_field_gives_the_file_name_and_leaves_no_temp_files(write_json, tmp_path):
    path = write_json([dict(ADD[0], name="FileName.om"), dict(ADD[0], name="add")])
    result = compile_singleop(path, tmp_path / "o", "S")
    assert result.ok and sorted(os.listdir(tmp_path / "o")) == ["FileName.om.om", "add.om"]
    assert [p.name for p in result.written] == ["FileName.om.om", "add.om"]


def test_same_file_name_twice_later_wins_with_warning(write_json, tmp_path):
    first = dict(OP_LIST[0], name="cast")
    second = dict(first, attr=[{"name": "dst_type", "type": "int", "value": 1},
                               {"name": "truncate", "type": "bool", "value": True}])
    result = compile_singleop(write_json([first, second]), tmp_path, "S")
    assert result.ok and any("replaces the model of element 0" in w for w in result.warnings)
    assert OpModel.from_bytes((tmp_path / "cast.om").read_bytes()).attrs[1].value is True


def test_empty_array_succeeds_with_warning(write_json, tmp_path):
    result = compile_singleop(write_json([]), tmp_path / "o", "S")
    assert result.ok and result.written == [] and result.warnings


def test_python_dash_m(write_json, tmp_path):
    path = write_json(ADD)
    command = [sys.executable, "-m", "aclcts.atc"]
    proc = subprocess.run(command + [f"--singleop={path}", f"--output={tmp_path / 'o'}", "--soc_version=Ascend310"],
                          capture_output=True, text=True, timeout=30)
    assert proc.returncode == 0 and proc.stdout.strip() == SUCCESS
    proc = subprocess.run(command + ["--bogus"], capture_output=True, text=True, timeout=30)
    assert proc.returncode == 2 and "unknown option --bogus" in proc.stderr and "Traceback" not in proc.stderr
