"""--rerun-new-failures: failures no expectations entry covers are rerun, and a test passing on a rerun is flaky in the
terminal, the JSON run report and JUnit XML."""

import xml.etree.ElementTree as ET

import pytest

from aclcts.pytest_plugin.reruns import FLAKY_PROPERTY, RERUN_PROPERTY
from aclcts.report.records import read_report

TESTS = """\
import pathlib

def attempt(name):
    counter = pathlib.Path(name + ".count")
    done = int(counter.read_text()) if counter.exists() else 0
    counter.write_text(str(done + 1))
    return done

def test_fails_once():
    assert attempt("fails_once") >= 1, "first attempt fails"

def test_always_fails():
    attempt("always_fails")
    assert False, "always"

def test_passes():
    attempt("passes")
"""


def entry(test_id, **fields):
    """One expectations entry as YAML text."""
    lines = [f'  - id: "{test_id}"', "    reason: known", "    owner: me@example.com"]
    lines += [f"    {key}: {value}" for key, value in {"expires": "2027-03-31", **fields}.items()]
    return "\n".join(lines) + "\n"


def run(pytester, *args, entries=(), inprocess=False):
    """Run the tests in a subprocess with a run report and JUnit XML (and an expectations file if entries)."""
    pytester.makepyfile(test_f=TESTS)
    options = ["-p", "no:cacheprovider", "--report=run.jsonl", "--junitxml=junit.xml", *args]
    if entries:
        pytester.makefile(".yaml", exp="release: r\nentries:\n" + "".join(entries))
        options += ["--expectations", "exp.yaml", "--expectations-today=2026-06-01"]
    return pytester.runpytest_inprocess(*options) if inprocess else pytester.runpytest_subprocess(*options)


def attempts(pytester, name):
    """How many times a test of TESTS ran."""
    counter = pytester.path / f"{name}.count"
    return int(counter.read_text()) if counter.exists() else 0


def properties(pytester, name):
    """The properties of every JUnit XML testcase of a test, one dict per testcase, in file order."""
    root = ET.parse(pytester.path / "junit.xml").getroot()
    return [{p.get("name"): p.get("value") for p in case.iter("property")}
            for case in root.iter("testcase") if case.get("name") == name]


def section(result, heading):
    """The non-empty lines of one of aclcts' terminal summary sections."""
    lines = result.stdout.lines
    start = next(i for i, line in enumerate(lines) if heading in line)
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("====")), len(lines))
    return [line for line in lines[start + 1:end] if line.strip()]


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["serial", "xdist"])
def test_a_test_passing_on_a_rerun_is_flaky_in_every_output(pytester, workers):
    result = run(pytester, "--rerun-new-failures=2", "-v", *workers)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    outcomes = result.parseoutcomes()
    assert (outcomes["flaky"], outcomes["failed"], outcomes["passed"]) == (1, 1, 1)
    assert (attempts(pytester, "fails_once"), attempts(pytester, "always_fails"), attempts(pytester, "passes")) \
        == (2, 3, 1)
    cases = read_report(pytester.path / "run.jsonl").cases
    assert {case_id.split("::")[1]: case["status"] for case_id, case in cases.items()} == {
        "test_fails_once": "flaky", "test_always_fails": "failed", "test_passes": "passed"}
    rerun, passed = properties(pytester, "test_fails_once")
    assert list(rerun) == [RERUN_PROPERTY] and passed == {FLAKY_PROPERTY: "1"}
    assert rerun[RERUN_PROPERTY].startswith("attempt 1 failed: ") and "first attempt fails" in rerun[RERUN_PROPERTY]
    said = [p.get(RERUN_PROPERTY) or "" for p in properties(pytester, "test_always_fails")]
    assert [text.split(":")[0] for text in said] == ["attempt 1 failed", "attempt 2 failed", ""]
    heading, line = section(result, "aclcts flaky tests")
    assert heading == "passed on a rerun after failing (--rerun-new-failures=2): 1"
    assert line.startswith("  test_f.py::test_fails_once - passed on rerun 1; first failure: ")
    assert line.endswith("first attempt fails")
    assert any("test_fails_once" in line and "FLAKY" in line.split() for line in result.stdout.lines)


def test_a_failure_an_entry_covers_is_not_rerun(pytester):
    result = run(pytester, "--rerun-new-failures=2", entries=[entry("test_f.py::test_fails_once"),
                                                              entry("test_f.py::test_always_fails")])
    assert result.ret == pytest.ExitCode.OK
    assert (attempts(pytester, "fails_once"), attempts(pytester, "always_fails")) == (1, 1)
    statuses = {case["status"] for case in read_report(pytester.path / "run.jsonl").cases.values()}
    assert statuses == {"xfailed", "passed"}
    assert "flaky" not in result.parseoutcomes()


def test_an_expired_entry_covers_nothing_so_its_test_is_rerun(pytester):
    result = run(pytester, "--rerun-new-failures=1", "-k", "fails_once",
                 entries=[entry("test_f.py::test_fails_once", expires="2026-01-01")])
    assert result.ret == pytest.ExitCode.OK
    assert attempts(pytester, "fails_once") == 2
    assert read_report(pytester.path / "run.jsonl").cases["test_f.py::test_fails_once"]["status"] == "flaky"


def test_without_the_option_nothing_is_rerun(pytester):
    result = run(pytester)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert (attempts(pytester, "fails_once"), attempts(pytester, "always_fails")) == (1, 1)
    assert properties(pytester, "test_fails_once") == [{}]


@pytest.mark.parametrize(("args", "said"), [
    (["--rerun-new-failures=-1"], "--rerun-new-failures: expected a number of reruns of 0 or more, got -1"),
    (["--rerun-new-failures=1", "--reruns=2"], "--rerun-new-failures and --reruns both set reruns: give one of them"),
    (["--rerun-new-failures=1", "--pdb"], "--rerun-new-failures cannot be used with --pdb"),
    (["--rerun-new-failures=1", "-p", "no:rerunfailures"], "--rerun-new-failures needs the pytest-rerunfailures"),
    (["--rerun-new-failures=1", "-o", "reruns=3"], "--rerun-new-failures and the ini setting reruns both set"),
], ids=["negative", "with-reruns", "with-pdb", "plugin-off", "with-ini-reruns"])
def test_bad_use_is_one_usage_line(pytester, args, said):
    result = run(pytester, "-p", "no:xdist", *args, inprocess=True)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert [line for line in result.stderr.lines if said in line] and "Traceback" not in result.stderr.str()
    assert attempts(pytester, "passes") == 0


def test_a_test_that_crashed_its_worker_once_is_rerun_and_flaky(pytester):
    pytester.makepyfile(test_c="""
        import os
        import pathlib

        def test_crashes_once():
            counter = pathlib.Path("crashes_once.count")
            done = int(counter.read_text()) if counter.exists() else 0
            counter.write_text(str(done + 1))
            if not done:
                os._exit(1)
    """)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-n", "2", "--rerun-new-failures=1",
                                           "--junitxml=junit.xml")
    assert result.ret == pytest.ExitCode.OK
    assert result.parseoutcomes()["flaky"] == 1 and attempts(pytester, "crashes_once") == 2
    (final,) = properties(pytester, "test_crashes_once")
    assert final[FLAKY_PROPERTY] == "1" and final[RERUN_PROPERTY].startswith("attempt 1 failed: ")
