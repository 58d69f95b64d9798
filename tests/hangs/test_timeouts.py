"""Per-test timeouts: the default off the simulator, the user's own setting winning, and a hung kernel in the
simulator failing as a timeout while the rest of the run completes and is reported."""

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from aclcts.pytest_plugin.timeouts import DEVICE_TIMEOUT
from aclcts.report.records import read_report
from aclcts.sim.faults import REGISTRY
from aclcts.sim.faults.kernels import HANGING_OP

ROOT = Path(__file__).resolve().parents[2]
TESTS = textwrap.dedent("""
    import pytest

    def test_plain():
        pass

    @pytest.mark.timeout(7)
    def test_own_timeout():
        pass
""")
DEVICE_BACKEND = "mybackend:make"


def timeouts(pytester, *args, ini=""):
    """Each collected test's timeout marker argument (None without a marker), by test name."""
    pytester.makepyfile(test_x=TESTS)
    if ini:
        pytester.makeini(f"[pytest]\n{ini}\n")
    items, _ = pytester.inline_genitems("-p", "no:cacheprovider", "-p", "no:xdist", *args)
    return {item.name: (m.args[0] if (m := item.get_closest_marker("timeout")) else None) for item in items}


def test_tests_off_the_simulator_get_the_device_timeout_unless_they_have_their_own(pytester):
    assert timeouts(pytester, f"--backend={DEVICE_BACKEND}") == {"test_plain": DEVICE_TIMEOUT, "test_own_timeout": 7}


def test_tests_on_npu_get_the_device_timeout(pytester):
    (pytester.path / "models").mkdir()
    (pytester.path / "models" / "op.om").write_bytes(b"")
    found = timeouts(pytester, "--backend=npu", f"--model-dir={pytester.path / 'models'}")
    assert found == {"test_plain": DEVICE_TIMEOUT, "test_own_timeout": 7}


def test_the_simulator_has_no_timeout_by_default(pytester):
    assert timeouts(pytester) == {"test_plain": None, "test_own_timeout": 7}


@pytest.mark.parametrize("setting", [["--timeout=5"], ["--timeout=0"], ["-p", "no:timeout"]])
def test_the_users_timeout_option_wins_over_the_device_default(pytester, setting):
    found = timeouts(pytester, f"--backend={DEVICE_BACKEND}", *setting)
    assert found == {"test_plain": None, "test_own_timeout": 7}


def test_the_timeout_ini_value_wins_over_the_device_default(pytester):
    found = timeouts(pytester, f"--backend={DEVICE_BACKEND}", ini="timeout = 60")
    assert found == {"test_plain": None, "test_own_timeout": 7}


def test_the_pytest_timeout_variable_wins_over_the_device_default(pytester, monkeypatch):
    monkeypatch.setenv("PYTEST_TIMEOUT", "60")
    assert timeouts(pytester, f"--backend={DEVICE_BACKEND}") == {"test_plain": None, "test_own_timeout": 7}


#: Two case files: the op whose kernel kernel_hangs blocks, and one it leaves alone.
CASES = ["cases/elementwise/logical_and.yaml", "cases/elementwise/abs.yaml"]


def run_with_hang(tmp_path, *args):
    """The conformance execute tests of CASES with kernel_hangs on and a 3 s timeout per test body; the exit code
    and the run report."""
    report = tmp_path / "run.jsonl"
    command = [sys.executable, "-m", "pytest", "conformance/test_execute.py", "-k", "matches_reference",
               "--cases", *CASES, "--timeout=3", "-o", "timeout_func_only=true", f"--report={report}",
               "-q", "-p", "no:cacheprovider", *args]
    env = dict(os.environ, ACLCTS_SIM_FAULTS="kernel_hangs")
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600, check=False)
    assert report.exists(), done.stdout[-3000:] + done.stderr[-3000:]
    return done, read_report(report)


@pytest.mark.parametrize("parallel", [["-p", "no:xdist"], ["-n", "2"]], ids=["serial", "xdist"])
def test_a_hung_kernel_fails_its_tests_as_timeouts_and_the_run_completes(tmp_path, parallel):
    assert REGISTRY["kernel_hangs"].hangs
    done, report = run_with_hang(tmp_path, *parallel)
    assert done.returncode == 1, done.stdout[-3000:]
    failing = {nodeid: case for nodeid, case in report.cases.items() if case["status"] != "passed"}
    passing = [nodeid for nodeid, case in report.cases.items() if case["status"] == "passed"]
    assert failing and all(f"[{HANGING_OP}-" in nodeid for nodeid in failing)
    assert {(case["status"], case["category"]) for case in failing.values()} == {("failed", "timeout")}
    assert passing and all(f"[{HANGING_OP}-" not in nodeid or "-0x" in nodeid for nodeid in passing)
    assert report.summary is not None and report.summary["counts"]["failed"] == len(failing)
    assert report.summary["counts"]["passed"] == len(passing)
