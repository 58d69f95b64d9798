"""msopst case JSON read as aclcts cases: expansion and naming, data rules, golden functions, precision, bad input."""

from __future__ import annotations

import json
import re
import unittest
from pathlib import Path

import numpy as np
import pytest

from aclcts.cases import CaseFileError
from aclcts.cases import msopst
from aclcts.cases.values import draw_inputs
from aclcts.judge.policies import Ratio, policy_from_spec
from aclcts.reference import reference

DATA = Path(__file__).parent / "data"
ADD, RELU, REDUCE = DATA / "add_case.json", DATA / "relu_case.json", DATA / "reduce_case.json"
FUZZ = DATA / "fuzz_case.json"


def by_id(path: Path) -> dict:
    """The cases of an msopst file by msopst sub-case name (the id without the file's namespace)."""
    return {c.msopst.case_name: c for c in msopst.load_msopst_cases(str(path))}


def refusal(path: str) -> str:
    """The one line of the one refused case (or file) among an msopst file's cases."""
    reasons = [c.refusal.reason for c in msopst.load_msopst_cases(path) if c.refusal is not None]
    assert len(reasons) == 1, reasons
    return reasons[0]


def tensor(name: str, type_: str = "float32", shape: list | None = None, **more) -> dict:
    """One msopst tensor object."""
    return {"name": name, "format": "ND", "type": type_, "shape": shape or [2, 3], **more}


def add_case(name: str = "T", **more) -> dict:
    """An msopst Add case with two inputs and one output."""
    return {"case_name": name, "op": "Add", "input_desc": [tensor("x1"), tensor("x2")],
            "output_desc": [tensor("y")], **more}


def write(tmp_path: Path, cases: list, name: str = "case.json") -> str:
    """Write an msopst case file; its path."""
    path = tmp_path / name
    path.write_text(json.dumps(cases))
    return str(path)


# ------------------------------------------------------------------------------------------- expansion


def test_sub_cases_are_named_and_aligned_as_msopst_does():
    cases = by_id(ADD)
    assert list(cases) == ["Test_Add_001_sub_case_001_ND_float16", "Test_Add_001_sub_case_002_ND_float32",
                           "Test_Add_const_case_001_ND_float32", "Test_Add_bin_case_001_ND_float32",
                           "Test_Add_dynamic_case_001_ND_float32", "Test_Add_mismatched_shapes_case_001_ND_float32"]
    first = cases["Test_Add_001_sub_case_001_ND_float16"]
    assert [t.dtype_name for t in first.inputs + first.outputs] == ["float16"] * 3


def test_alternatives_of_one_tensor_are_crossed_in_msopst_key_order(tmp_path):
    case = add_case(input_desc=[tensor("x1", ["float16", "float32"], [[2, 3], [4]]),
                                tensor("x2", ["float16", "float32"], [[2, 3], [4]])],
                    output_desc=[tensor("y", ["float16", "float32"], [[2, 3], [4]])])
    cases = msopst.load_msopst_cases(write(tmp_path, [case]))
    # format x shape x type: shape varies slower than type
    assert [(c.inputs[0].shape, c.inputs[0].dtype_name) for c in cases] == [
        ((2, 3), "float16"), ((2, 3), "float32"), ((4,), "float16"), ((4,), "float32")]
    assert cases[3].id == "case.T_sub_case_004_ND_float32"


def test_formats_become_the_case_format_and_relu_runs_in_nd_and_nchw():
    formats = {name: c.format for name, c in by_id(RELU).items()}
    assert formats["Test_Relu_001_sub_case_001_ND_float32"] == 2
    assert formats["Test_Relu_001_sub_case_002_NCHW_float32"] == 0


def test_a_slash_in_a_case_name_becomes_an_underscore(tmp_path):
    assert msopst.load_msopst_cases(write(tmp_path, [add_case("a/b")]))[0].id == "case.a_b_case_001_ND_float32"


def test_expect_failed_applies_to_every_sub_case():
    cases = by_id(ADD)
    assert cases["Test_Add_mismatched_shapes_case_001_ND_float32"].expect == "failed"
    assert {c.expect for i, c in cases.items() if "mismatched" not in i} == {"success"}


