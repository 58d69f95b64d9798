"""The case-file loader against docs/case-files.md: expansion into ids, schema errors naming file:line:field."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

from aclcts.atc import generate_singleop_json
from aclcts.atc.parser import parse_singleop
from aclcts.cases import Case, CaseFileError, case_files, expand_file, load_cases
from aclcts.cases.msopst import DISTRIBUTIONS, msopst_draw
from aclcts.cases.schema import MSOPST_DISTRIBUTIONS
from aclcts.cases.values import draw_inputs
from aclcts.core.prototypes import prototype

LIBRARY = Path(__file__).resolve().parents[2] / "cases"

#: A valid minimal case file, one line per entry so that tests can name the line a field is on.
MINIMAL = [
    "op: Add",                                     # 1
    "policy: elementwise",                         # 2
    "source: \"REG_OP(Add): inputs x1, x2; output y\"",  # 3
    "inputs: [x1, x2]",                            # 4
    "outputs: [y]",                                # 5
    "dtypes: [float16, float32]",                  # 6
    "shapes:",                                     # 7
    "  - [[2, 1, 3], [4, 3]]",                     # 8
    "  - [[], [5]]",                               # 9
]


def write(tmp_path: Path, lines: list[str], name: str = "case.yaml") -> str:
    """Write a case file made of lines; return its path."""
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return str(path)


def replaced(line_number: int, text: str) -> list[str]:
    """MINIMAL with one (1-based) line replaced."""
    lines = list(MINIMAL)
    lines[line_number - 1] = text
    return lines


def error_of(source: str) -> str:
    """The message of the CaseFileError that loading source raises."""
    with pytest.raises(CaseFileError) as info:
        expand_file(source)
    return str(info.value)


def assert_names(message: str, source: str, line: int, field: str) -> None:
    """The message is one line, starts with file:line: and names the field."""
    assert "\n" not in message, message
    assert message.startswith(f"{source}:{line}: "), message
    assert re.search(rf"(^|[\s:]){re.escape(field)}(:|\s|$)", message[len(f"{source}:{line}: "):]), message


# ---------------------------------------------------------------------------------------- expansion


def test_minimal_file_expands_to_one_case_per_dtype_and_shape_set(tmp_path):
    cases = expand_file(write(tmp_path, MINIMAL))
    assert [c.id for c in cases if not c.profile] == [
        "Add-float16-2x1x3_4x3",
        "Add-float16-s_5",
        "Add-float32-2x1x3_4x3",
        "Add-float32-s_5",
    ]


def test_expanded_case_carries_op_inputs_outputs_and_shapes(tmp_path):
    first = expand_file(write(tmp_path, MINIMAL))[0]
    assert first.op == "Add" and first.family == "elementwise"
    assert [(t.name, t.shape, t.dtype_name) for t in first.inputs] == [
        ("x1", (2, 1, 3), "float16"), ("x2", (4, 3), "float16")]
    assert [(t.name, t.shape, t.dtype_name) for t in first.outputs] == [("y", (2, 4, 3), "float16")]
    assert first.modes == ("execute_v2", "handle")


def test_several_attribute_sets_add_an_attrs_index_to_the_id(tmp_path):
    lines = [
        "op: ReduceSum", "policy: reduction", "source: s", "inputs: [x, axes]", "outputs: [y]",
        "dtypes: [{\"*\": float32, axes: int32}]", "shapes: [[[2, 3]]]", "const: {axes: [1]}",
        "attrs:", "  - {}", "  - {keep_dims: {type: bool, value: true}}",
    ]
    cases = [c for c in expand_file(write(tmp_path, lines)) if not c.profile]  # value profiles: test_value_profiles
    assert [c.id.rsplit("-", 1)[1] for c in cases] == ["attrs0", "attrs1"]
    assert [c.outputs[0].shape for c in cases] == [(2,), (2, 1)]
    assert cases[1].attr_values() == {"keep_dims": True}


def test_const_inputs_get_their_values_and_leave_the_shape_list(tmp_path):
    lines = [
        "op: Transpose", "policy: movement", "source: s", "inputs: [x, perm]", "outputs: [y]",
        "dtypes: [{\"*\": float16, perm: int32}]", "shapes: [[[2, 3, 4]]]", "const: {perm: [2, 0, 1]}",
    ]
    (case,) = expand_file(write(tmp_path, lines))
    perm = case.inputs[1]
    assert perm.const == (2, 0, 1) and perm.shape == (3,) and perm.dtype_name == "int32"
    assert case.outputs[0].shape == (4, 2, 3)


def test_per_tensor_dtypes_with_a_star_for_the_rest(tmp_path):
    lines = replaced(6, "dtypes: [{\"*\": float16, y: bool}]")
    lines[0] = "op: Equal"
    case = expand_file(write(tmp_path, lines))[0]
    assert [t.dtype_name for t in case.inputs + case.outputs] == ["float16", "float16", "bool"]


# ---------------------------------------------------------------------------------------- schema errors


def test_unknown_key_names_its_line(tmp_path):
    source = write(tmp_path, MINIMAL + ["colour: red"])
    assert_names(error_of(source), source, 10, "colour")


def test_missing_required_key(tmp_path):
    source = write(tmp_path, [line for line in MINIMAL if not line.startswith("dtypes")])
    message = error_of(source)
    assert message.startswith(f"{source}:1: "), message
    assert "'dtypes'" in message


def test_the_record_gives_the_tensor_names_policy_and_source_a_file_leaves_out(tmp_path):
    kept = [line for line in MINIMAL if not line.startswith(("inputs", "outputs", "policy", "source"))]
    (case, *_) = load_cases([write(tmp_path, kept)])
    record = prototype("Add")
    assert [t.name for t in case.inputs] == list(record.input_names()) and case.family == record.policy
    assert case.source == record.source


def test_a_file_of_an_op_without_a_record_must_name_its_tensors(tmp_path):
    lines = [line if not line.startswith("op:") else "op: NoSuchOp" for line in MINIMAL if not line.startswith("outputs")]
    message = error_of(write(tmp_path, lines))
    assert "'outputs'" in message and "no operator record of NoSuchOp" in message


def test_bad_dtype_name_names_list_item_and_line(tmp_path):
    source = write(tmp_path, replaced(6, "dtypes: [float16, fp16]"))
    message = error_of(source)
    assert_names(message, source, 6, "dtypes[1]")
    assert "fp16" in message


def test_bad_dtype_name_for_one_tensor(tmp_path):
    lines = MINIMAL[:5] + ["dtypes:", "  - float16", "  - {\"*\": float16, y: fp16}", "shapes: [[[2], [2]]]"]
    source = write(tmp_path, lines)
    message = error_of(source)
    assert_names(message, source, 8, "dtypes[1].y")
    assert "expected a data type name" in message and "'fp16'" in message


def test_wrong_number_of_input_shapes(tmp_path):
    source = write(tmp_path, replaced(9, "  - [[5]]"))
    assert_names(error_of(source), source, 9, "shapes[1]")


@pytest.mark.parametrize("repeat", ["  - [[2, 1, 3], [4, 3]]", "  - {x1: [2, 1, 3], x2: [4, 3]}"])
def test_the_same_shapes_twice_is_refused_naming_both_entries(tmp_path, repeat):
    source = write(tmp_path, MINIMAL + [repeat] if "x1" not in repeat else
                   replaced(8, "  - {x1: [2, 1, 3], x2: [4, 3]}") + [repeat])
    message = error_of(source)
    assert_names(message, source, 10, "shapes[2]")
    assert "the same shapes as shapes[0]; expected each entry once" in message


def test_unknown_tensor_name_in_a_shape_mapping(tmp_path):
    source = write(tmp_path, replaced(9, "  - {x1: [5], x3: [5]}"))
    message = error_of(source)
    assert_names(message, source, 9, "shapes[1].x3")


def test_unknown_tensor_name_in_a_dtype_mapping(tmp_path):
    source = write(tmp_path, replaced(6, "dtypes: [{x1: float16, x2: float16, y: float16, z: float16}]"))
    assert_names(error_of(source), source, 6, "dtypes[0].z")


def test_unknown_input_in_const(tmp_path):
    source = write(tmp_path, MINIMAL + ["const:", "  axes: [1]"])
    assert_names(error_of(source), source, 11, "const.axes")


def test_bad_attr_type(tmp_path):
    lines = MINIMAL + ["attrs:", "  - {}", "  - {keep_dims: {type: boolean, value: true}}"]
    source = write(tmp_path, lines)
    message = error_of(source)
    assert_names(message, source, 12, "attrs[1].keep_dims.type")
    assert "boolean" in message


def test_attr_value_that_does_not_fit_its_type(tmp_path):
    source = write(tmp_path, MINIMAL + ["attrs:", "  - {keep_dims: {type: bool, value: 3}}"])
    assert_names(error_of(source), source, 11, "attrs[0]")


def test_bad_distribution(tmp_path):
    source = write(tmp_path, MINIMAL + ["values:", "  x1: {gaussian: [0, 1]}"])
    message = error_of(source)
    assert_names(message, source, 11, "values.x1")
    assert "gaussian" in message


def test_distribution_for_an_unknown_input(tmp_path):
    source = write(tmp_path, MINIMAL + ["values:", "  x9: {uniform: [0, 1]}"])
    assert_names(error_of(source), source, 11, "values.x9")


#: One shape set of MINIMAL's Add (x1 [2, 3], x2 [3]) for the fixed-data tests: 6 and 3 elements.
FIXED_SHAPES = MINIMAL[:7] + ["  - [[2, 3], [3]]"]


def test_fixed_data_and_msopst_draws_are_what_the_inputs_get(tmp_path):
    np.arange(6, dtype=np.float32).tofile(tmp_path / "x1.bin")
    source = write(tmp_path, replaced(6, "dtypes: [float32]")[:7] + ["  - [[2, 3], [3]]", "values:",
                                                                     "  x1: {file: x1.bin}",
                                                                     "  x2: {fixed: [[1.5], [.nan], [-2]]}"])
    (case, *_) = expand_file(source)
    x1, x2 = draw_inputs(case, 7)
    assert x1.dtype == np.float32 and x1.tolist() == [[0, 1, 2], [3, 4, 5]]
    assert np.array_equal(x2, np.array([1.5, np.nan, -2], np.float32), equal_nan=True)
    source = write(tmp_path, FIXED_SHAPES + ["values:", "  x1: {msopst_triangular: [0, 1]}",
                                             "  x2: {msopst_tanh: [-4, 4]}"], "draws.yaml")
    for case in expand_file(source)[:2]:
        x1, x2 = draw_inputs(case, 7)
        rng = np.random.default_rng(7)
        assert np.array_equal(x1, msopst_draw("msopst_triangular", [0, 1], (2, 3), x1.dtype, rng))
        assert np.array_equal(x2, msopst_draw("msopst_tanh", [-4, 4], (3,), x2.dtype, rng))
        assert (0 <= x1).all() and (x1 <= 1).all() and (np.abs(x2) < 1).all()


def test_the_msopst_kinds_are_msopsts_distributions():
    assert MSOPST_DISTRIBUTIONS == DISTRIBUTIONS


@pytest.mark.parametrize("values, field, words", [
    (["  x1: {fixed: [1, 2]}"], "values.x1.fixed", "expected 6 value(s), the element count of input x1 of case "
                                                   "Add-float16-2x3_3 (shape [2, 3]), got 2"),
    (["  x1: {fixed: [[1, 2, 3], [4, 5, x]]}"], "values.x1.fixed", "got 'x'"),
    (["  x1: {fixed: 1.5}"], "values.x1.fixed", "a list of numbers (nested lists allowed)"),
    (["  x1: {fixed: [1, 2, 3, 4, 5, 9223372036854775808]}"], "values.x1.fixed", "got 9223372036854775808"),
    (["  default: {fixed: [1]}"], "values.default.fixed", "fixed data (fixed, file) is given per input"),
    (["  x1: {file: missing.bin}"], "values.x1.file", "No such file or directory"),
    (["  x1: {file: ../outside.bin}"], "values.x1.file", "no '..'"),
    (["  x1: {file: /etc/passwd}"], "values.x1.file", "a relative path"),
    (["  x1: {file: [a.bin]}"], "values.x1.file", "got ['a.bin']"),
    (["  x1: {file: sub}"], "values.x1.file", "a folder, not a regular file"),
    (["  x1: {file: link.bin}"], "values.x1.file", "a file inside the case file's folder"),
    (["  x1: {file: short.bin}"], "values.x1.file", "a file of 12 bytes, 6 float16 element(s) of input x1 of case "
                                                    "Add-float16-2x3_3 (shape [2, 3]); short.bin has 10"),
    (["  x1: {msopst_beta: [2, 1]}"], "values.x1.msopst_beta", "min <= max"),
    (["  x1: {msopst_relu: [.inf, 1]}"], "values.x1.msopst_relu", "finite numbers"),
    (["  x1: {msopst_relu: 1}"], "values.x1.msopst_relu", "a [min, max] pair"),
    (["  x1: {msopst_gamma: [0, 1]}"], "values.x1", "msopst_tanh"),
])
def test_bad_fixed_data_or_msopst_draw_names_file_line_and_field(tmp_path, values, field, words):
    (tmp_path / "sub").mkdir()
    (tmp_path.parent / "outside.bin").write_bytes(bytes(12))
    (tmp_path / "link.bin").symlink_to(tmp_path.parent / "outside.bin")
    (tmp_path / "short.bin").write_bytes(bytes(10))
    source = write(tmp_path, FIXED_SHAPES + ["values:"] + values)
    message = error_of(source)
    assert_names(message, source, 10, field)
    assert words in message, message


def test_fixed_data_of_a_dynamic_input_is_refused(tmp_path):
    source = write(tmp_path, ["op: Add", "policy: elementwise", "source: x", "inputs: [x1, x2]", "outputs: [y]",
                              "dtypes: [float32]", "shapes: [{x1: [-1, 3], x2: [3], y: [-1, 3]}]",
                              "shape_range: {x1: [[1, 4]], y: [[1, 4]]}", "values:", "  x1: {fixed: [1, 2, 3]}"])
    message = error_of(source)
    assert_names(message, source, 10, "values.x1.fixed")
    assert "an input with a static shape for fixed data" in message, message


def test_bad_mode(tmp_path):
    source = write(tmp_path, MINIMAL + ["modes: [execute_v2, turbo]"])
    assert_names(error_of(source), source, 10, "modes[1]")


def test_negative_dimension(tmp_path):
    source = write(tmp_path, replaced(8, "  - [[2, -3, 3], [4, 3]]"))
    assert_names(error_of(source), source, 8, "shapes[0][0][1]")


def test_unknown_rank_inside_a_longer_shape(tmp_path):
    source = write(tmp_path, replaced(8, "  - [[2, -2], [4, 3]]"))
    assert_names(error_of(source), source, 8, "shapes[0][0][1]")


def test_yaml_syntax_error_names_file_and_line(tmp_path):
    source = write(tmp_path, replaced(8, "  - [[2, 1, 3], [4, 3]"))
    message = error_of(source)
    assert "\n" not in message and re.match(rf"{re.escape(source)}:(8|9): ", message), message


def test_a_scalar_yaml_cannot_build_names_file_line_and_field(tmp_path):
    source = write(tmp_path, replaced(3, "source: 2027-02-30"))
    message = error_of(source)
    assert_names(message, source, 3, "'source'")
    assert "expected an ISO date (YYYY-MM-DD), got '2027-02-30'" in message, message


def test_shapes_the_reference_refuses(tmp_path):
    source = write(tmp_path, replaced(8, "  - [[2, 3], [4, 3]]"))
    assert_names(error_of(source), source, 8, "shapes[0]")


def test_unknown_op_without_reference(tmp_path):
    source = write(tmp_path, replaced(1, "op: NoSuchOp"))
    assert_names(error_of(source), source, 1, "op")


# ---------------------------------------------------------------------------------------- the library


def test_ids_are_unique_across_files(tmp_path):
    first = write(tmp_path, MINIMAL, "first.yaml")
    second = write(tmp_path, replaced(6, "dtypes: [float32]"), "second.yaml")
    with pytest.raises(CaseFileError) as info:
        load_cases([str(tmp_path)])
    message = str(info.value)
    assert first in message and second in message and "Add-float32-2x1x3_4x3" in message


def test_case_files_are_found_recursively_in_sorted_order(tmp_path):
    (tmp_path / "b").mkdir()
    (tmp_path / "a").mkdir()
    paths = [write(tmp_path / "b", MINIMAL, "z.yaml"), write(tmp_path / "a", MINIMAL, "y.yml")]
    (tmp_path / "a" / "notes.txt").write_text("not a case file", encoding="utf-8")
    assert case_files([str(tmp_path)]) == sorted(paths)


def test_missing_path_is_an_error(tmp_path):
    with pytest.raises(CaseFileError, match="no such case file"):
        case_files([str(tmp_path / "absent")])


@pytest.fixture(scope="module")
def library() -> list[Case]:
    """Every case of the repository's case library."""
    return load_cases([str(LIBRARY)])


