"""msopst files as CANN writes them: the fields msopst does not read are ignored with one warning per file, and the
forms CANN's own files use (flat shape_range pairs, dtype-named data_type attrs, ref outputs named as their input,
per-tensor private formats) read as msopst reads them."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

from aclcts.cases.msopst import load_msopst_cases
from aclcts.cases.msopst.read import IgnoredFieldsWarning
from aclcts.cases.strategies import PROFILE_ENV, SURVEY_PROFILE
from aclcts.core.constants import DataType
from aclcts.core.formats import FORMAT_VALUES

ROOT = Path(__file__).resolve().parents[2]


def tensor(name: str, shape: list | None = None, type_: str = "float32", **more) -> dict:
    """One msopst tensor object."""
    return {"name": name, "format": "ND", "type": type_, "shape": shape or [2, 3], **more}


def case(name: str = "T", op: str = "Add", inputs: list | None = None, outputs: list | None = None, **more) -> dict:
    """One msopst case (Add of two [2, 3] tensors unless told)."""
    return {"case_name": name, "op": op, "input_desc": inputs or [tensor("x1"), tensor("x2")],
            "output_desc": outputs or [tensor("y")], **more}


def load(tmp_path: Path, cases: list) -> tuple[list, list[str]]:
    """The Cases of an msopst file written with cases, and the IgnoredFieldsWarning lines loading it gave."""
    path = tmp_path / "case.json"
    path.write_text(json.dumps(cases))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        loaded = load_msopst_cases(str(path))
    return loaded, [str(w.message) for w in caught if issubclass(w.category, IgnoredFieldsWarning)]


def refusal(tmp_path: Path, cases: list) -> str:
    """The one-line reason the one case of an msopst file written with cases is refused for (it must be refused)."""
    (loaded,), _ = load(tmp_path, cases)
    assert loaded.refusal is not None, loaded
    assert loaded.refusal.stage == "load"
    return loaded.refusal.reason


def test_fields_msopst_does_not_read_are_ignored_with_one_warning_per_file(tmp_path):
    cann = {"param_type": "required", "range": [[1, None]], "oir_shape": [2, 3], "oir_format": "ND", "sub_format": 0}
    outputs = [tensor("y", value_range=[[0.1, 1.0]], data_distribute="uniform", param_type="output")]
    cases = [case(f"T{i}", inputs=[tensor("x1", **cann), tensor("x2", **cann)], outputs=outputs,
                  gui_calc_expect_func_file="", cast_name="x") for i in range(3)]
    loaded, lines = load(tmp_path, cases)
    assert len(loaded) == 3
    assert len(lines) == 1 and "\n" not in lines[0]
    assert lines[0] == (f"{tmp_path / 'case.json'}: fields msopst does not read, ignored: cast_name, "
                        "gui_calc_expect_func_file, input_desc[].oir_format, input_desc[].oir_shape, "
                        "input_desc[].param_type, input_desc[].range, input_desc[].sub_format, "
                        "output_desc[].data_distribute, output_desc[].param_type, output_desc[].value_range")
    assert loaded[0].inputs[0].shape == (2, 3) and loaded[0].msopst.op_params["input_desc"][0].keys().isdisjoint(cann)


def test_a_file_of_known_fields_gives_no_warning(tmp_path):
    assert load(tmp_path, [case()])[1] == []


def test_an_empty_fuzz_impl_or_golden_file_is_no_value_as_in_msopst(tmp_path):
    loaded, lines = load(tmp_path, [case(fuzz_impl="", calc_expect_func_file="")])
    assert [c.id for c in loaded] == ["case.T_case_001_ND_float32"]
    assert loaded[0].msopst.reference_kind == "builtin"
    assert "calc_expect_func_file (empty), fuzz_impl (empty)" in lines[0]


def test_an_empty_fuzz_case_num_beside_an_empty_fuzz_impl_is_no_fuzz_case_as_in_msopst(tmp_path):
    loaded, lines = load(tmp_path, [case(fuzz_impl="", fuzz_case_num="")])
    assert [c.id for c in loaded] == ["case.T_case_001_ND_float32"]
    assert "fuzz_case_num (empty)" in lines[0]


def test_a_flat_shape_range_pair_is_the_range_of_every_unknown_dim(tmp_path):
    dynamic = dict(shape=[-1, 3], typical_shape=[4, 3], shape_range=[1, 5])
    loaded, _ = load(tmp_path, [case(inputs=[tensor("x1", **dynamic), tensor("x2", **dynamic)],
                                     outputs=[tensor("y", **dynamic)])])
    assert [t.shape_range for t in loaded[0].inputs + loaded[0].outputs] == [((1, 5),)] * 3


@pytest.mark.parametrize("written, acl", [("int32", DataType.ACL_INT32), ("float", DataType.ACL_FLOAT),
                                          ("float16", DataType.ACL_FLOAT16), ("double", DataType.ACL_DOUBLE)])
def test_a_data_type_attr_written_as_a_dtype_name_is_that_acl_data_type(tmp_path, written, acl):
    cast = case(op="Cast", inputs=[tensor("x")], outputs=[tensor("y", type_="float16")],
                attr=[{"name": "dst_type", "type": "data_type", "value": written}])
    (attr,) = load(tmp_path, [cast])[0][0].attrs
    assert (attr.type, attr.value) == ("data_type", int(acl))


def test_a_data_type_attr_naming_no_dtype_is_one_line(tmp_path):
    cast = case(op="Cast", inputs=[tensor("x")], outputs=[tensor("y", type_="float16")],
                attr=[{"name": "dst_type", "type": "data_type", "value": "half"}])
    assert re.search(r": case T: attr\[0\]\.value: expected a dtype name \(int8, .*got 'half'$", refusal(tmp_path, [cast]))


def test_a_ref_output_named_as_its_input_is_kept_apart_and_the_golden_gets_msopsts_keywords(tmp_path):
    (tmp_path / "golden.py").write_text(
        "import numpy as np\n\n\ndef scatter_add(var, indices, updates):\n"
        "    assert set(var) == {'dtype', 'shape', 'format'}  # msopst: the output's dict replaces the input's\n"
        "    return [np.full(var['shape'], 7.0, np.float32)]\n")
    scatter = case(op="ScatterAdd", inputs=[tensor("var", [4, 3]), tensor("indices", [2], "int32", value=[0, 2]),
                                            tensor("updates", [2, 3])], outputs=[tensor("var", [4, 3])],
                   calc_expect_func_file="golden.py:scatter_add")
    (loaded,), _ = load(tmp_path, [scatter])
    assert [t.name for t in loaded.inputs] == ["var", "indices", "updates"]
    assert [t.name for t in loaded.outputs] == ["var_out"]
    from aclcts.reference import reference
    arrays = [np.zeros((4, 3), np.float32), np.array([0, 2], np.int32), np.ones((2, 3), np.float32)]
    (expected,) = reference(loaded.reference).compute(arrays, {}, [a.dtype for a in arrays])
    assert np.array_equal(expected, np.full((4, 3), 7.0, np.float32))


def test_two_inputs_of_one_name_are_still_refused_as_msopst_refuses_them(tmp_path):
    assert re.search(r": case T: input_desc name: expected names used once",
                     refusal(tmp_path, [case(inputs=[tensor("x"), tensor("x")])]))


def test_per_tensor_private_formats_map_onto_storage_formats(tmp_path):
    nz = dict(format="FRACTAL_NZ", ori_format="ND", shape=[2, 3, 16, 16], ori_shape=[40, 30])
    matmul = case(op="MatMul", inputs=[tensor("x1", **nz), tensor("x2", **{**nz, "shape": [2, 2, 16, 16],
                                                                           "ori_shape": [30, 20]})],
                  outputs=[tensor("y", **{**nz, "shape": [2, 3, 16, 16], "ori_shape": [40, 20]})])
    (loaded,), _ = load(tmp_path, [matmul])
    assert loaded.format == FORMAT_VALUES["ND"]
    assert [(t.shape, t.storage_format) for t in loaded.inputs + loaded.outputs] == [
        ((40, 30), FORMAT_VALUES["FRACTAL_NZ"]), ((30, 20), FORMAT_VALUES["FRACTAL_NZ"]),
        ((40, 20), FORMAT_VALUES["FRACTAL_NZ"])]
    assert loaded.op_model("Ascend910B1").inputs[0].shape == (2, 3, 16, 16)


def test_an_nc1hwc0_tensor_beside_nchw_ones_takes_the_case_format_from_its_origin(tmp_path):
    five_d = dict(format="NC1HWC0", ori_format="NCHW", shape=[2, 2, 3, 4, 16], ori_shape=[2, 20, 3, 4])
    add = case(inputs=[tensor("x1", **five_d), tensor("x2", [2, 20, 3, 4], format="NCHW")],
               outputs=[tensor("y", **five_d)])
    (loaded,), _ = load(tmp_path, [add])
    assert loaded.format == FORMAT_VALUES["NCHW"]
    assert [(t.shape, t.storage_format) for t in loaded.inputs + loaded.outputs] == [
        ((2, 20, 3, 4), FORMAT_VALUES["NC1HWC0"]), ((2, 20, 3, 4), None), ((2, 20, 3, 4), FORMAT_VALUES["NC1HWC0"])]


def test_an_nd_tensor_beside_nchw_ones_keeps_nd_where_its_rank_allows(tmp_path):
    gather = case(op="GatherV2", inputs=[tensor("x", [2, 3, 4, 5]), tensor("indices", [2], "int32", value=[0, 1]),
                                         tensor("axis", [1], "int32", format="NCHW", value=[0])],
                  outputs=[tensor("y", [2, 3, 4, 5], format="NCHW")])
    (loaded,), _ = load(tmp_path, [gather])
    model = loaded.op_model("Ascend910B1")
    assert loaded.format == FORMAT_VALUES["NCHW"]
    # x (rank 4) stays ND; indices (rank 1, no NCHW layout of it) is described in the case's format
    formats = [FORMAT_VALUES[n] for n in ("ND", "NCHW", "NCHW", "NCHW")]
    assert [t.format for t in model.inputs + model.outputs] == formats
    assert [t.shape for t in model.inputs] == [(2, 3, 4, 5), (2,), (1,)]


@pytest.mark.parametrize("tensors, field, expected", [
    ([dict(format="NC1HWC0", ori_format="NCHW", shape=[1, 1, 2, 2, 16], ori_shape=[1, 16, 2, 2]),
      dict(format="NC1HWC0", ori_format="NHWC", shape=[1, 1, 2, 2, 16], ori_shape=[1, 2, 2, 16])],
     "ori_format", "one origin format for the case's tensors"),
    ([dict(format="NC1HWC0", ori_format="NCHW", shape=[1, 3, 2, 2, 16], ori_shape=[1, 16, 2, 2])] * 2,
     "input_desc[0].format", "a layout aclcts can make (shape [1, 3, 2, 2, 16] is neither"),
    ([dict(format="FRACTAL_NZ", shape=[-1, 16], typical_shape=[16, 16])] * 2,
     "input_desc[0].format", "a plain format in a dynamic case"),
    ([dict(format="C1HWNCoC0", shape=[1, 16])] * 2, "format", "a format aclcts lays out"),
])
def test_a_private_format_aclcts_cannot_lay_out_is_one_line(tmp_path, tensors, field, expected):
    add = case(inputs=[tensor("x1", **tensors[0]), tensor("x2", **tensors[1])], outputs=[tensor("y", **tensors[0])])
    reason = refusal(tmp_path, [add])
    assert reason.startswith(f"{tmp_path / 'case.json'}: case T: {field}: expected {expected}"), reason


DYNAMIC_5HD = dict(format="NC1HWC0", ori_format="NCHW", type_="float16", typical_shape=[2, 1, 3, 4, 16])


@pytest.mark.parametrize("fields, field, expected", [
    (dict(DYNAMIC_5HD, shape=[2, -1, 3, 4, 16], ori_shape=[2, -1, 3, 4], shape_range=[[1, 32]]),
     "input_desc[0].ori_shape",
     "no -1 in an origin dim NC1HWC0 divides into blocks for tensor 'x1' (C of NCHW: msopst's runtime desc carries "
     "the stored dims only, which cannot give it back; docs/formats.md), got [2, -1, 3, 4]"),
    (dict(format="FRACTAL_NZ", type_="float16", shape=[-1, 2, 16, 16], shape_range=[[1, 4]],
          typical_shape=[3, 2, 16, 16]), "input_desc[0].format",
     "a plain format in a dynamic case for tensor 'x1' (aclcts does not yet convert private formats at runtime "
     "shapes, though each -1 here is one stored dim as it is; docs/formats.md), got 'FRACTAL_NZ'"),
])
def test_a_dynamic_private_format_tensor_is_refused_saying_whether_a_blocked_dim_is_unknown(
        tmp_path, fields, field, expected):
    add = case(inputs=[tensor("x1", **fields), tensor("x2", **fields)], outputs=[tensor("y", **fields)])
    reason = refusal(tmp_path, [add])
    assert reason == f"{tmp_path / 'case.json'}: case T: {field}: expected {expected}"


def run_conformance(cases: Path, faults: str = "", module: str = "conformance/test_execute.py"
                    ) -> subprocess.CompletedProcess:
    """pytest on one conformance module (test_execute.py unless told) with one msopst file (with ACLCTS_SIM_FAULTS when
    faults is given, under the survey profile: the same examples as `ci`, a failing one reported unshrunk, since the
    run only has to fail)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_XDIST", "PYTEST_ADDOPTS"))}
    env.pop("PYTEST_CURRENT_TEST", None)
    env["ACLCTS_SIM_FAULTS"] = faults
    if faults:
        env[PROFILE_ENV] = SURVEY_PROFILE
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly", "-p", "no:xdist",
               module, "--cases", str(cases), "--model-cache=off"]
    return subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600, check=False)


