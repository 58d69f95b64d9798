"""Value profiles (aclcts.cases.profiles): which profile cases a case file expands to, the file's `profiles:` key and
its errors, the `values` range check, and what each profile draws."""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from aclcts.cases import CaseFileError, expand_file, load_cases
from aclcts.cases.profiles import large_bound
from aclcts.cases.values import draw_inputs
from aclcts.reference import reference

LIBRARY = Path(__file__).resolve().parents[2] / "cases"

#: An Add case file, one line per entry so that tests can name the line a field is on.
ADD = [
    "op: Add",                                         # 1
    "policy: elementwise",                             # 2
    "source: s",                                       # 3
    "inputs: [x1, x2]",                                # 4
    "outputs: [y]",                                    # 5
    "dtypes: [float32, int32]",                        # 6
    "shapes:",                                         # 7
    "  - [[0, 3], [0, 3]]",                            # 8
    "  - [[2, 3], [2, 3]]",                            # 9
    "  - [[4], [4]]",                                  # 10
]


def write(tmp_path: Path, lines: list[str]) -> str:
    path = tmp_path / "case.yaml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return str(path)


def error_of(source: str) -> str:
    with pytest.raises(CaseFileError) as info:
        expand_file(source)
    return str(info.value)


def profile_ids(source: str) -> list[str]:
    return [c.id for c in expand_file(source) if c.profile]


# ---------------------------------------------------------------------------------------- expansion

def test_the_family_defaults_run_on_the_first_non_empty_shape_of_each_dtype(tmp_path):
    cases = expand_file(write(tmp_path, ADD))
    assert [c.id for c in cases if c.profile] == [
        "Add-float32-2x3_2x3-subnormal", "Add-float32-2x3_2x3-tiny", "Add-float32-2x3_2x3-large",
        "Add-int32-2x3_2x3-int_extremes",
    ]
    assert len([c for c in cases if not c.profile]) == 6
    profiled, base = (next(c for c in cases if c.id == i) for i in ("Add-float32-2x3_2x3-large", "Add-float32-2x3_2x3"))
    assert profiled.op_model("Ascend910B1") == base.op_model("Ascend910B1")
    assert base.modes == ("execute_v2", "handle") and profiled.modes == ("execute_v2",)


def test_complex_inputs_get_no_profile_case(tmp_path):
    lines = [line.replace("Add", "Sqrt").replace("[x1, x2]", "[x]") for line in ADD[:5]]
    lines += ["dtypes: [complex64]", "shapes:", "  - [[2, 3]]"]
    assert profile_ids(write(tmp_path, lines)) == []


def test_a_handle_only_case_runs_its_profiles_with_handles(tmp_path):
    source = write(tmp_path, ADD + ["modes: [handle]"])
    assert {c.modes for c in expand_file(source) if c.profile} == {("handle",)}


def test_each_attr_set_gets_its_own_profile_cases(tmp_path):
    lines = ["op: ReduceSum", "policy: reduction", "source: s", "inputs: [x, axes]", "outputs: [y]",
             "dtypes: [{\"*\": int32}]", "shapes: [[[2, 3]], [[5, 7]]]", "const: {axes: [1]}",
             "attrs: [{}, {keep_dims: {type: bool, value: true}}]"]
    assert profile_ids(write(tmp_path, lines)) == ["ReduceSum-int32-2x3-attrs0-wide_sums",
                                                   "ReduceSum-int32-2x3-attrs1-wide_sums"]


def test_a_list_of_profiles_replaces_the_defaults_for_every_dtype(tmp_path):
    source = write(tmp_path, ADD[:5] + ["dtypes: [float32, float16]"] + ADD[6:] + ["profiles: [unit, large]"])
    assert profile_ids(source) == ["Add-float32-2x3_2x3-large", "Add-float16-2x3_2x3-large"]


def test_an_empty_list_runs_no_profile(tmp_path):
    assert profile_ids(write(tmp_path, ADD + ["profiles: []"])) == []


def test_a_mapping_overrides_the_named_dtypes_only(tmp_path):
    source = write(tmp_path, ADD + ["profiles:", "  float32: [subnormal]"])
    assert profile_ids(source) == ["Add-float32-2x3_2x3-subnormal", "Add-int32-2x3_2x3-int_extremes"]


