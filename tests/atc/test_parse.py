"""Parsing a single-op JSON file into models: every field, type, format and attr type
(docs/contract/single-op-json.md)."""

import json

import numpy as np
import pytest

from aclcts.atc import parse_singleop, settings


def nd(shape, type_="int32", **kw):
    return {"format": "ND", "shape": shape, "type": type_, **kw}


def op(inputs, outputs=None, **kw):
    return {"op": "Add", "input_desc": inputs, "output_desc": outputs or [nd([3, 3])], **kw}


# single-op-json.md#data-type-strings: JSON type → aclDataType value (same as GE except UNDEFINED)
DOC_TYPES = [("float", 0), ("float32", 0), ("float16", 1), ("int8", 2), ("int32", 3), ("uint8", 4),
             ("int16", 6), ("uint16", 7), ("uint32", 8), ("int64", 9), ("uint64", 10), ("double", 11),
             ("bool", 12), ("complex64", 16), ("complex128", 17), ("bfloat16", 27), ("int4", 29),
             ("uint1", 30), ("complex32", 33)]


@pytest.mark.parametrize("type_, value", DOC_TYPES)
@pytest.mark.parametrize("case", [str.lower, str.upper])
def test_type_strings(parse_one, type_, value, case):
    parsed = parse_one(op([nd([2], case(type_))], [nd([2], case(type_))]))
    assert parsed.ok, parsed.errors
    assert parsed.model.inputs[0].dtype == value and parsed.model.outputs[0].dtype == value


# single-op-json.md#format-strings: the parser's format dictionary with GE values (= ACL values)
DOC_FORMATS = [("nchw", 0), ("nhwc", 1), ("nd", 2), ("nc1hwc0", 3), ("fractal_z", 4), ("nc1c0hwpad", 5),
               ("nhwc1c0", 6), ("fsr_nchw", 7), ("fractal_deconv", 8), ("c1hwnc0", 9),
               ("fractal_deconv_transpose", 10), ("fractal_deconv_sp_stride_trans", 11), ("nc1hwc0_c04", 12),
               ("fractal_z_c04", 13), ("chwn", 14), ("deconv_sp_stride8_trans", 15), ("hwcn", 16),
               ("nc1khkwhwc0", 17), ("bn_weight", 18), ("filter_hwck", 19), ("lookup_lookups", 20),
               ("lookup_keys", 21), ("lookup_value", 22), ("lookup_output", 23), ("lookup_hits", 24),
               ("c1hwncoc0", 25), ("md", 26), ("ndhwc", 27), ("fractal_nz", 29), ("ncdhw", 30), ("dhwcn", 31),
               ("ndc1hwc0", 32), ("fractal_z_3d", 33), ("cn", 34), ("nc", 35), ("dhwnc", 36),
               ("fractal_z_3d_transpose", 37), ("fractal_zn_lstm", 38), ("fractal_z_g", 39)]


@pytest.mark.parametrize("fmt, value", DOC_FORMATS)
def test_format_strings_case_insensitive(parse_one, fmt, value):
    desc = {"format": fmt.upper(), "shape": [2], "type": "float16"}
    parsed = parse_one(op([desc, dict(desc, format=fmt)], [desc]))
    assert parsed.ok, parsed.errors
    assert [t.format for t in parsed.model.inputs + parsed.model.outputs] == [value] * 3


@pytest.mark.parametrize("fmt", ["RESERVED", "UNDEFINED", "reserved", "NCL"])
def test_unused_optional_input_both_spellings(parse_one, fmt):
    unused = {"format": fmt, "shape": [], "type": "UNDEFINED"}
    parsed = parse_one({"op": "MatMulV2", "input_desc": [nd([16, 16], "float"), nd([16, 16], "float"), unused,
                                                         unused], "output_desc": [nd([16, 16], "float")]})
    assert parsed.ok, parsed.errors
    t = parsed.model.inputs[2]
    assert (t.dtype, t.format, t.shape, t.origin_format) == (-1, -1, (), -1)
    assert parsed.file_name == "0_MatMulV2_0_2_16_16_0_2_16_16_28_40_28_40_0_2_16_16.om"


def test_fp16_and_half_follow_the_setting(parse_one, monkeypatch):
    for spelling in ("fp16", "half", "FP16"):
        parsed = parse_one(op([nd([2], spelling)]))
        assert not parsed.ok and parsed.errors[0].code == "E10027" and "float16" in parsed.errors[0].message
    monkeypatch.setattr(settings, "ACCEPT_FP16_HALF", True)
    parsed = parse_one(op([nd([2], "half")]))
    assert parsed.ok and parsed.model.inputs[0].dtype == 1


def test_origin_format_and_shape_default_to_format_and_shape(parse_one):
    parsed = parse_one(op([nd([8, 16])]))
    t = parsed.model.inputs[0]
    assert (t.origin_format, t.origin_shape) == (2, (8, 16))


