"""Tensor descs, data buffers and op attributes (docs/contract/tensor-desc-and-buffers.md, attributes.md) and
their effect on model matching (docs/contract/op-load-execute.md#matching-an-execution-to-a-model)."""

from __future__ import annotations

import inspect
import warnings
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

#: aclDataTypeSize per aclDataType (docs/contract/enums.md#data-types), including the quirks: FLOAT6/FLOAT4 fall
#: through to 8, and so does every unused value.
TYPE_SIZES = {
    -1: 0, 0: 4, 1: 2, 2: 1, 3: 4, 4: 1, 6: 2, 7: 2, 8: 4, 9: 8, 10: 8, 11: 8, 12: 1, 13: 0, 16: 8,
    17: 16, 27: 2, 29: 1, 30: 1, 33: 4, 34: 1, 35: 1, 36: 1, 37: 1, 38: 8, 39: 8, 40: 8, 41: 8, 42: 1,
}
UNUSED_TYPE_VALUES = [5, 14, 15, 18, 26, 28, 31, 32, 43, 99, 1000]


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


@pytest.mark.parametrize("data_type", list(TYPE_SIZES), ids=[type_id(v) for v in TYPE_SIZES])
def test_scalar_tensor_desc_has_one_element_of_the_type_size(acl, res, data_type):
    desc = flow.create_desc(res, data_type, (), ND)
    assert acl.get_tensor_desc_element_count(desc) == 1
    assert acl.get_tensor_desc_size(desc) == TYPE_SIZES[data_type]


# ---------------------------------------------------------------- dims: static, scalar, empty, dynamic

#: dims → (num_dims, element count, byte size) of a float32 desc
#: (docs/contract/tensor-desc-and-buffers.md#desc-getters).
SHAPES = [
    pytest.param([2, 3, 4, 5], 4, 120, 480, id="static-4d"),
    pytest.param([7], 1, 7, 28, id="static-1d"),
    pytest.param([], 0, 1, 4, id="scalar"),
    pytest.param([0], 1, 0, 0, id="empty-1d"),
    pytest.param([4, 0, 3], 3, 0, 0, id="empty-middle-dim"),
    pytest.param([-1, 3], 2, 0, 0, id="dynamic-first-dim"),
    pytest.param([3, -1, -1], 3, 0, 0, id="dynamic-two-dims"),
    pytest.param([-2], ACL_UNKNOWN_RANK, 0, 0, id="unknown-rank"),
    pytest.param([-1, -1, -1], 3, 0, 0, id="every-dim-dynamic"),
    pytest.param([1] * 8, 8, 1, 4, id="rank-8-ones"),
    pytest.param([1 << 20, 1 << 10], 2, 1 << 30, 4 << 30, id="2-pow-30-elements"),
]


@pytest.mark.parametrize("dims, num_dims, count, size", SHAPES)
def test_tensor_desc_dims_give_num_dims_element_count_and_size(acl, res, dims, num_dims, count, size):
    desc = flow.create_desc(res, FLOAT, tuple(dims), ND)
    assert type(acl.get_tensor_desc_num_dims(desc)) is int
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


@pytest.mark.parametrize("data_type, fmt", [
    pytest.param(0, 0, id="FLOAT-NCHW"), pytest.param(1, 1, id="FLOAT16-NHWC"), pytest.param(27, 2, id="BF16-ND"),
    pytest.param(3, 29, id="INT32-FRACTAL_NZ"), pytest.param(-1, -1, id="UNDEFINED-UNDEFINED"),
    pytest.param(36, 47, id="FLOAT8_E4M3FN-NCL"),
])
def test_tensor_desc_type_and_format_are_the_ones_it_was_created_with(acl, res, data_type, fmt):
    desc = flow.create_desc(res, data_type, (4, 4), fmt)
    assert (acl.get_tensor_desc_type(desc), acl.get_tensor_desc_format(desc)) == (data_type, fmt)


@pytest.mark.parametrize("index, expected", [(0, (4, OK)), (1, (-1, OK)), (2, (6, OK)),
                                             (3, (0, INVALID_PARAM)), (100, (0, INVALID_PARAM))],
                         ids=["dim0", "dynamic-dim1", "dim2", "index-equal-to-rank", "index-100"])
def test_get_tensor_desc_dim_v2_returns_dim_and_ret(acl, res, index, expected):
    desc = flow.create_desc(res, FLOAT, (4, -1, 6), ND)
    assert acl.get_tensor_desc_dim_v2(desc, index) == expected


