"""Single-op JSON errors: ATC's codes, and messages naming file, line, element, field
(docs/contract/single-op-json.md)."""

import json

import pytest

from aclcts.atc import SingleOpFileError, parse_singleop


def nd(shape, type_="int32", **kw):
    return {"format": "ND", "shape": shape, "type": type_, **kw}


def op(inputs, outputs=None, **kw):
    return {"op": "Add", "input_desc": inputs, "output_desc": outputs or [nd([3, 3])], **kw}


def errors_of(element):
    ops = parse_singleop(json.dumps([element]), "op.json")
    assert len(ops) == 1 and not ops[0].ok and ops[0].model is None and ops[0].file_name is None
    return ops[0].errors


def only_error(element):
    errors = errors_of(element)
    assert len(errors) == 1, errors
    return errors[0]


def test_message_names_file_line_element_op_field_and_code():
    text = """[
  {"op": "Sub", "input_desc": [], "output_desc": [{"format": "ND", "shape": [1], "type": "int32"}]},
  {"compile_flag": 1},
  {"op": "Add",
   "input_desc": [
     {"format": "ND", "shape": [8], "type": "int32"},
     {"format": "ND", "shape": [-1, 8, -1], "type": "int32",
      "shape_range": [[1, 4]]}
   ],
   "output_desc": [{"format": "ND", "shape": [8], "type": "int32"}]}
]"""
    ops = parse_singleop(text, "op_list.json")
    assert ops[0].ok and not ops[1].ok
    assert ops[1].errors[0].message == (
        'op_list.json:8: element 2 (op "Add"): input_desc[1].shape_range: expected 2 [min, max] pairs '
        "(one per -1 in shape [-1, 8, -1]), got 1 [E13014]")


def test_json_syntax_error_is_e10025_with_line():
    with pytest.raises(SingleOpFileError) as info:
        parse_singleop('[\n  {"op": "Add",\n   "input_desc": [}\n]', "bad.json")
    assert info.value.diagnostic.code == "E10025"
    assert info.value.diagnostic.message.startswith("bad.json:3:")


@pytest.mark.parametrize("text", ["[NaN]", "", "[1,]"])
def test_non_json_is_e10025(text):
    with pytest.raises(SingleOpFileError) as info:
        parse_singleop(text, "bad.json")
    assert info.value.diagnostic.code == "E10025"


@pytest.mark.parametrize("text", ['{"op": "Add"}', '"Add"', "3"])
def test_top_level_must_be_an_array(text):
    with pytest.raises(SingleOpFileError) as info:
        parse_singleop(text, "x.json")
    assert info.value.diagnostic.code == "E10032" and "array" in info.value.diagnostic.message


def test_element_not_an_object_is_e10032():
    ops = parse_singleop('[["Add"]]', "x.json")
    assert ops[0].errors[0].code == "E10032" and "element 0" in ops[0].errors[0].message


@pytest.mark.parametrize("element", [
    {"input_desc": [], "output_desc": [nd([1])]},
    {"op": "", "input_desc": [], "output_desc": [nd([1])]},
    {"compile_flag": 0, "input_desc": [], "output_desc": [nd([1])]},
])
def test_missing_or_empty_op_is_e10026(element):
    error = only_error(element)
    assert error.code == "E10026" and "(no op): op:" in error.message


@pytest.mark.parametrize("element, field", [
    ({"op": 3, "input_desc": [], "output_desc": [nd([1])]}, "op"),
    ({"op": "Add", "name": 5, "input_desc": [], "output_desc": [nd([1])]}, "name"),
    (op("x"), "input_desc"),
    ({"op": "Add", "output_desc": [nd([1])]}, "input_desc"),
    ({"op": "Add", "input_desc": []}, "output_desc"),
    (op([nd("8")]), "input_desc[0].shape"),
    (op([nd([8.0])]), "input_desc[0].shape"),
    (op([{"format": "ND", "shape": [1]}]), "input_desc[0].type"),
    (op([{"type": "int32", "shape": [1]}]), "input_desc[0].format"),
    (op([{"type": "int32", "format": "ND"}]), "input_desc[0].shape"),
    (op([nd([1], 3)]), "input_desc[0].type"),
    (op([nd([-1], shape_range=[1, 8])]), "input_desc[0].shape_range"),
    (op([nd([1], is_const="yes")]), "input_desc[0].is_const"),
    (op([nd([2], is_const=True, const_value=[[1], [2]])]), "input_desc[0].const_value"),
    (op([nd([2], is_const=True, const_value=[1.5, 2])]), "input_desc[0].const_value"),
    (op([nd([1], is_const=True, const_value=[2 ** 31])]), "input_desc[0].const_value"),
    (op([nd([1], dynamic_input=1)]), "input_desc[0].dynamic_input"),
    (op([nd([1])], attr={"name": "a"}), "attr"),
    (op([nd([1])], attr=[{"type": "int", "value": 1}]), "attr[0].name"),
    (op([nd([1])], attr=[{"name": "a", "value": 1}]), "attr[0].type"),
    (op([nd([1])], compile_flag="1"), "compile_flag"),
])
def test_wrong_json_value_type_is_e10032(element, field):
    errors = errors_of(element)
    assert errors[0].code == "E10032" and f": {field}: " in errors[0].message, errors


@pytest.mark.parametrize("desc, field", [
    (nd([1], "float64"), "input_desc[0].type"),
    (nd([1], "int"), "input_desc[0].type"),
    ({"format": "FORMAT_MAX", "shape": [1], "type": "int32"}, "input_desc[0].format"),
    ({"format": "ND", "origin_format": "XYZ", "shape": [1], "type": "int32"}, "input_desc[0].origin_format"),
])
def test_unknown_type_or_format_is_e10027(desc, field):
    error = only_error(op([desc]))
    assert error.code == "E10027" and f": {field}: " in error.message


