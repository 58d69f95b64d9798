"""msopst Axpy, Mul and Div files with FRACTAL_NZ tensors, as CANN's own system tests of those ops write them
(issue 34): CANN's op_select_format offers FRACTAL_NZ for them, so ATC accepts them; they pass on the simulator,
broadcasting an ND or scalar input against an NZ one included, and a kernel that reads NZ memory as a row-major
array (the fault `fractal_nz_read_as_nd`) fails every one (each NZ tensor here has padded rows and columns)."""

from __future__ import annotations

import json
from pathlib import Path

from msopst_runs import failed_cases, run_execute


def nz(name: str, origin: list[int], stored: list[int], **drawn) -> dict:
    """A float16 FRACTAL_NZ tensor made from its ND origin shape."""
    return {"name": name, "format": "FRACTAL_NZ", "ori_format": "ND", "shape": stored, "ori_shape": origin,
            "type": "float16", **drawn}


def nd(name: str, shape: list[int], **drawn) -> dict:
    """A float16 ND tensor."""
    return {"name": name, "format": "ND", "shape": shape, "type": "float16", **drawn}


def values(low: float, high: float) -> dict:
    return {"value_range": [low, high], "data_distribute": "uniform"}


#: [2, 20, 24] in NZ is [2, 2, 2, 16, 16]: 24 columns in two blocks of 16, 20 rows in two fractals.
CASES = [
    {"case_name": "axpy_nz_nd", "op": "Axpy",
     "input_desc": [nz("x1", [2, 20, 24], [2, 2, 2, 16, 16], **values(-2, 2)), nd("x2", [20, 1], **values(-2, 2))],
     "output_desc": [nz("y", [2, 20, 24], [2, 2, 2, 16, 16])],
     "attr": [{"name": "alpha", "type": "float", "value": 2.0}]},
    {"case_name": "mul_scalar_nz", "op": "Mul",
     "input_desc": [nd("x1", [1], **values(-2, 2)), nz("x2", [3, 20, 24], [3, 2, 2, 16, 16], **values(-2, 2))],
     "output_desc": [nz("y", [3, 20, 24], [3, 2, 2, 16, 16])]},
    {"case_name": "div_nz_nz", "op": "Div",
     "input_desc": [nz("x1", [20, 24], [2, 2, 16, 16], **values(-2, 2)),
                    nz("x2", [20, 24], [2, 2, 16, 16], **values(1, 2))],
     "output_desc": [nz("y", [20, 24], [2, 2, 16, 16])]},
]


def test_nz_axpy_mul_and_div_files_pass_and_a_kernel_reading_nz_as_nd_fails_each(tmp_path: Path) -> None:
    path = tmp_path / "nz.json"
    path.write_text(json.dumps(CASES))
    clean, planted = run_execute(path), run_execute(path, "fractal_nz_read_as_nd")
    assert clean.returncode == 0 and "3 passed" in clean.stdout, clean.stdout[-3000:] + clean.stderr[-2000:]
    assert failed_cases(planted) == {f"nz.{case['case_name']}_case_001_FRACTAL_NZ_float16" for case in CASES}, \
        planted.stdout[-3000:]
