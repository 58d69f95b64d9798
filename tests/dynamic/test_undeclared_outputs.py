"""A dynamic case whose declared outputs the op cannot give at its runtime shapes: the failed execution says why."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_a_case_declaring_outputs_the_reference_does_not_give_fails_naming_the_output_and_its_shapes(tmp_path):
    x = {"format": "ND", "type": "float32", "shape": [-1], "shape_range": [[1, 4]], "typical_shape": [3]}
    y = {"name": "y", "format": "ND", "type": "float32", "shape": [-1], "shape_range": [[1, 2]]}
    case = {"case_name": "Test_Add_narrow", "op": "Add", "input_desc": [{"name": "x1", **x}, {"name": "x2", **x}],
            "output_desc": [y]}
    (tmp_path / "narrow.json").write_text(json.dumps([case]))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_XDIST", "PYTEST_ADDOPTS"))}
    env.pop("PYTEST_CURRENT_TEST", None)
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly", "-p", "no:xdist",
               "conformance/test_dynamic_shapes.py", "-k", "at_the_runtime_shapes_of_the_case_file_matches",
               "--cases", str(tmp_path / "narrow.json"), "--model-cache=off"]
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 1, done.stdout[-3000:]
    assert ("returned 100024 (the reference gives output y [3] outside the declared [-1] with shape_range [[1, 2]]: "
            "no model of the case has it)") in done.stdout, done.stdout[-3000:]
