"""Two runs on one checkout (issue 37, finding 5): a second run writing the same --report (and st_report data folder)
while the first runs is refused in one line naming the first (pid, host, start), whichever starts first or if both
start together; the first's reports stay whole. Runs sharing only --model-cache both complete, with every cache entry
intact. Each run holds itself open with a test that waits for a release file, so the runs surely overlap."""

from __future__ import annotations

import json
import time
from pathlib import Path

from output_runs import ROOT, finish, one_error_line, start_suite

from aclcts.core.outputs import lock_path
from aclcts.drive import model_cache
from aclcts.report.completeness import incomplete_reason
from aclcts.report.records import read_report

#: A test the -k selection keeps: it says it runs (a file named after its run), then waits for the release file.
HOLDING_TEST = '''\
import os
import sys
import time


def test_execute_v2_holds_the_run_open():
    open(f"holding-{os.getpid()}", "w").close()
    deadline = time.monotonic() + 120
    while not os.path.exists("release") and time.monotonic() < deadline:
        time.sleep(0.05)
'''
SHARED = ["-c", str(ROOT / "pytest.ini"), "--model-cache=cache"]


#: The tests of one run: the execute_v2 test of add.yaml's one case (a --cases run runs only its files' cases) and the
#: holding test.
RUN_TESTS = 2


def start(world: Path, *args: str):
    (world / "test_holding.py").write_text(HOLDING_TEST)
    return start_suite(world, *SHARED, str(world / "test_holding.py"), *args)


def wait_for(condition, seconds: float = 120) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def assert_whole(report: Path, cases: int) -> None:
    found = read_report(report)
    assert incomplete_reason(found) is None and len(found.cases) == cases
    assert all(case["status"] == "passed" for case in found.cases.values())


def assert_cache_intact(cache: Path) -> None:
    entries = [p for p in cache.iterdir() if not p.name.startswith(".")]
    assert entries and all(model_cache._problem(entry) is None for entry in entries)
    assert not list(cache.glob(f"{model_cache.BUILD_PREFIX}*"))


def test_a_second_run_on_the_same_report_during_the_first_is_refused_naming_it(world):
    first = start(world, "--report=run.jsonl", "--st-report=st.json")
    wait_for(lambda: list(world.glob("holding-*")))
    second = finish(start(world, "--report=run.jsonl", "--st-report=st.json"))
    line = one_error_line(second)
    assert f"another run (pid {first.pid} on " in line and "started 20" in line and "run.jsonl" in line
    (world / "release").touch()
    done = finish(first)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert_whole(world / "run.jsonl", RUN_TESTS)
    assert json.loads((world / "st.json").read_text())["summary"]["test case count"] == 1
    assert (world / "st_data").is_dir() and not lock_path(world / "run.jsonl").exists()
    assert_cache_intact(world / "cache")


def test_two_runs_started_together_on_the_same_report_one_runs_one_is_refused(world):
    runs = [start(world, "--report=run.jsonl") for _ in range(2)]
    wait_for(lambda: any(run.poll() is not None for run in runs))  # the winner waits for the release file
    refused = next(run for run in runs if run.poll() is not None)
    winner = next(run for run in runs if run is not refused)
    line = one_error_line(finish(refused))
    assert f"another run (pid {winner.pid} on " in line
    (world / "release").touch()
    done = finish(winner)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert_whole(world / "run.jsonl", RUN_TESTS)
    assert_cache_intact(world / "cache")


def test_two_runs_sharing_only_the_model_cache_both_complete_with_the_cache_intact(world):
    runs = [start(world, f"--report=run{index}.jsonl") for index in range(2)]
    wait_for(lambda: len(list(world.glob("holding-*"))) == 2)
    (world / "release").touch()
    for index, run in enumerate(runs):
        done = finish(run)
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
        assert_whole(world / f"run{index}.jsonl", RUN_TESTS)
    assert_cache_intact(world / "cache")
