"""Shared fixtures for the simulator tests: a fresh simulator per test and a ready-made session."""

import dataclasses
import warnings
from collections.abc import Iterator
from typing import Any

import pytest

import aclcts.sim
from aclcts.sim import acl as sim_acl


def pytest_configure(config: pytest.Config) -> None:
    """Register the sim_settings marker."""
    config.addinivalue_line(
        "markers", "sim_settings(**settings): aclcts.sim.configure(**settings) before the test and its fixtures"
    )


@dataclasses.dataclass(frozen=True)
class Session:
    """An initialised simulator with device 0, an explicit context and a stream current in this thread."""

    acl: Any
    device_id: int
    context: int
    stream: int


@pytest.fixture(autouse=True)
def fresh_simulator(request: pytest.FixtureRequest) -> Iterator[None]:
    """Run each test in a fresh simulated process (sim_settings marker applied); the previous one is restored after."""
    marker = request.node.get_closest_marker("sim_settings")
    with aclcts.sim.isolated(**(marker.kwargs if marker is not None else {})):
        yield


@pytest.fixture
def acl() -> Any:
    """The simulated pyacl module."""
    return sim_acl


def _alive(kind: str, handle: int) -> bool:
    """Whether the simulator still tracks this handle."""
    return any(obj.handle == handle for obj in aclcts.sim.live_objects(kind))


@pytest.fixture
def session(acl: Any) -> Iterator[Session]:
    """acl.init, set_device(0), create_context(0), create_stream(); torn down in reverse, leak warnings silenced."""
    assert acl.init() == 0
    assert acl.rt.set_device(0) == 0
    context, ret = acl.rt.create_context(0)
    assert ret == 0
    stream, ret = acl.rt.create_stream()
    assert ret == 0
    yield Session(acl=acl, device_id=0, context=context, stream=stream)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", aclcts.sim.SimWarning)
        if _alive("stream", stream):
            acl.rt.destroy_stream(stream)
        if _alive("context", context):
            acl.rt.destroy_context(context)
        acl.rt.reset_device(0)
        acl.finalize()
