"""Done-when of the baseline workflow: a faulted run's report becomes an expectations file with which the same run
passes (every failure XFAIL); without the faults those entries are unexpected passes.

(A crashed test's entry is `action: skip`: test_baseline.py; a skip entry keeps its test from running, under -n 2
too: test_waivers.py. Crashing a worker here would make these runs need xdist and take several times as long.)"""

import datetime
import os
import subprocess
import sys
from pathlib import Path

from aclcts.report.records import FAILING, read_report

ROOT = Path(__file__).resolve().parents[2]
#: A wrong broadcast axis fails every selected Equal case (one pattern per test function); a wrong error code for a
#: null memcpy pointer fails some cases of a test that runs no op (one entry per test id).
FAULTS = "broadcast_wrong_axis,memcpy_null_code_swapped"
SELECTION = ["conformance/test_execute.py", "conformance/test_handle.py", "conformance/test_memory.py",
             "--ops=Equal", "-k", "Equal and 3x1x4_5x4 or memcpy_checks_in_documented_order"]


def suite(report, faults, *args):
    """Run the selection on the simulator with faults; the exit status and the JSON run report."""
    env = dict(os.environ, ACLCTS_SIM_FAULTS=faults)
    done = subprocess.run([sys.executable, "-m", "pytest", *SELECTION, "-q", "-p", "no:cacheprovider",
                           "-p", "no:randomly", f"--report={report}", *args],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    return done.returncode, read_report(report).cases


def test_a_baseline_from_a_faulted_run_xfails_it_and_turns_into_unexpected_passes_without_the_fault(tmp_path):
    status, first = suite(tmp_path / "faulted.jsonl", FAULTS)
    assert status == 1
    failing = {case_id for case_id, case in first.items() if case["status"] in FAILING}
    assert len(failing) > 4 and any(case["status"] == "passed" for case in first.values())

    expectations = tmp_path / "baseline.yaml"
    expires = (datetime.date.today() + datetime.timedelta(days=30)).isoformat()
    made = subprocess.run([sys.executable, "-m", "aclcts.cli", "report", "expectations", str(tmp_path / "faulted.jsonl"),
                           "-o", str(expectations), "--owner", "qa@example.com", "--expires", expires,
                           "--reason", "injected faults"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert made.returncode == 0, made.stderr
    assert made.stdout.startswith(f"wrote {expectations}: ") and "[Equal-*]" in expectations.read_text()

    status, second = suite(tmp_path / "baselined.jsonl", FAULTS, f"--expectations={expectations}")
    assert status == 0
    assert set(second) == set(first)
    assert {case_id for case_id, case in second.items() if case["status"] == "xfailed"} == failing
    assert all(second[case_id]["status"] == case["status"] for case_id, case in first.items()
               if case_id not in failing)

    status, third = suite(tmp_path / "fixed.jsonl", "", f"--expectations={expectations}")
    assert status == 1
    unexpected = {case_id for case_id, case in third.items()
                  if case["status"] == "failed" and case["message"].startswith("unexpected pass: expectations ")}
    assert unexpected == failing
    assert all(third[case_id]["status"] == "passed" for case_id in set(third) - failing)
