"""No false alarms on a device that finishes early: the deferred-execution declaration, the eager backend fixture, and
the whole conformance suite passing on it."""

from __future__ import annotations

import os
import subprocess
import sys
import types
from pathlib import Path

import pytest

from aclcts.core.constants import MemcpyKind
from aclcts.drive.backends import load_backend
from aclcts.sim import acl, isolated

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
D2H = int(MemcpyKind.ACL_MEMCPY_DEVICE_TO_HOST)
#: Seconds the whole conformance suite may take on the eager backend (about a minute on two cores).
SUITE_TIMEOUT = 900


@pytest.fixture
def eager_module(monkeypatch: pytest.MonkeyPatch) -> str:
    """The spec of the eager backend, its folder importable; the simulator's state is restored afterwards."""
    monkeypatch.syspath_prepend(str(HERE))
    return "eager_backend:make"


def visible_before_synchronising(pyacl) -> bool:
    """Whether a memset_async queued on a fresh stream shows in device memory before any synchronisation."""
    stream, _ = pyacl.rt.create_stream()
    device, _ = pyacl.rt.malloc(64, 0)
    host, _ = pyacl.rt.malloc_host(64)
    try:
        assert pyacl.rt.memset(device, 64, 0, 64) == 0
        assert pyacl.rt.memset_async(device, 64, 0x22, 64, stream) == 0
        assert pyacl.rt.memcpy(host, 64, device, 64, D2H) == 0
        seen = pyacl.util.ptr_to_bytes(host, 64) == b"\x22" * 64
        assert pyacl.rt.synchronize_stream(stream) == 0
        return seen
    finally:
        pyacl.rt.free_host(host)
        pyacl.rt.free(device)
        pyacl.rt.destroy_stream(stream)


def in_session(pyacl) -> bool:
    """visible_before_synchronising in an init / set_device session of pyacl."""
    assert pyacl.init() == 0 and pyacl.rt.set_device(0) == 0
    try:
        return visible_before_synchronising(pyacl)
    finally:
        pyacl.rt.reset_device(0)
        pyacl.finalize()


def test_the_eager_backend_runs_queued_work_before_any_synchronisation_and_declares_no_deferral(eager_module):
    with isolated():
        backend = load_backend(eager_module)
        assert not backend.deferred_execution
        assert in_session(backend.acl)


def test_the_simulator_defers_queued_work_and_declares_it():
    with isolated(faults=""):
        backend = load_backend("sim")
        assert backend.deferred_execution
        assert not in_session(acl)


def test_the_simulator_with_the_eager_deviation_declares_no_deferral():
    with isolated(faults="work_completes_eagerly"):
        assert not load_backend("sim").deferred_execution
        assert in_session(acl)


@pytest.mark.parametrize("declared, expected", [(None, False), (True, True), (False, False), ("yes", False),
                                                (lambda: True, True), (lambda: False, False)],
                         ids=["absent", "true", "false", "not-a-bool", "callable-true", "callable-false"])
def test_a_module_attr_backend_declares_deferred_execution_only_by_its_attribute(monkeypatch, declared, expected):
    wrapper = types.SimpleNamespace(**{name: getattr(acl, name) for name in dir(acl) if not name.startswith("__")})
    if declared is not None:
        wrapper.deferred_execution = declared
    module = types.ModuleType("aclcts_declared_backend")
    module.acl = wrapper
    monkeypatch.setitem(sys.modules, module.__name__, module)
    assert load_backend(f"{module.__name__}:acl").deferred_execution is expected


@pytest.mark.slow
def test_the_whole_conformance_suite_passes_on_a_backend_that_completes_all_work_eagerly(tmp_path):
    """Every step test and the smoke selection of the case library (`pytest conformance/ --smoke`), whose size does not
    grow with the library."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_XDIST", "PYTEST_ADDOPTS", "ACLCTS_SIM_"))}
    env["PYTHONPATH"] = os.pathsep.join([str(HERE), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    report = tmp_path / "run.jsonl"
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "conformance/",
                           "--backend=eager_backend:make", f"--report={report}", "-p", "no:xdist", "--smoke"],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=SUITE_TIMEOUT)
    assert done.returncode == 0, (done.stdout + done.stderr)[-3000:]
    assert report.read_text().count('"status":"passed"') > 1000
