"""--expectations: matched failures become xfails, matched passes fail, and the summary tells what each entry did."""

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from aclcts.report.records import read_report

ROOT = Path(__file__).resolve().parents[2]
SUITE = ROOT / "tests" / "suite"

TESTS = """\
import pytest

def test_fails():
    assert 1 == 2

def test_passes():
    pass

@pytest.mark.parametrize("x", [1, 2])
def test_param(x):
    assert x == 0

@pytest.fixture
def broken():
    raise RuntimeError("no device")

def test_setup_error(broken):
    pass

def test_setup_error_not_expected(broken):
    pass
"""

OTHER = "def test_a():\n    pass\n\ndef test_b():\n    assert False\n"

BACKEND = """\
from aclcts.drive.backends import mutable_copy
from aclcts.sim import acl as _sim

def make():
    acl = mutable_copy(_sim)
    acl.get_soc_name = lambda: "Ascend310P3"
    acl.get_cann_version = lambda package: ({"version": "9.0.0", "major_version": "9"}, 0)
    return acl
"""


def entry(test_id, reason="known bug", **fields):
    """One entry of an expectations file, as YAML text."""
    lines = [f'  - id: "{test_id}"', f"    reason: {reason}", "    owner: me@example.com"]
    lines += [f"    {key}: {value}" for key, value in {"expires": "2027-03-31", **fields}.items()]
    return "\n".join(lines) + "\n"


@pytest.fixture
def project(pytester):
    pytester.makepyfile(test_w=TESTS, test_other=OTHER)
    return pytester


def run(pytester, *entries, args=()):
    """Run pytest in-process on the project with an expectations file holding entries (the first at line 3)."""
    pytester.makefile(".yaml", exp="release: CANN 9.0.0\nentries:\n" + "".join(entries))
    return pytester.runpytest_inprocess("-p", "no:cacheprovider", "-p", "no:xdist", "-p", "no:benchmark", "-ra",
                                        "--expectations", "exp.yaml", "--expectations-today=2026-06-01", *args)


def summary(result):
    """The lines of the "aclcts expectations" summary section."""
    lines = result.stdout.lines
    start = next(i for i, line in enumerate(lines) if "aclcts expectations" in line)
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("====")), len(lines))
    return [line for line in lines[start + 1:end] if line.strip()]


def test_a_matched_failure_is_xfailed_with_its_reason_and_location(project, pytester):
    result = run(project, entry("test_w.py::test_fails"), entry("test_w.py::test_param[*]", reason="param bug"),
                 entry("test_w.py::test_setup_error", reason="fixture broken", raises="error"),
                 entry("test_w.py::test_setup_error_not_expected", reason="wrong phase"),
                 args=["test_w.py", "--report=run.jsonl"])
    result.assert_outcomes(xfailed=4, passed=1, errors=1)
    cases = read_report(pytester.path / "run.jsonl").cases
    assert {case_id: (case["status"], case["message"]) for case_id, case in cases.items() if case["status"] != "passed"} == {
        "test_w.py::test_fails": ("xfailed", "known bug [exp.yaml:3]"),
        "test_w.py::test_param[1]": ("xfailed", "param bug [exp.yaml:7]"),
        "test_w.py::test_param[2]": ("xfailed", "param bug [exp.yaml:7]"),
        "test_w.py::test_setup_error": ("xfailed", "fixture broken [exp.yaml:11]"),
        "test_w.py::test_setup_error_not_expected": ("error", "RuntimeError: no device"),
    }
    assert summary(result)[1:] == [
        "xfailed: 3",
        "  exp.yaml:3 test_w.py::test_fails - 1 test(s)",
        "  exp.yaml:7 test_w.py::test_param[*] - 2 test(s)",
        "  exp.yaml:11 test_w.py::test_setup_error - 1 test(s)",
        "matched, but not as the entry expects: 1",
        ("  exp.yaml:16 test_w.py::test_setup_error_not_expected - a test errored in setup but the entry says "
         "raises: failed"),
    ]


def test_a_matched_test_that_passes_fails_naming_the_entry(project):
    result = run(project, entry("test_w.py::test_passes", reason="was broken"),
                 entry("test_other.py::test_a", reason="setup used to fail", raises="error"),
                 args=["test_w.py::test_passes", "test_other.py::test_a"])
    result.assert_outcomes(failed=2)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines_random([
        "unexpected pass: expectations exp.yaml:3 says this test fails (was broken; me@example.com); remove the entry",
        ("unexpected pass: expectations exp.yaml:7 says this test errors in setup (setup used to fail; "
         "me@example.com); remove the entry"),
        "unexpected pass (remove the entry): 2",
    ])


