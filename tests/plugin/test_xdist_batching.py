"""The opt-in xdist_batching plugin: plain-data pickling, the worker's batching, the controller's unpacking, -n 2 runs."""

import os
import pickle
import subprocess
import sys
import threading
from pathlib import Path
from xml.etree import ElementTree

import numpy as np
import pytest

from aclcts.pytest_plugin import xdist_batching
from aclcts.pytest_plugin.xdist_batching import (BATCH, LOW_QUEUE, MAX_AGE_S, MAX_TESTS, EventBatcher, pickle_plain,
                                                 read_spool, unbatching, unpickle_plain)

MIXED = '''
import os
import warnings

import pytest


def test_passes(record_property):
    record_property("y[0]", {"max_ulp": 1, "worst": [[(1, 2), 3.0, 2.5]]})


def test_fails():
    print("captured line")
    assert 1 == 2


@pytest.mark.skip(reason="not here")
def test_skipped():
    pass


@pytest.mark.xfail(reason="known", strict=True)
def test_xfails():
    assert False


def test_warns():
    warnings.warn("a user warning", UserWarning)


@pytest.fixture
def broken():
    raise RuntimeError("setup broke")


def test_setup_error(broken):
    pass


# Enough tests that each worker has a long queue and sends several tests per batch.
@pytest.mark.parametrize("n", range(150))
def test_many(n):
    assert n >= 0


def test_worker_sends_batches(request):
    interactor = next(p for p in request.config.pluginmanager.get_plugins() if type(p).__name__ == "WorkerInteractor")
    assert (type(interactor.sendevent).__name__ == "EventBatcher") == (os.environ["EXPECT"] == "batched")
'''


RECORDER = '''
import json
import os


def _record(config, *event):
    if not hasattr(config, "workerinput"):
        with open(os.environ["EVENTS"], "a") as out:
            out.write(json.dumps(event) + "\\n")


def pytest_configure(config):
    global CONFIG
    CONFIG = config


def pytest_runtest_logstart(nodeid):
    _record(CONFIG, "logstart", nodeid)


def pytest_runtest_logfinish(nodeid):
    _record(CONFIG, "logfinish", nodeid)


def pytest_runtest_logreport(report):
    _record(CONFIG, "report", report.nodeid, report.when, report.outcome, report.longreprtext[-60:],
            [list(s) for s in report.sections], report.user_properties)
'''


def test_plain_data_round_trips_with_its_types():
    data = [("logstart", {"nodeid": "a.py::t", "location": ("a.py", 3, "t")}),
            ("testreport", {"data": {"x": [1, 2.5, None, True, b"\x00"], "worst": ((1, 2), 3.0)}})]
    assert unpickle_plain(pickle_plain(data)) == data
    assert isinstance(unpickle_plain(pickle_plain(data))[0][1]["location"], tuple)


@pytest.mark.parametrize("value", [np.float64(1.0), Path("x"), complex(1, 2)], ids=repr)
def test_pickle_plain_refuses_anything_else(value):
    with pytest.raises(pickle.PicklingError, match="not plain data"):
        pickle_plain([("testreport", {"data": {"value": value}})])


def test_unpickle_plain_refuses_to_construct_classes():
    with pytest.raises(pickle.UnpicklingError, match="pathlib"):
        unpickle_plain(pickle.dumps(Path("x")))


def _test_events(batcher, index, outcome="passed"):
    batcher("logstart", nodeid=f"t{index}", location=("a.py", 1, f"t{index}"))
    for when in ("setup", "call", "teardown"):
        batcher("testreport", data={"when": when, "outcome": outcome if when == "call" else "passed"})
    batcher("logfinish", nodeid=f"t{index}", location=("a.py", 1, f"t{index}"))
    batcher("runtest_protocol_complete", item_index=index, duration=0.5)


def _batched_names(message):
    assert message[0] == BATCH
    return [[name for name, _ in unpickle_plain(record)[1]] for record in message[1]["tests"]]


ONE_TEST = ["logstart", "testreport", "testreport", "testreport", "logfinish", "runtest_protocol_complete"]


def test_without_a_spool_each_test_goes_out_as_one_batch_with_its_protocol_complete():
    sent = []
    batcher = EventBatcher(sent.append)
    batcher("workerready", workerinfo={"id": 1})
    batcher("logstart", nodeid="t", location=("a.py", 1, "t"))
    batcher("testreport", data={"when": "setup"})
    assert sent == [("workerready", {"workerinfo": {"id": 1}})]
    batcher("testreport", data={"when": "call"})
    batcher("testreport", data={"when": "teardown"})
    batcher("logfinish", nodeid="t", location=("a.py", 1, "t"))
    batcher("runtest_protocol_complete", item_index=0, duration=0.5)
    assert len(sent) == 2 and _batched_names(sent[1]) == [ONE_TEST]


class _Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


