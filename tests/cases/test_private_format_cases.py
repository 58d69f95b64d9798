"""Case files with per-tensor formats (docs/formats.md#where-aclcts-uses-them): `format` maps tensor names to the format each is
stored in, `ori_format` names the origin format the case's shapes are given in."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from aclcts.cases import CaseFileError, expand_file
from aclcts.core.formats import FORMAT_VALUES

MATMUL = {"op": "MatMul", "format": {"x1": "FRACTAL_NZ", "x2": "FRACTAL_NZ", "y": "FRACTAL_NZ"}, "ori_format": "ND",
          "dtypes": ["float16"], "shapes": [[[20, 33], [33, 18]]]}


def write(tmp_path: Path, data: dict) -> str:
    path = tmp_path / "case.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return str(path)


def test_named_tensors_are_stored_in_their_format_made_from_the_origin_shapes(tmp_path):
    [case, *_] = expand_file(write(tmp_path, MATMUL))
    assert case.id.endswith("-FRACTAL_NZ") and case.format == FORMAT_VALUES["ND"]
    model = case.op_model("Ascend910B1")
    x1, y = model.inputs[0], model.outputs[0]
    assert (x1.format, x1.shape, x1.origin_shape) == (FORMAT_VALUES["FRACTAL_NZ"], (3, 2, 16, 16), (20, 33))
    assert (y.shape, y.origin_shape) == ((2, 2, 16, 16), (20, 18))


def test_tensors_left_out_of_the_mapping_keep_the_origin_format(tmp_path):
    data = {**MATMUL, "format": {"x1": "FRACTAL_NZ"}}
    [case, *_] = expand_file(write(tmp_path, data))
    model = case.op_model("Ascend910B1")
    assert [t.format for t in model.inputs + model.outputs] == [FORMAT_VALUES["FRACTAL_NZ"], 2, 2]


@pytest.mark.parametrize(("change", "field", "expected"), [
    ({"format": {"x9": "FRACTAL_NZ"}}, "format.x9", "expected a tensor name of the case"),
    ({"format": {"x1": "FRACTAL_QQ"}}, "format.x1", "expected one of NCHW"),
    ({"ori_format": "NC1HWC0"}, "ori_format", "expected one of ND, NCHW"),
    ({"format": {"x1": "NC1HWC0"}}, "shapes[0]", "x1: format NC1HWC0 is made from NCHW, NHWC, HWCN, not ND"),
    ({"format": "ND", "ori_format": "NCHW"}, "ori_format", "only with a per-tensor `format` mapping"),
], ids=["unknown-tensor", "unknown-format", "private-origin", "origin-does-not-fit", "ori-format-without-mapping"])
def test_bad_formats_are_one_line_naming_the_field(tmp_path, change, field, expected):
    with pytest.raises(CaseFileError) as info:
        expand_file(write(tmp_path, {**MATMUL, **change}))
    message = str(info.value)
    assert "\n" not in message and f"{field}" in message and expected in message
