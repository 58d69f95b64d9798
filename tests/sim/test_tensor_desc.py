"""Tensor descriptors (pyacl-api.md §4 desc part, §11.1 sizes, §13)."""

import ctypes
import json
import math

import numpy as np
import pytest

import aclcts.sim
from aclcts.atc import compile_singleop
from aclcts.core.constants import ACL_UNKNOWN_RANK, DataType, Format

ND = int(Format.ACL_FORMAT_ND)

#: aclDataTypeSize per §11.1, written out from the document.
DOCUMENTED_SIZES = [
    ("ACL_DT_UNDEFINED", -1, 0),
    ("ACL_FLOAT", 0, 4),
    ("ACL_FLOAT16", 1, 2),
    ("ACL_INT8", 2, 1),
    ("ACL_INT32", 3, 4),
    ("ACL_UINT8", 4, 1),
    ("ACL_INT16", 6, 2),
    ("ACL_UINT16", 7, 2),
    ("ACL_UINT32", 8, 4),
    ("ACL_INT64", 9, 8),
    ("ACL_UINT64", 10, 8),
    ("ACL_DOUBLE", 11, 8),
    ("ACL_BOOL", 12, 1),
    ("ACL_STRING", 13, 0),
    ("ACL_COMPLEX64", 16, 8),
    ("ACL_COMPLEX128", 17, 16),
    ("ACL_BF16", 27, 2),
    ("ACL_INT4", 29, 1),
    ("ACL_UINT1", 30, 1),
    ("ACL_COMPLEX32", 33, 4),
    ("ACL_HIFLOAT8", 34, 1),
    ("ACL_FLOAT8_E5M2", 35, 1),
    ("ACL_FLOAT8_E4M3FN", 36, 1),
    ("ACL_FLOAT8_E8M0", 37, 1),
    ("ACL_FLOAT6_E3M2", 38, 8),
    ("ACL_FLOAT6_E2M3", 39, 8),
    ("ACL_FLOAT4_E2M1", 40, 8),
    ("ACL_FLOAT4_E1M2", 41, 8),
    ("ACL_HIFLOAT4", 42, 1),
]
UNUSED_VALUES = [5, 14, 15, 18, 26, 28, 31, 32, 43, 1000]

SIZE_CASES = [pytest.param(value, size, id=f"{name.lower()}_size_is_{size}") for name, value, size in DOCUMENTED_SIZES] + [
    pytest.param(value, 8, id=f"unknown_data_type_{value}_size_falls_through_to_8") for value in UNUSED_VALUES
]


def test_documented_size_table_covers_every_data_type():
    assert {name for name, _, _ in DOCUMENTED_SIZES} == {member.name for member in DataType}


@pytest.mark.parametrize(("data_type", "size"), SIZE_CASES)
def test_data_type_size(acl, data_type, size):
    assert acl.data_type_size(data_type) == size


@pytest.mark.parametrize(("data_type", "size"), SIZE_CASES)
def test_desc_size_is_element_count_times_type_size(acl, data_type, size):
    desc = acl.create_tensor_desc(data_type, [2, 3, 5], ND)
    assert acl.get_tensor_desc_element_count(desc) == 30
    assert acl.get_tensor_desc_size(desc) == 30 * size


@pytest.mark.parametrize(("data_type", "size"), SIZE_CASES)
def test_scalar_desc_size_is_type_size(acl, data_type, size):
    desc = acl.create_tensor_desc(data_type, [], ND)
    assert acl.get_tensor_desc_element_count(desc) == 1
    assert acl.get_tensor_desc_size(desc) == size


@pytest.mark.parametrize(
    ("dims", "num_dims", "element_count", "size"),
    [
        pytest.param([2, 3], 2, 6, 24, id="static_2x3"),
        pytest.param([], 0, 1, 4, id="scalar_empty_dims_count_1"),
        pytest.param([7], 1, 7, 28, id="vector_7"),
        pytest.param([2, 0, 3], 3, 0, 0, id="zero_dim_is_empty_tensor"),
        pytest.param([0], 1, 0, 0, id="single_zero_dim_is_empty_tensor"),
        pytest.param([2, -1], 2, 0, 0, id="unknown_dim_minus1_count_0_size_0"),
        pytest.param([-1, -1, -1], 3, 0, 0, id="all_unknown_dims_count_0_size_0"),
        pytest.param([-2], ACL_UNKNOWN_RANK, 0, 0, id="unknown_rank_num_dims_is_acl_unknown_rank"),
        pytest.param([1, 1, 1, 1, 1, 1, 1, 1], 8, 1, 4, id="rank_8_ones"),
    ],
)
def test_create_tensor_desc_shape_queries(acl, dims, num_dims, element_count, size):
    desc = acl.create_tensor_desc(0, dims, ND)
    assert type(desc) is int and desc != 0
    assert type(acl.get_tensor_desc_num_dims(desc)) is int
    assert acl.get_tensor_desc_num_dims(desc) == num_dims
    assert acl.get_tensor_desc_element_count(desc) == element_count
    assert acl.get_tensor_desc_size(desc) == size


