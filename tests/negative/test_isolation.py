"""Crash containment: probes in a child process; a crash or hang is a failure naming the signal, the run goes on."""

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from aclcts.drive import isolation
from aclcts.drive.backends import NAMED_CAPABILITIES, Capabilities

ROOT = Path(__file__).resolve().parents[2]


def device_count_and_a_malloc(acl, session, size):
    """A probe that works: the device count and whether a malloc/free of `size` bytes succeeded."""
    count, ret = acl.rt.get_device_count()
    ptr, malloc_ret = acl.rt.malloc(size, 2)
    return {"count": count, "ret": ret, "malloc": malloc_ret, "free": acl.rt.free(ptr)}


def segfault(acl, session):
    """A probe that dies of SIGSEGV, as a use after free on a real device may."""
    os.kill(os.getpid(), signal.SIGSEGV)


def abort(acl, session):
    """A probe that aborts."""
    os.abort()


def hang(acl, session):
    """A probe that never returns."""
    time.sleep(60)


def raise_error(acl, session):
    """A probe whose body raises."""
    raise RuntimeError("the probe body failed")


def test_a_probe_runs_in_a_child_with_the_same_backend_and_returns_its_result():
    result = isolation.run_in_child(device_count_and_a_malloc, [256], backend="sim")
    assert result.failure() is None
    assert result.get() == {"count": result.value["count"], "ret": 0, "malloc": 0, "free": 0}
    assert result.value["count"] >= 1


@pytest.mark.parametrize("probe, number, name", [(segfault, signal.SIGSEGV, "SIGSEGV"),
                                                 (abort, signal.SIGABRT, "SIGABRT")])
def test_a_crash_becomes_a_failure_naming_the_signal(probe, number, name):
    result = isolation.run_in_child(probe, [], backend="sim")
    assert result.returncode == -number
    with pytest.raises(isolation.ChildProcessFailure, match=rf"killed by signal {int(number)} \({name}\)"):
        result.get()


def test_a_hung_probe_is_killed_at_the_timeout_and_fails():
    started = time.monotonic()
    result = isolation.run_in_child(hang, [], backend="sim", timeout=3)
    assert time.monotonic() - started < 30
    with pytest.raises(isolation.ChildProcessFailure, match=r"hung: no exit within 3 s"):
        result.get()


def test_an_exception_in_the_probe_fails_with_the_childs_traceback_tail():
    result = isolation.run_in_child(raise_error, [], backend="sim")
    with pytest.raises(isolation.ChildProcessFailure, match=r"exited with status 1(.|\n)*the probe body failed"):
        result.get()


@pytest.mark.parametrize("capabilities, isolate, where", [
    (NAMED_CAPABILITIES["sim"], False, "inline"), (NAMED_CAPABILITIES["sim"], True, "child"),
    (NAMED_CAPABILITIES["npu"], False, "skip"), (NAMED_CAPABILITIES["npu"], True, "child"),
    (Capabilities(), False, "child"), (Capabilities(survives_misuse=True), False, "inline"),
    (Capabilities(real_device=True), False, "skip")],
    ids=["sim", "sim-isolated", "npu", "npu-isolated", "module-attr", "declares-survives-misuse", "declares-real-device"])
def test_unsafe_probes_run_inline_only_on_a_backend_that_survives_misuse(capabilities, isolate, where):
    assert isolation.placement(capabilities, isolate) == where


def test_a_crashing_test_fails_and_the_next_test_still_runs(pytester, monkeypatch):
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    pytester.makepyfile(test_crash=textwrap.dedent("""
        import os, signal
        from aclcts.drive import isolation

        def crash(acl, session):
            os.kill(os.getpid(), signal.SIGSEGV)

        def test_probe_that_crashes(session):
            isolation.run_in_child(crash, [], backend="sim").get()

        def test_after_the_crash(acl):
            assert acl.rt.malloc(0, 2) == (0, 100000)
    """))
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-p", "no:xdist")
    result.assert_outcomes(failed=1, passed=1)
    result.stdout.fnmatch_lines(["*ChildProcessFailure: isolated probe *crash() was killed by signal 11 (SIGSEGV)*"])


@pytest.mark.slow
def test_a_simulator_that_crashes_on_double_free_fails_that_isolated_probe_and_the_run_goes_on():
    env = dict(os.environ, ACLCTS_SIM_FAULTS="double_free_crashes")
    command = [sys.executable, "-m", "pytest", "conformance/test_negative.py", "-k", "double_free", "-rf",
               "--with-step-tests", "--cases", "cases/elementwise/add.yaml", "--isolate", "-q", "-p", "no:cacheprovider", "-p", "no:xdist"]
    result = subprocess.run(command, check=False, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    tail = result.stdout[-4000:]
    assert result.returncode == 1, tail
    assert "killed by signal 11 (SIGSEGV)" in result.stdout, tail
    assert "FAILED conformance/test_negative.py::test_misuse_is_rejected[unsafe.rt.free.double_free]" in tail, tail
    assert "1 failed, 1 passed" in tail, tail