def test_origin_format_and_shape_are_kept(parse_one):
    desc = {"format": "NC1HWC0", "origin_format": "NCHW", "shape": [8, 1, 16, 4, 16],
            "origin_shape": [8, 16, 16, 4], "type": "float16"}
    parsed = parse_one(op([desc, desc], [desc]))
    t = parsed.model.inputs[0]
    assert (t.format, t.shape, t.origin_format, t.origin_shape) == (3, (8, 1, 16, 4, 16), 0, (8, 16, 16, 4))


def test_unknown_keys_are_ignored(parse_one):
    desc = nd([8, 16], name="x", param_type="required")
    parsed = parse_one(op([desc], comment="anything", extra={"a": 1}))
    assert parsed.ok and parsed.model.inputs[0].name == "x"


def test_static_shapes_get_fixed_ranges_and_scalars_none(parse_one):
    parsed = parse_one(op([nd([16, 1]), nd([])]))
    assert parsed.model.inputs[0].shape_range == ((16, 16), (1, 1))
    assert parsed.model.inputs[1].shape == () and parsed.model.inputs[1].shape_range == ()
    assert not parsed.model.is_dynamic


def test_dynamic_shape_ranges_in_order(parse_one):
    parsed = parse_one(op([nd([16, -1, 20, -1], shape_range=[[1, 128], [1, -1]])]))
    assert parsed.model.inputs[0].shape_range == ((16, 16), (1, 128), (20, 20), (1, -1))
    assert parsed.model.is_dynamic


def test_min_max_order_is_not_checked(parse_one):
    parsed = parse_one(op([nd([-1], shape_range=[[-1, -1]])]))
    assert parsed.ok and parsed.model.inputs[0].shape_range == ((-1, -1),)


@pytest.mark.parametrize("ranges", [None, []])
def test_unknown_rank(parse_one, ranges):
    desc = nd([-2], "float16") if ranges is None else nd([-2], "float16", shape_range=ranges)
    parsed = parse_one(op([desc, desc], [desc]))
    assert parsed.ok and parsed.model.inputs[0].shape == (-2,) and parsed.model.inputs[0].shape_range == ()


def test_const_input_int32(parse_one):
    parsed = parse_one({"op": "ArgMaxV2", "input_desc": [nd([1000], "float16"),
                        nd([1], "int32", is_const=True, const_value=[0])], "output_desc": [nd([1], "int32")]})
    t = parsed.model.inputs[1]
    assert t.is_const and t.const_data == b"\x00\x00\x00\x00"
    assert parsed.file_name == "0_ArgMaxV2_1_2_1000_3_2_1_3_2_1.om"


def test_const_value_converted_to_float16_bytes(parse_one):
    parsed = parse_one(op([nd([3, -1], "float16", shape_range=[[1, 3]]),
                           nd([3, 3], "float16", is_const=True, const_value=[1, 2, 3, 4, 5, 6, 7, 8, 9])]))
    data = parsed.model.inputs[1].const_data
    # float16 1.0 = 0x3C00, 2.0 = 0x4000, 3.0 = 0x4200, 9.0 = 0x4880 (little-endian)
    assert data[:6] == bytes([0x00, 0x3C, 0x00, 0x40, 0x00, 0x42]) and data[-2:] == bytes([0x80, 0x48])
    assert len(data) == 18


@pytest.mark.parametrize("type_, values, expected", [
    ("int8", [-1, 127], b"\xff\x7f"),
    ("uint8", [255, 1], b"\xff\x01"),
    ("int16", [-2], b"\xfe\xff"),
    ("uint16", [258], b"\x02\x01"),
    ("uint32", [1], b"\x01\x00\x00\x00"),
    ("int64", [-1], b"\xff" * 8),
    ("uint64", [2], b"\x02" + b"\x00" * 7),
    ("float", [1.5], b"\x00\x00\xc0\x3f"),
    ("float32", [-2], b"\x00\x00\x00\xc0"),
    ("double", [1.0], b"\x00\x00\x00\x00\x00\x00\xf0\x3f"),
    ("float16", [0.1], b"\x66\x2e"),
])
def test_const_value_conversion_per_type(parse_one, type_, values, expected):
    parsed = parse_one(op([nd([len(values)], type_, is_const=True, const_value=values)]))
    assert parsed.model.inputs[0].const_data == expected


def test_const_value_of_unsupported_type_keeps_no_data_with_warning(parse_one):
    parsed = parse_one(op([nd([2], "bool", is_const=True, const_value=[1, 0])]))
    assert parsed.ok and parsed.model.inputs[0].is_const and parsed.model.inputs[0].const_data == b""
    assert any("bool" in w and "no constant data" in w for w in parsed.warnings)


def test_const_value_without_is_const_is_ignored(parse_one):
    parsed = parse_one(op([nd([2], const_value=[1, 2])]))
    assert not parsed.model.inputs[0].is_const and parsed.model.inputs[0].const_data is None
    assert parsed.warnings


def test_dynamic_input_names_count_per_group(parse_one):
    x = {"dynamic_input": "x", "format": "NCHW", "shape": [1, 3, 166, 166], "type": "float32"}
    parsed = parse_one({"op": "AddN", "name": "addN",
                        "input_desc": [x, dict(x, type="int32"), dict(x, dynamic_input="y"), x],
                        "output_desc": [{"format": "NCHW", "shape": [1, 3, 166, 166], "type": "float32"}],
                        "attr": [{"name": "N", "type": "int", "value": 3}]})
    assert [t.name for t in parsed.model.inputs] == ["x0", "x1", "y0", "x2"]
    assert [t.dtype for t in parsed.model.inputs] == [0, 3, 0, 0]
    assert parsed.file_name == "addN.om"