def test_dynamic_shapes_run_at_typical_shape_inside_shape_range():
    case = by_id(ADD)["Test_Add_dynamic_case_001_ND_float32"]
    assert case.dynamic and case.inputs[0].shape == (-1, 16) and case.inputs[0].shape_range == ((1, 32),)
    assert case.runtime_shapes == (((4, 16), (4, 16)),)
    assert case.shape_rule == "broadcast"  # Add's rule, from its record


def test_a_minus_one_without_shape_range_gets_msopst_default_range(tmp_path):
    dyn = dict(shape=[-1, 3], typical_shape=[5, 3])
    case = add_case(input_desc=[tensor("x1", **dyn), tensor("x2", **dyn)], output_desc=[tensor("y", **dyn)])
    loaded = msopst.load_msopst_cases(write(tmp_path, [case]))[0]
    assert loaded.inputs[0].shape_range == ((1, -1),)


# ------------------------------------------------------------------------------------------------ fuzz


def test_fuzz_cases_are_drawn_repeatably_and_named_as_msopst_does():
    cases = by_id(FUZZ)
    assert [i for i in cases if "Relu" in i] == ["Test_Relu_fuzz_fuzz_case_001_ND_float32",
                                                  "Test_Relu_fuzz_fuzz_case_002_ND_float32"]
    again = by_id(FUZZ)
    for name, case in cases.items():
        assert case.inputs == again[name].inputs and case.values == again[name].values
    for case in cases.values():
        assert case.inputs[0].shape == case.outputs[0].shape  # the case's "fuzz" shapes share one draw
        (kind, (low, high)), = case.values[case.inputs[0].name].items()
        assert kind[len(msopst.DRAW_PREFIX):] in msopst.DISTRIBUTIONS and low <= high


def test_fuzz_impl_values_replace_the_placeholders_by_side_name_and_field():
    cases = [c for i, c in by_id(FUZZ).items() if i.startswith("Test_Add_fuzz_impl_fuzz_case_")]
    assert len(cases) == 2
    for case in cases:
        assert case.inputs[0].shape == case.inputs[1].shape == case.outputs[0].shape
        assert all(1 <= d <= 6 for d in case.inputs[0].shape)
        (low, high), = case.values["x1"].values()
        assert high - low == pytest.approx(5.0) and case.values["x2"] == {msopst.DRAW_PREFIX + "uniform": [-1.0, 1.0]}


def test_a_fuzz_impl_returning_a_list_gives_one_sub_case_per_dict(tmp_path):
    (tmp_path / "f.py").write_text("def f():\n    return [{'input_desc': {'x1': {'shape': [n]}}} for n in (2, 3)]\n")
    case = add_case(fuzz_case_num=2, fuzz_impl="f.py:f",
                    input_desc=[tensor("x1", shape="fuzz"), tensor("x2", shape=[1])], output_desc=[tensor("y")])
    shapes = [c.inputs[0].shape for c in msopst.load_msopst_cases(write(tmp_path, [case]))]
    assert shapes == [(2,), (3,), (2,), (3,)]


def test_fuzz_types_come_from_the_op_prototype_one_per_type_constraint(tmp_path):
    fuzz = dict(type="fuzz")
    case = add_case(fuzz_case_num=20, input_desc=[tensor("x1", **fuzz), tensor("x2", **fuzz)],
                    output_desc=[tensor("y", **fuzz)])
    cases = msopst.load_msopst_cases(write(tmp_path, [case]))
    allowed = set(msopst.prototype_of("Add").types["T"])
    assert len(cases) == 20 and len({c.inputs[0].dtype_name for c in cases}) > 1
    for c in cases:
        assert len({t.dtype_name for t in c.inputs + c.outputs}) == 1 and c.inputs[0].dtype_name in allowed
        assert c.id.endswith(f"_ND_{c.outputs[0].dtype_name}")