def test_a_fractal_nz_matmul_file_passes_and_kills_a_kernel_reading_nz_as_nd(tmp_path):
    nz = dict(format="FRACTAL_NZ", ori_format="ND", type_="float16", value_range=[[-1, 1]], param_type="required")
    matmul = case("Test_MatMul_nz", op="MatMul", inputs=[tensor("x1", [2, 3, 16, 16], ori_shape=[40, 30], **nz),
                                                         tensor("x2", [2, 2, 16, 16], ori_shape=[30, 20], **nz)],
                  outputs=[tensor("y", [2, 3, 16, 16], ori_shape=[40, 20], **nz)],
                  attr=[{"name": "transpose_x1", "type": "bool", "value": False},
                        {"name": "transpose_x2", "type": "bool", "value": False}])
    path = tmp_path / "matmul_nz.json"
    path.write_text(json.dumps([matmul]))
    clean, planted = run_conformance(path), run_conformance(path, "fractal_nz_read_as_nd")
    assert clean.returncode == 0 and " passed" in clean.stdout, clean.stdout[-2000:] + clean.stderr[-2000:]
    assert planted.returncode == 1 and "Test_MatMul_nz_case_001_FRACTAL_NZ_float16" in planted.stdout


def test_a_dynamic_nc1hwc0_case_whose_unknown_dims_are_stored_as_they_are_runs_in_stored_dims(tmp_path):
    five_d = dict(DYNAMIC_5HD, shape=[-1, 1, -1, 4, 16], ori_shape=[-1, 5, -1, 4], shape_range=[[1, 3], [2, 6]],
                  value_range=[[-1, 1]])
    add = case("Test_Add_5hd", inputs=[tensor("x1", **five_d), tensor("x2", **five_d)], outputs=[tensor("y", **five_d)])
    (loaded,), _ = load(tmp_path, [add])
    assert loaded.refusal is None, loaded.refusal
    model = loaded.op_model("Ascend910B1")
    assert {(t.shape, t.shape_range, t.origin_shape) for t in model.inputs + model.outputs} == {
        ((-1, 1, -1, 4, 16), ((1, 3), (1, 1), (2, 6), (4, 4), (16, 16)), (-1, 5, -1, 4))}
    path = tmp_path / "add_5hd.json"
    path.write_text(json.dumps([add]))
    clean = run_conformance(path, module="conformance/test_dynamic_shapes.py")
    planted = run_conformance(path, "c0_blocks_read_as_plain", "conformance/test_dynamic_shapes.py")
    assert clean.returncode == 0 and " passed" in clean.stdout, clean.stdout[-2000:] + clean.stderr[-2000:]
    assert planted.returncode == 1 and "matches_the_reference" in planted.stdout, planted.stdout[-2000:]