@pytest.mark.parametrize("index, expected", [(0, 4), (2, 6), (3, -1), (100, -1)],
                         ids=["dim0", "dim2", "out-of-range", "index-100"])
def test_deprecated_get_tensor_desc_dim_gives_minus_1_out_of_range(acl, res, index, expected):
    desc = flow.create_desc(res, FLOAT, (4, 5, 6), ND)
    assert acl.get_tensor_desc_dim(desc, index) == expected


def test_get_tensor_desc_dim_v2_of_a_0_dim_is_0_and_success(acl, res):
    desc = flow.create_desc(res, FLOAT, (3, 0), ND)
    assert acl.get_tensor_desc_dim_v2(desc, 1) == (0, OK)


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


@pytest.mark.parametrize("setter", [
    pytest.param(lambda acl, desc: acl.set_tensor_format(desc, 29), id="set_tensor_format"),
    pytest.param(lambda acl, desc: acl.set_tensor_storage_format(desc, 29), id="set_tensor_storage_format"),
    pytest.param(lambda acl, desc: acl.set_tensor_shape(desc, [1, 1, 16, 16]), id="set_tensor_shape"),
    pytest.param(lambda acl, desc: acl.set_tensor_storage_shape(desc, [1, 1, 16, 16]), id="set_tensor_storage_shape"),
])
def test_each_storage_setter_and_its_deprecated_alias_leave_every_origin_getter(acl, res, setter):
    desc = flow.create_desc(res, int(DataType.ACL_FLOAT16), (4, 8), ND)
    assert setter(acl, desc) == OK
    assert (acl.get_tensor_desc_format(desc), acl.get_tensor_desc_type(desc)) == (ND, int(DataType.ACL_FLOAT16))
    assert [acl.get_tensor_desc_dim_v2(desc, i) for i in range(acl.get_tensor_desc_num_dims(desc))] == \
        [(4, OK), (8, OK)]
    assert (acl.get_tensor_desc_element_count(desc), acl.get_tensor_desc_size(desc)) == (32, 64)


@pytest.mark.parametrize("dims", [[4, 5, 6], [], [9, 0], [-1, 3], [-2]],
                         ids=["rank-3", "scalar", "empty", "dynamic", "unknown-rank"])
def test_set_tensor_origin_shape_changes_every_shape_getter(acl, res, dims):
    desc = flow.create_desc(res, FLOAT, (2,), ND)
    assert acl.set_tensor_origin_shape(desc, dims) == OK
    if dims == [-2]:
        assert acl.get_tensor_desc_num_dims(desc) == ACL_UNKNOWN_RANK
        return
    assert [acl.get_tensor_desc_dim_v2(desc, i) for i in range(acl.get_tensor_desc_num_dims(desc))] == \
        [(d, OK) for d in dims]
    count = 0 if any(d < 0 for d in dims) else int(np.prod(dims, dtype=np.int64))
    assert (acl.get_tensor_desc_element_count(desc), acl.get_tensor_desc_size(desc)) == (count, 4 * count)


def test_origin_format_and_shape_setters_change_the_getters(acl, res):
    desc = flow.create_desc(res, FLOAT, (2, 3), ND)
    assert acl.set_tensor_origin_format(desc, int(Format.ACL_FORMAT_NCHW)) == OK
    assert acl.set_tensor_origin_shape(desc, [1, 2, 3, 4]) == OK
    assert acl.get_tensor_desc_format(desc) == int(Format.ACL_FORMAT_NCHW)
    assert acl.get_tensor_desc_num_dims(desc) == 4
    assert acl.get_tensor_desc_size(desc) == 96


@pytest.mark.negative
@pytest.mark.parametrize("dims, message", [
    pytest.param((2, 3), "argument 2 is not list", id="tuple"),
    pytest.param([np.int64(2), 3], "invalid data type", id="numpy-int"),
    pytest.param([2, None], "invalid data type", id="None"),
    pytest.param(np.array([2, 3]), "argument 2 is not list", id="ndarray"),
    pytest.param([2, np.int32(3)], "invalid data type", id="numpy-int32"),
    pytest.param([2.0], "invalid data type", id="float"),
    pytest.param(["2"], "invalid data type", id="str"),
])
def test_create_tensor_desc_dims_must_be_a_list_of_python_ints(acl, dims, message):
    with pytest.raises(TypeError) as raised:
        acl.create_tensor_desc(FLOAT, dims, ND)
    assert type(raised.value) is TypeError and str(raised.value) == message


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


