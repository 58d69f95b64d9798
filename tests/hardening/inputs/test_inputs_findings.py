"""Issue 22's findings on input files: special files never hang a reader, duplicate keys and bad UTF-8 are one line.

Anything that could hang runs in a child process with a timeout, so that a regression fails instead of blocking.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from aclcts.atc.parser import SingleOpFileError, parse_singleop, read_singleop_text
from aclcts.cases import CaseFileError, expand_file
from aclcts.core.error_codes import ErrorCodesError, load_error_codes
from aclcts.core.inputs import MAX_NESTING_DEPTH
from aclcts.core.opmodel import ModelFormatError, OpModel
from aclcts.pytest_plugin.expectations import ExpectationsError, load_expectations
from aclcts.report.records import ReportError, encode, read_report

ROOT = Path(__file__).resolve().parents[3]
ADD_CASE = ROOT / "cases" / "elementwise" / "add.yaml"
#: Seconds a child may take before the test calls it a hang.
HANG = 120

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")


def _run(args: list[str], cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=HANG)


def _pytest(*args: str) -> subprocess.CompletedProcess[str]:
    return _run([sys.executable, "-m", "pytest", "conformance/test_execute.py", "--collect-only", "-q",
                 "-p", "no:cacheprovider", "-p", "no:xdist", *args])


def _case_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "cases"
    folder.mkdir()
    (folder / "add.yaml").write_bytes(ADD_CASE.read_bytes())
    os.mkfifo(folder / "zz_pipe.yaml")
    return folder


def _assert_one_line_usage_error(run: subprocess.CompletedProcess[str], *named: str) -> None:
    output = run.stdout + run.stderr
    assert run.returncode == 4, output[-3000:]
    assert "Traceback" not in output and "INTERNALERROR" not in output, output[-3000:]
    lines = [line for line in output.splitlines() if all(text in line for text in named)]
    assert lines, output[-3000:]


# ------------------------------------------------------------------------------------- special files
def test_a_fifo_in_a_case_folder_is_skipped_with_a_warning_naming_it(tmp_path):
    folder = _case_folder(tmp_path)
    code = ("import sys; from aclcts.cases import load_cases; "
            "cases = load_cases([sys.argv[1]], warn=lambda line: print('WARN', line)); print('CASES', len(cases))")
    run = _run([sys.executable, "-c", code, str(folder)])
    assert run.returncode == 0, run.stderr
    assert f"WARN {folder / 'zz_pipe.yaml'}: " in run.stdout and "FIFO" in run.stdout
    assert "CASES 0" not in run.stdout


def test_a_pytest_run_over_a_case_folder_with_a_fifo_collects_and_names_it(tmp_path):
    folder = _case_folder(tmp_path)
    run = _pytest("--cases", str(folder))
    assert run.returncode == 0, (run.stdout + run.stderr)[-3000:]
    assert str(folder / "zz_pipe.yaml") in run.stdout + run.stderr


def test_a_fifo_named_as_the_cases_file_is_one_usage_line(tmp_path):
    pipe = tmp_path / "pipe.yaml"
    os.mkfifo(pipe)
    _assert_one_line_usage_error(_pytest("--cases", str(pipe)), str(pipe), "not a regular file")


def test_a_fifo_named_om_does_not_block_set_model_dir(tmp_path):
    models = tmp_path / "models"
    models.mkdir()
    op = parse_singleop((ROOT / "tests" / "examples" / "data" / "add_op.json").read_text(encoding="utf-8"), "add")[0]
    (models / "add.om").write_bytes(op.model.to_bytes())
    os.mkfifo(models / "pipe.om")
    code = ("import sys; from aclcts.sim import acl; from aclcts.sim.launch import registry; acl.init(); "
            "print('RET', acl.op.set_model_dir(sys.argv[1]), registry().count); print(acl.get_recent_err_msg())")
    run = _run([sys.executable, "-c", code, str(models)])
    assert run.returncode == 0, run.stderr
    assert "RET 0 1" in run.stdout
    assert str(models / "pipe.om") in run.stdout


def test_a_fifo_named_as_a_single_op_json_is_refused_unopened(tmp_path):
    pipe = tmp_path / "ops.json"
    os.mkfifo(pipe)
    code = ("import sys; from aclcts.atc.parser import SingleOpFileError, read_singleop_text\n"
            "try: read_singleop_text(sys.argv[1])\nexcept SingleOpFileError as exc: print(exc.diagnostic.code)")
    run = _run([sys.executable, "-c", code, str(pipe)])
    assert run.stdout.strip() == "E10024", run.stderr


def test_a_fifo_named_as_an_error_code_table_is_one_line(tmp_path):
    pipe = tmp_path / "codes.yaml"
    os.mkfifo(pipe)
    code = ("import sys; from aclcts.core.error_codes import ErrorCodesError, load_error_codes\n"
            "try: load_error_codes(sys.argv[1])\nexcept ErrorCodesError as exc: print('ERR', exc)")
    run = _run([sys.executable, "-c", code, str(pipe)])
    assert run.stdout.startswith(f"ERR {pipe}: ") and run.stdout.count("\n") == 1, run.stdout + run.stderr


# ------------------------------------------------------------------------------------- duplicate keys
def test_a_duplicate_key_in_a_case_file_names_file_line_and_key(tmp_path):
    lines = ADD_CASE.read_text(encoding="utf-8").splitlines()
    dtypes = next(i for i, line in enumerate(lines) if line.startswith("dtypes:"))
    source = tmp_path / "add.yaml"
    source.write_text("\n".join(lines + [lines[dtypes]]) + "\n", encoding="utf-8")
    with pytest.raises(CaseFileError) as info:
        expand_file(str(source))
    message = str(info.value)
    assert message.startswith(f"{source}:{len(lines) + 1}: ") and "'dtypes'" in message and "\n" not in message
    assert f"line {dtypes + 1}" in message


def test_a_duplicate_key_in_an_expectations_file_names_file_line_and_key(tmp_path):
    source = tmp_path / "expectations.yaml"
    source.write_text("release: r\nentries:\n  - id: a.py::t\n    reason: x\n    owner: me\n    expires: 2030-01-01\n"
                      "    reason: y\n", encoding="utf-8")
    with pytest.raises(ExpectationsError) as info:
        load_expectations(source)
    assert str(info.value).startswith(f"{source}:7: ") and "'reason'" in str(info.value)


def test_a_duplicate_key_in_an_error_code_table_is_an_error(tmp_path):
    source = tmp_path / "codes.yaml"
    source.write_text("release: a\nrelease: b\n", encoding="utf-8")
    with pytest.raises(ErrorCodesError, match=r":2: duplicate key 'release'"):
        load_error_codes(source)


def test_a_duplicate_key_in_single_op_json_is_e10025_with_its_line():
    text = '[{"op": "Add",\n  "input_desc": [],\n  "op": "Sub",\n  "output_desc": []}]'
    with pytest.raises(SingleOpFileError) as info:
        parse_singleop(text, "ops.json")
    assert info.value.diagnostic.code == "E10025"
    assert str(info.value).startswith("ops.json:3: ") and "'op'" in str(info.value)


def test_a_duplicate_key_in_a_report_record_is_an_error(tmp_path):
    path = tmp_path / "run.jsonl"
    path.write_bytes(encode({"record": "run", "version": "1", "seed": 1})[:-2] + b',"seed":2}\n')
    with pytest.raises(ReportError, match=r"run\.jsonl:1: .*'seed'"):
        read_report(path)


def test_a_duplicate_key_in_a_model_body_is_a_parse_error():
    op = parse_singleop((ROOT / "tests" / "examples" / "data" / "add_op.json").read_text(encoding="utf-8"), "a")[0]
    image = op.model.to_bytes()
    body = image[20:-1] + b',"fuzzy":true}'
    with pytest.raises(ModelFormatError, match="'fuzzy'") as info:
        OpModel.from_bytes(image[:12] + len(body).to_bytes(8, "little") + body)
    assert info.value.code == 100013


# ------------------------------------------------------------------------------------- UTF-8, nesting, size
def test_a_non_utf8_case_file_names_file_and_byte_offset(tmp_path):
    data = ADD_CASE.read_bytes()
    offset = data.index(b"\n", 10) + 1
    source = tmp_path / "add.yaml"
    source.write_bytes(data[:offset] + b"\xff" + data[offset:])
    with pytest.raises(CaseFileError) as info:
        expand_file(str(source))
    assert str(info.value).startswith(f"{source}:2: ") and f"byte offset {offset}" in str(info.value)


def test_a_non_utf8_case_file_in_a_pytest_run_is_one_usage_line(tmp_path):
    source = tmp_path / "add.yaml"
    source.write_bytes(ADD_CASE.read_bytes() + b"# \xc3\n")
    offset = len(ADD_CASE.read_bytes()) + 2
    _assert_one_line_usage_error(_pytest("--cases", str(source)), str(source), f"byte offset {offset}")


@pytest.mark.parametrize("kind", ["flow", "block", "alias"])
def test_yaml_nested_beyond_the_limit_is_one_line(tmp_path, kind):
    if kind == "flow":  # deep enough to crash libyaml's composer, were it reached
        text = "a: " + "[" * 200_000 + "]" * 200_000 + "\n"
    elif kind == "block":
        text = "".join("  " * i + f"k{i}:\n" for i in range(MAX_NESTING_DEPTH + 1)) + "  " * 101 + "v: 1\n"
    else:
        text = "a: &x [*x]\n"
    source = tmp_path / "case.yaml"
    source.write_text(text, encoding="utf-8")
    code = ("import sys; from aclcts.cases import CaseFileError, expand_file\n"
            "try: expand_file(sys.argv[1])\nexcept CaseFileError as exc: print('ERR', exc)")
    run = _run([sys.executable, "-c", code, str(source)])
    assert run.returncode == 0 and run.stdout.startswith(f"ERR {source}:"), run.stdout + run.stderr[-2000:]
    assert f"{MAX_NESTING_DEPTH} levels" in run.stdout and run.stdout.count("\n") == 1


def test_json_nested_beyond_the_limit_is_e10025(tmp_path):
    path = tmp_path / "ops.json"
    path.write_text("[" * (MAX_NESTING_DEPTH + 1) + "]" * (MAX_NESTING_DEPTH + 1), encoding="utf-8")
    with pytest.raises(SingleOpFileError) as info:
        parse_singleop(read_singleop_text(path), str(path))
    assert info.value.diagnostic.code == "E10025" and f"{MAX_NESTING_DEPTH} levels" in str(info.value)


def test_a_file_above_its_size_limit_is_one_line(tmp_path, monkeypatch):
    from aclcts.report import records
    path = tmp_path / "run.jsonl"
    path.write_bytes(encode({"record": "run", "version": "1", "seed": 1}) * 10)
    monkeypatch.setattr(records, "MAX_REPORT_BYTES", 100)
    with pytest.raises(ReportError, match=r"run\.jsonl: .*limit of 100 bytes"):
        read_report(path)
