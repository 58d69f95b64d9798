"""A failing custom op's reproduce line, run in a shell where the suite was run, fails the same test the same way."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from aclcts.cases.profiles import PROFILES
from aclcts.pytest_plugin.failures import FIRST, REPRODUCE
from aclcts.tools.newop import main as new_op

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def broken_op(tmp_path_factory):
    """`aclcts new-op MyBroken` in a temporary folder, its kernel changed to drop its second input."""
    folder = tmp_path_factory.mktemp("custom_ops") / "my_broken"
    assert new_op(["MyBroken", "--dir", str(folder)]) == 0
    kernel = folder / "my_broken_kernel.py"
    text = kernel.read_text()
    assert "for x in xs[1:]:" in text
    kernel.write_text(text.replace("for x in xs[1:]:", "for x in xs[2:]:"))
    return folder


def environment(**settings):
    """This process' environment without ACLCTS_* settings, plus the given ones; its own pytest first on PATH."""
    env = {name: value for name, value in os.environ.items() if not name.startswith(("ACLCTS_", "PYTEST_"))}
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
    return {**env, **settings}


def case_records(report: Path):
    return {r["id"]: r for r in map(json.loads, report.read_text().splitlines()) if r["record"] == "case"}


def summary_value(stdout: str, prefix: str) -> str:
    """The text after aclcts' own prefix on the first line of the per-op failure summary that starts with it."""
    return next(line.strip()[len(prefix):].strip() for line in stdout.splitlines() if line.strip().startswith(prefix))


@pytest.mark.parametrize("cwd, suite", [(".", "conformance/"), ("conformance", ".")], ids=["root", "subfolder"])
def test_the_printed_reproduce_line_reruns_the_same_failing_custom_op_test(broken_op, tmp_path, cwd, suite):
    # As README says: the suite and the op's folder (its record names the kernel to register); plus a plugin option,
    # a seed and an ACLCTS_* setting that the line has to carry.
    report = tmp_path / "run.jsonl"
    first = subprocess.run(
        ["pytest", suite, "--cases", str(broken_op),
         "-p", "no:cacheprovider", "-p", "no:xdist", "--aclcts-seed=11", f"--report={report}"],
        cwd=ROOT / cwd, env=environment(ACLCTS_SIM_STACK_DEPTH="4"), capture_output=True, text=True, timeout=900,
        check=False,
    )
    assert first.returncode == 1, first.stdout[-3000:] + first.stderr[-2000:]
    records = case_records(report)
    failed = {i: r for i, r in records.items() if r["status"] == "failed"}
    plain = [i for i in records if "matches_reference" in i and not i.endswith(tuple(f"-{p}]" for p in PROFILES))]
    assert len(plain) == 12 and set(plain) <= set(failed), "every case of the file's own values fails"
    test_id = summary_value(first.stdout, FIRST)
    line = summary_value(first.stdout, REPRODUCE)
    assert test_id in failed
    assert "ACLCTS_SIM_STACK_DEPTH=4" in line and str(broken_op) in line and "-p no:cacheprovider" in line

    again_report = tmp_path / "again.jsonl"
    again = subprocess.run(line, shell=True, cwd=ROOT / cwd, capture_output=True, text=True, timeout=900, check=False,
                           env=environment(PYTEST_ADDOPTS=f"--report={again_report}"))
    assert again.returncode == 1, again.stdout[-3000:] + again.stderr[-2000:]
    records = case_records(again_report)
    assert list(records) == [test_id]
    rerun, original = records[test_id], failed[test_id]
    assert (rerun["status"], rerun.get("category"), rerun["message"]) == (
        original["status"], original.get("category"), original["message"])
    assert "differs from the reference" in rerun["message"]
