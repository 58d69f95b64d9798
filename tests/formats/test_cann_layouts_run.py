"""msopst cases written as CANN's own GEMM and PadV3 system tests write them (issue 34): an int8 GEMM whose b is
FRACTAL_Z made from its 2-D ND shape, and an NC1HWC0 Add made from a rank-4 ND shape, load and pass on the simulator
against aclcts' reference."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import warnings
from pathlib import Path

from aclcts.cases import CaseFileError
from aclcts.cases.msopst import load_msopst_cases
from aclcts.core.formats import FORMAT_VALUES

ROOT = Path(__file__).resolve().parents[2]


def tensor(name: str, fmt: str, shape: list[int], type_: str, ori_format: str = "ND", **more) -> dict:
    """One msopst tensor whose shape repeats its origin shape, as CANN's GEMM files write it."""
    return {"name": name, "format": fmt, "ori_format": ori_format, "shape": shape, "ori_shape": shape,
            "type": type_, **more}


def drawn(name: str, fmt: str, shape: list[int], type_: str, low: int, high: int) -> dict:
    return tensor(name, fmt, shape, type_, value_range=[low, high], data_distribute="uniform")


GEMM = {"case_name": "gemm_fz_b", "op": "GEMM",
        "input_desc": [drawn("a", "FRACTAL_NZ", [32, 64], "int8", -4, 4),
                       drawn("b", "FRACTAL_Z", [64, 40], "int8", -4, 4),
                       drawn("c", "ND", [32, 40], "int32", -8, 8),
                       drawn("alpha", "ND", [1], "int32", 1, 3), drawn("beta", "ND", [1], "int32", 1, 3)],
        "output_desc": [tensor("y", "FRACTAL_NZ", [32, 40], "int32")],
        "attr": [{"name": "transpose_a", "type": "bool", "value": False},
                 {"name": "transpose_b", "type": "bool", "value": False}]}
ADD = {"case_name": "add_5hd_from_nd", "op": "Add",
       "input_desc": [{"name": "x1", "format": "NC1HWC0", "ori_format": "ND", "shape": [2, 2, 3, 5, 16],
                       "ori_shape": [2, 20, 3, 5], "type": "float16", "value_range": [-1, 1],
                       "data_distribute": "uniform"},
                      {"name": "x2", "format": "NC1HWC0", "ori_format": "ND", "shape": [2, 2, 3, 5, 16],
                       "ori_shape": [2, 20, 3, 5], "type": "float16", "value_range": [-1, 1],
                       "data_distribute": "uniform"}],
       "output_desc": [{"name": "y", "format": "NC1HWC0", "ori_format": "ND", "shape": [2, 2, 3, 5, 16],
                        "ori_shape": [2, 20, 3, 5], "type": "float16"}]}

MATMUL_NZ = {"case_name": "mm_nz", "op": "MatMul",
             "input_desc": [{"name": "x1", "format": "FRACTAL_NZ", "shape": [2, 2, 16, 16], "type": "float16",
                             "value_range": [-1, 1], "data_distribute": "uniform"},
                            {"name": "x2", "format": "FRACTAL_NZ", "shape": [2, 2, 16, 16], "type": "float16",
                             "value_range": [-1, 1], "data_distribute": "uniform"}],
             "output_desc": [{"name": "y", "format": "FRACTAL_NZ", "shape": [2, 2, 16, 16], "type": "float16"}]}


def refusal_line(path: Path) -> str:
    """The one line refusing the only case of an msopst file (raised, or the reason of its refused case)."""
    try:
        cases = load_msopst_cases(str(path))
    except CaseFileError as exc:
        return str(exc)
    (case,) = cases
    assert case.refusal is not None
    return case.refusal.reason


def write(tmp_path: Path) -> Path:
    path = tmp_path / "cann_layouts.json"
    path.write_text(json.dumps([GEMM, ADD]))
    return path


def test_the_cases_load_with_their_storage_formats_and_origin_shapes(tmp_path: Path) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        gemm, add = load_msopst_cases(str(write(tmp_path)))
    b = gemm.inputs[1]
    assert (b.storage_format, b.shape) == (FORMAT_VALUES["FRACTAL_Z"], (64, 40))
    assert b.stored(gemm.format) == (FORMAT_VALUES["FRACTAL_Z"], (2, 3, 16, 32))
    assert add.inputs[0].shape == (2, 20, 3, 5)
    assert add.inputs[0].stored(add.format) == (FORMAT_VALUES["NC1HWC0"], (2, 2, 3, 5, 16))


def test_the_cases_pass_on_the_simulator(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_XDIST", "PYTEST_ADDOPTS"))}
    env.pop("PYTEST_CURRENT_TEST", None)
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly", "-p", "no:xdist",
               "conformance/test_execute.py", "-k", "matches_reference", "--cases", str(write(tmp_path)),
               "--model-cache=off"]
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stdout[-3000:]
    assert "2 passed" in done.stdout


def test_a_private_format_in_a_dynamic_case_is_refused_in_one_line_naming_the_tensor(tmp_path: Path) -> None:
    dynamic = {"name": "x1", "format": "FRACTAL_NZ", "shape": [-1, -1, 16, 16], "type": "float16",
               "shape_range": [[1, 4], [1, 4]], "typical_shape": [2, 2, 16, 16], "value_range": [-1, 1],
               "data_distribute": "uniform"}
    case = {**MATMUL_NZ, "input_desc": [dynamic, MATMUL_NZ["input_desc"][1]]}
    path = tmp_path / "dynamic.json"
    path.write_text(json.dumps([case]))
    line = refusal_line(path)
    assert "\n" not in line
    assert "input_desc[0].format: expected a plain format in a dynamic case for tensor 'x1'" in line
    assert line.endswith("got 'FRACTAL_NZ'")


def test_a_layout_aclcts_cannot_make_is_refused_in_one_line_naming_the_tensor_and_format(tmp_path: Path) -> None:
    weight = tensor("b", "FRACTAL_Z", [64, 40, 3], "int8")  # a rank-3 ND origin has no FRACTAL_Z reading
    path = tmp_path / "fz.json"
    path.write_text(json.dumps([{**GEMM, "input_desc": [GEMM["input_desc"][0], weight, *GEMM["input_desc"][2:]]}]))
    line = refusal_line(path)
    assert "\n" not in line and "input_desc[1].format: expected a layout aclcts can make" in line
    assert line.endswith("for tensor 'b' in FRACTAL_Z")