# ---------------------------------------------------------------- negative and out-of-range indices
#: The index argument of every indexed desc getter is a size_t (`k`,
#: docs/contract/binding-conventions.md#argument-parse-codes): a negative Python int wraps
#: mod 2**64, so -1 is 2**64 - 1, an index past every dim, never "the last dim" as Python indexing would read it.
FAR_INDICES = [pytest.param(-1, id="minus-1"), pytest.param(-3, id="minus-rank"),
               pytest.param(-(1 << 63), id="int64-min"), pytest.param((1 << 64) - 1, id="2**64-1"),
               pytest.param(1 << 63, id="2**63"), pytest.param(1 << 32, id="2**32")]


@pytest.mark.negative
@pytest.mark.parametrize("index", FAR_INDICES)
def test_get_tensor_desc_dim_v2_rejects_a_negative_or_far_index_with_100000(acl, res, index):
    desc = flow.create_desc(res, FLOAT, (4, 5, 6), ND)
    assert acl.get_tensor_desc_dim_v2(desc, index) == (0, INVALID_PARAM)


@pytest.mark.negative
@pytest.mark.parametrize("index", FAR_INDICES)
def test_deprecated_get_tensor_desc_dim_gives_minus_1_for_a_negative_or_far_index(acl, res, index):
    desc = flow.create_desc(res, FLOAT, (4, 5, 6), ND)
    assert acl.get_tensor_desc_dim(desc, index) == -1


@pytest.mark.negative
@pytest.mark.parametrize("index", FAR_INDICES)
def test_get_tensor_desc_dim_range_rejects_a_negative_or_far_index_with_none_100000(acl, ranged, index):
    assert acl.get_tensor_desc_dim_range(ranged, index, 2) == (None, INVALID_PARAM)


@pytest.mark.negative
def test_get_tensor_desc_dim_range_without_a_range_is_none_100000(acl, res):
    desc = flow.create_desc(res, FLOAT, (-1, 4), ND)
    assert acl.get_tensor_desc_dim_range(desc, 0, 2) == (None, INVALID_PARAM)


@pytest.mark.negative
def test_get_tensor_desc_dim_range_num_above_4096_is_refused_before_the_desc_is_looked_at(acl):
    assert acl.get_tensor_desc_dim_range(0, 0, 4097) == (None, INVALID_PARAM)


def test_set_tensor_shape_range_of_an_empty_list_clears_the_ranges(acl, ranged):
    assert acl.set_tensor_shape_range(ranged, []) == OK
    assert acl.get_tensor_desc_dim_range(ranged, 0, 2) == (None, INVALID_PARAM)


def test_set_tensor_shape_range_leaves_the_dims(acl, ranged):
    assert [acl.get_tensor_desc_dim_v2(ranged, i) for i in range(3)] == [(-1, OK), (16, OK), (-1, OK)]


def test_set_tensor_shape_range_takes_the_first_two_values_of_a_longer_inner_list(acl, res):
    desc = flow.create_desc(res, FLOAT, (-1,), ND)
    assert acl.set_tensor_shape_range(desc, [[1, 4, 9]]) == OK
    assert acl.get_tensor_desc_dim_range(desc, 0, 2) == ([1, 4], OK)


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
    with pytest.raises(TypeError, match="^the list argument is not list$"):
        acl.set_tensor_shape_range(desc, [(1, 8), (4, 4)])


@pytest.mark.negative
@pytest.mark.parametrize("ranges", [[[1, 4], (1, 8)], [5]], ids=["second-inner-tuple", "inner-int"])
def test_set_tensor_shape_range_needs_every_inner_item_to_be_a_list(acl, res, ranges):
    desc = flow.create_desc(res, FLOAT, (-1, -1), ND)
    with pytest.raises(TypeError, match="^the list argument is not list$"):
        acl.set_tensor_shape_range(desc, ranges)


def test_set_tensor_value_range_takes_a_list_of_pairs(acl, res):
    desc = flow.create_desc(res, INT32, (2,), ND)
    assert acl.set_tensor_value_range(desc, [[0, 10], [1, 5]]) == OK


