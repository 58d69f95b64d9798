"""An msopst LayerNorm file whose x and y are FRACTAL_NZ, written as CANN's own LayerNorm system tests write them
(issue 34): it passes on the simulator, and the planted fault `fractal_nz_read_as_nd` (a kernel reading the NZ x as
a row-major array) fails it."""

from __future__ import annotations

import json
from pathlib import Path

from msopst_runs import failed_cases, run_execute

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


def test_a_fractal_nz_layer_norm_file_passes_and_kills_a_kernel_reading_nz_as_nd(tmp_path: Path) -> None:
    path = tmp_path / "layer_norm_nz.json"
    path.write_text(json.dumps([LAYER_NORM]))
    clean, planted = run_execute(path), run_execute(path, "fractal_nz_read_as_nd")
    assert clean.returncode == 0 and "1 passed" in clean.stdout, clean.stdout[-3000:] + clean.stderr[-2000:]
    assert failed_cases(planted) == {f"layer_norm_nz.{CASE}_case_001_FRACTAL_NZ_float16"}, planted.stdout[-3000:]