@pytest.fixture
def spooled(tmp_path):
    """A batcher with a spool file, a queue of 100 tests and a settable clock: (batcher, sent, spool, queue, clock)."""
    sent, queue, clock = [], [100], _Clock()
    spool = tmp_path / "worker.events"
    descriptor = os.open(spool, os.O_WRONLY | os.O_CREAT | os.O_APPEND)
    yield EventBatcher(sent.append, descriptor, lambda: queue[0], clock), sent, spool, queue, clock
    os.close(descriptor)


def test_finished_tests_are_held_until_max_tests_and_spooled_as_they_finish(spooled):
    batcher, sent, spool, _, _ = spooled
    for index in range(MAX_TESTS - 1):
        _test_events(batcher, index)
    assert sent == [] and len(list(read_spool(spool))) == MAX_TESTS - 1
    _test_events(batcher, MAX_TESTS - 1)
    assert len(sent) == 1 and _batched_names(sent[0]) == [ONE_TEST] * MAX_TESTS
    assert [unpickle_plain(r)[0] for r in sent[0][1]["tests"]] == list(range(1, MAX_TESTS + 1))
    assert list(read_spool(spool)) == []
    _test_events(batcher, MAX_TESTS)
    assert [unpickle_plain(r)[0] for r in read_spool(spool)] == [MAX_TESTS + 1]


def test_held_tests_go_out_at_the_first_start_or_finish_after_max_age(spooled):
    batcher, sent, _, _, clock = spooled
    _test_events(batcher, 0)
    clock.now += MAX_AGE_S * 0.6
    _test_events(batcher, 1)
    assert sent == []
    clock.now += MAX_AGE_S * 0.6
    batcher("logstart", nodeid="t2", location=("a.py", 1, "t2"))
    assert len(sent) == 1 and len(sent[0][1]["tests"]) == 2
    batcher("runtest_protocol_complete", item_index=2, duration=0.5)
    clock.now += MAX_AGE_S * 0.6
    batcher("logstart", nodeid="t3", location=("a.py", 1, "t3"))
    assert len(sent) == 1
    clock.now += MAX_AGE_S * 0.6
    batcher("runtest_protocol_complete", item_index=3, duration=0.5)
    assert len(sent) == 2 and len(sent[1][1]["tests"]) == 2


def test_a_failed_test_or_a_short_queue_sends_at_once(spooled):
    batcher, sent, _, queue, _ = spooled
    _test_events(batcher, 0)
    _test_events(batcher, 1, outcome="failed")
    assert len(sent) == 1 and len(sent[0][1]["tests"]) == 2
    queue[0] = LOW_QUEUE - 1
    _test_events(batcher, 2)
    assert len(sent) == 2 and len(sent[1][1]["tests"]) == 1


def test_any_other_event_sends_the_held_tests_first(spooled):
    batcher, sent, _, _, _ = spooled
    _test_events(batcher, 0)
    batcher("logstart", nodeid="t1", location=("a.py", 1, "t1"))
    batcher("warning_recorded", when="call")
    assert [m[0] for m in sent] == [BATCH, "logstart", "warning_recorded"]


def test_a_crashed_workers_spooled_tests_reach_the_controller_before_the_end(spooled):
    batcher, sent, spool, _, _ = spooled
    seen = []
    process = unbatching(seen.append, spool)
    for index in range(3):
        _test_events(batcher, index)
    batcher("workerready", workerinfo={})
    for index in range(3, 5):
        _test_events(batcher, index)
    batcher("logstart", nodeid="t5", location=("a.py", 1, "t5"))
    for message in sent:
        process(message)
    assert [e[1].get("item_index") for e in seen if e[0] == "runtest_protocol_complete"] == [0, 1, 2]
    end = object()
    process(end)
    assert [e[1].get("item_index") for e in seen[:-1] if e[0] == "runtest_protocol_complete"] == [0, 1, 2, 3, 4]
    assert seen[-1] is end and len(seen) == 5 * len(ONE_TEST) + 2


def test_spool_folders_of_controllers_that_no_longer_exist_are_removed(tmp_path):
    finished = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    dead, alive = int(finished.stdout), os.getpid()
    folders = {name: tmp_path / name for name in (f"aclcts-xdist-{dead}-k1", f"aclcts-xdist-{alive}-k2",
                                                   "aclcts-xdist-old-k3", "other-folder")}
    for folder in folders.values():
        folder.mkdir()
        (folder / "worker-0.events").write_bytes(b"x")
    assert xdist_batching.remove_orphaned_spools(tmp_path) == [folders[f"aclcts-xdist-{dead}-k1"]]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(set(folders) - {f"aclcts-xdist-{dead}-k1"})


def test_a_record_cut_short_by_a_crash_is_left_out(tmp_path):
    spool = tmp_path / "cut.events"
    records = [pickle_plain((1, [("logstart", {})])), pickle_plain((2, [("logfinish", {})]))]
    spool.write_bytes(b"".join(len(r).to_bytes(4, "little") + r for r in records)[:-3])
    assert list(read_spool(spool)) == records[:1]
    assert list(read_spool(tmp_path / "missing.events")) == []