def test_the_library_loads_with_unique_ids(library):
    ids = [c.id for c in library]
    assert len(ids) == len(set(ids)) > 0


def test_every_record_runs_by_a_case_file_or_by_its_default_cases(library):
    from aclcts.cases.defaults import default_cases, uncovered

    left = uncovered(library + load_cases([str(LIBRARY)], kind="dynamic"))
    assert all(default_cases(op) for op in left), left


def test_a_records_default_cases_are_made_once_and_each_call_gets_its_own_list():
    from aclcts.cases.defaults import default_cases

    first = default_cases("Relu")
    first.clear()
    again = default_cases("Relu")
    assert again and again == default_cases("Relu") and again is not default_cases("Relu")
    assert all(a is b for a, b in zip(again, default_cases("Relu")))  # the same cases, expanded and checked once


# ---------------------------------------------------------------------------------------- dynamic shapes

#: A valid dynamic case file (-1 dims with their ranges), one line per entry.
DYNAMIC = [
    "op: Add",                                         # 1
    "policy: elementwise",                             # 2
    "source: \"REG_OP(Add): inputs x1, x2; output y\"",  # 3
    "inputs: [x1, x2]",                                # 4
    "outputs: [y]",                                    # 5
    "dtypes: [float32]",                               # 6
    "shapes:",                                         # 7
    "  - {x1: [-1, -1], x2: [-1, -1], y: [-1, -1]}",   # 8
    "shape_range:",                                    # 9
    "  x1: [[1, 16], [1, 16]]",                        # 10
    "  x2: [[1, 16], [1, 16]]",                        # 11
    "  y: [[1, 16], [1, -1]]",                         # 12
    "runtime_shapes:",                                 # 13
    "  - [[2, 3], [2, 3]]",                            # 14
    "shape_rule: broadcast",                           # 15
    "name: dyn_add",                                   # 16
]