def test_fuzz_shapes_stay_inside_shape_range(tmp_path):
    case = add_case(fuzz_case_num=30, input_desc=[tensor("x1", shape="fuzz", shape_range=[[2, 3], [5, 5]]),
                                                  tensor("x2", shape="fuzz")], output_desc=[tensor("y", shape="fuzz")])
    shapes = {c.inputs[0].shape for c in msopst.load_msopst_cases(write(tmp_path, [case]))}
    assert shapes == {(2, 5), (3, 5)}  # hypothesis ran out of distinct shapes: they repeat


# --------------------------------------------------------------------------------------------- data rules


def test_a_bin_value_relative_to_the_case_file_is_the_input():
    case = by_id(ADD)["Test_Add_bin_case_001_ND_float32"]
    x1, x2 = draw_inputs(case, 7)
    np.testing.assert_array_equal(x1, np.fromfile(DATA / "add_x1_3x4_float32.bin", np.float32).reshape(3, 4))
    assert x2.min() >= 0.0 and x2.max() <= 1.0


def test_a_const_input_keeps_its_value():
    case = by_id(ADD)["Test_Add_const_case_001_ND_float32"]
    assert case.inputs[1].const == (1.0, 2.0, 3.0, 4.0)
    np.testing.assert_array_equal(draw_inputs(case, 1)[1], np.array([1, 2, 3, 4], np.float32))


def test_const_value_is_the_constant_data_as_msopst_writes_it(tmp_path):
    const = tensor("x2", shape=[2, 2], is_const=True, const_value=[[1.5, 2.5], [3.5, 4.5]])
    case = msopst.load_msopst_cases(write(tmp_path, [add_case(input_desc=[tensor("x1", shape=[2, 2]), const],
                                                              output_desc=[tensor("y", shape=[2, 2])])]))[0]
    assert case.inputs[1].const == (1.5, 2.5, 3.5, 4.5)
    assert case.msopst.op_params["input_desc"][1]["const_value"] == [[1.5, 2.5], [3.5, 4.5]]


def test_a_const_input_without_value_is_drawn_once_by_its_distribution(tmp_path):
    case = add_case(input_desc=[tensor("x1"), tensor("x2", is_const=True, value_range=[2.0, 3.0])])
    first = msopst.load_msopst_cases(write(tmp_path, [case]))[0].inputs[1].const
    again = msopst.load_msopst_cases(write(tmp_path, [case]))[0].inputs[1].const
    assert first == again and len(first) == 6 and all(2.0 <= v <= 3.0 for v in first)


@pytest.mark.parametrize("dist, low, high, check", [
    ("uniform", -3.0, 3.0, lambda a: a.min() >= -3 and a.max() <= 3),
    ("relu", -3.0, 3.0, lambda a: a.min() >= 0 and a.max() <= 3),
    ("sigmoid", -3.0, 3.0, lambda a: a.min() > 0 and a.max() < 1),
    ("tanh", -3.0, 3.0, lambda a: a.min() > -1 and a.max() < 1),
    ("softmax", -3.0, 3.0, lambda a: abs(float(a.sum()) - 1) < 1e-3),
    ("triangular", 1.0, 2.0, lambda a: a.min() >= 1 and a.max() <= 2),
    ("beta", 2.0, 5.0, lambda a: a.min() >= 0 and a.max() <= 1),
    ("normal", 100.0, 1.0, lambda a: 90 < a.mean() < 110),
    ("laplace", -50.0, 1.0, lambda a: -60 < a.mean() < -40),
])
def test_msopst_distributions_follow_its_formulas(dist, low, high, check):
    array = msopst.msopst_draw(msopst.DRAW_PREFIX + dist, [low, high], (64, 8), np.dtype(np.float32),
                               np.random.default_rng(3))
    assert array.dtype == np.float32 and array.shape == (64, 8) and check(array)


def test_integer_inputs_truncate_the_float_draw_as_msopst_does():
    rng = np.random.default_rng(0)
    zeros = msopst.msopst_draw(msopst.DRAW_PREFIX + "uniform", [0.1, 1.0], (100,), np.dtype(np.int32), rng)
    assert not zeros.any()  # msopst's default range gives an all-zero int tensor
    bools = msopst.msopst_draw(msopst.DRAW_PREFIX + "uniform", [0.1, 1.0], (100,), np.dtype(np.bool_), rng)
    assert bools.any() and not bools.all()