@pytest.mark.negative
def test_set_tensor_value_range_inner_tuples_are_a_type_error(acl, res):
    desc = flow.create_desc(res, INT32, (2,), ND)
    with pytest.raises(TypeError, match="^the list argument is not list$"):
        acl.set_tensor_value_range(desc, [(0, 10)])


# ---------------------------------------------------------------- names, const data, placement


def test_tensor_desc_name_is_empty_until_set_and_then_the_last_one_set(acl, res):
    desc = flow.create_desc(res, FLOAT, (2,), ND)
    assert acl.get_tensor_desc_name(desc) == ""
    assert acl.set_tensor_desc_name(desc, "x1") is None
    assert acl.get_tensor_desc_name(desc) == "x1"
    acl.set_tensor_desc_name(desc, "x2")
    assert acl.get_tensor_desc_name(desc) == "x2"


def test_tensor_desc_names_are_per_desc_and_an_empty_name_clears_one(acl, res):
    first, second = flow.create_desc(res, FLOAT, (1,), ND), flow.create_desc(res, FLOAT, (1,), ND)
    acl.set_tensor_desc_name(first, "x1_dynamic_name0")
    assert (acl.get_tensor_desc_name(first), acl.get_tensor_desc_name(second)) == ("x1_dynamic_name0", "")
    acl.set_tensor_desc_name(first, "")
    assert acl.get_tensor_desc_name(first) == ""


def test_destroy_tensor_desc_and_destroy_attr_return_none(acl):
    assert acl.destroy_tensor_desc(acl.create_tensor_desc(FLOAT, [1], ND)) is None
    assert acl.op.destroy_attr(acl.op.create_attr()) is None


def test_set_tensor_const_returns_0(acl, res):
    desc = flow.create_desc(res, INT32, (4,), ND)
    data = np.arange(4, dtype=np.int32).tobytes()
    assert acl.set_tensor_const(desc, acl.util.bytes_to_ptr(data), len(data)) == OK


def test_set_tensor_const_reads_malloc_host_memory(acl, res):
    desc = flow.create_desc(res, INT32, (4,), ND)
    host = flow.malloc_host(res, 16)
    flow.check(acl.rt.memset(host, 16, 7, 16), "acl.rt.memset")
    assert acl.set_tensor_const(desc, host, 16) == OK


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


def test_placement_is_spelled_set_tensor_place_ment(acl):
    assert callable(acl.set_tensor_place_ment)
    assert not hasattr(acl, "set_tensor_placement")


@pytest.mark.parametrize("value, bits", [(1.0, 0x3C00), (-2.0, 0xC000), (0.0, 0x0000), (65504.0, 0x7BFF),
                                         (float("inf"), 0x7C00)], ids=["1", "-2", "0", "max", "inf"])
def test_float_to_float16_and_back_use_the_fp16_bit_pattern(acl, value, bits):
    assert acl.float_to_float16(value) == bits
    assert acl.float16_to_float(bits) == value


# ---------------------------------------------------------------- data buffers


def test_data_buffer_getters_return_what_it_was_created_with(acl, res):
    ptr = flow.malloc(res, 256)
    buf = flow.create_buffer(res, ptr, 200)
    assert acl.get_data_buffer_addr(buf) == ptr
    assert acl.get_data_buffer_size_v2(buf) == 200
    assert acl.get_data_buffer_size(buf) == 200


@pytest.mark.parametrize("data, size", [
    pytest.param(0x1000, 64, id="pointer-and-size"), pytest.param(0, 16, id="null-data-with-a-size"),
    pytest.param(0x2000, 0, id="pointer-with-size-0"), pytest.param(2 ** 60 + 64, 2 ** 40, id="large-size"),
    pytest.param(2 ** 64 - 1, 2 ** 64 - 1, id="uint64-max"),
])
def test_create_data_buffer_validates_nothing_and_keeps_its_arguments(acl, res, data, size):
    buf = flow.create_buffer(res, data, size)
    assert type(buf) is int
    assert (acl.get_data_buffer_addr(buf), acl.get_data_buffer_size_v2(buf)) == (data, size)


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


def test_update_data_buffer_leaves_other_buffers_and_the_old_memory_alone(acl, res):
    first, second, third = flow.malloc(res, 64), flow.malloc(res, 64), flow.malloc(res, 32)
    buf, other = flow.create_buffer(res, first, 64), flow.create_buffer(res, third, 32)
    assert acl.update_data_buffer(buf, second, 64) == OK
    assert (acl.get_data_buffer_addr(other), acl.get_data_buffer_size_v2(other)) == (third, 32)
    assert acl.rt.memset(first, 64, 1, 64) == OK


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
    assert result == ((0, INVALID_PARAM) if setter in TUPLE_RETURNING else INVALID_PARAM)


