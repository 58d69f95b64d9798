"""Backend capabilities: what `sim`, `npu` and a MODULE:ATTR object declare, and each decision that rests on one
(a MODULE:ATTR backend declaring a capability is treated by it, not by its name)."""

import os
import subprocess
import sys
import types
from pathlib import Path

import pytest

from aclcts.atc import compile_elements
from aclcts.core.constants import ErrorCode
from aclcts.drive.backends import NAMED_CAPABILITIES, BackendError, Capabilities, load_backend
from aclcts.pytest_plugin.timeouts import DEVICE_TIMEOUT
from aclcts.sim import acl

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
CAPABILITIES = tuple(Capabilities.__dataclass_fields__)


def run(pytester, *args):
    """A pytest run in a child process of the pytester project, with capability_backends importable."""
    pytester.makepyfile(capability_backends=(HERE / "capability_backends.py").read_text(encoding="utf-8"))
    return pytester.runpytest_subprocess("-p", "no:cacheprovider", "-p", "no:xdist", *args)


def wrapper_module(monkeypatch, **attributes) -> str:
    """The spec of a MODULE:ATTR wrapper of the simulator with these extra attributes."""
    wrapper = types.SimpleNamespace(**{name: getattr(acl, name) for name in dir(acl) if not name.startswith("__")},
                                    **attributes)
    module = types.ModuleType("aclcts_capability_backend")
    module.acl = wrapper
    monkeypatch.setitem(sys.modules, module.__name__, module)
    return f"{module.__name__}:acl"


@pytest.mark.parametrize("name", CAPABILITIES)
@pytest.mark.parametrize("declared", [True, lambda: True], ids=["value", "callable"])
def test_a_module_attr_backend_has_exactly_the_capability_it_declares(monkeypatch, name, declared):
    capabilities = load_backend(wrapper_module(monkeypatch, **{name: declared})).capabilities
    assert [field for field in CAPABILITIES if getattr(capabilities, field)] == [name]


def test_a_module_attr_backend_declaring_nothing_has_no_capability(monkeypatch):
    assert load_backend(wrapper_module(monkeypatch)).capabilities == Capabilities()


def test_the_simulator_has_its_named_capabilities_and_no_real_device():
    assert load_backend("sim").capabilities == NAMED_CAPABILITIES["sim"]
    assert not NAMED_CAPABILITIES["sim"].real_device and NAMED_CAPABILITIES["npu"] == Capabilities(real_device=True)


def test_a_declaring_callable_that_raises_is_one_line_naming_the_backend(monkeypatch):
    def broken():
        raise RuntimeError("no device info")

    spec = wrapper_module(monkeypatch, real_device=broken)
    with pytest.raises(BackendError) as raised:
        load_backend(spec)
    message = str(raised.value)
    assert message.startswith(f"--backend={spec}: reading its declared capabilities raised RuntimeError")
    assert "\n" not in message


def test_a_backend_declaring_a_real_device_needs_a_model_dir(pytester):
    pytester.makepyfile(test_x="def test_x():\n    pass\n")
    result = run(pytester, "--backend=capability_backends:real")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: --backend=capability_backends:real needs --model-dir=DIR*real device*"])
    assert run(pytester, "--backend=capability_backends:plain").ret == 0


TIMEOUT_OF_TEST = """
def test_timeout(request):
    marker = request.node.get_closest_marker("timeout")
    print("TIMEOUT", marker.args[0] if marker else None)
"""


@pytest.mark.parametrize("backend, timeout", [("capability_backends:calm", None), ("capability_backends:plain", DEVICE_TIMEOUT)])
def test_only_a_backend_declaring_that_it_never_hangs_goes_without_the_default_timeout(pytester, backend, timeout):
    pytester.makepyfile(test_x=TIMEOUT_OF_TEST)
    result = run(pytester, f"--backend={backend}", "-s")
    assert result.ret == 0, result.stdout.str()[-2000:]
    result.stdout.fnmatch_lines([f"*TIMEOUT {timeout}"])


def test_devices_grow_the_simulator_only_for_a_backend_declaring_simulated_devices(pytester):
    pytester.makepyfile(test_x="def test_count(acl):\n    assert acl.rt.get_device_count() == (4, 0)\n")
    assert run(pytester, "--backend=capability_backends:sim_devices", "--devices=3").ret == 0
    refused = run(pytester, "--backend=capability_backends:plain", "--devices=3")
    assert refused.ret != 0
    refused.stderr.fnmatch_lines(["*--device-id=3: the backend has 2 device(s)*"])


