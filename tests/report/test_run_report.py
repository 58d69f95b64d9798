"""--report: a JSON Lines run report written as results arrive, with every status, the environment and metrics."""

import json
import subprocess
import sys
import textwrap

import pytest
from add_case import ADD_CASE
from report_runs import child_environment

from aclcts.pytest_plugin import run_report
from aclcts.report.records import ReportError, read_report

EVERY_STATUS = textwrap.dedent("""
    import pytest
    from aclcts.drive import executor
    from aclcts.judge.decorator import compares_with_reference

    @pytest.fixture
    def broken():
        raise RuntimeError("setup broke")

    @pytest.fixture
    def broken_teardown():
        yield
        raise RuntimeError("teardown broke")

    @pytest.mark.execute
    @pytest.mark.cases(mode="execute_v2")
    @compares_with_reference
    def test_numeric(acl, stream, op_case, case_inputs):
        return executor.run(acl, stream, op_case, case_inputs, "execute_v2")

    def test_fail():
        assert 1 == 2, "one is not two"

    def test_skip():
        pytest.skip("not on this backend")

    @pytest.mark.xfail(reason="known defect")
    def test_xfail():
        assert False

    @pytest.mark.xfail(reason="fixed meanwhile")
    def test_xpass():
        pass

    def test_setup_error(broken):
        pass

    def test_teardown_error(broken_teardown):
        pass
""")

EXPECTED = {
    "test_every.py::test_numeric[Add-float32-8x16_8x16]": "passed",
    "test_every.py::test_fail": "failed",
    "test_every.py::test_skip": "skipped",
    "test_every.py::test_xfail": "xfailed",
    "test_every.py::test_xpass": "xpassed",
    "test_every.py::test_setup_error": "error",
    "test_every.py::test_teardown_error": "error",
}


def run_child(folder, *args):
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--rootdir={folder}", *args]
    return subprocess.run(command, cwd=folder, env=child_environment(), capture_output=True, text=True, timeout=300,
                          check=False)


@pytest.fixture(scope="module")
def every_status(tmp_path_factory):
    """Reports of one serial and one `-n 2` run of a test file with every status and a numeric case."""
    folder = tmp_path_factory.mktemp("every")
    (folder / "cases").mkdir()
    (folder / "cases" / "add.yaml").write_text(ADD_CASE)
    (folder / "test_every.py").write_text(EVERY_STATUS)
    serial, parallel = folder / "out" / "serial.jsonl", folder / "parallel.jsonl"
    first = run_child(folder, "-p", "no:xdist", f"--report={serial}", "--aclcts-seed=7")
    second = run_child(folder, "-n", "2", f"--report={parallel}", "--aclcts-seed=7")
    assert first.returncode == second.returncode == 1, first.stdout[-2000:] + second.stdout[-2000:]
    assert "2 passed, 1 skipped, 1 xfailed, 1 xpassed, 2 errors" in first.stdout
    return serial, parallel


def records(path):
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_the_report_has_run_environment_one_record_per_case_and_summary(every_status):
    path = every_status[0]
    written = records(path)
    assert [r["record"] for r in written] == ["run", "environment"] + ["case"] * 7 + ["summary"]
    run, environment, summary = written[0], written[1], written[-1]
    assert run["seed"] == 7 and run["backend"] == "sim" and run["shard"] is None
    assert f"--report={path}" in run["pytest_args"] and run["version"] and run["hostname"] and run["start"]
    assert environment == {"record": "environment", "backend": "sim", "soc_name": "Ascend910B1",
                           "acl_version": "1.0.0", "cann_version": None, "device_id": 0, "device_count": 2,
                           "worker": None}
    cases = {r["id"]: r for r in written if r["record"] == "case"}
    assert {k: v["status"] for k, v in cases.items()} == EXPECTED
    assert summary["counts"] == {"passed": 1, "failed": 1, "skipped": 1, "xfailed": 1, "xpassed": 1, "error": 2,
                                 "flaky": 0, "crashed": 0}
    assert summary["total"] == 7 and summary["exit_status"] == 1


def test_case_records_carry_metrics_steps_messages_and_device(every_status):
    cases = read_report(every_status[0]).cases
    numeric = cases["test_every.py::test_numeric[Add-float32-8x16_8x16]"]
    assert numeric["steps"] == ["execute"] and numeric["device"] == 0 and numeric["worker"] is None
    output = numeric["metrics"]["y[0]"]
    assert output["passed"] is True and output["policy"] == "v2" and output["shape"] == [8, 16]
    assert {"max_abs", "max_rel", "max_ulp", "mare", "mere", "rmse", "mismatch_ratio"} <= set(output)
    assert "one is not two" in cases["test_every.py::test_fail"]["message"]
    assert cases["test_every.py::test_skip"]["message"] == "Skipped: not on this backend"
    assert cases["test_every.py::test_xfail"]["message"] == "known defect"
    assert "setup broke" in cases["test_every.py::test_setup_error"]["message"]
    assert "teardown broke" in cases["test_every.py::test_teardown_error"]["message"]
    assert cases["test_every.py::test_fail"]["duration"] >= 0
    assert numeric["category"] is None and cases["test_every.py::test_fail"]["category"] == "other"
    assert cases["test_every.py::test_setup_error"]["category"] == "setup"
    assert numeric["reproduce"] is None
    assert cases["test_every.py::test_fail"]["reproduce"].startswith("pytest test_every.py::test_fail --backend=sim")