def test_the_input_seed_makes_draws_repeatable_and_distinct():
    case = by_id(ADD)["Test_Add_001_sub_case_002_ND_float32"]
    np.testing.assert_array_equal(draw_inputs(case, 5)[0], draw_inputs(case, 5)[0])
    assert not np.array_equal(draw_inputs(case, 5)[0], draw_inputs(case, 6)[0])


# ----------------------------------------------------------------------------------- references, precision


def test_reference_is_the_golden_function_else_the_builtin_else_none(tmp_path):
    cases = by_id(ADD)
    assert cases["Test_Add_001_sub_case_001_ND_float16"].reference.startswith("aclcts.cases.msopst:")
    assert cases["Test_Add_bin_case_001_ND_float32"].reference == "Add"
    custom = add_case(op="MyCustomOp")
    loaded = msopst.load_msopst_cases(write(tmp_path, [custom]))[0]
    assert loaded.msopst.reference_kind == "none"
    with pytest.raises(unittest.SkipTest, match="no numeric reference"):
        reference(loaded.reference).compute([np.zeros((2, 3))] * 2, {}, [np.dtype(np.float32)])


def test_the_golden_function_is_called_with_msopst_keywords():
    case = by_id(ADD)["Test_Add_const_case_001_ND_float32"]
    x1 = np.arange(8, dtype=np.float32).reshape(2, 4)
    x2 = np.array([1, 2, 3, 4], dtype=np.float32)
    (y,) = reference(case.reference).compute([x1, x2], case.attr_values(), [np.dtype(np.float32)])
    np.testing.assert_array_equal(y, x1 + x2)


def test_unnamed_tensors_reach_the_golden_function_as_input_i_and_output_i(tmp_path):
    (tmp_path / "g.py").write_text("def f(input0, input1, output0):\n"
                                   "    assert output0['shape'] == [2, 3]\n"
                                   "    return input0['value'] - input1['value']\n")
    unnamed = {"format": "ND", "type": "float32", "shape": [2, 3]}
    case_json = {"case_name": "T", "op": "Sub", "input_desc": [unnamed, unnamed], "output_desc": [unnamed],
                 "calc_expect_func_file": "g.py:f"}
    case = msopst.load_msopst_cases(write(tmp_path, [case_json]))[0]
    assert [t.name for t in case.inputs + case.outputs] == ["input0", "input1", "output0"]
    x1, x2 = np.full((2, 3), 5, np.float32), np.ones((2, 3), np.float32)
    (y,) = reference(case.reference).compute([x1, x2], {}, [np.dtype(np.float32)])
    np.testing.assert_array_equal(y, x1 - x2)


def test_attrs_reach_the_golden_function_by_name():
    case = by_id(REDUCE)["Test_ReduceSumD_001_sub_case_003_ND_float32"]
    assert case.attr_values() == {"axes": [1], "keep_dims": True}
    x = np.arange(105, dtype=np.float32).reshape(5, 7, 3)
    (y,) = reference(case.reference).compute([x], case.attr_values(), [np.dtype(np.float32)])
    np.testing.assert_array_equal(y, x.sum(axis=1, keepdims=True))


def test_a_golden_function_that_raises_fails_its_case_in_one_line(tmp_path):
    golden = tmp_path / "g.py"
    golden.write_text("def f(x1, x2, y):\n    raise ValueError('boom')\n")
    case = msopst.load_msopst_cases(write(tmp_path, [add_case(calc_expect_func_file="g.py:f")]))[0]
    with pytest.raises(msopst.GoldenError) as info:
        reference(case.reference).compute([np.zeros((2, 3))] * 2, {}, [np.dtype(np.float32)])
    message = str(info.value)
    assert "\n" not in message and "case.json" in message and "T_case_001_ND_float32" in message and "boom" in message