LIST_FAILED, UTF8_FAILED = "get values from PyList failed", "PyUnicode_AsUTF8String failed"
NOT_LIST, ARGUMENT_3_FAILED = "argument 3 is not list", "parse argument 3 failed"


@pytest.mark.negative
@pytest.mark.parametrize("setter, value, error, message", [
    pytest.param("set_attr_list_float", [1, 2], ValueError, LIST_FAILED, id="list_float-of-ints"),
    pytest.param("set_attr_list_bool", [True, "x"], ValueError, LIST_FAILED, id="list_bool-with-a-str"),
    pytest.param("set_attr_list_string", ["a", 1], RuntimeError, UTF8_FAILED, id="list_string-with-an-int"),
    pytest.param("set_attr_list_string", ("a", "b"), TypeError, NOT_LIST, id="list_string-tuple"),
    pytest.param("set_attr_list_list_int", [[1, 2], ["x"]], ValueError, ARGUMENT_3_FAILED,
                 id="list_list_int-bad-inner"),
    pytest.param("set_attr_list_data_type", (0, 1), TypeError, "the third argument is not list",
                 id="list_data_type-tuple"),
    pytest.param("set_attr_list_float", [1.0, 2], ValueError, LIST_FAILED, id="list_float-with-an-int"),
    pytest.param("set_attr_list_float", [True], ValueError, LIST_FAILED, id="list_float-of-a-bool"),
    pytest.param("set_attr_list_float", ["1.0"], ValueError, LIST_FAILED, id="list_float-of-a-str"),
    pytest.param("set_attr_list_bool", [None], ValueError, LIST_FAILED, id="list_bool-of-None"),
    pytest.param("set_attr_list_bool", [1.0], ValueError, LIST_FAILED, id="list_bool-of-a-float"),
    pytest.param("set_attr_list_string", [b"a"], RuntimeError, UTF8_FAILED, id="list_string-of-bytes"),
    pytest.param("set_attr_list_string", "ab", TypeError, NOT_LIST, id="list_string-str"),
    pytest.param("set_attr_list_list_int", [[1], (2, 3)], ValueError, ARGUMENT_3_FAILED, id="list_list_int-tuple"),
    pytest.param("set_attr_list_list_int", [5], ValueError, ARGUMENT_3_FAILED, id="list_list_int-int"),
    pytest.param("set_attr_list_list_int", [np.array([1.0, 2.0])], ValueError, ARGUMENT_3_FAILED,
                 id="list_list_int-float-array"),
    pytest.param("set_attr_list_data_type", 0, TypeError, "the third argument is not list", id="list_data_type-int"),
])
def test_set_attr_list_bad_values_raise_the_documented_exception(acl, attr, setter, value, error, message):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(error) as raised:
            getattr(acl.op, setter)(attr, "name", value)
    assert type(raised.value) is error and str(raised.value) == message


@pytest.mark.negative
@pytest.mark.parametrize("call, name", [
    pytest.param(lambda acl, a: acl.op.set_attr_int(a, "i", 2 ** 63), "set_attr_int", id="int-beyond-int64"),
    pytest.param(lambda acl, a: acl.op.set_attr_string(a, "s", None), "set_attr_string", id="string-None"),
    pytest.param(lambda acl, a: acl.op.set_attr_bool(a, b"b", True), "set_attr_bool", id="bool-bytes-name"),
    pytest.param(lambda acl, a: acl.op.set_attr_float(a, "f", None), "set_attr_float", id="float-None"),
    pytest.param(lambda acl, a: acl.op.set_attr_data_type(a, "d", 2 ** 31), "set_attr_data_type",
                 id="data_type-beyond-int32"),
])
def test_set_attr_parse_failures_raise_the_wrappers_type_error(acl, attr, call, name):
    with pytest.raises(TypeError) as raised:
        call(acl, attr)
    assert str(raised.value) == f"acl.op.{name} args parse failed"