def test_the_shipped_library_runs_the_three_fault_classes():
    ids = {c.id for path in ("matmul/mat_mul.yaml", "softmax/softmax_v2.yaml", "elementwise/log.yaml")
           for c in expand_file(str(LIBRARY / path))}
    assert {"MatMul-int32-4x7_7x4-attrs0-wide_sums", "SoftmaxV2-float32-2x3x16-attrs0-large",
            "Log-float32-8x16-attrs0-subnormal"} <= ids


# ---------------------------------------------------------------------------------------- bad input

@pytest.mark.parametrize("text, line, field, words", [
    ("profiles: [unit, huge]", 11, "profiles[1]", "one of unit, subnormal"),
    ("profiles: [int_extremes]", 11, "profiles[0]", "exists for float32 inputs"),
    ("profiles: [wide_sums]", 11, "profiles[0]", "of a elementwise op"),
    ("profiles: {float32: [int_extremes]}", 11, "profiles.float32[0]", "exists for float32"),
    ("profiles: {bfloat16: [large]}", 11, "profiles.bfloat16", "float32, int32"),
    ("profiles: large", 11, "profiles", "a list of value profile names"),
])
def test_a_profile_the_dtype_lacks_is_one_line_naming_file_line_and_field(tmp_path, text, line, field, words):
    source = write(tmp_path, ADD + [text])
    message = error_of(source)
    assert "\n" not in message and message.startswith(f"{source}:{line}: {field}: "), message
    assert words in message


def test_a_values_range_whose_reference_overflows_names_its_line(tmp_path):
    lines = ["op: Exp", "policy: elementwise", "source: s", "inputs: [x]", "outputs: [y]", "dtypes: [float16]",
             "shapes: [[[4]]]", "values:", "  x: {uniform: [-5, 12]}"]
    source = write(tmp_path, lines)
    message = error_of(source)
    assert message.startswith(f"{source}:9: values.x: expected a range whose reference outputs stay finite"), message
    assert "x=12" in message and "\n" not in message


def test_a_range_inside_the_boundary_and_a_cast_overflow_are_accepted(tmp_path):
    exp = ["op: Exp", "policy: elementwise", "source: s", "inputs: [x]", "outputs: [y]", "dtypes: [float16]",
           "shapes: [[[4]]]", "values:", "  x: {uniform: [-5, 11]}"]
    assert len(expand_file(write(tmp_path, exp))) == 4
    assert expand_file(str(LIBRARY / "cast" / "cast_int_to_float16.yaml"))


# ---------------------------------------------------------------------------------------- drawing

def by_id(path: str) -> dict:
    return {c.id: c for c in expand_file(str(LIBRARY / path))}


def test_profile_inputs_come_from_the_seed_alone():
    case = by_id("elementwise/log.yaml")["Log-float32-8x16-attrs0-subnormal"]
    first, again = draw_inputs(case, case.seed(7)), draw_inputs(case, case.seed(7))
    assert np.array_equal(first[0], again[0]) and not np.array_equal(first[0], draw_inputs(case, case.seed(8))[0])


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_subnormal_inputs_are_mostly_subnormals_of_the_dtype(dtype):
    case = by_id("elementwise/log.yaml")[f"Log-{dtype}-8x16-attrs0-subnormal"]
    x = draw_inputs(case, 1)[0].astype(np.float64)
    info = ml_dtypes.finfo(case.inputs[0].np_dtype)
    share = np.mean((x != 0) & (np.abs(x) < float(info.smallest_normal)))
    assert 0.45 < share < 0.75


def test_int_extremes_reach_both_ends_of_the_type():
    case = by_id("elementwise/add.yaml")["Add-int8-8x16_8x16-int_extremes"]
    x1, x2 = draw_inputs(case, 3)
    values = set(np.concatenate([x1.ravel(), x2.ravel()]).tolist())
    assert {-128, 127, 0} <= values