UNDEFINED = {"format": "UNDEFINED", "type": "UNDEFINED", "shape": []}
RESERVED = {"format": "RESERVED", "type": "UNDEFINED", "shape": []}
NO_TRANSPOSE = [{"name": "transpose_x1", "type": "bool", "value": False},
                {"name": "transpose_x2", "type": "bool", "value": False}]


def matmul_v2(bias: dict, offset_w: dict, **more) -> dict:
    """An msopst MatMulV2 case [4, 8] x [8, 5] with the given bias and offset_w tensors."""
    return case("Test_MatMulV2", op="MatMulV2", inputs=[tensor("x1", [4, 8]), tensor("x2", [8, 5]),
                                                        {"name": "bias", **bias}, {"name": "offset_w", **offset_w}],
                outputs=[tensor("y", [4, 5])], attr=NO_TRANSPOSE, **more)


def test_omitted_optional_inputs_are_undefined_tensors_of_the_model_at_their_position(tmp_path):
    (loaded,), _ = load(tmp_path, [matmul_v2(UNDEFINED, RESERVED)])
    assert [t.name for t in loaded.inputs] == ["x1", "x2"] and loaded.omitted == ((2, "bias"), (3, "offset_w"))
    model = loaded.op_model("Ascend910B1")
    assert [(t.dtype, t.format, t.shape) for t in model.inputs[2:]] == [(DataType.ACL_DT_UNDEFINED, -1, ())] * 2
    from aclcts.atc.generate import generate_singleop_json
    (written,) = generate_singleop_json([model])
    assert written["input_desc"][2:] == [{"format": "RESERVED", "shape": [], "type": "UNDEFINED"}] * 2