def test_error_threshold_becomes_the_ratio_policy_and_msopst_default_otherwise():
    cases = by_id(ADD)
    assert policy_from_spec(cases["Test_Add_const_case_001_ND_float32"].precision) == Ratio(0.001, 0.0)
    assert policy_from_spec(cases["Test_Add_bin_case_001_ND_float32"].precision) == Ratio(0.01, 0.05)


def test_st_report_parameters_name_the_golden_file_and_function():
    case = by_id(ADD)["Test_Add_001_sub_case_001_ND_float16"]
    params = case.msopst.op_params
    assert Path(params["calc_expect_func_file"]) == (DATA / "add_golden.py").resolve()
    assert params["calc_expect_func_file_func"] == "calc_expect_func"
    assert params["input_desc"][0]["data_distribute"] == "uniform" and params["input_desc"][0]["type"] == "float16"


def test_st_report_reads_the_msopst_facts_from_the_case_it_is_given():
    """The facts travel on the Case, not in a table of this process's loads by case id: a case with the same id
    loaded as a YAML case has none, and an msopst case keeps its own under another id."""
    from dataclasses import replace

    from aclcts.pytest_plugin.st_report import op_params

    case = by_id(ADD)["Test_Add_001_sub_case_001_ND_float16"]
    renamed = replace(case, id="renamed")
    assert op_params(renamed) is case.msopst.op_params and renamed.msopst.reference_kind == "golden"
    plain = replace(case, msopst=None)
    assert "calc_expect_func_file" not in op_params(plain) and op_params(plain)["case_name"] == case.id


# ------------------------------------------------------------------------------------------- bad input