#: Values at the edges of each setter's parse code (docs/contract/binding-conventions.md#argument-parse-codes): masked
#: bools, int64 limits, __index__ ints.
EDGE_VALUES = [
    pytest.param("set_attr_bool", 255, id="bool-255"), pytest.param("set_attr_bool", 256, id="bool-256-masked"),
    pytest.param("set_attr_int", 2 ** 63 - 1, id="int-int64-max"),
    pytest.param("set_attr_int", -(2 ** 63), id="int-int64-min"),
    pytest.param("set_attr_int", np.int32(7), id="int-numpy-index"), pytest.param("set_attr_float", 2, id="float-int"),
    pytest.param("set_attr_float", float("nan"), id="float-nan"),
    pytest.param("set_attr_string", "", id="string-empty"),
    pytest.param("set_attr_list_bool", [True, False, 0, 1, 255], id="list_bool-bools-and-bytes"),
    pytest.param("set_attr_list_bool", [], id="list_bool-empty"),
    pytest.param("set_attr_list_int", [1, -2, 2 ** 63 - 1], id="list_int-int64-max"),
    pytest.param("set_attr_list_int", [], id="list_int-empty"), pytest.param("set_attr_list_string", [], id="list_string-empty"),
    pytest.param("set_attr_list_list_int", [[1, 2], [3], []], id="list_list_int-with-an-empty-list"),
    pytest.param("set_attr_list_list_int", [], id="list_list_int-empty"),
    pytest.param("set_attr_data_type", -1, id="data_type-undefined"),
    pytest.param("set_attr_list_data_type", [], id="list_data_type-empty"),
]


@pytest.mark.parametrize("setter, value", EDGE_VALUES)
def test_set_attr_accepts_the_edge_values_of_its_parse_code_and_a_second_set_of_the_name(acl, attr, setter, value):
    expected = (attr, OK) if setter in TUPLE_RETURNING else OK
    assert getattr(acl.op, setter)(attr, "name", value) == expected
    assert getattr(acl.op, setter)(attr, "name", value) == expected


def test_setting_a_name_again_with_another_type_succeeds(acl, attr):
    assert acl.op.set_attr_int(attr, "x", 1) == OK
    assert acl.op.set_attr_string(attr, "x", "one") == OK
    assert acl.op.set_attr_list_float(attr, "x", [1.0]) == OK


@pytest.mark.parametrize("setter, array", [
    pytest.param("set_attr_list_int", np.array([1, 2], np.int64), id="list_int-int64"),
    pytest.param("set_attr_list_bool", np.array([1, 0], np.uint8), id="list_bool-uint8"),
    pytest.param("set_attr_list_float", np.array([0.5, 1.5], np.float32), id="list_float-float32"),
])
def test_set_attr_list_numpy_array_is_accepted_with_a_deprecation_warning(acl, attr, setter, array):
    with pytest.warns(Warning):
        assert getattr(acl.op, setter)(attr, "name", array) == OK


NUMPY_LISTS = [
    pytest.param("set_attr_list_int", np.array([1, 2], np.int64), id="list_int-int64"),
    pytest.param("set_attr_list_bool", np.array([1, 0], np.uint8), id="list_bool-uint8"),
    pytest.param("set_attr_list_float", np.array([0.5, 1.5], np.float32), id="list_float-float32"),
]


@pytest.mark.parametrize("setter, array", NUMPY_LISTS)
def test_set_attr_list_numpy_array_warns_the_base_warning_on_every_call(acl, attr, setter, array):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        getattr(acl.op, setter)(attr, "name", array)
        getattr(acl.op, setter)(attr, "name", array)
    assert [w.category for w in caught] == [Warning, Warning]


#: What the binding warns for a list attribute value that is not a list, word for word (hicann/runtime
#: python/pyACL/op/op.cpp).
NOT_A_LIST_WARNING = "argument 3 only support the format of list in the future."


@pytest.mark.parametrize("setter, array", NUMPY_LISTS + [
    pytest.param("set_attr_list_list_int", [np.array([1, 2], np.int64)], id="list_list_int-an-int64-row")])
def test_set_attr_list_numpy_array_warns_the_binding_text_at_the_callers_line(acl, attr, setter, array):
    function = getattr(acl.op, setter)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        line = inspect.currentframe().f_lineno + 1
        assert function(attr, "name", array) == OK
    assert [(w.category, str(w.message), w.filename, w.lineno) for w in caught] == [
        (Warning, NOT_A_LIST_WARNING, __file__, line)]