def test_an_omitted_input_reaches_no_golden_function_as_in_msopst(tmp_path):
    (tmp_path / "golden.py").write_text("def mm(x1, x2, offset_w, y, **attrs):\n"
                                        "    return [x1['value'] @ x2['value']]\n")
    offset = {"format": "ND", "type": "int8", "shape": [5]}
    (loaded,), _ = load(tmp_path, [matmul_v2(UNDEFINED, offset, calc_expect_func_file="golden.py:mm")])
    assert [t.name for t in loaded.inputs] == ["x1", "x2", "offset_w"] and loaded.omitted == ((2, "bias"),)
    from aclcts.reference import reference
    arrays = [np.ones((4, 8), np.float32), np.ones((8, 5), np.float32), np.zeros(5, np.int8)]
    (expected,) = reference(loaded.reference).compute(arrays, {}, [a.dtype for a in arrays])
    assert np.array_equal(expected, np.full((4, 5), 8.0, np.float32))


def test_an_omitted_input_before_a_given_one_with_a_built_in_reference_is_one_line(tmp_path):
    offset = {"format": "ND", "type": "int8", "shape": [5]}
    assert re.search(r": case Test_MatMulV2: input_desc\[2\]\.type: expected an omitted optional input after every "
                     r"given one", refusal(tmp_path, [matmul_v2(UNDEFINED, offset)]))