#: The conformance tests that a real device skips, each with its skip reason.
REAL_DEVICE_SKIPS = {
    "conformance/test_free.py::test_double_free_is_an_error": "probe that may crash real hardware",
    "conformance/test_load.py::test_a_model_built_for_another_soc_never_matches": "needs a model built by the real ATC",
    "conformance/test_handle.py::test_create_handle_with_a_host_placed_const_desc_runs":
        "needs op models compiled from the test's own JSON",
    "conformance/test_negative.py::test_misuse_is_rejected": "unsafe on real hardware",
}


@pytest.fixture(scope="module")
def add_models(tmp_path_factory) -> Path:
    """A --model-dir holding the Add int32 [8, 16] model (conformance/test_state_machine.py's) built by `aclcts atc`."""
    models = tmp_path_factory.mktemp("models")
    tensor = {"format": "ND", "shape": [8, 16], "type": "int32"}
    built = compile_elements([{"op": "Add", "name": "add", "input_desc": [tensor, tensor], "output_desc": [tensor]}],
                             models, "Ascend910B1")
    assert built.ok, built.errors
    return models


def conformance(backend: str, models: Path, *selection: str) -> subprocess.CompletedProcess:
    """Run a selection of the conformance suite on one of capability_backends with --model-dir=models."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_XDIST", "PYTEST_ADDOPTS", "ACLCTS_SIM_"))}
    env["PYTHONPATH"] = os.pathsep.join([str(HERE), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:xdist", "-rs", "-q",
                           *selection, f"--backend=capability_backends:{backend}", f"--model-dir={models}", "--ops=Add"],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)


def test_a_backend_declaring_a_real_device_skips_what_would_misuse_or_needs_the_simulators_compiler(add_models):
    done = conformance("real", add_models, *REAL_DEVICE_SKIPS)
    assert done.returncode == 0, (done.stdout + done.stderr)[-3000:]
    skipped = [line for line in done.stdout.splitlines() if line.startswith("SKIPPED")]
    for test, reason in REAL_DEVICE_SKIPS.items():
        assert any(test.split("::")[0] in line and reason in line for line in skipped), (test, done.stdout[-3000:])
    assert " passed" not in done.stdout.splitlines()[-1]


BUDGETED_CASES = """
import pytest

@pytest.mark.cases(mode="execute_v2")
def test_case(op_case, case_inputs):
    pass
"""


@pytest.mark.parametrize("backend, device_copies", [("plain", True), ("real", False)])
def test_device_copies_count_against_the_memory_budget_only_off_a_real_device(project, tmp_path, backend, device_copies):
    (tmp_path / "op.om").write_bytes(b"")  # the folder check passes; no test here opens a session
    project.makepyfile(test_budget=BUDGETED_CASES)
    result = run(project, f"--backend=capability_backends:{backend}", f"--model-dir={tmp_path}", "--memory-budget=1B",
                 "-rs")
    reasons = [line for line in result.stdout.lines if line.startswith("SKIPPED") and "memory budget" in line]
    assert reasons, result.stdout.str()[-2000:]
    assert all(("device copies" in line) is device_copies for line in reasons), reasons


@pytest.mark.parametrize("backend, exit_code", [("drifting_real", 0), ("drifting_plain", 1)])
def test_free_device_memory_may_drift_within_a_bound_only_on_a_real_device(add_models, backend, exit_code):
    done = conformance(backend, add_models, "conformance/test_leaks.py::test_malloc_free_cycles_return_device_memory",
                       "conformance/test_state_machine.py")
    assert done.returncode == exit_code, (done.stdout + done.stderr)[-3000:]
    if exit_code:
        assert "free device memory went from" in done.stdout and "device memory not returned" in done.stdout


DYNAMIC_RUN = "conformance/test_dynamic_shapes.py::test_execute_v2_at_the_runtime_shapes_of_the_case_file_matches_the_reference"


def test_a_real_device_takes_the_dynamic_models_from_the_model_dir_instead_of_compiling_them(add_models):
    assert conformance("plain", add_models, DYNAMIC_RUN).returncode == 0
    done = conformance("real", add_models, DYNAMIC_RUN, "-x")
    assert done.returncode == 1, (done.stdout + done.stderr)[-3000:]
    assert f"returned {int(ErrorCode.ACL_ERROR_OP_NOT_FOUND)}" in done.stdout  # not in the folder, and not compiled