def test_under_xdist_the_controller_writes_the_same_statuses_with_workers(every_status):
    one, two = read_report(every_status[0]), read_report(every_status[1])
    assert {k: v["status"] for k, v in two.cases.items()} == EXPECTED
    assert {k: (v["status"], v["metrics"], v["steps"]) for k, v in one.cases.items()} == \
           {k: (v["status"], v["metrics"], v["steps"]) for k, v in two.cases.items()}
    assert {case["worker"] for case in two.cases.values()} <= {"gw0", "gw1"}
    assert two.cases["test_every.py::test_fail"]["reproduce"] == \
           one.cases["test_every.py::test_fail"]["reproduce"].replace(" -p no:xdist", "")  # the serial run had it
    assert two.environments and all(env["worker"] in ("gw0", "gw1") for env in two.environments)
    assert two.summary["counts"] == one.summary["counts"]


def test_records_are_on_disk_as_each_case_ends_and_a_killed_run_leaves_valid_lines(pytester, monkeypatch):
    pytester.makepyfile(test_killed=textwrap.dedent("""
        import json, os, signal

        def test_first():
            pass

        def test_second_sees_the_first_on_disk():
            last = json.loads(open(os.environ["REPORT"]).read().splitlines()[-1])
            assert last["record"] == "case" and last["id"].endswith("::test_first")

        def test_killed():
            os.kill(os.getpid(), signal.SIGKILL)

        def test_never_runs():
            pass
    """))
    path = pytester.path / "killed.jsonl"
    monkeypatch.setenv("REPORT", str(path))
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-p", "no:xdist", f"--report={path}")
    assert result.ret != 0
    text = path.read_text()
    assert text.endswith("\n")
    written = [json.loads(line) for line in text.splitlines()]
    assert [(r["record"], r.get("id", "").split("::")[-1], r.get("status")) for r in written] == [
        ("run", "", None), ("case", "test_first", "passed"), ("case", "test_second_sees_the_first_on_disk", "passed")]
    report = read_report(path)
    assert report.summary is None and len(report.cases) == 2


def test_an_unwritable_report_path_is_a_one_line_usage_error(pytester):
    pytester.makepyfile(test_x="def test_x():\n    pass\n")
    blocker = pytester.path / "file"
    blocker.write_text("not a folder")
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", f"--report={blocker}/run.jsonl")
    assert result.ret == 4
    result.stderr.fnmatch_lines([f"ERROR: --report={blocker}/run.jsonl: {blocker}/run.jsonl cannot be written: "
                                 f"{blocker} is a regular file, not a folder"])
    assert "Traceback" not in result.stderr.str()


@pytest.mark.parametrize("text, expected", [
    ('{"record": "case", "id": "a", "status": "passed"}\n', "bad.jsonl:1: the first record must be the run record"),
    ('{"record": "run", "version": "1", "seed": 1}\n{"record": "case", "id": "a", "status": "fine"}\n',
     "bad.jsonl:2: case status 'fine', expected one of passed"),
    ('{"record": "run", "version": "1", "seed": 1}\n{"record": "case", "id": "a"\n', "bad.jsonl:2: not valid JSON"),
    ('{"record": "run", "version": "1"}\n', "bad.jsonl:1: run record has no field 'seed'"),
    (('{"record": "run", "version": "1", "seed": 1}\n{"record": "summary"}\n{"record": "case", "id": "a", '
      '"status": "passed"}\n'), "bad.jsonl:3: a case record after the summary record"),
    (('{"record": "run", "version": "1", "seed": 1}\n{"record": "case", "id": "a", "status": "passed"}\n'
      '{"record": "case", "id": "a", "status": "failed"}\n'), "bad.jsonl:3: case 'a' appears twice"),
    ('[1, 2]\n', "bad.jsonl:1: expected a JSON object, got list"),
])
def test_malformed_reports_are_refused_naming_file_and_line(tmp_path, text, expected):
    path = tmp_path / "bad.jsonl"
    path.write_text(text)
    with pytest.raises(ReportError) as caught:
        read_report(path)
    assert str(caught.value).startswith(str(tmp_path / expected.split(":")[0]))
    assert expected in str(caught.value)


def test_a_message_whose_first_line_ends_in_a_colon_carries_the_numbers_that_follow():
    text = ("PrecisionMismatch: Add-float16-8x16 (cases/add.yaml) differs from the reference:\n"
            "y[0]: fails policy ulp {'max': 2}: 3 of 128 elements off, max abs 0.5, max rel 3.711\n"
            "  index  actual  expected\n  (0, 1)  1.5  1.0\n")
    report = pytest.TestReport("t.py::test", ("t.py", 1, "test"), {}, "failed", text, "call")
    line = run_report.message(report)
    assert line.startswith("PrecisionMismatch: Add-float16-8x16") and "max rel 3.711" in line
    assert "index" not in line