def test_unknown_rank_num_dims_is_18446744073709551614(acl):
    assert acl.get_tensor_desc_num_dims(acl.create_tensor_desc(0, [-2], ND)) == 18446744073709551614


@pytest.mark.parametrize(
    ("data_type", "fmt"),
    [
        pytest.param(0, 0, id="float_nchw"),
        pytest.param(1, 1, id="float16_nhwc"),
        pytest.param(27, 2, id="bf16_nd"),
        pytest.param(3, 29, id="int32_fractal_nz"),
        pytest.param(-1, -1, id="undefined_undefined_optional_input_marker"),
        pytest.param(36, 47, id="float8_e4m3fn_ncl"),
    ],
)
def test_create_tensor_desc_type_and_format_round_trip(acl, data_type, fmt):
    desc = acl.create_tensor_desc(data_type, [4, 4], fmt)
    assert acl.get_tensor_desc_type(desc) == data_type
    assert acl.get_tensor_desc_format(desc) == fmt


def test_create_tensor_desc_handles_are_distinct(acl):
    first = acl.create_tensor_desc(0, [1], ND)
    second = acl.create_tensor_desc(0, [1], ND)
    assert first != second and 0 not in (first, second)


def test_create_tensor_desc_large_dims_product(acl):
    desc = acl.create_tensor_desc(0, [1 << 20, 1 << 10], ND)
    assert acl.get_tensor_desc_element_count(desc) == 1 << 30
    assert acl.get_tensor_desc_size(desc) == 4 << 30


@pytest.mark.parametrize(
    ("dims", "message"),
    [
        pytest.param((2, 3), "argument 2 is not list", id="tuple_dims_argument_2_is_not_list"),
        pytest.param(np.array([2, 3]), "argument 2 is not list", id="ndarray_dims_argument_2_is_not_list"),
        pytest.param([np.int64(2)], "invalid data type", id="numpy_int64_dim_invalid_data_type"),
        pytest.param([2, np.int32(3)], "invalid data type", id="numpy_int32_dim_invalid_data_type"),
        pytest.param([None], "invalid data type", id="none_dim_invalid_data_type"),
        pytest.param([2.0], "invalid data type", id="float_dim_invalid_data_type"),
        pytest.param(["2"], "invalid data type", id="str_dim_invalid_data_type"),
    ],
)
def test_create_tensor_desc_dims_type_errors(acl, dims, message):
    with pytest.raises(TypeError) as raised:
        acl.create_tensor_desc(0, dims, ND)
    assert type(raised.value) is TypeError
    assert str(raised.value) == message


@pytest.mark.parametrize(
    ("index", "expected"),
    [
        pytest.param(0, 4, id="dim_0_is_4"),
        pytest.param(1, -1, id="dim_1_dynamic_is_minus1"),
        pytest.param(2, 6, id="dim_2_is_6"),
        pytest.param(3, -1, id="dim_index_equal_num_dims_is_minus1"),
        pytest.param(100, -1, id="dim_index_far_out_of_range_is_minus1"),
    ],
)
def test_get_tensor_desc_dim_deprecated(acl, index, expected):
    desc = acl.create_tensor_desc(0, [4, -1, 6], ND)
    assert acl.get_tensor_desc_dim(desc, index) == expected


@pytest.mark.parametrize(
    ("index", "expected"),
    [
        pytest.param(0, (4, 0), id="dim_v2_0_is_4"),
        pytest.param(1, (-1, 0), id="dim_v2_dynamic_is_minus1_success"),
        pytest.param(2, (6, 0), id="dim_v2_2_is_6"),
        pytest.param(3, (0, 100000), id="dim_v2_index_equal_num_dims_is_0_100000"),
        pytest.param(1000, (0, 100000), id="dim_v2_index_far_out_of_range_is_0_100000"),
    ],
)
def test_get_tensor_desc_dim_v2(acl, index, expected):
    desc = acl.create_tensor_desc(0, [4, -1, 6], ND)
    assert acl.get_tensor_desc_dim_v2(desc, index) == expected