def test_dynamic_input_overrides_name_per_setting(parse_one, monkeypatch):
    element = op([nd([2], dynamic_input="x", name="first"), nd([2], dynamic_input="x")])
    parsed = parse_one(element)
    assert [t.name for t in parsed.model.inputs] == ["x0", "x1"] and parsed.warnings
    monkeypatch.setattr(settings, "DYNAMIC_INPUT_OVERRIDES_NAME", False)
    assert [t.name for t in parse_one(element).model.inputs] == ["first", "x1"]


def test_explicit_variadic_names(parse_one):
    parsed = parse_one(op([nd([2], name="x0"), nd([2], name="x1"), nd([2], name="x2")]))
    assert [t.name for t in parsed.model.inputs] == ["x0", "x1", "x2"]


def test_every_attr_type_of_the_doc(parse_one):
    attrs = [{"name": "b", "type": "bool", "value": False}, {"name": "i", "type": "int", "value": 10},
             {"name": "f", "type": "float", "value": 1.0}, {"name": "s", "type": "string", "value": "NCHW"},
             {"name": "lb", "type": "list_bool", "value": [False, True]},
             {"name": "li", "type": "list_int", "value": [1, 224, 224, 3]},
             {"name": "lf", "type": "list_float", "value": [1.0, 0.0]},
             {"name": "ls", "type": "list_string", "value": ["str1", "str2"]},
             {"name": "lli", "type": "list_list_int", "value": [[1, 3, 5, 7], [2, 4, 6, 8]]},
             {"name": "d1", "type": "data_type", "value": "DT_FLOAT"},
             {"name": "d2", "type": "data_type", "value": 0},
             {"name": "d3", "type": "data_type", "value": "DT_FLOAT16"},
             {"name": "d4", "type": "data_type", "value": 28},
             {"name": "d5", "type": "data_type", "value": "DT_UNDEFINED"}]
    parsed = parse_one(op([nd([3, 3])], attr=attrs))
    values = {a.name: (a.type, a.value) for a in parsed.model.attrs}
    assert [a.name for a in parsed.model.attrs] == [a["name"] for a in attrs]
    assert values["lli"] == ("list_list_int", ((1, 3, 5, 7), (2, 4, 6, 8)))
    assert values["lb"] == ("list_bool", (False, True))
    assert values["d1"] == values["d2"] == ("data_type", 0)
    assert values["d3"] == ("data_type", 1)
    assert values["d4"] == values["d5"] == ("data_type", -1)


def test_float_attrs_rounded_to_float32(parse_one):
    parsed = parse_one(op([nd([3])], attr=[{"name": "alpha", "type": "float", "value": 0.1}]))
    assert parsed.model.attrs[0].value == float(np.float32(0.1))


def test_duplicate_attr_name_later_wins(parse_one):
    parsed = parse_one(op([nd([3])], attr=[{"name": "a", "type": "int", "value": 1},
                                           {"name": "a", "type": "int", "value": 2}]))
    assert [(a.name, a.value) for a in parsed.model.attrs] == [("a", 2)] and parsed.warnings


def test_compile_flag_elements_set_fuzzy_and_take_no_index():
    elements = [op([nd([3, 3])]), {"compile_flag": 1}, op([nd([3, 3])], compile_flag=0),
                {"compile_flag": 1, "op": "Ignored"}, op([nd([4])])]
    ops = parse_singleop(json.dumps(elements), "op.json", soc_version="s")
    assert [(o.position, o.index, o.model.fuzzy) for o in ops] == [(0, 0, False), (2, 1, True), (4, 2, True)]
    assert [o.file_name.split("_")[0] for o in ops] == ["0", "1", "2"]


def test_two_elements_of_the_same_type_give_two_models():
    element = {"op": "MatMul", "name": "matMul01", "input_desc": [nd([16, 16], "float16")] * 2,
               "output_desc": [nd([16, 16], "float16")], "attr": [{"name": "alpha", "type": "float", "value": 1.0}]}
    second = dict(element, name="matMul02", input_desc=[nd([256, 256], "float16")] * 2)
    ops = parse_singleop(json.dumps([element, second]), "op.json")
    assert [o.file_name for o in ops] == ["matMul01.om", "matMul02.om"]
    assert ops[0].model.inputs[0].shape != ops[1].model.inputs[0].shape


def test_unknown_op_type_is_compiled(parse_one):
    parsed = parse_one({"op": "NoSuchOpAnywhere", "input_desc": [], "output_desc": [nd([1])]})
    assert parsed.ok and parsed.model.op_type == "NoSuchOpAnywhere" and parsed.model.inputs == ()


def test_soc_version_is_stored(parse_one):
    assert parse_one(op([nd([3])]), soc_version="Ascend910B").model.soc_version == "Ascend910B"