def test_an_entry_holds_through_its_expiry_date_and_not_after(project):
    expiring = entry("test_w.py::test_fails", expires="2026-06-30")
    on_the_day = run(project, expiring, args=["test_w.py::test_fails", "--expectations-today=2026-06-30"])
    on_the_day.assert_outcomes(xfailed=1)
    after = run(project, expiring, args=["test_w.py::test_fails", "--expectations-today=2026-07-01",
                                         "--report=run.jsonl"])
    after.assert_outcomes(failed=1)
    case = read_report(project.path / "run.jsonl").cases["test_w.py::test_fails"]
    assert case["status"] == "failed" and "unexpected pass" not in case["message"]
    assert summary(after)[1:] == [
        "expired, not applied (renew or remove): 1",
        "  exp.yaml:3 test_w.py::test_fails - expired 2026-06-30; 1 matching test result(s) left as they were",
    ]


def test_unmatched_entries_are_told_apart_from_entries_not_exercised(project):
    entries = (entry("test_w.py::test_gone"), entry("test_other.py::test_b"), entry("test_missing.py::test_x"))
    result = run(project, *entries, args=["-k", "not test_b"])
    assert summary(result)[1:] == [
        "unmatched: no collected test matches (renamed or removed?): 1",
        "  exp.yaml:3 test_w.py::test_gone - no test collected from test_w.py matches it",
        "not exercised in this run: 2",
        ("  exp.yaml:7 test_other.py::test_b - its tests were collected but not selected "
         "(-k, -m, --deselect or another shard)"),
        "  exp.yaml:11 test_missing.py::test_x - its test file was not collected in whole in this run",
    ]
    narrowed = run(project, *entries, args=["test_w.py::test_passes"])
    assert "unmatched" not in "\n".join(summary(narrowed))
    narrowed.stdout.fnmatch_lines(["  exp.yaml:3 test_w.py::test_gone - its test file was not collected in whole*"])


def test_the_soc_filter_selects_entries_by_the_backends_soc(project):
    project.makepyfile(socbackend=BACKEND, test_soc=textwrap.dedent("""
        def test_uses_backend(aclcts_backend):
            assert aclcts_backend.acl.get_soc_name() != "Ascend310P3"

        def test_plain():
            assert False
    """))
    project.syspathinsert()
    result = run(project, entry("test_soc.py::test_uses_backend", reason="310P only", soc="Ascend310P*"),
                 entry("test_soc.py::test_plain", reason="910 only", soc="Ascend910*"),
                 args=["test_soc.py", "--backend=socbackend:make", "--report=run.jsonl"])
    result.assert_outcomes(xfailed=1, failed=1)
    case = read_report(project.path / "run.jsonl").cases["test_soc.py::test_uses_backend"]
    assert (case["status"], case["message"]) == ("xfailed", "310P only [exp.yaml:3]")
    result.stdout.fnmatch_lines([
        "  exp.yaml:8 test_soc.py::test_plain - soc filter 'Ascend910[*]' does not match the run's soc Ascend310P3",
    ])


@pytest.mark.parametrize(("args", "xfailed", "said"), [
    ([], 0, ("cann filter '9.0.[*]' but the run's CANN version is unknown (the backend has no "
            "acl.get_cann_version; give --cann-version)")),
    (["--cann-version=9.0.1"], 1, "exp.yaml:3 test_w.py::test_fails - 1 test(s)"),
    (["--cann-version=8.0.0", "--backend=socbackend:make"], 1, "exp.yaml:3 test_w.py::test_fails - 1 test(s)"),
    (["--cann-version=8.0.0"], 0, "cann filter '9.0.[*]' does not match the run's CANN version 8.0.0"),
], ids=["unknown", "from-option", "from-acl.get_cann_version", "other-version"])
def test_the_cann_filter_uses_the_backends_version_else_the_option(project, args, xfailed, said):
    project.makepyfile(socbackend=BACKEND)
    project.syspathinsert()
    result = run(project, entry("test_w.py::test_fails", cann='"9.0.*"'), args=["test_w.py::test_fails", *args])
    result.assert_outcomes(xfailed=xfailed, failed=1 - xfailed)
    result.stdout.fnmatch_lines([f"*{said}"])