@pytest.mark.negative
@pytest.mark.parametrize("setter", ["set_attr_list_bool", "set_attr_list_int", "set_attr_list_float"])
@pytest.mark.parametrize("value", [(1, 2), 3], ids=["tuple", "int"])
def test_set_attr_list_of_neither_a_list_nor_an_array_warns_then_is_a_type_error(acl, attr, setter, value):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(TypeError) as raised:
            getattr(acl.op, setter)(attr, "name", value)
    assert type(raised.value) is TypeError and str(raised.value) == "argument 3 is not list or numpy array"
    assert [str(w.message) for w in caught] == [NOT_A_LIST_WARNING]


@pytest.mark.parametrize("setter, array", NUMPY_LISTS)
def test_set_attr_list_numpy_array_warning_is_raised_when_warnings_are_errors(acl, attr, setter, array):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(Warning) as raised:
            getattr(acl.op, setter)(attr, "name", array)
    assert type(raised.value) is Warning


@pytest.mark.parametrize("setter, value", [
    ("set_attr_list_bool", [True, False]), ("set_attr_list_int", [1, 2]), ("set_attr_list_float", [1.0]),
    ("set_attr_list_list_int", [[1, 2]]), ("set_attr_list_list_int", [[1, 2], [3]]),
], ids=["list_bool", "list_int", "list_float", "list_list_int", "list_list_int-two"])
def test_set_attr_list_of_a_python_list_does_not_warn(acl, attr, setter, value):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert getattr(acl.op, setter)(attr, "name", value) == OK


def test_set_attr_list_list_int_accepts_int64_arrays_as_inner_lists(acl, attr):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert acl.op.set_attr_list_list_int(attr, "name", [np.array([1, 2], np.int64), [3]]) == OK


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


#: The shape of the suite model Add int32 (aclcts/pytest_plugin/library.py SUITE_MODEL_CASES), which every run's model
#: folder holds.
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


@pytest.mark.negative
@pytest.mark.usefixtures("matching_models")
@pytest.mark.parametrize("kind, setter, value", [
    pytest.param("int", "set_attr_float", 7.0, id="int-as-float"),
    pytest.param("float", "set_attr_int", 0, id="float-as-int"),
    pytest.param("bool", "set_attr_int", 1, id="bool-as-int"),
    pytest.param("int", "set_attr_bool", 7, id="int-as-bool"),
    pytest.param("list_int", "set_attr_list_float", [1.0, 2.0, 3.0], id="list_int-as-list_float"),
    pytest.param("string", "set_attr_list_string", ["NCHW"], id="string-as-list_string"),
    pytest.param("data_type", "set_attr_int", int(DataType.ACL_FLOAT16), id="data_type-as-int"),
])
def test_an_attr_of_the_compiled_name_and_value_but_another_type_is_100024(acl, stream, attr, kind, setter, value):
    set_attrs(acl, attr, [(setter, f"a_{kind}", value)])
    assert execute_add(acl, stream, ATTR_SHAPES[kind], attr) == (OP_NOT_FOUND, None)


@pytest.mark.usefixtures("matching_models")
@pytest.mark.parametrize("value, expected", [
    pytest.param(float(np.float32(0.1)), (OK, True), id="a-python-float-rounding-to-the-same-float32-matches"),
    pytest.param(float(np.nextafter(np.float32(0.1), np.float32(1))), (OP_NOT_FOUND, None),
                 id="one-float32-step-away-is-100024"),
])
def test_a_float_attr_is_compared_as_float32(acl, stream, attr, value, expected):
    set_attrs(acl, attr, [("set_attr_float", "a_float", value)])
    assert execute_add(acl, stream, ATTR_SHAPES["float"], attr) == expected


@pytest.mark.negative
def test_a_const_input_does_not_match_a_plain_model_input(acl, stream, attr):
    assert execute_add(acl, stream, LIBRARY_ADD, attr, "const") == (OP_NOT_FOUND, None)


def test_a_host_placed_input_falls_back_to_a_plain_model_input(acl, stream, attr):
    assert execute_add(acl, stream, LIBRARY_ADD, attr, "host") == (OK, True)


@pytest.mark.negative
@pytest.mark.usefixtures("matching_models")
def test_a_host_placed_input_with_other_data_does_not_match_a_const_input(acl, stream, attr):
    assert execute_add(acl, stream, CONST_SHAPE, attr, "host", CONST_VALUES * 2) == (OP_NOT_FOUND, None)