BAD = {
    "unknown-distribution": ([add_case(input_desc=[tensor("x1", data_distribute="gauss"), tensor("x2")])],
                             "input_desc[0].data_distribute"),
    "range-min-above-max": ([add_case(input_desc=[tensor("x1", value_range=[2.0, 1.0]), tensor("x2")])],
                            "input_desc[0].value_range"),
    "mismatched-list-lengths": ([add_case(input_desc=[tensor("x1", ["float16", "float32"]), tensor("x2")])],
                                "input_desc[1].type"),
    "duplicate-case-name": ([add_case("T"), add_case("T")], "case_name"),
    "golden-file-missing": ([add_case(calc_expect_func_file="nowhere.py:f")], "calc_expect_func_file"),
    "golden-function-missing": ([add_case(calc_expect_func_file="g.py:absent")], "calc_expect_func_file"),
    "golden-import-raises": ([add_case(calc_expect_func_file="broken.py:f")], "calc_expect_func_file"),
    "golden-wrong-signature": ([add_case(calc_expect_func_file="g.py:one_arg")], "calc_expect_func_file"),
    "missing-op": ([{"case_name": "T", "input_desc": [], "output_desc": [tensor("y")]}], "op"),
    "missing-shape": ([add_case(output_desc=[{"name": "y", "format": "ND", "type": "float32"}])],
                      "output_desc[0].shape"),
    "fuzz-without-case-num": ([add_case(input_desc=[tensor("x1", shape="fuzz"), tensor("x2")])], "fuzz_case_num"),
    "const-value-without-is-const": ([add_case(input_desc=[tensor("x1", const_value=[1] * 6), tensor("x2")])],
                                     "input_desc[0].const_value"),
    "const-value-not-numbers": ([add_case(input_desc=[tensor("x1", is_const=True, const_value="c.bin"),
                                                      tensor("x2")])], "input_desc[0].const_value"),
    "const-value-differs-from-value": ([add_case(input_desc=[tensor("x1", is_const=True, value=[1] * 6,
                                                                    const_value=[2] * 6), tensor("x2")])],
                                       "input_desc[0].const_value"),
    "const-value-of-wrong-size": ([add_case(input_desc=[tensor("x1", is_const=True, const_value=[1] * 4),
                                                        tensor("x2")])], "input_desc[0].const_value"),
    "fuzz-case-num-too-large": ([add_case(fuzz_case_num=2001, input_desc=[tensor("x1", shape="fuzz"),
                                                                          tensor("x2")])], "fuzz_case_num"),
    "fuzz-case-num-without-fuzz": ([add_case(fuzz_case_num=3)], "fuzz_case_num"),
    "fuzz-attr-without-fuzz-impl": ([add_case(fuzz_case_num=1, attr=[{"name": "a", "type": "int", "value": "fuzz"}])],
                                    "attr[0].value"),
    "fuzz-value-without-fuzz-impl": ([add_case(fuzz_case_num=1, input_desc=[tensor("x1", value="fuzz"),
                                                                            tensor("x2")])], "input_desc[0].value"),
    "fuzz-type-without-prototype": ([add_case(op="MyCustomOp", fuzz_case_num=1,
                                              input_desc=[tensor("x1", "fuzz"), tensor("x2")])], "input_desc[0].type"),
    "fuzz-impl-missing": ([add_case(fuzz_case_num=1, fuzz_impl="nowhere.py:f",
                                    input_desc=[tensor("x1", shape="fuzz"), tensor("x2")])], "fuzz_impl"),
    "fuzz-impl-raises": ([add_case(fuzz_case_num=1, fuzz_impl="g.py:one_arg",
                                   input_desc=[tensor("x1", shape="fuzz"), tensor("x2")])], "fuzz_impl"),
    "fuzz-impl-lacks-the-field": ([add_case(fuzz_case_num=1, fuzz_impl="fz.py:empty",
                                            input_desc=[tensor("x1", shape="fuzz"), tensor("x2")])],
                                  "input_desc[0].shape"),
    "fuzz-impl-returns-no-dict": ([add_case(fuzz_case_num=1, fuzz_impl="fz.py:number",
                                            input_desc=[tensor("x1", shape="fuzz"), tensor("x2")])], "fuzz_impl"),
    "fuzz-impl-unnamed-tensor": ([add_case(fuzz_case_num=1, fuzz_impl="fz.py:empty",
                                           input_desc=[{"format": "ND", "type": "float32", "shape": "fuzz"},
                                                       tensor("x2")])], "input_desc[0].name"),
    "fuzz-impl-value-breaks-a-rule": ([add_case(fuzz_case_num=1, fuzz_impl="fz.py:bad_range",
                                                input_desc=[tensor("x1", value_range="fuzz"), tensor("x2")])],
                                      "input_desc[0].value_range"),
    "bad-expect": ([add_case(expect="maybe")], "expect"),
    "threshold-out-of-range": ([add_case(error_threshold=[0.5, 2.0])], "error_threshold"),
    "dynamic-without-typical-shape": ([add_case(input_desc=[tensor("x1", shape=[-1, 3]), tensor("x2")])],
                                      "input_desc[0].typical_shape"),
    "typical-outside-range": ([add_case(input_desc=[tensor("x1", shape=[-1, 3], typical_shape=[9, 3],
                                                           shape_range=[[1, 4]]), tensor("x2")])],
                              "input_desc[0].typical_shape"),
    "bin-of-wrong-size": ([add_case(input_desc=[tensor("x1", value="four.bin"), tensor("x2")])],
                          "input_desc[0].value"),
    "unknown-type": ([add_case(input_desc=[tensor("x1", "fp16"), tensor("x2")])], "input_desc[0].type"),
    "value-range-nan": ([add_case(input_desc=[tensor("x1", value_range=[float("nan"), 1.0]), tensor("x2")])],
                        "input_desc[0].value_range"),
    "value-range-infinite": ([add_case(input_desc=[tensor("x1", value_range=[0.0, float("inf")]), tensor("x2")])],
                             "input_desc[0].value_range"),
    "bin-absolute-path": ([add_case(input_desc=[tensor("x1", value="/nonexistent/four.bin"), tensor("x2")])],
                          "input_desc[0].value"),
    "bin-up-and-out": ([add_case(input_desc=[tensor("x1", value="../four.bin"), tensor("x2")])],
                       "input_desc[0].value"),
}


