"""Tensor descs, data buffers and op attributes (pyacl-api.md §4, §5) and their effect on model matching (§6.3)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from aclcts.drive import flow
from aclcts.core.constants import ACL_UNKNOWN_RANK, DataType, ErrorCode, Format, MemcpyKind, MemType

pytestmark = pytest.mark.descriptors

OK = ErrorCode.ACL_SUCCESS
INVALID_PARAM = ErrorCode.ACL_ERROR_INVALID_PARAM
OP_NOT_FOUND = ErrorCode.ACL_ERROR_OP_NOT_FOUND
FLOAT, INT32 = int(DataType.ACL_FLOAT), int(DataType.ACL_INT32)
ND = int(Format.ACL_FORMAT_ND)
H2H = int(MemcpyKind.ACL_MEMCPY_HOST_TO_HOST)

#: aclDataTypeSize per aclDataType (pyacl-api.md §11.1), including the quirks: FLOAT6/FLOAT4 fall
#: through to 8, and so does every unused value.
TYPE_SIZES = {
    -1: 0, 0: 4, 1: 2, 2: 1, 3: 4, 4: 1, 6: 2, 7: 2, 8: 4, 9: 8, 10: 8, 11: 8, 12: 1, 13: 0, 16: 8,
    17: 16, 27: 2, 29: 1, 30: 1, 33: 4, 34: 1, 35: 1, 36: 1, 37: 1, 38: 8, 39: 8, 40: 8, 41: 8, 42: 1,
}
UNUSED_TYPE_VALUES = [5, 14, 28, 99]


def type_id(value: int) -> str:
    """Test id of an aclDataType value."""
    try:
        return DataType(value).name
    except ValueError:
        return f"unused-{value}"


# ---------------------------------------------------------------- data types and sizes


@pytest.mark.parametrize("data_type", list(TYPE_SIZES), ids=[type_id(v) for v in TYPE_SIZES])
def test_data_type_size_and_tensor_desc_size_follow_the_documented_type_size(acl, res, data_type):
    assert acl.data_type_size(data_type) == TYPE_SIZES[data_type]
    desc = flow.create_desc(res, data_type, (2, 3), ND)
    assert acl.get_tensor_desc_type(desc) == data_type
    assert acl.get_tensor_desc_element_count(desc) == 6
    assert acl.get_tensor_desc_size(desc) == 6 * TYPE_SIZES[data_type]


@pytest.mark.parametrize("data_type", UNUSED_TYPE_VALUES, ids=[type_id(v) for v in UNUSED_TYPE_VALUES])
def test_data_type_size_of_an_unused_value_is_8(acl, data_type):
    assert acl.data_type_size(data_type) == 8


# ---------------------------------------------------------------- dims: static, scalar, empty, dynamic

#: dims → (num_dims, element count, byte size) of a float32 desc (pyacl-api.md §4).
SHAPES = [
    pytest.param([2, 3, 4, 5], 4, 120, 480, id="static-4d"),
    pytest.param([7], 1, 7, 28, id="static-1d"),
    pytest.param([], 0, 1, 4, id="scalar"),
    pytest.param([0], 1, 0, 0, id="empty-1d"),
    pytest.param([4, 0, 3], 3, 0, 0, id="empty-middle-dim"),
    pytest.param([-1, 3], 2, 0, 0, id="dynamic-first-dim"),
    pytest.param([3, -1, -1], 3, 0, 0, id="dynamic-two-dims"),
    pytest.param([-2], ACL_UNKNOWN_RANK, 0, 0, id="unknown-rank"),
]


@pytest.mark.parametrize("dims, num_dims, count, size", SHAPES)
def test_tensor_desc_dims_give_num_dims_element_count_and_size(acl, res, dims, num_dims, count, size):
    desc = flow.create_desc(res, FLOAT, tuple(dims), ND)
    assert acl.get_tensor_desc_num_dims(desc) == num_dims
    assert acl.get_tensor_desc_element_count(desc) == count
    assert acl.get_tensor_desc_size(desc) == size


def test_unknown_rank_num_dims_is_acl_unknown_rank_0xfffffffffffffffe(acl, res):
    desc = flow.create_desc(res, FLOAT, (-2,), ND)
    assert acl.get_tensor_desc_num_dims(desc) == 18446744073709551614


@pytest.mark.parametrize("fmt", [int(f) for f in (Format.ACL_FORMAT_ND, Format.ACL_FORMAT_NCHW, Format.ACL_FORMAT_NHWC,
                                                  Format.ACL_FORMAT_NC1HWC0, Format.ACL_FORMAT_FRACTAL_NZ,
                                                  Format.ACL_FORMAT_UNDEFINED)],
                         ids=lambda f: Format(f).name)
def test_tensor_desc_format_is_the_format_it_was_created_with(acl, res, fmt):
    desc = flow.create_desc(res, FLOAT, (2, 3), fmt)
    assert acl.get_tensor_desc_format(desc) == fmt


@pytest.mark.parametrize("index, expected", [(0, (4, OK)), (1, (-1, OK)), (2, (6, OK)),
                                             (3, (0, INVALID_PARAM)), (100, (0, INVALID_PARAM))],
                         ids=["dim0", "dynamic-dim1", "dim2", "index-equal-to-rank", "index-100"])
def test_get_tensor_desc_dim_v2_returns_dim_and_ret(acl, res, index, expected):
    desc = flow.create_desc(res, FLOAT, (4, -1, 6), ND)
    assert acl.get_tensor_desc_dim_v2(desc, index) == expected


@pytest.mark.parametrize("index, expected", [(0, 4), (2, 6), (3, -1)], ids=["dim0", "dim2", "out-of-range"])
def test_deprecated_get_tensor_desc_dim_gives_minus_1_out_of_range(acl, res, index, expected):
    desc = flow.create_desc(res, FLOAT, (4, 5, 6), ND)
    assert acl.get_tensor_desc_dim(desc, index) == expected


@pytest.mark.negative
@pytest.mark.parametrize("getter, expected", [
    pytest.param(lambda acl: acl.get_tensor_desc_type(0), -1, id="type"),
    pytest.param(lambda acl: acl.get_tensor_desc_format(0), -1, id="format"),
    pytest.param(lambda acl: acl.get_tensor_desc_num_dims(0), 0, id="num_dims"),
    pytest.param(lambda acl: acl.get_tensor_desc_dim_v2(0, 0), (0, INVALID_PARAM), id="dim_v2"),
    pytest.param(lambda acl: acl.get_tensor_desc_dim(0, 0), -1, id="dim"),
    pytest.param(lambda acl: acl.get_tensor_desc_name(0), "", id="name"),
])
def test_tensor_desc_getters_on_a_null_desc(acl, getter, expected):
    assert getter(acl) == expected


def test_storage_format_and_shape_do_not_change_the_origin_getters(acl, res):
    desc = flow.create_desc(res, FLOAT, (2, 3), ND)
    assert acl.set_tensor_format(desc, int(Format.ACL_FORMAT_FRACTAL_NZ)) == OK
    assert acl.set_tensor_shape(desc, [1, 1, 16, 16]) == OK
    assert acl.get_tensor_desc_format(desc) == ND
    assert [acl.get_tensor_desc_dim_v2(desc, i) for i in range(acl.get_tensor_desc_num_dims(desc))] == [(2, OK), (3, OK)]


def test_origin_format_and_shape_setters_change_the_getters(acl, res):
    desc = flow.create_desc(res, FLOAT, (2, 3), ND)
    assert acl.set_tensor_origin_format(desc, int(Format.ACL_FORMAT_NCHW)) == OK
    assert acl.set_tensor_origin_shape(desc, [1, 2, 3, 4]) == OK
    assert acl.get_tensor_desc_format(desc) == int(Format.ACL_FORMAT_NCHW)
    assert acl.get_tensor_desc_num_dims(desc) == 4
    assert acl.get_tensor_desc_size(desc) == 96


@pytest.mark.negative
@pytest.mark.parametrize("dims", [pytest.param((2, 3), id="tuple"), pytest.param([np.int64(2), 3], id="numpy-int"),
                                  pytest.param([2, None], id="None")])
def test_create_tensor_desc_dims_must_be_a_list_of_python_ints(acl, dims):
    with pytest.raises(TypeError):
        acl.create_tensor_desc(FLOAT, dims, ND)


# ---------------------------------------------------------------- shape ranges


@pytest.fixture
def ranged(acl: Any, res: flow.Resources) -> int:
    """A float32 [-1, 16, -1] desc with shape range [[1, 8], [16, 16], [2, -1]]."""
    desc = flow.create_desc(res, FLOAT, (-1, 16, -1), ND)
    flow.check(acl.set_tensor_shape_range(desc, [[1, 8], [16, 16], [2, -1]]), "acl.set_tensor_shape_range")
    return desc


@pytest.mark.parametrize("index, count, expected", [
    pytest.param(0, 2, [1, 8], id="dim0"),
    pytest.param(1, 2, [16, 16], id="static-dim1"),
    pytest.param(2, 2, [2, -1], id="unbounded-dim2"),
    pytest.param(0, 4, [1, 8, 0, 0], id="dim_range_num-4-pads-with-0"),
])
def test_get_tensor_desc_dim_range_returns_min_max_padded_to_dim_range_num(acl, ranged, index, count, expected):
    assert acl.get_tensor_desc_dim_range(ranged, index, count) == (expected, OK)


def test_get_tensor_desc_dim_range_accepts_dim_range_num_4096(acl, ranged):
    values, ret = acl.get_tensor_desc_dim_range(ranged, 0, 4096)
    assert ret == OK
    assert values == [1, 8] + [0] * 4094


@pytest.mark.negative
@pytest.mark.parametrize("index, count", [(3, 2), (0, 1), (0, 0), (0, 4097)],
                         ids=["index-without-range", "dim_range_num-1", "dim_range_num-0", "dim_range_num-4097"])
def test_get_tensor_desc_dim_range_errors_are_none_100000(acl, ranged, index, count):
    assert acl.get_tensor_desc_dim_range(ranged, index, count) == (None, INVALID_PARAM)


@pytest.mark.negative
def test_get_tensor_desc_dim_range_without_a_range_is_none_100000(acl, res):
    desc = flow.create_desc(res, FLOAT, (-1, 4), ND)
    assert acl.get_tensor_desc_dim_range(desc, 0, 2) == (None, INVALID_PARAM)


def test_set_tensor_shape_range_replaces_the_whole_list(acl, ranged):
    assert acl.set_tensor_shape_range(ranged, [[3, 4]]) == OK
    assert acl.get_tensor_desc_dim_range(ranged, 0, 2) == ([3, 4], OK)
    assert acl.get_tensor_desc_dim_range(ranged, 1, 2) == (None, INVALID_PARAM)


def test_set_tensor_shape_range_count_need_not_equal_the_rank(acl, res):
    desc = flow.create_desc(res, FLOAT, (-1, 4), ND)
    assert acl.set_tensor_shape_range(desc, [[1, 2], [4, 4], [5, 6], [7, 8]]) == OK
    assert acl.get_tensor_desc_dim_range(desc, 3, 2) == ([7, 8], OK)


@pytest.mark.negative
def test_set_tensor_shape_range_inner_tuples_are_a_type_error(acl, res):
    desc = flow.create_desc(res, FLOAT, (-1, 4), ND)
    with pytest.raises(TypeError):
        acl.set_tensor_shape_range(desc, [(1, 8), (4, 4)])


def test_set_tensor_value_range_takes_a_list_of_pairs(acl, res):
    desc = flow.create_desc(res, INT32, (2,), ND)
    assert acl.set_tensor_value_range(desc, [[0, 10], [1, 5]]) == OK


# ---------------------------------------------------------------- names, const data, placement


def test_tensor_desc_name_is_empty_until_set_and_then_the_last_one_set(acl, res):
    desc = flow.create_desc(res, FLOAT, (2,), ND)
    assert acl.get_tensor_desc_name(desc) == ""
    assert acl.set_tensor_desc_name(desc, "x1") is None
    assert acl.get_tensor_desc_name(desc) == "x1"
    acl.set_tensor_desc_name(desc, "x2")
    assert acl.get_tensor_desc_name(desc) == "x2"


def test_set_tensor_const_returns_0(acl, res):
    desc = flow.create_desc(res, INT32, (4,), ND)
    data = np.arange(4, dtype=np.int32).tobytes()
    assert acl.set_tensor_const(desc, acl.util.bytes_to_ptr(data), len(data)) == OK


@pytest.mark.negative
@pytest.mark.parametrize("null_pointer, length", [(False, 0), (True, 16)], ids=["length-0", "null-pointer"])
def test_set_tensor_const_without_data_is_100000(acl, res, null_pointer, length):
    desc = flow.create_desc(res, INT32, (4,), ND)
    data = bytes(16)
    pointer = 0 if null_pointer else acl.util.bytes_to_ptr(data)
    assert acl.set_tensor_const(desc, pointer, length) == INVALID_PARAM


@pytest.mark.parametrize("mem_type", [int(m) for m in MemType], ids=[m.name for m in MemType])
def test_set_tensor_place_ment_returns_0_for_every_mem_type(acl, res, mem_type):
    desc = flow.create_desc(res, FLOAT, (2,), ND)
    assert acl.set_tensor_place_ment(desc, mem_type) == OK


# ---------------------------------------------------------------- data buffers


def test_data_buffer_getters_return_what_it_was_created_with(acl, res):
    ptr = flow.malloc(res, 256)
    buf = flow.create_buffer(res, ptr, 200)
    assert acl.get_data_buffer_addr(buf) == ptr
    assert acl.get_data_buffer_size_v2(buf) == 200
    assert acl.get_data_buffer_size(buf) == 200


def test_empty_data_buffer_0_0_is_created(acl, res):
    buf = flow.create_buffer(res, 0, 0)
    assert (acl.get_data_buffer_addr(buf), acl.get_data_buffer_size_v2(buf)) == (0, 0)


def test_deprecated_get_data_buffer_size_truncates_to_32_bits(acl, res):
    ptr = flow.malloc(res, 64)
    buf = flow.create_buffer(res, ptr, (1 << 32) + 5)
    assert acl.get_data_buffer_size_v2(buf) == (1 << 32) + 5
    assert acl.get_data_buffer_size(buf) == 5


def test_update_data_buffer_replaces_pointer_and_size(acl, res):
    first, second = flow.malloc(res, 128), flow.malloc(res, 256)
    buf = flow.create_buffer(res, first, 128)
    assert acl.update_data_buffer(buf, second, 256) == OK
    assert (acl.get_data_buffer_addr(buf), acl.get_data_buffer_size_v2(buf)) == (second, 256)


@pytest.mark.negative
@pytest.mark.parametrize("call, expected", [
    pytest.param(lambda acl: acl.update_data_buffer(0, 0, 0), INVALID_PARAM, id="update_data_buffer"),
    pytest.param(lambda acl: acl.destroy_data_buffer(0), INVALID_PARAM, id="destroy_data_buffer"),
    pytest.param(lambda acl: acl.get_data_buffer_addr(0), 0, id="get_data_buffer_addr"),
    pytest.param(lambda acl: acl.get_data_buffer_size_v2(0), 0, id="get_data_buffer_size_v2"),
])
def test_data_buffer_calls_on_a_null_buffer(acl, call, expected):
    assert call(acl) == expected


# ---------------------------------------------------------------- attribute setters

#: setter → a valid value; set_attr_data_type and set_attr_list_data_type return (attr, ret).
SETTERS = {
    "set_attr_bool": True, "set_attr_int": 7, "set_attr_float": 0.5, "set_attr_string": "NCHW",
    "set_attr_list_bool": [True, False], "set_attr_list_int": [1, 2, 3], "set_attr_list_float": [0.5, 1.5],
    "set_attr_list_string": ["a", "b"], "set_attr_list_list_int": [[1, 2], [3]],
    "set_attr_data_type": int(DataType.ACL_FLOAT16), "set_attr_list_data_type": [0, 1],
}
TUPLE_RETURNING = ("set_attr_data_type", "set_attr_list_data_type")


@pytest.fixture
def attr(acl: Any, res: flow.Resources) -> int:
    """A fresh attribute object."""
    handle = acl.op.create_attr()
    res.attrs.append(handle)
    return handle


@pytest.mark.parametrize("setter", list(SETTERS))
def test_set_attr_returns_its_documented_form(acl, attr, setter):
    result = getattr(acl.op, setter)(attr, "name", SETTERS[setter])
    assert result == ((attr, OK) if setter in TUPLE_RETURNING else OK)


@pytest.mark.negative
@pytest.mark.parametrize("setter", list(SETTERS))
def test_set_attr_on_a_null_attr_is_100000(acl, setter):
    result = getattr(acl.op, setter)(0, "name", SETTERS[setter])
    ret = result[-1] if setter in TUPLE_RETURNING else result
    assert ret == INVALID_PARAM


@pytest.mark.negative
@pytest.mark.parametrize("setter, value, error", [
    pytest.param("set_attr_list_float", [1, 2], ValueError, id="list_float-of-ints"),
    pytest.param("set_attr_list_bool", [True, "x"], ValueError, id="list_bool-with-a-str"),
    pytest.param("set_attr_list_string", ["a", 1], RuntimeError, id="list_string-with-an-int"),
    pytest.param("set_attr_list_string", ("a", "b"), TypeError, id="list_string-tuple"),
    pytest.param("set_attr_list_list_int", [[1, 2], ["x"]], ValueError, id="list_list_int-bad-inner"),
    pytest.param("set_attr_list_data_type", (0, 1), TypeError, id="list_data_type-tuple"),
])
def test_set_attr_list_bad_values_raise_the_documented_exception(acl, attr, setter, value, error):
    with pytest.raises(error):
        getattr(acl.op, setter)(attr, "name", value)


@pytest.mark.parametrize("setter, array", [
    pytest.param("set_attr_list_int", np.array([1, 2], np.int64), id="list_int-int64"),
    pytest.param("set_attr_list_bool", np.array([1, 0], np.uint8), id="list_bool-uint8"),
    pytest.param("set_attr_list_float", np.array([0.5, 1.5], np.float32), id="list_float-float32"),
])
def test_set_attr_list_numpy_array_is_accepted_with_a_deprecation_warning(acl, attr, setter, array):
    with pytest.warns(Warning):
        assert getattr(acl.op, setter)(attr, "name", array) == OK


def test_create_attr_ignores_its_arguments(acl, res):
    handle = acl.op.create_attr(1, "x")
    res.attrs.append(handle)
    assert handle != 0


# ---------------------------------------------------------------- attributes and const data in model matching


def execute_add(acl: Any, stream: int, shape: tuple[int, ...], attr: int, x2_mode: str = "device",
                x2: np.ndarray | None = None) -> tuple[int, bool | None]:
    """execute_v2 of Add on int32 tensors; the code and whether y == x1 + x2 (None if nothing ran).

    x2_mode: "device" (a device buffer), "const" (set_tensor_const from host memory that is zeroed right
    after the call, with the empty buffer), or "host" (placement ACL_MEMTYPE_HOST, buffer in host memory).
    """
    count = int(np.prod(shape))
    x1 = np.arange(count, dtype=np.int32).reshape(shape) * 3 - 5
    x2 = np.arange(count, dtype=np.int32).reshape(shape) if x2 is None else x2
    n = x1.nbytes
    with flow.resources(acl) as res:
        d1, d2, dy = (flow.create_desc(res, INT32, shape, ND) for _ in range(3))
        p1, py = flow.malloc(res, n), flow.malloc(res, n)
        flow.copy_to_device(acl, p1, x1)
        if x2_mode == "device":
            p2 = flow.malloc(res, n)
            flow.copy_to_device(acl, p2, x2)
            b2 = flow.create_buffer(res, p2, n)
        else:
            host = flow.malloc_host(res, n)
            payload = x2.tobytes()
            flow.check(acl.rt.memcpy(host, n, acl.util.bytes_to_ptr(payload), n, H2H), "acl.rt.memcpy H2H")
            if x2_mode == "const":
                flow.check(acl.set_tensor_const(d2, host, n), "acl.set_tensor_const")
                flow.check(acl.rt.memset(host, n, 0, n), "acl.rt.memset")
                b2 = flow.create_buffer(res, 0, 0)
            else:
                flow.check(acl.set_tensor_place_ment(d2, int(MemType.ACL_MEMTYPE_HOST)), "acl.set_tensor_place_ment")
                b2 = flow.create_buffer(res, host, n)
        bufs = [flow.create_buffer(res, p1, n), b2, flow.create_buffer(res, py, n)]
        ret = acl.op.execute_v2("Add", [d1, d2], bufs[:2], [dy], bufs[2:], attr, stream)
        if ret != OK:
            return ret, None
        flow.check(acl.rt.synchronize_stream(stream), "acl.rt.synchronize_stream")
        got = flow.array_from(flow.copy_to_host(res, py, n), INT32, shape)
        return ret, bool(np.array_equal(got, x1 + x2))


def set_attrs(acl: Any, attr: int, settings: list[tuple[str, str, Any]]) -> None:
    """Call acl.op.<setter>(attr, name, value) for each (setter, name, value)."""
    for setter, name, value in settings:
        result = getattr(acl.op, setter)(attr, name, value)
        flow.check(result[-1] if isinstance(result, tuple) else result, f"acl.op.{setter}({name!r})")


LIBRARY_ADD = (8, 16)


def test_a_model_without_attrs_matches_attr_0_and_an_empty_attr(acl, stream, attr):
    assert execute_add(acl, stream, LIBRARY_ADD, 0) == (OK, True)
    assert execute_add(acl, stream, LIBRARY_ADD, attr) == (OK, True)


@pytest.mark.negative
def test_an_attr_the_compiled_model_lacks_is_100024(acl, stream, attr):
    set_attrs(acl, attr, [("set_attr_bool", "unexpected", True)])
    assert execute_add(acl, stream, LIBRARY_ADD, attr) == (OP_NOT_FOUND, None)


#: attribute type → (JSON value compiled into a model, setter, value that matches it, value that does not).
ATTR_TYPES = {
    "bool": (True, "set_attr_bool", True, False),
    "int": (7, "set_attr_int", 7, 8),
    "float": (0.1, "set_attr_float", 0.1, 0.2),
    "string": ("NCHW", "set_attr_string", "NCHW", "NHWC"),
    "list_bool": ([True, False], "set_attr_list_bool", [True, False], [True, True]),
    "list_int": ([1, 2, 3], "set_attr_list_int", [1, 2, 3], [1, 2]),
    "list_float": ([0.5, 1.5], "set_attr_list_float", [0.5, 1.5], [0.5, 2.5]),
    "list_string": (["a", "b"], "set_attr_list_string", ["a", "b"], ["b", "a"]),
    "list_list_int": ([[1, 2], [3]], "set_attr_list_list_int", [[1, 2], [3]], [[1, 2], [4]]),
    "data_type": ("DT_FLOAT16", "set_attr_data_type", int(DataType.ACL_FLOAT16), int(DataType.ACL_FLOAT)),
}
#: Each attribute-type model: Add int32 of a shape of its own.
ATTR_SHAPES = {kind: (2, 41 + i) for i, kind in enumerate(ATTR_TYPES)}
PAIR_SHAPE = (2, 61)
CONST_SHAPE = (3, 43)
CONST_VALUES = np.arange(3 * 43, dtype=np.int32).reshape(CONST_SHAPE) * 2 + 1


def add_json(name: str, shape: tuple[int, ...], attrs: list[dict], const: np.ndarray | None = None) -> dict:
    """A single-op JSON element for Add int32; x2 compiled as a constant when const is given."""
    tensor = {"format": "ND", "shape": list(shape), "type": "int32"}
    x2 = tensor if const is None else {**tensor, "is_const": True, "const_value": const.ravel().tolist()}
    return {"op": "Add", "name": name, "input_desc": [tensor, x2], "output_desc": [tensor], "attr": attrs}


@pytest.fixture(scope="module")
def matching_models(compile_ops: Callable, session: flow.Session) -> None:
    """Load (acl.op.load) the Add models of the matching tests: one per attribute type, a pair and a const one."""
    ops = [add_json(f"attr_{kind}", ATTR_SHAPES[kind], [{"name": f"a_{kind}", "type": kind, "value": value[0]}])
           for kind, value in ATTR_TYPES.items()]
    ops.append(add_json("attr_pair", PAIR_SHAPE, [{"name": "flag", "type": "bool", "value": True},
                                                  {"name": "count", "type": "int", "value": 3}]))
    ops.append(add_json("const_x2", CONST_SHAPE, [], CONST_VALUES))
    for name, image in compile_ops(ops).items():
        flow.check(session.acl.op.load(session.acl.util.bytes_to_ptr(image), len(image)), f"acl.op.load({name})")


@pytest.mark.usefixtures("matching_models")
@pytest.mark.parametrize("kind", list(ATTR_TYPES))
def test_an_attr_equal_to_the_compiled_one_matches(acl, stream, attr, kind):
    _, setter, same, _ = ATTR_TYPES[kind]
    set_attrs(acl, attr, [(setter, f"a_{kind}", same)])
    assert execute_add(acl, stream, ATTR_SHAPES[kind], attr) == (OK, True)


@pytest.mark.negative
@pytest.mark.usefixtures("matching_models")
@pytest.mark.parametrize("kind", list(ATTR_TYPES))
def test_an_attr_value_differing_from_the_compiled_one_is_100024(acl, stream, attr, kind):
    _, setter, _, other = ATTR_TYPES[kind]
    set_attrs(acl, attr, [(setter, f"a_{kind}", other)])
    assert execute_add(acl, stream, ATTR_SHAPES[kind], attr) == (OP_NOT_FOUND, None)


#: Attribute settings against the model compiled with flag=true (bool) and count=3 (int).
PAIR_CASES = [
    pytest.param([("set_attr_bool", "flag", True), ("set_attr_int", "count", 3)], OK, id="equal"),
    pytest.param([("set_attr_int", "count", 3), ("set_attr_bool", "flag", True)], OK, id="set-in-other-order"),
    pytest.param([("set_attr_bool", "flag", False), ("set_attr_int", "count", 3), ("set_attr_bool", "flag", True)],
                 OK, id="setting-twice-overwrites"),
    pytest.param([("set_attr_bool", "flag", True)], OP_NOT_FOUND, id="one-missing"),
    pytest.param([], OP_NOT_FOUND, id="empty-attr"),
    pytest.param([("set_attr_bool", "flag", True), ("set_attr_int", "count", 4)], OP_NOT_FOUND, id="other-value"),
    pytest.param([("set_attr_bool", "flag", True), ("set_attr_int", "count", 3), ("set_attr_int", "extra", 0)],
                 OP_NOT_FOUND, id="one-extra"),
    pytest.param([("set_attr_bool", "flag", True), ("set_attr_float", "count", 3.0)], OP_NOT_FOUND,
                 id="count-as-float"),
    pytest.param([("set_attr_int", "flag", 1), ("set_attr_int", "count", 3)], OP_NOT_FOUND, id="flag-as-int"),
    pytest.param([("set_attr_bool", "Flag", True), ("set_attr_int", "count", 3)], OP_NOT_FOUND,
                 id="name-case-differs"),
]


@pytest.mark.usefixtures("matching_models")
@pytest.mark.parametrize("settings, expected", PAIR_CASES)
def test_the_whole_attr_set_names_types_and_values_must_equal_the_compiled_one(acl, stream, attr, settings,
                                                                               expected):
    set_attrs(acl, attr, settings)
    assert execute_add(acl, stream, PAIR_SHAPE, attr)[0] == expected


@pytest.mark.negative
@pytest.mark.usefixtures("matching_models")
def test_null_attr_does_not_match_a_model_with_attrs(acl, stream):
    assert execute_add(acl, stream, PAIR_SHAPE, 0) == (OP_NOT_FOUND, None)


@pytest.mark.usefixtures("matching_models")
def test_set_tensor_const_copies_the_data_at_call_time(acl, stream, attr):
    assert execute_add(acl, stream, CONST_SHAPE, attr, "const", CONST_VALUES) == (OK, True)


@pytest.mark.negative
@pytest.mark.usefixtures("matching_models")
def test_const_data_differing_from_the_compiled_one_is_100024(acl, stream, attr):
    assert execute_add(acl, stream, CONST_SHAPE, attr, "const", CONST_VALUES + 1) == (OP_NOT_FOUND, None)


@pytest.mark.negative
@pytest.mark.usefixtures("matching_models")
def test_a_plain_device_input_does_not_match_a_const_input(acl, stream, attr):
    assert execute_add(acl, stream, CONST_SHAPE, attr, "device", CONST_VALUES) == (OP_NOT_FOUND, None)


@pytest.mark.usefixtures("matching_models")
def test_a_host_placed_input_matches_a_const_input_holding_the_same_data(acl, stream, attr):
    assert execute_add(acl, stream, CONST_SHAPE, attr, "host", CONST_VALUES) == (OK, True)