@pytest.mark.parametrize("desc", [
    {"format": "ND", "shape": [], "type": "UNDEFINED"},
    {"format": "RESERVED", "shape": [], "type": "float16"},
    {"format": "NCL", "shape": [4], "type": "float16"},
])
def test_input_with_one_undefined_half_is_e10027(desc):
    error = only_error(op([desc]))
    assert error.code == "E10027" and "input_desc[0]" in error.message and "unused optional input" in error.message


@pytest.mark.parametrize("desc, field", [
    ({"format": "RESERVED", "shape": [], "type": "UNDEFINED"}, "output_desc[0].type"),
    ({"format": "RESERVED", "shape": [1], "type": "int32"}, "output_desc[0].format"),
])
def test_outputs_must_be_defined_e10027(desc, field):
    error = only_error(op([nd([1])], [desc]))
    assert error.code == "E10027" and f": {field}: " in error.message


def test_empty_attr_name_is_e10029():
    error = only_error(op([nd([1])], attr=[{"name": "", "type": "bool", "value": True}]))
    assert error.code == "E10029" and "attr[0].name" in error.message


@pytest.mark.parametrize("attr, text", [
    ({"name": "a", "type": "int"}, "missing attribute value"),
    ({"name": "a", "type": "undefined", "value": 1}, "unsupported attribute type"),
    ({"name": "a", "type": "INT", "value": 1}, "unsupported attribute type"),
    ({"name": "a", "type": "list_data_type", "value": [0]}, "unsupported attribute type"),
    ({"name": "a", "type": "int", "value": "1"}, "expected an int64"),
    ({"name": "a", "type": "bool", "value": 1}, "expected true or false"),
    ({"name": "a", "type": "list_int", "value": [1, 2.5]}, "item [1]"),
    ({"name": "a", "type": "list_list_int", "value": [1, 2]}, "expected a list"),
    ({"name": "a", "type": "data_type", "value": "DT_NOPE"}, 'unknown data type "DT_NOPE"'),
    ({"name": "a", "type": "data_type", "value": "dt_float"}, 'unknown data type "dt_float"'),
    ({"name": "a", "type": "data_type", "value": 99}, "GE DataType number"),
])
def test_bad_attr_value_or_type_is_e10030(attr, text):
    error = only_error(op([nd([1])], attr=[attr]))
    assert error.code == "E10030" and '"a"' in error.message and text in error.message


@pytest.mark.parametrize("desc, field, text", [
    (nd([-1, -1], shape_range=[[1, 8]]), "input_desc[0].shape_range", "expected 2 [min, max] pairs"),
    (nd([-1], shape_range=[]), "input_desc[0].shape_range", "expected 1 [min, max] pairs"),
    (nd([-1]), "input_desc[0].shape_range", "got 0"),
    (nd([4], shape_range=[[1, 4]]), "input_desc[0].shape_range", "expected 0 [min, max] pairs"),
    (nd([-1], shape_range=[[1, 2, 3]]), "input_desc[0].shape_range[0]", "pair of 2 numbers"),
    (nd([-1, 3, -1], shape_range=[[1, 2], [1]]), "input_desc[0].shape_range[1]", "pair of 2 numbers"),
    (nd([-2, 32]), "input_desc[0].shape", "must be set to [-2]"),
    (nd([-2], shape_range=[[1, 2]]), "input_desc[0].shape_range", "unknown-rank"),
    (nd([2, -3]), "input_desc[0].shape[1]", "dimension -3"),
    (nd([65536, 32768]), "input_desc[0].shape", "above the limit 2147483647"),
    (nd([3], is_const=True, const_value=[1, 2]), "input_desc[0].const_value", "2 values"),
])
def test_shape_rules_are_e13014(desc, field, text):
    error = only_error(op([desc]))
    assert error.code == "E13014" and f": {field}: " in error.message and text in error.message


def test_largest_allowed_product_is_accepted():
    ops = parse_singleop(json.dumps([op([nd([2147483647])])]), "x.json")
    assert ops[0].ok


def test_output_shape_rules_apply_too():
    error = only_error(op([nd([1])], [nd([-1, 1])]))
    assert error.code == "E13014" and "output_desc[0].shape_range" in error.message


def test_io_counts_check_when_ir_counts_are_given():
    text = json.dumps([op([nd([3, 3])]), {"op": "Other", "input_desc": [], "output_desc": [nd([1])]}])
    ops = parse_singleop(text, "x.json", ir_io_counts={"Add": (2, 1)})
    assert ops[0].errors[0].code == "E13014" and "input size 1" in ops[0].errors[0].message
    assert ops[1].ok


def test_all_errors_of_an_element_are_reported_and_others_still_parse():
    elements = [op([nd([1], "nope"), nd([-2, 1])], attr=[{"name": "", "type": "int", "value": 1}]),
                op([nd([3, 3])])]
    ops = parse_singleop(json.dumps(elements), "x.json")
    assert [e.code for e in ops[0].errors] == ["E10027", "E13014", "E10029"]
    assert ops[1].ok and ops[1].index == 1


def test_invalid_name_warns_and_generates_the_file_name():
    ops = parse_singleop(json.dumps([op([nd([3, 3])], name="my#op")]), "x.json")
    assert ops[0].file_name == "0_Add_3_2_3_3_3_2_3_3.om"
    assert any("my#op" in w and "not a valid file name" in w for w in ops[0].warnings)
