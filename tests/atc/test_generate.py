"""generate_singleop_json: OpModels back to single-op JSON, parse → generate → parse round trips."""

import json

import pytest

from aclcts.atc import generate_singleop_json, parse_singleop
from aclcts.core.opmodel import OpModel, TensorSpec, canonical_attr

DOC_FILE = [
    {"compile_flag": 1},
    {"op": "MatMulV2", "name": "matMulV2",
     "input_desc": [{"format": "ND", "shape": [16, 16], "type": "float"},
                    {"format": "nd", "shape": [16, 16], "type": "float32", "name": "x2"},
                    {"format": "RESERVED", "shape": [], "type": "UNDEFINED"},
                    {"format": "UNDEFINED", "shape": [], "type": "undefined"}],
     "attr": [{"name": "transpose_x1", "type": "bool", "value": False},
              {"name": "alpha", "type": "float", "value": 0.1},
              {"name": "lf", "type": "list_float", "value": [0.3, -0.0]},
              {"name": "lli", "type": "list_list_int", "value": [[1, 3], [2]]},
              {"name": "dt", "type": "data_type", "value": 1},
              {"name": "du", "type": "data_type", "value": "DT_UNDEFINED"},
              {"name": "s", "type": "list_string", "value": ["a", "b"]}],
     "output_desc": [{"format": "ND", "shape": [16, 16], "type": "float"}]},
    {"op": "Add",
     "input_desc": [{"format": "ND", "shape": [3, -1], "type": "float16", "shape_range": [[1, 3]]},
                    {"format": "ND", "shape": [3, 3], "type": "float16", "is_const": True,
                     "const_value": [1, 2.5, 3, 4, 5, 6, 7, 8, 0.1]}],
     "output_desc": [{"format": "ND", "shape": [3, 3], "type": "float16"}]},
    {"op": "Add", "input_desc": [{"format": "ND", "shape": [-2], "type": "float16"}] * 2,
     "output_desc": [{"format": "ND", "shape": [-2], "type": "float16"}]},
    {"op": "AddN", "input_desc": [{"dynamic_input": "x", "format": "NCHW", "shape": [1, 3], "type": "float32"}] * 3,
     "output_desc": [{"format": "NC1HWC0", "origin_format": "NCHW", "shape": [8, 1, 16, 4, 16],
                      "origin_shape": [8, 16, 16, 4], "type": "float16"}]},
    {"op": "ResizeBilinearV2",
     "input_desc": [{"format": "NHWC", "name": "x", "shape": [4, 16, 16, 16], "type": "float16"},
                    {"format": "NHWC", "is_const": True, "const_value": [49, 49], "name": "size", "shape": [2],
                     "type": "int32"},
                    {"format": "ND", "is_const": True, "shape": [1], "type": "int64"}],
     "output_desc": [{"format": "NHWC", "name": "y", "shape": [-1, 48, 48, 16], "type": "float",
                      "shape_range": [[1, -1]]}]},
]


def models_of(elements):
    ops = parse_singleop(json.dumps(elements), "x.json", soc_version="S")
    assert all(o.ok for o in ops), [o.errors for o in ops]
    return [o.model for o in ops]


def test_parse_generate_parse_round_trip():
    models = models_of(DOC_FILE)
    generated = generate_singleop_json(models)
    assert models_of(generated) == models
    assert generated[0] == {"compile_flag": 1} and sum("compile_flag" in e for e in generated) == 1


def test_generated_json_uses_ge_spelling_of_undefined():
    unused = generate_singleop_json(models_of(DOC_FILE))[1]["input_desc"][3]
    assert unused == {"format": "RESERVED", "shape": [], "type": "UNDEFINED"}


def test_generated_data_type_attr_and_const_value():
    generated = generate_singleop_json(models_of(DOC_FILE))
    attrs = {a["name"]: a["value"] for a in generated[1]["attr"]}
    assert attrs["dt"] == "DT_FLOAT16" and attrs["du"] == "DT_UNDEFINED" and attrs["lli"] == [[1, 3], [2]]
    assert generated[5]["input_desc"][1]["const_value"] == [49, 49]
    assert generated[5]["input_desc"][2] == {"format": "ND", "shape": [1], "type": "int64", "is_const": True}


def test_generated_json_is_json_serialisable():
    assert json.loads(json.dumps(generate_singleop_json(models_of(DOC_FILE))))


def _model(attrs=(), fuzzy=False, dtype=0):
    t = TensorSpec(dtype, 2, (2,), ((2, 2),), 2, (2,))
    return OpModel("Add", (t,), (t,), tuple(attrs), "S", fuzzy)


@pytest.mark.parametrize("models, text", [
    ([_model(fuzzy=True), _model()], "non-fuzzy model cannot follow"),
    ([_model([canonical_attr("f", "float", float("nan"))])], "NaN"),
    ([_model([canonical_attr("l", "list_data_type", [0])])], "list_data_type"),
    ([_model(dtype=13)], "no single-op JSON spelling"),
])
def test_models_json_cannot_express_are_rejected(models, text):
    with pytest.raises(ValueError, match=text):
        generate_singleop_json(models)
