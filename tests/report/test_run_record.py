"""The run record says how the run was set up; case records say flaky, crashed and the failure category."""

import hashlib
import importlib.metadata
import json
import platform
import textwrap

import pytest

from aclcts.pytest_plugin.timeouts import DEVICE_TIMEOUT
from aclcts.report.records import FAILING, STATUSES, ReportError, read_report

FLAKY = textwrap.dedent("""
    import os

    def test_flaky():
        marker = os.path.join(os.environ["MARK_DIR"], "attempted")
        if not os.path.exists(marker):
            open(marker, "w").close()
            assert False, "first attempt fails"

    def test_always_fails():
        assert False, "every attempt fails"

    def test_passes():
        pass
""")

CATEGORISED = textwrap.dedent("""
    import os

    from aclcts.judge.decorator import PrecisionMismatch

    def test_dies():
        os._exit(3)

    def test_out_of_tolerance():
        raise PrecisionMismatch("y[0]: 3 elements outside the policy")

    def test_passes():
        pass
""")


@pytest.fixture(autouse=True)
def not_an_xdist_worker(monkeypatch):
    """Child runs must not see the outer xdist worker's variables."""
    for name in ("PYTEST_XDIST_WORKER", "PYTEST_XDIST_WORKER_COUNT", "PYTEST_XDIST_TESTRUNUID", "PYTEST_ADDOPTS"):
        monkeypatch.delenv(name, raising=False)


def report_lines(path):
    return [json.loads(line) for line in path.read_text().splitlines()]


def run(pytester, *args):
    return pytester.runpytest_subprocess("-p", "no:cacheprovider", "-p", "no:randomly", *args)


def test_the_run_record_holds_settings_expectations_dependencies_and_timeout(pytester, monkeypatch):
    pytester.makepyfile(test_one="def test_one():\n    pass\n")
    expectations = pytester.path / "known.yaml"
    expectations.write_text("release: the release under test\nentries: []\n")
    monkeypatch.setenv("ACLCTS_SIM_LOG", "0")
    monkeypatch.setenv("ACLCTS_RECORDED_SETTING", "a value")
    path = pytester.path / "run.jsonl"
    result = run(pytester, "-p", "no:xdist", f"--report={path}", f"--expectations={expectations}", "--timeout=7")
    assert result.ret == 0
    record = read_report(path).run
    assert record["settings"]["ACLCTS_RECORDED_SETTING"] == "a value" and record["settings"]["ACLCTS_SIM_LOG"] == "0"
    assert all(name.startswith("ACLCTS_") for name in record["settings"])
    assert record["expectations"] == [{"path": str(expectations),
                                       "sha256": hashlib.sha256(expectations.read_bytes()).hexdigest()}]
    versions = record["dependencies"]
    assert versions["python"] == platform.python_version()
    for name in ("pytest", "numpy", "pytest-xdist", "junitparser", "pluggy"):
        assert versions[name] == importlib.metadata.version(name), name
    assert (record["timeout"]["seconds"], record["timeout"]["source"]) == (7.0, "pytest-timeout")


def test_without_a_timeout_the_run_record_says_none(pytester):
    pytester.makepyfile(test_one="def test_one():\n    pass\n")
    path = pytester.path / "run.jsonl"
    assert run(pytester, "-p", "no:xdist", f"--report={path}").ret == 0
    assert read_report(path).run["timeout"] is None and read_report(path).run["expectations"] == []


def test_off_the_simulator_the_run_record_has_the_device_default_timeout(pytester):
    pytester.makepyfile(test_one="def test_one():\n    pass\n")
    path = pytester.path / "run.jsonl"
    assert run(pytester, "-p", "no:xdist", "--backend=aclcts.sim:acl", f"--report={path}").ret == 0
    timeout = read_report(path).run["timeout"]
    assert (timeout["seconds"], timeout["source"]) == (DEVICE_TIMEOUT, "aclcts default off the simulator")


