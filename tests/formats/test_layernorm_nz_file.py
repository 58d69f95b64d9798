"""An msopst LayerNorm file whose x and y are FRACTAL_NZ, written as CANN's own LayerNorm system tests write them
(issue 34): it passes on the simulator, and the planted fault `fractal_nz_read_as_nd` (a kernel reading the NZ x as
a row-major array) fails it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CASE = "layer_norm_nz"


def nz(name: str, origin: list[int], stored: list[int], **more) -> dict:
    """A float16 FRACTAL_NZ tensor of an msopst case with its origin shape."""
    return {"name": name, "format": "FRACTAL_NZ", "ori_format": "ND", "shape": stored, "ori_shape": origin,
            "type": "float16", **more}


def nd(name: str, shape: list[int], **more) -> dict:
    """A float16 ND tensor of an msopst case."""
    return {"name": name, "format": "ND", "shape": shape, "type": "float16", **more}


#: x [40, 24] (rows and columns both padded: stored as 2 x 3 fractals of 16 x 16), normalised over its last axis.
LAYER_NORM = {"case_name": CASE, "op": "LayerNorm",
              "input_desc": [nz("x", [40, 24], [2, 3, 16, 16], value_range=[-2, 2], data_distribute="uniform"),
                             nd("gamma", [24], value_range=[0.5, 1.5], data_distribute="uniform"),
                             nd("beta", [24], value_range=[-1, 1], data_distribute="uniform")],
              "output_desc": [nz("y", [40, 24], [2, 3, 16, 16]), nd("mean", [40, 1]), nd("variance", [40, 1])],
              "attr": [{"name": "begin_norm_axis", "type": "int", "value": -1},
                       {"name": "begin_params_axis", "type": "int", "value": -1}]}


def run_conformance(cases: Path, faults: str = "") -> subprocess.CompletedProcess:
    """pytest conformance/test_execute.py on one msopst file, with ACLCTS_SIM_FAULTS set to faults."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_XDIST", "PYTEST_ADDOPTS"))}
    env.pop("PYTEST_CURRENT_TEST", None)
    env["ACLCTS_SIM_FAULTS"] = faults
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly", "-p", "no:xdist",
               "conformance/test_execute.py", "-k", "matches_reference", "--cases", str(cases), "--model-cache=off"]
    return subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600, check=False)


def test_a_fractal_nz_layer_norm_file_passes_and_kills_a_kernel_reading_nz_as_nd(tmp_path: Path) -> None:
    path = tmp_path / "layer_norm_nz.json"
    path.write_text(json.dumps([LAYER_NORM]))
    clean, planted = run_conformance(path), run_conformance(path, "fractal_nz_read_as_nd")
    assert clean.returncode == 0 and "1 passed" in clean.stdout, clean.stdout[-3000:] + clean.stderr[-2000:]
    assert planted.returncode == 1, planted.stdout[-3000:]
    assert f"FAILED conformance/test_execute.py::test_execute_v2_matches_reference[layer_norm_nz.{CASE}" in planted.stdout
