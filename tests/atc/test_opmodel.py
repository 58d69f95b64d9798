"""aclcts.core.opmodel: attribute canonicalisation and keys, the .om file format and file names
(docs/contract/single-op-json.md#model-file-names)."""

import math
import struct

import pytest

from aclcts.core.opmodel import (Attr, ModelFormatError, OpModel, TensorSpec, attrs_key, canonical_attr,
                            model_file_name)

ND, INT32, FLOAT16 = 2, 3, 1


def tensor(shape, dtype=INT32, fmt=ND, ranges=None, **kw):
    shape = tuple(shape)
    rng = tuple(ranges) if ranges is not None else tuple((d, d) for d in shape)
    return TensorSpec(dtype, fmt, shape, rng, fmt, shape, **kw)


def add_model(shape=(3, 3), attrs=()):
    t = tensor(shape)
    return OpModel("Add", (t, t), (t,), tuple(attrs), "Ascend310")


# --- canonical_attr -------------------------------------------------------------------------

@pytest.mark.parametrize("type_, value, expected", [
    ("bool", False, False),
    ("int", 10, 10),
    ("float", 1.0, 1.0),
    ("float", 0.1, 0.10000000149011612),          # rounded to float32
    ("float", 3, 3.0),
    ("string", "NCHW", "NCHW"),
    ("list_bool", [False, True], (False, True)),
    ("list_int", [1, 224, 224, 3], (1, 224, 224, 3)),
    ("list_float", [1.0, 0.0], (1.0, 0.0)),
    ("list_string", ["str1", "str2"], ("str1", "str2")),
    ("list_list_int", [[1, 3, 5, 7], [2, 4, 6, 8]], ((1, 3, 5, 7), (2, 4, 6, 8))),
    ("data_type", 0, 0),
    ("data_type", -1, -1),
    ("list_data_type", [0, 1], (0, 1)),
])
def test_canonical_attr_accepts_doc_examples(type_, value, expected):
    attr = canonical_attr("a", type_, value)
    assert attr.value == expected and type(attr.value) is type(expected)


@pytest.mark.parametrize("type_, value", [
    ("bool", 1), ("int", True), ("int", 1.5), ("int", 2 ** 63), ("float", "1"), ("float", True),
    ("string", 3), ("list_int", 3), ("list_int", [1, "2"]), ("list_bool", [0]),
    ("list_list_int", [1, 2]), ("data_type", 14), ("data_type", "DT_FLOAT"), ("nonsense", 1),
])
def test_canonical_attr_rejects_bad_values_with_the_attr_named(type_, value):
    with pytest.raises(ValueError, match='"alpha"'):
        canonical_attr("alpha", type_, value)


def test_canonical_attr_rejects_empty_name():
    with pytest.raises(ValueError, match="name"):
        canonical_attr("", "int", 1)


# --- attrs_key ------------------------------------------------------------------------------

def test_attrs_key_is_order_independent():
    a, b = canonical_attr("transpose_a", "bool", False), canonical_attr("alpha", "float", 2.0)
    assert attrs_key([a, b]) == attrs_key([b, a])


def test_attrs_key_differs_on_value_type_and_name():
    base = attrs_key([canonical_attr("x", "int", 1)])
    assert base != attrs_key([canonical_attr("x", "int", 2)])
    assert base != attrs_key([canonical_attr("x", "float", 1.0)])
    assert base != attrs_key([canonical_attr("y", "int", 1)])
    assert base != attrs_key([canonical_attr("x", "list_int", [1])])
    assert base != attrs_key([])