def test_get_tensor_desc_dim_v2_of_scalar_is_0_100000(acl):
    assert acl.get_tensor_desc_dim_v2(acl.create_tensor_desc(0, [], ND), 0) == (0, 100000)


def test_get_tensor_desc_dim_v2_of_empty_dim_is_0_success(acl):
    assert acl.get_tensor_desc_dim_v2(acl.create_tensor_desc(0, [3, 0], ND), 1) == (0, 0)


@pytest.mark.parametrize(
    ("call", "expected"),
    [
        pytest.param(lambda acl: acl.get_tensor_desc_type(0), -1, id="desc_0_type_is_minus1"),
        pytest.param(lambda acl: acl.get_tensor_desc_format(0), -1, id="desc_0_format_is_minus1"),
        pytest.param(lambda acl: acl.get_tensor_desc_num_dims(0), 0, id="desc_0_num_dims_is_0"),
        pytest.param(lambda acl: acl.get_tensor_desc_dim(0, 0), -1, id="desc_0_dim_is_minus1"),
        pytest.param(lambda acl: acl.get_tensor_desc_dim_v2(0, 0), (0, 100000), id="desc_0_dim_v2_is_0_100000"),
        pytest.param(lambda acl: acl.get_tensor_desc_name(0), "", id="desc_0_name_is_empty"),
    ],
)
def test_desc_0_getters(acl, call, expected):
    assert call(acl) == expected


def _ranged_desc(acl):
    desc = acl.create_tensor_desc(0, [-1, -1, 8], ND)
    assert acl.set_tensor_shape_range(desc, [[1, 16], [2, -1], [8, 8]]) == 0
    return desc


@pytest.mark.parametrize(
    ("index", "dim_range_num", "expected"),
    [
        pytest.param(0, 2, [1, 16], id="dim_range_0_is_min_max"),
        pytest.param(1, 2, [2, -1], id="dim_range_unbounded_max_is_minus1"),
        pytest.param(2, 2, [8, 8], id="dim_range_static_dim"),
        pytest.param(0, 3, [1, 16, 0], id="dim_range_num_3_pads_with_zero"),
        pytest.param(1, 6, [2, -1, 0, 0, 0, 0], id="dim_range_num_6_has_6_elements"),
    ],
)
def test_get_tensor_desc_dim_range(acl, index, dim_range_num, expected):
    result, ret = acl.get_tensor_desc_dim_range(_ranged_desc(acl), index, dim_range_num)
    assert ret == 0
    assert type(result) is list and result == expected
    assert all(type(value) is int for value in result)


def test_get_tensor_desc_dim_range_num_4096_is_allowed(acl):
    result, ret = acl.get_tensor_desc_dim_range(_ranged_desc(acl), 0, 4096)
    assert ret == 0
    assert result == [1, 16] + [0] * 4094


@pytest.mark.parametrize(
    ("index", "dim_range_num"),
    [
        pytest.param(0, 4097, id="dim_range_num_above_4096_is_none_100000"),
        pytest.param(0, 1, id="dim_range_num_1_is_none_100000"),
        pytest.param(0, 0, id="dim_range_num_0_is_none_100000"),
        pytest.param(3, 2, id="index_without_range_is_none_100000"),
        pytest.param(99, 2, id="index_far_beyond_ranges_is_none_100000"),
    ],
)
def test_get_tensor_desc_dim_range_failures(acl, index, dim_range_num):
    assert acl.get_tensor_desc_dim_range(_ranged_desc(acl), index, dim_range_num) == (None, 100000)


def test_get_tensor_desc_dim_range_without_any_range_is_none_100000(acl):
    desc = acl.create_tensor_desc(0, [4, 4], ND)
    assert acl.get_tensor_desc_dim_range(desc, 0, 2) == (None, 100000)


def test_get_tensor_desc_dim_range_num_above_4096_checked_before_c_even_for_desc_0(acl):
    assert acl.get_tensor_desc_dim_range(0, 0, 4097) == (None, 100000)