def test_events_that_are_not_plain_data_go_out_one_by_one_in_order():
    sent = []
    batcher = EventBatcher(sent.append)
    batcher("logstart", nodeid="t", location=("a.py", 1, "t"))
    batcher("testreport", data={"value": np.float32(1)})
    batcher("warning_recorded", when="call")
    assert [name for name, _ in sent] == ["logstart", "testreport", "warning_recorded"]


def test_events_sent_from_two_threads_are_all_delivered():
    previous = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    received = []
    batcher = EventBatcher(unbatching(received.append))
    tests, steals = 20_000, 20_000

    def run_tests():
        for index in range(tests):
            for name in ("logstart", "testreport", "testreport", "testreport", "logfinish"):
                batcher(name, index=index)
            batcher("runtest_protocol_complete", item_index=index)

    def steal():
        for index in range(steals):
            batcher("unscheduled", indices=[index])

    try:
        threads = [threading.Thread(target=run_tests), threading.Thread(target=steal)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        sys.setswitchinterval(previous)
    assert len(received) == 6 * tests + steals
    per_test = [name for name, kwargs in received if name != "unscheduled"]
    assert per_test == ["logstart", "testreport", "testreport", "testreport", "logfinish",
                        "runtest_protocol_complete"] * tests


def test_the_controller_passes_on_every_event_of_a_batch_in_order():
    seen = []
    process = unbatching(seen.append)
    events = [("logstart", {"nodeid": "t"}), ("logfinish", {"nodeid": "t"})]
    process(("workerready", {}))
    process((BATCH, {"tests": [pickle_plain((1, events))]}))
    end = object()
    process(end)
    assert seen == [("workerready", {}), *events, end]


def _run(pytester, monkeypatch, mode, *args):
    monkeypatch.setenv("EXPECT", mode)
    monkeypatch.setenv("EVENTS", str(pytester.path / f"{mode}.events"))
    plugin = ["-p", "aclcts.pytest_plugin.xdist_batching"] if mode == "batched" else []
    return pytester.runpytest_subprocess("-p", "no:cacheprovider", "-n", "2", *plugin, *args)


def _junit_cases(path):
    """(classname, name, [(child tag, message)]) of every testcase in a JUnit XML file, times left out."""
    cases = ElementTree.parse(path).iter("testcase")
    return sorted((case.get("classname"), case.get("name"), [(child.tag, child.get("message")) for child in case])
                  for case in cases)


@pytest.mark.parametrize("dist", ["load", "worksteal"])
def test_a_batched_run_reports_exactly_what_a_separate_run_does(pytester, monkeypatch, dist):
    pytester.makepyfile(test_mixed=MIXED)
    pytester.makeconftest(RECORDER)
    results = {}
    for mode in ("batched", "separate"):
        result = _run(pytester, monkeypatch, mode, f"--junitxml={mode}.xml", "-rA", f"--dist={dist}")
        events = sorted((pytester.path / f"{mode}.events").read_text().splitlines())
        results[mode] = (result.ret, result.parseoutcomes(), _junit_cases(pytester.path / f"{mode}.xml"), events)
        for lines in (["*Captured stdout call*", "captured line"], ["*RuntimeError: setup broke"], ["*a user warning"]):
            result.stdout.fnmatch_lines(lines)
    assert len(results["batched"][2]) == 157 and len(results["batched"][3]) >= 4 * 157
    assert results["batched"] == results["separate"]
    outcomes = results["batched"][1]
    assert {k: outcomes[k] for k in ("passed", "failed", "skipped", "xfailed", "errors")} == {
        "passed": 153, "failed": 1, "skipped": 1, "xfailed": 1, "errors": 1}
    assert outcomes["warnings"] >= 1


CRASH = """
import os

import pytest


@pytest.mark.parametrize("n", range({before}))
def test_before(n):
    pass


def test_crash():
    os._exit(3)


@pytest.mark.parametrize("n", range({after}))
def test_after(n):
    pass
"""


@pytest.mark.parametrize("dist", ["load", "worksteal"])
@pytest.mark.parametrize(("before", "after"), [(1, 1), (300, 100)])
def test_a_crashing_worker_is_reported_on_the_test_it_was_running(pytester, monkeypatch, before, after, dist):
    # With 300 tests before it, the crashing worker holds finished tests (under either distribution) and still has
    # a long queue.
    pytester.makepyfile(test_crash=CRASH.format(before=before, after=after))
    result = _run(pytester, monkeypatch, "batched", f"--dist={dist}")
    result.stdout.fnmatch_lines(["*worker 'gw*' crashed while running 'test_crash.py::test_crash'*"])
    assert result.parseoutcomes()["failed"] == 1 and result.parseoutcomes()["passed"] == before + after


def test_exitfirst_still_stops_a_batched_run(pytester, monkeypatch):
    pytester.makepyfile(test_stop="import pytest\n\n@pytest.mark.parametrize('n', range(200))\n"
                                  "def test_n(n):\n    assert n != 3\n")
    result = _run(pytester, monkeypatch, "batched", "-x")
    result.stdout.fnmatch_lines(["*stopping after 1 failures*"])
    assert result.parseoutcomes()["failed"] == 1 and result.parseoutcomes()["passed"] < 199