def test_attrs_key_compares_floats_by_float32_bits():
    nan1, nan2 = canonical_attr("f", "float", float("nan")), canonical_attr("f", "float", math.nan)
    assert attrs_key([nan1]) == attrs_key([nan2])
    assert attrs_key([canonical_attr("f", "float", 0.0)]) != attrs_key([canonical_attr("f", "float", -0.0)])
    # 0.1 and its float32 rounding are the same attribute; the next float32 up is not
    assert attrs_key([canonical_attr("f", "float", 0.1)]) == attrs_key([canonical_attr("f", "float", 0.10000000149)])
    assert attrs_key([canonical_attr("f", "float", 0.1)]) != attrs_key([canonical_attr("f", "float", 0.10000001)])
    assert (attrs_key([canonical_attr("l", "list_float", [math.nan, -0.0])])
            == attrs_key([canonical_attr("l", "list_float", [float("nan"), -0.0])]))


def test_attr_equality_follows_attrs_key():
    assert canonical_attr("f", "float", math.nan) == canonical_attr("f", "float", math.nan)
    assert canonical_attr("f", "float", 0.0) != canonical_attr("f", "float", -0.0)
    assert hash(canonical_attr("f", "float", math.nan)) == hash(canonical_attr("f", "float", math.nan))


# --- TensorSpec / OpModel -------------------------------------------------------------------

def test_is_dynamic():
    assert not add_model().is_dynamic
    assert tensor((-1, 16), ranges=((0, 32), (16, 16))).is_dynamic
    assert tensor((-2,), ranges=()).is_dynamic
    assert not tensor(()).is_dynamic
    dyn = tensor((-1,), ranges=((1, -1),))
    assert OpModel("Where", (tensor((4,)),), (dyn,), (), "x").is_dynamic


def test_to_bytes_round_trip_keeps_every_field():
    const = tensor((3, 3), dtype=FLOAT16, is_const=True, const_data=bytes(range(18)), name="x1")
    optional = TensorSpec(-1, -1, (), (), -1, (), name="bias")
    dyn = tensor((-1, 16), ranges=((0, 32), (16, 16)))
    attrs = (canonical_attr("alpha", "float", math.nan), canonical_attr("b", "list_float", [-0.0, math.inf]),
             canonical_attr("s", "list_list_int", [[1], [2, 3]]), canonical_attr("d", "data_type", -1),
             canonical_attr("n", "string", "名字"))
    model = OpModel("MatMulV2", (const, optional, dyn), (tensor((-2,), ranges=()),), attrs, "Ascend910B", fuzzy=True)
    again = OpModel.from_bytes(model.to_bytes())
    assert again == model
    assert math.isnan(again.attrs[0].value) and math.copysign(1, again.attrs[1].value[0]) == -1
    assert again.inputs[0].const_data == bytes(range(18)) and again.inputs[1].const_data is None


def test_to_bytes_starts_with_a_simulator_header_and_is_deterministic():
    data = add_model().to_bytes()
    assert data.startswith(b"ACLCTSOM") and data == add_model().to_bytes()
    assert data != add_model((4, 4)).to_bytes()


@pytest.mark.parametrize("data", [b"", b"garbage", b"\x00" * 300, b"PK\x03\x04" + b"\x00" * 100])
def test_from_bytes_garbage_is_deserialize_error(data):
    with pytest.raises(ModelFormatError) as info:
        OpModel.from_bytes(data)
    assert info.value.code == 100012 and info.value.reason


def test_from_bytes_real_ascend_om_is_parse_error():
    # GE ModelFileHeader: uint32 magic 0x444F4D49, uint32 headsize 256, uint32 version ...
    header = struct.pack("<III", 0x444F4D49, 256, 0x10000000).ljust(256, b"\x00")
    with pytest.raises(ModelFormatError) as info:
        OpModel.from_bytes(header + b"\x01" * 64)
    assert info.value.code == 100013
    assert "real Ascend .om" in info.value.reason and "aclcts atc" in info.value.reason


@pytest.mark.parametrize("cut", [3, 10, 19, 20, 40, -1])
def test_from_bytes_truncated_is_deserialize_error(cut):
    with pytest.raises(ModelFormatError) as info:
        OpModel.from_bytes(add_model().to_bytes()[:cut])
    assert info.value.code == 100012