def test_entry_usage_reaches_the_summary_under_xdist(project):
    project.makefile(".yaml", exp="release: CANN 9.0.0\nentries:\n" + entry("test_w.py::test_param[*]")
                     + entry("test_w.py::test_passes") + entry("test_w.py::test_gone") + entry("test_other.py::test_b"))
    result = project.runpytest_subprocess("-p", "no:cacheprovider", "-n", "2", "-k", "not test_b",
                                          "--expectations", "exp.yaml", "--expectations-today=2026-06-01")
    result.assert_outcomes(xfailed=2, failed=2, passed=1, errors=2)
    assert summary(result)[1:] == [
        "unexpected pass (remove the entry): 1",
        "  exp.yaml:7 test_w.py::test_passes - 1 test(s) passed",
        "xfailed: 1",
        "  exp.yaml:3 test_w.py::test_param[*] - 2 test(s)",
        "unmatched: no collected test matches (renamed or removed?): 1",
        "  exp.yaml:11 test_w.py::test_gone - no test collected from test_w.py matches it",
        "not exercised in this run: 1",
        ("  exp.yaml:15 test_other.py::test_b - its tests were collected but not selected "
         "(-k, -m, --deselect or another shard)"),
    ]


def test_a_real_conformance_failure_is_xfailed_and_an_unlisted_one_still_fails(tmp_path):
    failing = "conformance/test_execute.py::test_execute_v2_matches_reference[Add-int32-"
    expectations = tmp_path / "cann-9.0.yaml"
    expectations.write_text("release: CANN 9.0.0\nentries:\n"
                            + entry(failing + "8x16_8x16]", reason="first byte overwritten", soc="Ascend910*")
                            + entry(failing + "1_1]", reason="only on 310P", soc="Ascend310P*"))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(SUITE), str(ROOT), os.environ.get("PYTHONPATH", "")]))
    command = [sys.executable, "-m", "pytest", "conformance/test_execute.py", "--ops=Add",
               "-k", "(Add-int32-8x16 or Add-int32-1_1) and not int_extremes",
               "--backend=faults:changed_output_element", f"--expectations={expectations}", "-q",
               f"--report={tmp_path / 'run.jsonl'}", "-p", "no:cacheprovider", "-p", "no:xdist"]
    result = subprocess.run(command, check=False, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    out = result.stdout
    assert result.returncode == 1, out[-3000:]
    cases = read_report(tmp_path / "run.jsonl").cases
    assert {case_id: case["status"] for case_id, case in cases.items()} == {
        failing + "8x16_8x16]": "xfailed", failing + "1_1]": "failed"}
    assert cases[failing + "8x16_8x16]"]["message"] == f"first byte overwritten [{expectations}:3]"
    assert f"{expectations}:8 {failing}1_1] - soc filter 'Ascend310P*' does not match the run's soc Ascend910B1" in out


SKIPPED = """\
import pathlib

import pytest

@pytest.fixture
def device():
    pathlib.Path("fixture-ran").write_text("yes")

def test_hangs(device):
    pathlib.Path("body-ran").write_text("yes")

def test_other():
    pass
"""


@pytest.mark.parametrize("args", [[], ["-n", "2"]], ids=["serial", "xdist"])
def test_a_skip_entry_keeps_the_test_and_its_fixtures_from_running(pytester, args):
    pytester.makepyfile(test_s=SKIPPED)
    pytester.makefile(".yaml", exp="release: r\nentries:\n" + entry("test_s.py::test_hangs", reason="hangs the device",
                                                                      action="skip"))
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--expectations", "exp.yaml",
                                           "--expectations-today=2026-06-01", "--report=run.jsonl", *args)
    assert result.ret == pytest.ExitCode.OK
    result.assert_outcomes(passed=1, skipped=1)
    assert not (pytester.path / "fixture-ran").exists() and not (pytester.path / "body-ran").exists()
    case = read_report(pytester.path / "run.jsonl").cases["test_s.py::test_hangs"]
    assert case["status"] == "skipped" and case["message"].endswith("hangs the device [exp.yaml:3]")
    assert summary(result)[1:] == ["skipped, not run (action: skip): 1", "  exp.yaml:3 test_s.py::test_hangs - 1 test(s)"]


@pytest.mark.parametrize(("fields", "said"), [
    ({"expires": "2026-05-31"}, "expired, not applied (renew or remove): 1"),
    ({"soc": "Ascend000*"}, "not applicable in this run: 1"),
], ids=["expired", "other-soc"])
def test_a_skip_entry_that_does_not_apply_lets_the_test_run(pytester, fields, said):
    pytester.makepyfile(test_s=SKIPPED)
    result = run(pytester, entry("test_s.py::test_hangs", action="skip", **fields), args=["test_s.py"])
    result.assert_outcomes(passed=2)
    assert (pytester.path / "body-ran").exists()
    assert summary(result)[1] == said
