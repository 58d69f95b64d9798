"""msopst files storing PadV3, MaxPool, Slice, SoftmaxV2 and PRelu tensors in the private formats CANN's op info
offers those ops (docs/formats.md, issue 34), written as CANN's own system tests of those ops write them: ATC accepts
them and they pass on the simulator, with the attrs and value inputs (paddings, offsets, size, axes) read in the
origin layout and the C and matrix dims padded; a kernel that ignores the layout fails them."""

from __future__ import annotations

import json
from pathlib import Path

from aclcts.cases.msopst import load_msopst_cases

from msopst_runs import failed_cases, run_execute


def stored(name: str, fmt: str, origin_format: str, origin: list[int], shape: list[int], drawn: bool = True) -> dict:
    """A float16 tensor in private format fmt made from origin in origin_format, drawn uniformly from [-2, 2]."""
    values = {"value_range": [-2, 2], "data_distribute": "uniform"} if drawn else {}
    return {"name": name, "format": fmt, "ori_format": origin_format, "shape": shape, "ori_shape": origin,
            "type": "float16", **values}


def const(name: str, values: list, type_: str = "int32") -> dict:
    """A 1-D ND value input (msopst's `value`)."""
    return {"name": name, "format": "ND", "shape": [len(values)], "type": type_, "value": values}


def attr(name: str, type_: str, value) -> dict:
    return {"name": name, "type": type_, "value": value}


CASES = [
    {"case_name": "pad_5hd", "op": "PadV3",  # C 20 is padded to 2 blocks of 16; H and W are padded by the op
     "input_desc": [stored("x", "NC1HWC0", "NCHW", [2, 20, 3, 5], [2, 2, 3, 5, 16]),
                    const("paddings", [0, 0, 0, 0, 1, 1, 2, 2]),
                    {**const("constant_values", [2.0], "float16"), "shape": [1]}],
     "output_desc": [stored("y", "NC1HWC0", "NCHW", [2, 20, 5, 9], [2, 2, 5, 9, 16], drawn=False)],
     "attr": [attr("mode", "string", "constant"), attr("paddings_contiguous", "bool", True)]},
    {"case_name": "max_pool_5hd", "op": "MaxPool",
     "input_desc": [stored("x", "NC1HWC0", "NCHW", [1, 20, 6, 6], [1, 2, 6, 6, 16])],
     "output_desc": [stored("y", "NC1HWC0", "NCHW", [1, 20, 3, 3], [1, 2, 3, 3, 16], drawn=False)],
     "attr": [attr("ksize", "list_int", [1, 1, 3, 3]), attr("strides", "list_int", [1, 1, 2, 2]),
              attr("padding", "string", "SAME"), attr("data_format", "string", "NCHW")]},
    {"case_name": "slice_5hd", "op": "Slice",  # offsets and size in NHWC: C from 16 to the end
     "input_desc": [stored("x", "NC1HWC0", "NHWC", [2, 3, 4, 40], [2, 3, 3, 4, 16]),
                    const("offsets", [0, 1, 1, 16]), const("size", [2, 2, 3, -1])],
     "output_desc": [stored("y", "NC1HWC0", "NHWC", [2, 2, 3, 24], [2, 2, 2, 3, 16], drawn=False)]},
    {"case_name": "slice_nz", "op": "Slice",
     "input_desc": [stored("x", "FRACTAL_NZ", "ND", [3, 40, 50], [3, 4, 3, 16, 16]),
                    const("offsets", [1, 0, 16]), const("size", [2, -1, 32])],
     "output_desc": [stored("y", "FRACTAL_NZ", "ND", [2, 40, 32], [2, 2, 3, 16, 16], drawn=False)]},
    {"case_name": "slice_fz_3d", "op": "Slice",  # D*C1*H*W = 4*1*2*2 rows of fractals; D from 1, two of them
     "input_desc": [stored("x", "FRACTAL_Z_3D", "NDHWC", [16, 4, 2, 2, 16], [16, 1, 16, 16]),
                    const("offsets", [0, 1, 0, 0, 0]), const("size", [16, 2, -1, -1, -1])],
     "output_desc": [stored("y", "FRACTAL_Z_3D", "NDHWC", [16, 2, 2, 2, 16], [8, 1, 16, 16], drawn=False)]},
    {"case_name": "softmax_6hd", "op": "SoftmaxV2",  # over C, whose last block is padded
     "input_desc": [stored("x", "NDC1HWC0", "NDHWC", [2, 3, 4, 5, 20], [2, 3, 2, 4, 5, 16])],
     "output_desc": [stored("y", "NDC1HWC0", "NDHWC", [2, 3, 4, 5, 20], [2, 3, 2, 4, 5, 16], drawn=False)],
     "attr": [attr("axes", "list_int", [-1])]},
    {"case_name": "prelu_6hd", "op": "PRelu",  # one weight for every element, as CANN's PRelu tests give it
     "input_desc": [stored("x", "NDC1HWC0", "NCDHW", [2, 20, 3, 4, 5], [2, 3, 2, 4, 5, 16]),
                    stored("weight", "NDC1HWC0", "NCDHW", [1], [1])],
     "output_desc": [stored("y", "NDC1HWC0", "NCDHW", [2, 20, 3, 4, 5], [2, 3, 2, 4, 5, 16], drawn=False)]},
]


def written(tmp_path: Path) -> Path:
    path = tmp_path / "op_info.json"
    path.write_text(json.dumps(CASES))
    return path


def test_the_files_pass_on_the_simulator(tmp_path: Path) -> None:
    done = run_execute(written(tmp_path))
    assert done.returncode == 0 and f"{len(CASES)} passed" in done.stdout, done.stdout[-3000:] + done.stderr[-2000:]


def test_kernels_ignoring_the_layout_fail_every_case_stored_in_it(tmp_path: Path) -> None:
    path = written(tmp_path)
    blocks, fractals = run_execute(path, "c0_blocks_read_as_plain"), run_execute(path, "fractal_nz_read_as_nd")
    ids = {case["case_name"]: f"op_info.{case['case_name']}_case_001_{case['input_desc'][0]['format']}_float16"
           for case in CASES}
    assert failed_cases(blocks) == {ids[n] for n in ids if "5hd" in n or "6hd" in n}, blocks.stdout[-3000:]
    assert failed_cases(fractals) == {ids["slice_nz"]}, fractals.stdout[-3000:]


def test_an_origin_format_that_cannot_hold_its_origin_shape_is_refused_naming_that_tensor(tmp_path: Path) -> None:
    # as CANN's Slice test_slice_fz_3d writes y: FRACTAL_Z_3D from a 5-D origin shape labelled NCHW beside an NDHWC x
    (fz_3d,) = [case for case in CASES if case["case_name"] == "slice_fz_3d"]
    mislabelled = {**fz_3d, "output_desc": [{**fz_3d["output_desc"][0], "ori_format": "NCHW"}]}
    path = tmp_path / "mislabelled.json"
    path.write_text(json.dumps([mislabelled]))
    (loaded,) = load_msopst_cases(str(path))
    assert loaded.refusal is not None and loaded.refusal.stage == "load"
    assert "output_desc[0].format: expected a layout aclcts can make (format FRACTAL_Z_3D is made from NCDHW, " \
           "NDHWC, DHWCN, not NCHW) for tensor 'y' in FRACTAL_Z_3D" in loaded.refusal.reason, loaded.refusal.reason
