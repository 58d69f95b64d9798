"""An attribute the op's IR does not declare (CANN's LayerNorm cases carry `impl_mode`; issue 34: `LayerNorm: unknown
attribute(s) ['impl_mode']`). ATC keeps it on the model with a warning (aclcts.atc.settings.WARNED_PROBLEMS) and no
kernel reads it, so the case compiles, runs and is judged against the reference computed from the declared ones."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from aclcts.cases import msopst

ROOT = Path(__file__).resolve().parents[2]


def layer_norm_file(folder: Path) -> Path:
    """One static LayerNorm case over x [4, 8] with begin_norm_axis/begin_params_axis -1 and impl_mode."""
    def desc(name: str, shape: list[int]) -> dict:
        return {"name": name, "format": "ND", "type": "float32", "shape": shape}

    def drawn(name: str, shape: list[int]) -> dict:
        return {**desc(name, shape), "value_range": [-2.0, 2.0]}
    case = {"case_name": "Test_layer_norm_impl_mode", "op": "LayerNorm",
            "input_desc": [drawn("x", [4, 8]), drawn("gamma", [8]), drawn("beta", [8])],
            "output_desc": [desc("y", [4, 8]), desc("mean", [4, 1]), desc("variance", [4, 1])],
            "attr": [{"name": "begin_norm_axis", "type": "int", "value": -1},
                     {"name": "begin_params_axis", "type": "int", "value": -1},
                     {"name": "impl_mode", "type": "string", "value": "high_precision"}]}
    path = folder / "LayerNorm_case.json"
    path.write_text(json.dumps([case]))
    return path


def test_the_reference_is_given_only_the_attributes_the_prototype_declares(tmp_path):
    [case] = msopst.load_msopst_cases(str(layer_norm_file(tmp_path)))
    assert "impl_mode" in case.attr_values()
    assert case.reference_attr_values() == {"begin_norm_axis": -1, "begin_params_axis": -1}


def test_a_case_with_an_undeclared_attribute_runs_and_is_judged(tmp_path):
    command = [sys.executable, "-m", "pytest", "conformance/test_execute.py::test_execute_v2_matches_reference",
               "--cases", str(layer_norm_file(tmp_path)), f"--model-cache={tmp_path / 'models'}",
               "-p", "no:cacheprovider", "-p", "no:xdist", "-p", "no:randomly", "-q"]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300,
                          env=dict(os.environ, PYTHONFAULTHANDLER="1"))
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "1 passed" in done.stdout.splitlines()[-1]
