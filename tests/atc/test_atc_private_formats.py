"""`aclcts atc` and private formats: a tensor may be stored in NC1HWC0, FRACTAL_NZ, ... where the op's record allows
it, with the shape its origin shape takes in that format (docs/formats.md); anything else is one line."""

import json

from aclcts.atc import compile_singleop
from aclcts.core.formats import FORMAT_VALUES
from aclcts.core.opmodel import OpModel


def desc(fmt, shape, origin_shape=None, origin_format="ND", type_="float16"):
    found = {"format": fmt, "shape": list(shape), "type": type_}
    if origin_shape is not None:
        found |= {"origin_format": origin_format, "origin_shape": list(origin_shape)}
    return found


def matmul(x1, x2, y):
    return {"op": "MatMul", "input_desc": [x1, x2], "output_desc": [y]}


NZ_MATMUL = matmul(desc("FRACTAL_NZ", (3, 2, 16, 16), (32, 48)), desc("FRACTAL_NZ", (3, 3, 16, 16), (48, 40)),
                   desc("FRACTAL_NZ", (3, 2, 16, 16), (32, 40)))


def compile_elements(tmp_path, elements):
    source = tmp_path / "op.json"
    source.write_text(json.dumps(elements, indent=1))
    return compile_singleop(source, tmp_path / "out", "Ascend910B1")


def test_a_fractal_nz_matmul_compiles_with_its_storage_and_origin_shapes(tmp_path):
    assert not compile_elements(tmp_path, [NZ_MATMUL]).errors
    [om] = list((tmp_path / "out").iterdir())
    model = OpModel.from_bytes(om.read_bytes())
    x1 = model.inputs[0]
    assert (x1.format, x1.shape) == (FORMAT_VALUES["FRACTAL_NZ"], (3, 2, 16, 16))
    assert (x1.origin_format, x1.origin_shape) == (FORMAT_VALUES["ND"], (32, 48))


def test_an_nc1hwc0_add_compiles(tmp_path):
    x = desc("NC1HWC0", (2, 2, 3, 5, 16), (2, 20, 3, 5), "NCHW")
    assert not compile_elements(tmp_path, [{"op": "Add", "input_desc": [x, x], "output_desc": [x]}]).errors


def test_a_private_format_the_record_does_not_allow_is_one_line_naming_the_field(tmp_path):
    x = desc("FRACTAL_NZ", (1, 1, 16, 16), (16, 16))
    lines = compile_elements(tmp_path, [{"op": "Sub", "input_desc": [x, x], "output_desc": [x]}]).errors
    assert len(lines) == 3 and all("\n" not in line for line in lines)
    assert "input_desc[0].format" in lines[0] and "Sub input 'x1' cannot be stored in FRACTAL_NZ" in lines[0]
    assert "output_desc[0].format" in lines[2]


def test_a_shape_that_does_not_fit_the_origin_shape_in_its_format_is_refused(tmp_path):
    element = dict(NZ_MATMUL, input_desc=[desc("FRACTAL_NZ", (2, 2, 16, 16), (32, 48)), NZ_MATMUL["input_desc"][1]])
    [line] = compile_elements(tmp_path, [element]).errors
    assert "input_desc[0].format" in line and "expected [3, 2, 16, 16]" in line


def test_an_origin_format_the_private_format_is_not_made_from_is_refused(tmp_path):
    x = desc("NC1HWC0", (2, 2, 3, 5, 16), (40, 3, 5), "ND")  # ND is read as NCHW at rank 4 only
    [line, *_] = compile_elements(tmp_path, [{"op": "Add", "input_desc": [x, x], "output_desc": [x]}]).errors
    assert "input_desc[0].format" in line and "NC1HWC0 is made from NCHW, NHWC, HWCN, not ND" in line