def test_an_omitted_output_is_one_line(tmp_path):
    assert re.search(r": case T: output_desc\[0\]\.type: expected a data type \(only an optional input may be left "
                     r"out\)", refusal(tmp_path, [case(outputs=[{"name": "y", **UNDEFINED}])]))


def test_a_matmul_v2_file_without_bias_and_offset_runs_end_to_end(tmp_path):
    path = tmp_path / "matmul_v2.json"
    path.write_text(json.dumps([matmul_v2(UNDEFINED, RESERVED)]))
    done = run_conformance(path)
    assert done.returncode == 0 and "1 passed" in done.stdout, done.stdout[-2000:] + done.stderr[-2000:]


def test_convert_keeps_private_formats_and_says_it_drops_omitted_inputs(tmp_path, capsys):
    from aclcts.cases import expand_file
    from aclcts.tools.msopst import main as msopst_main
    nz = dict(format="FRACTAL_NZ", ori_format="ND", type_="float16")
    matmul = case("Test_MatMul_nz", op="MatMul", inputs=[tensor("x1", [2, 3, 16, 16], ori_shape=[40, 30], **nz),
                                                         tensor("x2", [2, 2, 16, 16], ori_shape=[30, 20], **nz)],
                  outputs=[tensor("y", [2, 3, 16, 16], ori_shape=[40, 20], **nz)], attr=NO_TRANSPOSE)
    (tmp_path / "nz.json").write_text(json.dumps([matmul]))
    assert msopst_main(["convert", str(tmp_path / "nz.json"), "-o", str(tmp_path / "nz")]) == 0
    (original,) = load_msopst_cases(str(tmp_path / "nz.json"))
    converted = next(c for c in expand_file(str(tmp_path / "nz" / f"{original.msopst.case_name}.yaml")) if c.id == original.id)
    assert [(t.shape, t.storage_format) for t in converted.inputs + converted.outputs] == [
        (t.shape, t.storage_format) for t in original.inputs + original.outputs]
    assert converted.op_model("Ascend910B1") == original.op_model("Ascend910B1")
    (tmp_path / "v2.json").write_text(json.dumps([matmul_v2(UNDEFINED, RESERVED)]))
    capsys.readouterr()
    assert msopst_main(["convert", str(tmp_path / "v2.json"), "-o", str(tmp_path / "v2")]) == 1
    assert "omitted optional input(s) bias, offset_w left out of the inputs" in capsys.readouterr().err