def dynamic_with(line_number: int, text: str) -> list[str]:
    """DYNAMIC with one (1-based) line replaced."""
    lines = list(DYNAMIC)
    lines[line_number - 1] = text
    return lines


def test_a_dynamic_case_carries_its_ranges_runtime_shapes_and_name(tmp_path):
    source = write(tmp_path, DYNAMIC)
    assert load_cases([source]) == []
    (case,) = load_cases([source], kind="dynamic")
    assert case.id == "dyn_add" and case.dynamic and case.shape_rule == "broadcast"
    assert [t.dim_ranges() for t in case.inputs + case.outputs] == [((1, 16), (1, 16))] * 2 + [((1, 16), (1, -1))]
    assert case.runtime_shapes == (((2, 3), (2, 3)),)
    assert load_cases([source], kind="all") == [case]


def test_a_dynamic_case_compiles_to_single_op_json_with_its_shape_ranges(tmp_path):
    (case,) = load_cases([write(tmp_path, DYNAMIC)], kind="dynamic")
    model = case.op_model("Ascend910B1")
    (element,) = generate_singleop_json([model])
    assert [(d["shape"], d["shape_range"]) for d in element["input_desc"] + element["output_desc"]] == \
        [([-1, -1], [[1, 16], [1, 16]])] * 2 + [([-1, -1], [[1, 16], [1, -1]])]
    (parsed,) = parse_singleop(json.dumps([element]), "dyn.json", soc_version="Ascend910B1")
    assert parsed.model == model