def test_set_tensor_shape_range_replaces_whole_list(acl):
    desc = _ranged_desc(acl)
    assert acl.set_tensor_shape_range(desc, [[3, 5]]) == 0
    assert acl.get_tensor_desc_dim_range(desc, 0, 2) == ([3, 5], 0)
    assert acl.get_tensor_desc_dim_range(desc, 1, 2) == (None, 100000)


def test_set_tensor_shape_range_count_need_not_equal_rank(acl):
    desc = acl.create_tensor_desc(0, [-1], ND)
    assert acl.set_tensor_shape_range(desc, [[1, 2], [3, 4], [5, 6]]) == 0
    assert acl.get_tensor_desc_dim_range(desc, 2, 2) == ([5, 6], 0)


def test_set_tensor_shape_range_empty_list_clears_ranges(acl):
    desc = _ranged_desc(acl)
    assert acl.set_tensor_shape_range(desc, []) == 0
    assert acl.get_tensor_desc_dim_range(desc, 0, 2) == (None, 100000)


def test_set_tensor_shape_range_does_not_change_dims(acl):
    desc = _ranged_desc(acl)
    assert [acl.get_tensor_desc_dim_v2(desc, i) for i in range(3)] == [(-1, 0), (-1, 0), (8, 0)]


def test_set_tensor_shape_range_inner_list_longer_than_2_uses_first_two(acl):
    desc = acl.create_tensor_desc(0, [-1], ND)
    assert acl.set_tensor_shape_range(desc, [[1, 4, 9]]) == 0
    assert acl.get_tensor_desc_dim_range(desc, 0, 2) == ([1, 4], 0)


@pytest.mark.parametrize(
    "ranges",
    [
        pytest.param([(1, 4)], id="inner_tuple"),
        pytest.param([[1, 4], (1, 8)], id="second_inner_tuple"),
        pytest.param([5], id="inner_int"),
    ],
)
def test_set_tensor_shape_range_inner_non_list_is_type_error(acl, ranges):
    with pytest.raises(TypeError) as raised:
        acl.set_tensor_shape_range(acl.create_tensor_desc(0, [-1, -1], ND), ranges)
    assert str(raised.value) == "the list argument is not list"


def test_set_tensor_value_range_list_of_lists(acl):
    desc = acl.create_tensor_desc(3, [2], ND)
    assert acl.set_tensor_value_range(desc, [[0, 10], [-5, 5]]) == 0


def test_set_tensor_value_range_inner_tuple_is_type_error(acl):
    with pytest.raises(TypeError) as raised:
        acl.set_tensor_value_range(acl.create_tensor_desc(3, [2], ND), [(0, 10)])
    assert str(raised.value) == "the list argument is not list"


def test_tensor_desc_name_unset_is_empty(acl):
    assert acl.get_tensor_desc_name(acl.create_tensor_desc(0, [1], ND)) == ""


@pytest.mark.parametrize(
    "names",
    [
        pytest.param(["x"], id="name_round_trip"),
        pytest.param(["x", "y"], id="name_set_twice_last_wins"),
        pytest.param(["x", ""], id="name_set_empty_clears"),
        pytest.param(["x1_dynamic_name0"], id="name_dynamic_io_spelling"),
    ],
)
def test_set_tensor_desc_name(acl, names):
    desc = acl.create_tensor_desc(0, [1], ND)
    for name in names:
        assert acl.set_tensor_desc_name(desc, name) is None
    assert acl.get_tensor_desc_name(desc) == names[-1]


def test_tensor_desc_names_are_per_desc(acl):
    first = acl.create_tensor_desc(0, [1], ND)
    second = acl.create_tensor_desc(0, [1], ND)
    acl.set_tensor_desc_name(first, "a")
    assert acl.get_tensor_desc_name(second) == ""


def test_set_tensor_const_returns_success(acl):
    data = np.arange(6, dtype=np.float32).tobytes()
    desc = acl.create_tensor_desc(0, [2, 3], ND)
    assert acl.set_tensor_const(desc, acl.util.bytes_to_ptr(data), len(data)) == 0


def test_set_tensor_const_from_malloc_host(acl, session):
    host, ret = acl.rt.malloc_host(16)
    assert ret == 0
    ctypes.memset(host, 7, 16)
    desc = acl.create_tensor_desc(3, [4], ND)
    assert acl.set_tensor_const(desc, host, 16) == 0
    assert acl.rt.free_host(host) == 0


CONST_VALUES = [1, 2, 3, 4]