@pytest.mark.parametrize("cases, field", BAD.values(), ids=BAD.keys())
def test_a_file_breaking_msopst_rules_is_one_line_naming_file_case_and_field(tmp_path, cases, field):
    (tmp_path / "g.py").write_text("def f(x1, x2, y):\n    return [x1['value']]\n\n\ndef one_arg(x1):\n    return x1\n")
    (tmp_path / "broken.py").write_text("raise ImportError('no such thing')\n")
    (tmp_path / "fz.py").write_text("def empty():\n    return {}\n\n\ndef number():\n    return 3\n\n\n"
                                    "def bad_range():\n    return {'input_desc': {'x1': {'value_range': [2, 1]}}}\n")
    np.zeros(4, np.float32).tofile(tmp_path / "four.bin")
    path = write(tmp_path, cases)
    message = refusal(path)
    assert "\n" not in message
    assert message.startswith(f"{path}: case T: {field}: expected "), message


@pytest.mark.parametrize("value", ["../outside.bin", "link.bin", "{outside}"])
def test_a_bin_value_outside_the_case_folder_is_refused_even_if_it_exists(tmp_path, value):
    outside = tmp_path / "outside.bin"
    np.zeros(6, np.float32).tofile(outside)
    folder = tmp_path / "cases"
    folder.mkdir()
    (folder / "link.bin").symlink_to(outside)
    path = write(folder, [add_case(input_desc=[tensor("x1", value=value.format(outside=outside)), tensor("x2")])])
    assert re.search(r": case T: input_desc\[0\]\.value: expected a \.bin file inside the case file's folder",
                     refusal(path))


def test_more_than_1000_top_level_cases_is_refused_before_expansion(tmp_path):
    path = write(tmp_path, [add_case(f"T{i}") for i in range(msopst.MAX_CASES + 1)])
    assert refusal(path) == f"{path}: (top level): expected at most 1000 cases (msopst's limit), got 1001"
    assert len(msopst.load_msopst_cases(write(tmp_path, [add_case(f"T{i}") for i in range(3)], "ok.json"))) == 3


def test_a_case_name_used_in_two_files_is_in_each_file_s_namespace(tmp_path):
    from aclcts.cases.load import load_cases

    (tmp_path / "other").mkdir()
    paths = [write(tmp_path, [add_case("T")], "a.json"), write(tmp_path, [add_case("T")], "b.json"),
             write(tmp_path / "other", [add_case("T")], "a.json")]
    cases = load_cases(paths, kind="all")
    assert [c.id for c in cases] == ["a.T_case_001_ND_float32", "b.T_case_001_ND_float32",
                                     "other.a.T_case_001_ND_float32"]
    assert {c.msopst.case_name for c in cases} == {"T_case_001_ND_float32"}


def test_duplicate_json_keys_and_non_json_are_one_line(tmp_path):
    (tmp_path / "dup.json").write_text('[{"case_name": "T", "case_name": "U"}]')
    assert "duplicate key 'case_name'" in refusal(str(tmp_path / "dup.json"))
    (tmp_path / "bad.json").write_text("[{")
    assert "not valid JSON" in refusal(str(tmp_path / "bad.json"))


def test_a_compile_flag_element_is_allowed():
    assert len(by_id(ADD)) == 6  # add_case.json starts with {"compile_flag": 0}


def test_a_folder_walk_takes_msopst_json_and_leaves_single_op_json_alone(tmp_path):
    from aclcts.cases.load import case_files

    msopst = tmp_path / "add_cases.json"
    msopst.write_text('[{"case_name": "Test_Add_001", "op": "Add"}]\n')
    single_op = tmp_path / "op_list.json"
    single_op.write_text('[{"op": "Add", "input_desc": [], "output_desc": []}]\n')
    assert case_files([str(tmp_path)]) == [str(msopst)]


def test_a_case_file_expect_key_is_checked(tmp_path):
    from aclcts.cases.load import expand_file
    from aclcts.tools.msopst import convert

    convert(str(ADD), tmp_path)
    path = tmp_path / "Test_Add_mismatched_shapes_case_001_ND_float32.yaml"
    assert "\nexpect: failed\n" in path.read_text()
    expand_file(str(path))
    path.write_text(path.read_text().replace("expect: failed", "expect: maybe"))
    with pytest.raises(CaseFileError, match=r"expect: expected one of success, failed, got 'maybe'"):
        expand_file(str(path))