def test_an_unknown_rank_case_has_no_shape_range(tmp_path):
    lines = DYNAMIC[:7] + ["  - {x1: [-2], x2: [-2], y: [-2]}", "runtime_shapes:", "  - [[], [4, 1, 3]]"]
    (case,) = load_cases([write(tmp_path, lines)], kind="dynamic")
    assert case.id == "Add-float32-unknownrank_unknownrank" and case.inputs[0].unknown_rank
    (element,) = generate_singleop_json([case.op_model("Ascend910B1")])
    assert all("shape_range" not in d and d["shape"] == [-2] for d in element["input_desc"] + element["output_desc"])


def test_the_shipped_dynamic_cases_are_named_models_one_per_file():
    cases = load_cases([str(LIBRARY / "dynamic")], kind="dynamic")
    assert len(cases) == len(list((LIBRARY / "dynamic").glob("*.yaml")))
    assert all(c.id.startswith("dyn_") and c.runtime_shapes for c in cases)
    assert {"dyn_non_zero_int32", "dyn_unique_float32", "dyn_top_k_float32"} <= {c.id for c in cases if c.data_dependent}
    assert [c.id for c in load_cases([str(LIBRARY)], kind="dynamic")] == [c.id for c in cases]
    assert {c.id for c in load_cases([str(LIBRARY)])}.isdisjoint(c.id for c in cases)