@pytest.mark.parametrize("attrs", ["attrs0", "attrs1"])
def test_int32_wide_sums_exceed_2_24_without_wrapping(attrs):
    case = by_id("matmul/mat_mul.yaml")[f"MatMul-int32-4x7_7x4-{attrs}-wide_sums"]
    a, b = (x.astype(np.int64) for x in draw_inputs(case, 5))
    exact = a @ b
    assert np.abs(exact).max() < 2 ** 31 and np.mean(np.abs(exact) > 2 ** 24) > 0.5


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32"])
def test_float_wide_sums_are_exact_in_float32_and_wider_than_the_input(dtype):
    case = by_id("matmul/mat_mul.yaml")[f"MatMul-{dtype}-4x7_7x4-attrs0-wide_sums"]
    a, b = draw_inputs(case, 11)
    exact = a.astype(np.float64) @ b.astype(np.float64)
    assert np.array_equal(np.matmul(a.astype(np.float32), b.astype(np.float32)), exact)
    assert np.abs(exact).max() > {"float16": 2 ** 11, "bfloat16": 2 ** 8, "float32": 2 ** 11}[dtype]
    assert np.all(np.isfinite(exact.astype(case.outputs[0].np_dtype)))


def test_large_exp_arguments_sit_just_below_ln_max():
    case = by_id("elementwise/exp.yaml")["Exp-float16-8x16-attrs0-large"]
    bound = large_bound(case)
    assert math.log(65504) * 0.99 < bound < math.log(65504)
    x = draw_inputs(case, 2)[0]
    y = reference("Exp").compute([x], {}, [np.dtype(np.float16)])[0]
    assert np.isfinite(y).all() and np.abs(x.astype(np.float64)).min() >= bound / 2 * 0.999


def test_large_softmax_logits_overflow_a_softmax_without_max_subtraction():
    case = by_id("softmax/softmax_v2.yaml")["SoftmaxV2-float32-2x3x16-attrs0-large"]
    x = draw_inputs(case, 4)[0]
    assert np.isfinite(reference("SoftmaxV2").compute([x], {}, [np.dtype(np.float32)])[0]).all()
    with np.errstate(over="ignore"):
        assert np.isinf(np.exp(x)).any()


def test_choice_inputs_keep_their_values_in_every_profile():
    case = by_id("matmul/gemm.yaml")["GEMM-float16-16x16_16x16_16x16_s_s-large"]
    _, _, _, alpha, beta = draw_inputs(case, 9)
    assert float(alpha) == 2.0 and float(beta) == 1.0


def test_an_input_whose_dtype_has_no_such_class_keeps_its_own_distribution():
    library = Path(__file__).resolve().parents[2] / "cases" / "gather_scatter"
    case = next(c for c in load_cases([str(library)], kind="all") if c.op == "MaskedFill" and not c.profile)
    profiled = replace(case, id=case.id + "-subnormal", profile="subnormal", values={"x": {"uniform": [-1, 1]}})
    x, mask, _ = draw_inputs(profiled, 7)
    assert mask.dtype == np.bool_ and x.dtype == np.float32
    assert (np.abs(x[x != 0]) < 1e-30).any()  # x is drawn from the subnormal class


def test_a_record_naming_no_profiles_gets_no_profile_cases():
    from aclcts.cases.defaults import default_cases
    ids = [case.id for case in default_cases("ApplyAdamD")]
    assert ids and not any(i.endswith(("-subnormal", "-large", "-tiny")) for i in ids)
    assert any(i.endswith("-subnormal") for i in (case.id for case in default_cases("Relu")))


def test_a_float64_large_bound_is_finite_when_the_bisection_nears_the_maximum():
    from aclcts.cases.defaults import default_cases
    case = next(c for c in default_cases("Addcdiv") if c.profile == "large" and c.inputs[0].dtype_name == "double")
    bound = large_bound(case)
    assert math.isfinite(bound) and bound > 1e300
    assert np.isfinite(draw_inputs(case, 3)[0]).all()


def test_a_large_case_fills_a_mask_input_without_a_choice_from_its_range():
    from aclcts.cases.defaults import default_cases
    case = next(c for c in default_cases("MaskedScale") if c.profile == "large")
    assert 1e4 < large_bound(case) < 3.5e38


def test_an_infinite_imaginary_part_counts_as_an_infinite_output_without_a_warning():
    import warnings

    from aclcts.cases.profiles import _has_inf
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert _has_inf(np.array([1 + 1j, complex(0, np.inf)], np.complex64))
        assert not _has_inf(np.array([1 + 1j], np.complex128)) and _has_inf(np.array([np.inf], np.float16))