def _const_add_model(tmp_path):
    tensor = {"format": "ND", "shape": [4], "type": "int32"}
    ops = [{"op": "Add", "input_desc": [tensor, {**tensor, "is_const": True, "const_value": CONST_VALUES}], "output_desc": [tensor]}]
    json_path = tmp_path / "const_add.json"
    json_path.write_text(json.dumps(ops), encoding="utf-8")
    result = compile_singleop(json_path, tmp_path / "models", "Ascend910B1")
    assert result.ok, result.errors
    return tmp_path / "models"


def _run_const_add(acl, session, tmp_path, const_bytes, mutate_after_set):
    assert acl.op.set_model_dir(str(_const_add_model(tmp_path))) == 0
    x = np.array([10, 20, 30, 40], dtype=np.int32).tobytes()
    x_dev, ret = acl.rt.malloc(16, 0)
    assert ret == 0
    assert acl.rt.memcpy(x_dev, 16, acl.util.bytes_to_ptr(x), 16, 1) == 0
    out_dev, ret = acl.rt.malloc(16, 0)
    assert ret == 0
    descs = [acl.create_tensor_desc(3, [4], ND) for _ in range(3)]
    assert acl.set_tensor_const(descs[1], acl.util.bytes_to_ptr(const_bytes), len(const_bytes)) == 0
    if mutate_after_set:
        ctypes.memset(acl.util.bytes_to_ptr(const_bytes), 0, len(const_bytes))
    inputs = [acl.create_data_buffer(x_dev, 16), acl.create_data_buffer(0, 0)]
    ret = acl.op.execute_v2("Add", descs[:2], inputs, descs[2:], [acl.create_data_buffer(out_dev, 16)], 0, session.stream)
    if ret != 0:
        return ret, None
    assert acl.rt.synchronize_stream(session.stream) == 0
    host, ret = acl.rt.malloc_host(16)
    assert ret == 0
    assert acl.rt.memcpy(host, 16, out_dev, 16, 2) == 0
    return 0, np.frombuffer(acl.util.ptr_to_bytes(host, 16), np.int32).tolist()


def test_set_tensor_const_copies_bytes_at_call_time(acl, session, tmp_path):
    const_bytes = bytes(bytearray(np.array(CONST_VALUES, dtype=np.int32).tobytes()))
    ret, out = _run_const_add(acl, session, tmp_path, const_bytes, mutate_after_set=True)
    assert ret == 0
    assert out == [11, 22, 33, 44]


def test_set_tensor_const_bytes_take_part_in_matching(acl, session, tmp_path):
    const_bytes = bytes(bytearray(np.zeros(4, dtype=np.int32).tobytes()))
    ret, _ = _run_const_add(acl, session, tmp_path, const_bytes, mutate_after_set=False)
    assert ret == 100024


@pytest.mark.parametrize(
    ("pointer", "length"),
    [
        pytest.param("data", 0, id="set_tensor_const_length_0_is_100000"),
        pytest.param(0, 16, id="set_tensor_const_pointer_0_is_100000"),
        pytest.param(0, 0, id="set_tensor_const_pointer_0_and_length_0_is_100000"),
    ],
)
def test_set_tensor_const_invalid(acl, pointer, length):
    data = bytes(16)
    ptr = acl.util.bytes_to_ptr(data) if pointer == "data" else pointer
    assert acl.set_tensor_const(acl.create_tensor_desc(3, [4], ND), ptr, length) == 100000


def test_set_tensor_const_of_device_pointer_in_host_mode_is_misuse(acl, session):
    dev, ret = acl.rt.malloc(16, 0)
    assert ret == 0
    with pytest.raises(aclcts.sim.SimMisuseError):
        acl.set_tensor_const(acl.create_tensor_desc(3, [4], ND), dev, 16)


def test_set_tensor_const_of_device_pointer_in_device_mode_is_allowed(acl):
    aclcts.sim.configure(run_mode="device")
    aclcts.sim.reset()
    assert acl.init() == 0
    assert acl.rt.set_device(0) == 0
    dev, ret = acl.rt.malloc(16, 0)
    assert ret == 0
    assert acl.rt.memset(dev, 16, 1, 16) == 0
    assert acl.set_tensor_const(acl.create_tensor_desc(3, [4], ND), dev, 16) == 0
    assert acl.rt.free(dev) == 0