def test_a_private_shape_without_a_plain_origin_is_read_as_written_with_no_padding(tmp_path):
    nz = dict(format="FRACTAL_NZ", type_="float16")
    matmul = case(op="MatMul", inputs=[tensor("x1", [1, 2, 16, 16], **nz), tensor("x2", [3, 1, 16, 16], **nz)],
                  outputs=[tensor("y", [3, 2, 16, 16], **nz)], attr=NO_TRANSPOSE)
    five_d = dict(format="NC1HWC0", type_="float16", shape=[1, 2, 4, 4, 16])
    add = case("U", inputs=[tensor("x1", **five_d), tensor("x2", **five_d)], outputs=[tensor("y", **five_d)])
    (mm, plus), _ = load(tmp_path, [matmul, add])
    assert [t.shape for t in mm.inputs + mm.outputs] == [(32, 16), (16, 48), (32, 48)]
    assert [t.stored(mm.format)[1] for t in mm.inputs + mm.outputs] == [(1, 2, 16, 16), (3, 1, 16, 16), (3, 2, 16, 16)]
    assert plus.format == FORMAT_VALUES["NCHW"] and plus.inputs[0].shape == (1, 32, 4, 4)
    assert plus.op_model("Ascend910B1").inputs[0].shape == (1, 2, 4, 4, 16)


def test_a_golden_changing_its_inputs_in_place_leaves_the_inputs_as_they_were(tmp_path):
    (tmp_path / "golden.py").write_text("def add(x1, x2, y):\n"
                                        "    x1['value'][...] = 0\n"
                                        "    return [x1['value'] + x2['value']]\n")
    (loaded,), _ = load(tmp_path, [case(calc_expect_func_file="golden.py:add")])
    from aclcts.reference import reference
    arrays = [np.ones((2, 3), np.float32), np.full((2, 3), 2.0, np.float32)]
    (expected,) = reference(loaded.reference).compute(arrays, {}, [np.dtype(np.float32)])
    assert np.array_equal(arrays[0], np.ones((2, 3), np.float32)) and np.array_equal(expected, arrays[1])

