"""Fuzzing the output paths (issue 37, scope 7): every output option and command aimed at an odd target (an input, a
link to one, a hard link, a folder, a FIFO, a character device, a dangling link, a deep new path, an odd name) ends in
its output or in one refusal line, never another exception, and writes nothing outside the output's folder `out/`: every
file that was there before is unchanged, except the target itself when it was a plain file that is no input. The number
of targets per output path is the hypothesis profile's max_examples (8 under `ci`)."""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
import tempfile
from pathlib import Path

import pytest
from add_case import ADD_CASE
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from output_runs import ROOT, make_node, run_suite

from aclcts.cases import strategies  # noqa: F401  (registers and loads the profiles: `ci` unless one is chosen)
from aclcts.core.outputs import OutputError, Target, check_targets
from aclcts.report import baseline
from aclcts.report import cli as report_cli
from aclcts.tools import msopst

MSOPST_DATA = ROOT / "tests" / "msopst" / "data"
KINDS = ["new file", "plain file", "input", "symlink to input", "hardlink to input", "folder", "FIFO",
         "character device", "dangling symlink", "deep new path"]
if os.geteuid() != 0:
    KINDS.remove("character device")
#: Names an output may have: letters, spaces, dots, dashes, non-ASCII; never a separator or a control character
#: (a newline in a path would split any one-line message).
NAMES = st.text(st.characters(blacklist_categories=("Cs", "Cc"), blacklist_characters="/"), min_size=1,
                max_size=12).filter(lambda name: name not in (".", "..") and len(name.encode()) < 200)
FUZZ = settings(suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow], deadline=None)


def snapshot(folder: Path) -> dict[str, tuple]:
    """Every entry under folder: its type, inode and, for a regular file, its content digest; the bytecode Python
    caches beside a module it imports (__pycache__, e.g. of a golden module) is Python's, not aclcts', and left out."""
    found = {}
    for top, folders, files in os.walk(folder):
        folders[:] = [name for name in folders if name != "__pycache__"]
        for name in folders + files:
            path = Path(top, name)
            info = os.lstat(path)
            digest = hashlib.sha256(path.read_bytes()).hexdigest() if stat.S_ISREG(info.st_mode) else None
            found[str(path.relative_to(folder))] = (stat.S_IFMT(info.st_mode), info.st_ino, digest)
    return found


def make_world(root: Path, extra: Path | None) -> Path:
    """inputs/ (a case file, an msopst case with its files, extra) and the empty output folder out/."""
    inputs = root / "inputs"
    inputs.mkdir()
    (inputs / "add.yaml").write_text(ADD_CASE)
    if extra is not None:
        shutil.copy(extra, inputs / extra.name)
    for name in ("reduce_case.json", "reduce_golden.py"):
        shutil.copy(MSOPST_DATA / name, inputs / name)
    (root / "out").mkdir()
    return inputs


def make_target(root: Path, kind: str, name: str, input_file: Path) -> Path:
    """The target of this kind named name under out/ (an input itself for 'input')."""
    target = root / "out" / name
    if kind == "input":
        return input_file
    if kind == "plain file":
        target.write_text("an earlier output\n")
    elif kind == "symlink to input":
        target.symlink_to(input_file)
    elif kind == "hardlink to input":
        target.hardlink_to(input_file)
    elif kind == "dangling symlink":
        target.symlink_to(root / "out" / "nowhere" / "x")
    elif kind == "deep new path":
        target = root / "out" / "a" / "b" / "c" / name
    elif kind != "new file":
        make_node(target, kind)
    return target


def check_untouched(before: dict[str, tuple], after: dict[str, tuple], target: Path, root: Path, kind: str) -> None:
    """Nothing written outside out/; what was there is unchanged but a replaceable target."""
    replaceable = {str(target.relative_to(root))} if kind in ("plain file", "new file", "dangling symlink") else set()
    changed = [path for path, state in before.items() if after.get(path) != state and path not in replaceable]
    assert not changed, changed
    outside = [path for path in after if path not in before and not path.startswith("out" + os.sep)]
    assert not outside, outside


def fuzz_one(input_name: str, kind: str, name: str, write, extra: Path | None = None) -> None:
    """Make a world, aim the writer at the target, and check what it did."""
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        inputs = make_world(root, extra)
        target = make_target(root, kind, name, inputs / input_name)
        before = snapshot(root)
        write(root, inputs, target)
        check_untouched(before, snapshot(root), target, root, kind)


@FUZZ
@given(kind=st.sampled_from(KINDS), name=NAMES, folder_kind=st.booleans())
def test_the_target_check_refuses_or_accepts_never_raises_otherwise(kind, name, folder_kind):
    def write(root, inputs, target):
        try:
            check_targets([Target("--out", target, "folder" if folder_kind else "file")], [inputs / "add.yaml"])
        except OutputError as exc:
            assert "\n" not in str(exc)

    fuzz_one("add.yaml", kind, name, write)


@pytest.fixture(scope="module")
def run_report(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("run")
    (folder / "add.yaml").write_text(ADD_CASE)
    result = run_suite(folder, "--report=run.jsonl")
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    return folder / "run.jsonl"


COMMANDS = {
    "report merge -o": ("run.jsonl", lambda inputs, target: report_cli.main(
        ["merge", str(inputs / "run.jsonl"), "-o", str(target)])),
    "report expectations -o --force": ("run.jsonl", lambda inputs, target: baseline.main(
        [str(inputs / "run.jsonl"), "-o", str(target), "--owner", "qa", "--expires", "+9", "--reason", "r",
         "--force"])),
    "msopst convert -o": ("reduce_case.json", lambda inputs, target: msopst.main(
        ["convert", str(inputs / "reduce_case.json"), "-o", str(target)])),
}


@pytest.mark.parametrize("command", COMMANDS)
@FUZZ
@given(kind=st.sampled_from(KINDS), name=NAMES)
def test_a_command_output_is_written_or_refused_in_one_line(run_report, capsys, command, kind, name):
    input_name, call = COMMANDS[command]

    def write(root, inputs, target):
        capsys.readouterr()
        status = call(inputs, target)
        err = capsys.readouterr().err
        assert status in (0, 1, 2) and "Traceback" not in err
        if status == 2:
            assert err.count("\n") == 1, err

    fuzz_one(input_name, kind, name, write, run_report)


@pytest.mark.parametrize("option", ["--report", "--st-report", "--alluredir", "--model-cache"])
@FUZZ
@given(kind=st.sampled_from(KINDS), name=NAMES)
def test_a_run_output_option_is_written_or_refused_in_one_line(option, kind, name):
    def write(root, inputs, target):
        result = run_suite(inputs, "--co", f"{option}={target}")
        everything = result.stdout + result.stderr
        assert result.returncode in (0, 4) and "Traceback" not in everything and "INTERNALERROR" not in everything, \
            everything[-2000:]
        if result.returncode == 4:
            assert len([line for line in result.stderr.splitlines() if line.startswith("ERROR:")]) == 1

    fuzz_one("add.yaml", kind, name, write)
