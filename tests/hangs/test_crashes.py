"""Crashes: a test whose pytest-xdist worker dies is reported as crashed, apart from failures, in the terminal
counts, the JSON run report and JUnit XML, and the other tests still run."""

import os
import re
import subprocess
import sys
import textwrap
import xml.etree.ElementTree as ET
from pathlib import Path

from aclcts.pytest_plugin.categories import CRASH_LINE
from aclcts.report.records import read_report

ROOT = Path(__file__).resolve().parents[2]
TESTS = textwrap.dedent("""
    import os
    import signal

    import pytest

    @pytest.mark.parametrize("n", range(3))
    def test_passes(n):
        pass

    def test_fails():
        assert 1 + 1 == 3

    def test_kills_its_process():
        os.kill(os.getpid(), signal.SIGKILL)
""")
CRASHER = "test_x.py::test_kills_its_process"


def crash_line_pattern(nodeid):
    """CRASH_LINE for nodeid with any worker, as a regular expression."""
    return re.escape(CRASH_LINE).replace(re.escape("{worker}"), r"gw\d+").replace(re.escape("{nodeid}"),
                                                                                    re.escape(nodeid))


def test_a_dead_worker_is_a_crash_apart_from_failures_everywhere(pytester):
    pytester.makepyfile(test_x=TESTS)
    junit, report = pytester.path / "junit.xml", pytester.path / "run.jsonl"
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-n", "2", f"--junitxml={junit}",
                                           f"--report={report}")
    assert result.ret == 1
    assert result.parseoutcomes() == {"passed": 3, "failed": 1, "crashed": 1}
    assert re.search(crash_line_pattern(CRASHER), result.stdout.str())

    cases = read_report(report).cases
    assert (cases[CRASHER]["status"], cases[CRASHER]["category"]) == ("crashed", "crash")
    assert (cases["test_x.py::test_fails"]["status"], cases["test_x.py::test_fails"]["category"]) == ("failed", "other")
    assert read_report(report).summary["counts"]["crashed"] == 1

    testcases = {case.get("name"): case for case in ET.parse(junit).iter("testcase")}
    crashed = testcases["test_kills_its_process"]
    assert [child.tag for child in crashed] == ["error"]
    assert re.fullmatch(crash_line_pattern(CRASHER), crashed[0].text.strip())
    assert [child.tag for child in testcases["test_fails"]] == ["failure"]


def test_a_simulator_fault_that_kills_the_process_crashes_only_its_test(tmp_path):
    env = dict(os.environ, ACLCTS_SIM_FAULTS="double_free_crashes")
    with_report = tmp_path / "run.jsonl"
    command = [sys.executable, "-m", "pytest", "conformance/test_free.py", "-n", "2", "-q", "-p", "no:cacheprovider",
               f"--report={with_report}"]
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 1, done.stdout[-3000:]
    cases = read_report(with_report).cases
    crashed = [nodeid for nodeid, case in cases.items() if case["status"] == "crashed"]
    assert crashed == ["conformance/test_free.py::test_double_free_is_an_error"]
    assert cases[crashed[0]]["category"] == "crash"
    others = [case["status"] for nodeid, case in cases.items() if nodeid not in crashed]
    assert others and set(others) == {"passed"}