@pytest.mark.parametrize("mem_type", [pytest.param(0, id="device"), pytest.param(1, id="host"), pytest.param(2, id="host_compile_independent")])
def test_set_tensor_place_ment(acl, mem_type):
    assert acl.set_tensor_place_ment(acl.create_tensor_desc(0, [1], ND), mem_type) == 0


def test_placement_spelling_is_place_ment(acl):
    assert callable(acl.set_tensor_place_ment)
    assert not hasattr(acl, "set_tensor_placement")


@pytest.mark.parametrize(
    "setter",
    [
        pytest.param(lambda acl, desc: acl.set_tensor_format(desc, 29), id="set_tensor_format_sets_storage_not_origin"),
        pytest.param(lambda acl, desc: acl.set_tensor_storage_format(desc, 29), id="set_tensor_storage_format_sets_storage_not_origin"),
        pytest.param(lambda acl, desc: acl.set_tensor_shape(desc, [1, 1, 16, 16]), id="set_tensor_shape_sets_storage_not_origin"),
        pytest.param(lambda acl, desc: acl.set_tensor_storage_shape(desc, [1, 1, 16, 16]), id="set_tensor_storage_shape_sets_storage_not_origin"),
    ],
)
def test_storage_setters_leave_getters_unchanged(acl, setter):
    desc = acl.create_tensor_desc(1, [4, 8], ND)
    assert setter(acl, desc) == 0
    assert acl.get_tensor_desc_format(desc) == ND
    assert acl.get_tensor_desc_type(desc) == 1
    assert acl.get_tensor_desc_num_dims(desc) == 2
    assert [acl.get_tensor_desc_dim_v2(desc, i) for i in range(2)] == [(4, 0), (8, 0)]
    assert acl.get_tensor_desc_element_count(desc) == 32
    assert acl.get_tensor_desc_size(desc) == 64


def test_set_tensor_origin_format_changes_getter(acl):
    desc = acl.create_tensor_desc(0, [1, 3, 4, 4], 0)
    assert acl.set_tensor_origin_format(desc, 1) == 0
    assert acl.get_tensor_desc_format(desc) == 1


@pytest.mark.parametrize(
    "dims",
    [
        pytest.param([4, 5, 6], id="origin_shape_rank_3"),
        pytest.param([], id="origin_shape_scalar"),
        pytest.param([9, 0], id="origin_shape_empty"),
        pytest.param([-1, 3], id="origin_shape_dynamic"),
    ],
)
def test_set_tensor_origin_shape_changes_getters(acl, dims):
    desc = acl.create_tensor_desc(0, [2], ND)
    assert acl.set_tensor_origin_shape(desc, dims) == 0
    assert acl.get_tensor_desc_num_dims(desc) == len(dims)
    assert [acl.get_tensor_desc_dim_v2(desc, i)[0] for i in range(len(dims))] == dims
    count = 0 if any(d < 0 for d in dims) else math.prod(dims)
    assert acl.get_tensor_desc_element_count(desc) == count
    assert acl.get_tensor_desc_size(desc) == 4 * count


def test_set_tensor_origin_shape_to_unknown_rank(acl):
    desc = acl.create_tensor_desc(0, [2], ND)
    assert acl.set_tensor_origin_shape(desc, [-2]) == 0
    assert acl.get_tensor_desc_num_dims(desc) == ACL_UNKNOWN_RANK


def test_destroy_tensor_desc_returns_none(acl):
    assert acl.destroy_tensor_desc(acl.create_tensor_desc(0, [1], ND)) is None


def test_destroy_tensor_desc_removes_live_desc(acl):
    desc = acl.create_tensor_desc(0, [1], ND)
    assert desc in [obj.handle for obj in aclcts.sim.live_objects("desc")]
    acl.destroy_tensor_desc(desc)
    assert desc not in [obj.handle for obj in aclcts.sim.live_objects("desc")]


@pytest.mark.parametrize(
    ("value", "bits"),
    [
        pytest.param(1.0, 0x3C00, id="float_to_float16_one"),
        pytest.param(-2.0, 0xC000, id="float_to_float16_minus_two"),
        pytest.param(0.0, 0x0000, id="float_to_float16_zero"),
        pytest.param(65504.0, 0x7BFF, id="float_to_float16_max"),
        pytest.param(math.inf, 0x7C00, id="float_to_float16_inf"),
    ],
)
def test_float16_conversions(acl, value, bits):
    assert acl.float_to_float16(value) == bits
    assert acl.float16_to_float(bits) == value
