"""The outputs of the aclcts commands (issue 37, finding 4): `report merge -o/--junit-out/--allure-out`, `report
expectations -o --force` and `msopst convert -o` never replace a character device, a FIFO or a folder, and never write
over their own input; each refusal is one line, exit 2."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from output_runs import NODE_KINDS, ROOT, make_node, node_state, run_suite

from aclcts.report import baseline
from aclcts.report import cli as report_cli
from aclcts.tools import msopst

MSOPST_DATA = ROOT / "tests" / "msopst" / "data"
EXPECTATIONS = ["--owner", "qa", "--expires", "+30", "--reason", "known", "--force"]


@pytest.fixture(scope="module")
def run_report(tmp_path_factory) -> Path:
    """A whole run report of the two quick tests, with its JUnit XML and allure results."""
    from add_case import ADD_CASE

    folder = tmp_path_factory.mktemp("run")
    (folder / "add.yaml").write_text(ADD_CASE)
    result = run_suite(folder, "--report=run.jsonl", "--junitxml=run.xml", "--alluredir=allure")
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    return folder / "run.jsonl"


def one_line(capsys) -> str:
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    return err


COMMANDS = {
    "report merge -o": lambda report, out: report_cli.main(["merge", str(report), "-o", str(out)]),
    "report merge --junit-out": lambda report, out: report_cli.main(
        ["merge", str(report), "-o", str(out.with_name("merged.jsonl")), "--junit", str(report.with_suffix(".xml")),
         "--junit-out", str(out)]),
    "report expectations -o --force": lambda report, out: baseline.main([str(report), "-o", str(out),
                                                                         *EXPECTATIONS]),
}


@pytest.mark.parametrize("kind", NODE_KINDS)
@pytest.mark.parametrize("command", COMMANDS)
def test_a_command_output_never_replaces_a_special_file_or_a_folder(run_report, tmp_path, capsys, command, kind):
    node = make_node(tmp_path / "target.yaml", kind)
    before = node_state(node)
    assert COMMANDS[command](run_report, node) == 2
    assert kind in one_line(capsys)
    assert node_state(node) == before


@pytest.mark.parametrize("kind", ["character device", "FIFO"])
@pytest.mark.parametrize("command", ["report merge --allure-out", "msopst convert -o FOLDER"])
def test_a_folder_output_never_replaces_a_special_file(run_report, tmp_path, capsys, command, kind):
    node = make_node(tmp_path / "target", kind)
    before = node_state(node)
    if command == "msopst convert -o FOLDER":
        status = msopst.main(["convert", str(MSOPST_DATA / "add_case.json"), "-o", str(node)])
    else:
        status = report_cli.main(["merge", str(run_report), "-o", str(tmp_path / "merged.jsonl"),
                                  "--allure", str(run_report.parent / "allure"), "--allure-out", str(node)])
    assert status == 2 and kind in one_line(capsys)
    assert node_state(node) == before


def test_msopst_convert_never_writes_over_the_case_file_it_converts(tmp_path, capsys):
    source = tmp_path / "reduce_case.json"
    for name in ("reduce_case.json", "reduce_golden.py"):
        shutil.copy(MSOPST_DATA / name, tmp_path / name)
    before = source.read_bytes()
    assert msopst.main(["convert", str(source), "-o", str(source)]) == 2
    assert str(source) in one_line(capsys)
    assert source.read_bytes() == before


def test_msopst_convert_into_the_case_folder_keeps_its_value_files(tmp_path):
    for name in ("add_case.json", "add_golden.py", "add_x1_3x4_float32.bin"):
        shutil.copy(MSOPST_DATA / name, tmp_path / name)
    value = tmp_path / "add_x1_3x4_float32.bin"
    inode = value.stat().st_ino
    assert msopst.main(["convert", str(tmp_path / "add_case.json"), "-o", str(tmp_path)]) in (0, 1)
    assert value.stat().st_ino == inode and value.read_bytes() == (MSOPST_DATA / value.name).read_bytes()