@pytest.mark.parametrize("lines, line, field", [
    (DYNAMIC[:11] + DYNAMIC[12:], 8, "shapes[0].y"),
    (dynamic_with(10, "  x1: [[1, 16]]"), 10, "shape_range.x1"),
    (dynamic_with(10, "  x1: [[5, 2], [1, 16]]"), 10, "shape_range.x1[0]"),
    (dynamic_with(10, "  x1: [[1, 16], [1]]"), 10, "shape_range.x1[1]"),
    (dynamic_with(10, "  z: [[1, 16], [1, 16]]"), 10, "shape_range.z"),
    (dynamic_with(14, "  - [[2, 30], [2, 3]]"), 14, "runtime_shapes[0][0]"),
    (dynamic_with(14, "  - [[2, 3, 1], [2, 3]]"), 14, "runtime_shapes[0][0]"),
    (dynamic_with(14, "  - [[2, 3]]"), 14, "runtime_shapes[0]"),
    (dynamic_with(14, "  - [[-1, 3], [2, 3]]"), 14, "runtime_shapes[0][0][0]"),
    (dynamic_with(8, "  - {x1: [-1, -1], x2: [-1, -1]}"), 8, "shapes[0]"),
    (dynamic_with(8, "  - {x1: [-1, -3], x2: [-1, -1], y: [-1, -1]}"), 8, "shapes[0].x1[1]"),
    (dynamic_with(15, "shape_rule: diagonal"), 15, "shape_rule"),
    (DYNAMIC + ["elements: huge"], 17, "elements"),
    (DYNAMIC + ["data_dependent: [x1]"], 17, "data_dependent[0]"),
    (dynamic_with(6, "dtypes: [float32, float16]"), 16, "name"),
    (MINIMAL + ["shape_rule: broadcast"], 10, "shape_rule"),
    (MINIMAL + ["runtime_shapes: [[[2], [2]]]"], 10, "runtime_shapes"),
], ids=["range-missing", "range-count", "range-min-above-max", "range-not-a-pair", "range-of-unknown-tensor",
        "runtime-outside-range", "runtime-rank", "runtime-count", "runtime-unknown-dim", "outputs-not-given",
        "dim-below-minus-one", "shape-rule", "elements", "data-dependent-input", "name-of-two-cases",
        "dynamic-key-in-static-case", "runtime-shapes-in-static-case"])
def test_a_bad_dynamic_entry_names_file_line_and_field(tmp_path, lines, line, field):
    source = write(tmp_path, lines)
    assert_names(error_of(source), source, line, field)
