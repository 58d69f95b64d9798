"""A case whose op the simulator does not implement for its dtypes is skipped on `--backend=sim` with a one-line
reason, instead of failing at run with 507015; a real device and a MODULE:ATTR object are never asked to skip."""

import json
import os
import subprocess
import sys
import types
from pathlib import Path

from aclcts.core.constants import DataType
from aclcts.drive.backends import NAMED_CAPABILITIES, Backend, Capabilities, load_backend

ROOT = Path(__file__).resolve().parents[2]
COMPLEX64, FLOAT = int(DataType.ACL_COMPLEX64), int(DataType.ACL_FLOAT)


def _sign_case(name: str, dtype: str) -> dict:
    tensor = {"format": "ND", "type": dtype, "shape": [4, 8]}
    return {"case_name": name, "op": "Sign",
            "input_desc": [dict(tensor, name="x", data_distribute="uniform", value_range=[[-2.0, 2.0]])],
            "output_desc": [dict(tensor, name="y")]}


def test_the_simulator_names_the_op_and_dtype_it_does_not_implement():
    sim = load_backend("sim")
    assert sim.unimplemented("Sign", [COMPLEX64]) == "the simulator does not implement Sign for complex64"
    assert sim.unimplemented("Sign", [FLOAT]) is None
    assert sim.unimplemented("Sin", [COMPLEX64]) is None


def test_a_real_device_and_a_module_backend_never_skip():
    npu = Backend("npu", types.SimpleNamespace(), NAMED_CAPABILITIES["npu"])
    assert npu.unimplemented("Sign", [COMPLEX64]) is None
    other = Backend("mine:acl", load_backend("sim").acl, Capabilities())
    assert other.unimplemented("Sign", [COMPLEX64]) is None


def test_a_case_the_simulator_does_not_implement_is_skipped_with_its_reason(tmp_path):
    cases = tmp_path / "Sign_case.json"
    cases.write_text(json.dumps([_sign_case("Test_Sign_complex", "complex64"),
                                 _sign_case("Test_Sign_float", "float32")]))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_XDIST", "PYTEST_ADDOPTS", "ACLCTS_"))}
    env.pop("PYTEST_CURRENT_TEST", None)
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:xdist", "-p", "no:randomly", "-rs",
         "conformance/test_execute.py", "-k", "test_execute_v2_matches_reference", "--cases", str(cases),
         f"--model-cache={tmp_path / 'models'}"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert "1 passed, 1 skipped" in done.stdout, done.stdout[-3000:]
    skipped = [line for line in done.stdout.splitlines() if line.startswith("SKIPPED")]
    assert len(skipped) == 1 and skipped[0].endswith("the simulator does not implement Sign for complex64"), skipped
    assert "507015" not in done.stdout