@pytest.mark.parametrize("workers", [["-p", "no:xdist"], ["-n", "2"]], ids=["serial", "xdist"])
def test_a_test_passing_on_rerun_is_flaky_and_recorded_once(pytester, monkeypatch, workers):
    pytester.makepyfile(test_flaky=FLAKY)
    monkeypatch.setenv("MARK_DIR", str(pytester.path))
    path = pytester.path / "run.jsonl"
    result = run(pytester, *workers, "--reruns", "1", f"--report={path}")
    assert result.ret == 1
    ids = [r["id"].split("::")[-1] for r in report_lines(path) if r["record"] == "case"]
    assert sorted(ids) == ["test_always_fails", "test_flaky", "test_passes"]
    cases = {case_id.split("::")[-1]: case for case_id, case in read_report(path).cases.items()}
    assert (cases["test_flaky"]["status"], cases["test_flaky"]["reruns"]) == ("flaky", 1)
    assert "first attempt fails" in cases["test_flaky"]["message"]
    assert (cases["test_always_fails"]["status"], cases["test_always_fails"]["reruns"]) == ("failed", 1)
    assert "every attempt fails" in cases["test_always_fails"]["message"]
    assert (cases["test_passes"]["status"], cases["test_passes"]["reruns"]) == ("passed", 0)
    summary = read_report(path).summary
    assert summary["total"] == 3 and (summary["counts"]["flaky"], summary["counts"]["failed"]) == (1, 1)


def test_a_crashed_workers_test_is_crashed_and_failures_carry_their_category(pytester):
    pytester.makepyfile(test_categorised=CATEGORISED)
    path = pytester.path / "run.jsonl"
    result = run(pytester, "-n", "2", f"--report={path}")
    assert result.ret == 1
    cases = {case_id.split("::")[-1]: case for case_id, case in read_report(path).cases.items()}
    assert set(cases) == {"test_dies", "test_out_of_tolerance", "test_passes"}
    assert (cases["test_dies"]["status"], cases["test_dies"]["category"]) == ("crashed", "crash")
    assert (cases["test_out_of_tolerance"]["status"], cases["test_out_of_tolerance"]["category"]) == \
        ("failed", "precision")
    assert (cases["test_passes"]["status"], cases["test_passes"]["category"]) == ("passed", None)
    assert "crashed" in FAILING and read_report(path).summary["counts"]["crashed"] == 1


def test_a_report_written_before_these_fields_still_reads(tmp_path):
    old = tmp_path / "old.jsonl"
    old.write_text('{"record": "run", "version": "0.1.0", "seed": 1, "shard": null}\n'
                   '{"record": "case", "id": "t.py::test_a", "status": "passed", "metrics": {}}\n'
                   '{"record": "summary", "counts": {"passed": 1}, "total": 1, "exit_status": 0}\n')
    report = read_report(old)
    assert report.cases["t.py::test_a"]["status"] == "passed" and "settings" not in report.run


@pytest.mark.parametrize("record, expected", [
    ('{"record": "run", "version": "1", "seed": 1, "settings": []}',
     "bad.jsonl:1: field 'settings' of the run record has the wrong type (list), expected an object"),
    ('{"record": "run", "version": "1", "seed": 1, "timeout": 5}',
     "bad.jsonl:1: field 'timeout' of the run record has the wrong type (int), expected an object or null"),
    ('{"record": "run", "version": "1", "seed": 1}\n{"record": "case", "id": "a", "status": "passed", "category": 3}',
     "bad.jsonl:2: field 'category' of the case record must be a string or null"),
])
def test_new_fields_of_the_wrong_type_are_refused_naming_file_and_line(tmp_path, record, expected):
    path = tmp_path / "bad.jsonl"
    path.write_text(record + "\n")
    with pytest.raises(ReportError) as caught:
        read_report(path)
    assert str(caught.value) == str(tmp_path / expected)


def test_flaky_and_crashed_are_statuses_a_report_may_hold(tmp_path):
    path = tmp_path / "new.jsonl"
    path.write_text('{"record": "run", "version": "1", "seed": 1}\n'
                    '{"record": "case", "id": "a", "status": "flaky"}\n'
                    '{"record": "case", "id": "b", "status": "crashed", "category": "crash"}\n')
    assert {c["status"] for c in read_report(path).cases.values()} == {"flaky", "crashed"} <= set(STATUSES)