def _with_body(body: bytes, version=1) -> bytes:
    return struct.pack("<8sIQ", b"ACLCTSOM", version, len(body)) + body


def test_from_bytes_unsupported_version_is_parse_error():
    data = add_model().to_bytes()
    with pytest.raises(ModelFormatError) as info:
        OpModel.from_bytes(_with_body(data[20:], version=99))
    assert info.value.code == 100013 and "version 99" in info.value.reason


@pytest.mark.parametrize("body", [b"{not json", b"[1, 2]", b'\xff\xfe',
                                  b'{"op_type": 5, "soc_version": "", "fuzzy": false, "inputs": [], '
                                  b'"outputs": [], "attrs": []}',
                                  b'{"op_type": "Add", "soc_version": "", "fuzzy": false, "inputs": [], '
                                  b'"outputs": [], "attrs": [{"name": "a", "type": "int", "value": "x"}]}'])
def test_from_bytes_bad_body_is_parse_error(body):
    with pytest.raises(ModelFormatError) as info:
        OpModel.from_bytes(_with_body(body))
    assert info.value.code == 100013


def test_from_bytes_missing_key_is_missing_attr():
    body = b'{"soc_version": "", "fuzzy": false, "inputs": [], "outputs": [], "attrs": []}'
    with pytest.raises(ModelFormatError) as info:
        OpModel.from_bytes(_with_body(body))
    assert info.value.code == 100016 and "op_type" in info.value.reason


# --- model_file_name (single-op-json.md#model-file-names) -----------------------------------

def test_file_name_doc_example():
    assert model_file_name(0, add_model(), None) == "0_Add_3_2_3_3_3_2_3_3_3_2_3_3.om"


def test_file_name_ge_test_dynamic_dims():
    t = tensor((-1, -1), ranges=((1, 8), (1, 8)))
    model = OpModel("Add", (t, t), (t,), (), "x")
    assert model_file_name(0, model, None) == "0_Add_3_2_-1_-1_3_2_-1_-1_3_2_-1_-1.om"


def test_file_name_gemm_sample_scalars_add_no_dims():
    m, s = tensor((16, 16), dtype=FLOAT16), tensor((), dtype=FLOAT16)
    model = OpModel("GEMM", (m, m, m, s, s), (m,), (), "Ascend310")
    assert model_file_name(0, model, None) == "0_GEMM_1_2_16_16_1_2_16_16_1_2_16_16_1_2_1_2_1_2_16_16.om"


def test_file_name_uses_ge_numbers_for_undefined():
    x = tensor((16, 16), dtype=0)
    unused = TensorSpec(-1, -1, (), (), -1, ())
    model = OpModel("MatMulV2", (x, x, unused), (x,), (), "x")
    assert model_file_name(4, model, "") == "4_MatMulV2_0_2_16_16_0_2_16_16_28_40_0_2_16_16.om"


def test_file_name_cut_at_128_characters():
    t = tensor((1,) * 60)
    name = model_file_name(7, OpModel("Add", (t, t), (t,), (), "x"), None)
    assert len(name) == 128 + 3 and name.endswith(".om") and name.startswith("7_Add_3_2_1_1")


@pytest.mark.parametrize("name, expected", [
    ("add", "add.om"),
    ("FileName.om", "FileName.om.om"),
    ("a-b_c.D9", "a-b_c.D9.om"),
    ("x" * 200, "x" * 128 + ".om"),
])
def test_file_name_from_valid_name(name, expected):
    assert model_file_name(0, add_model(), name) == expected


@pytest.mark.parametrize("name", [None, "", ".", "..", "my#op", "a/b", "a b", "名"])
def test_file_name_generated_for_missing_or_invalid_name(name):
    assert model_file_name(2, add_model(), name) == "2_Add_3_2_3_3_3_2_3_3_3_2_3_3.om"


def test_attr_is_frozen():
    with pytest.raises(AttributeError):
        Attr("a", "int", 1).value = 2
