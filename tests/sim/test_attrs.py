"""Operator attributes (pyacl-api.md §1.9, §5, §13)."""

import warnings

import numpy as np
import pytest

import aclcts.sim

VALID_SETS = [
    pytest.param(lambda acl, a: acl.op.set_attr_bool(a, "b", True), id="set_attr_bool_true"),
    pytest.param(lambda acl, a: acl.op.set_attr_bool(a, "b", False), id="set_attr_bool_false"),
    pytest.param(lambda acl, a: acl.op.set_attr_bool(a, "b", 255), id="set_attr_bool_int_255"),
    pytest.param(lambda acl, a: acl.op.set_attr_bool(a, "b", 256), id="set_attr_bool_256_masked_no_range_check"),
    pytest.param(lambda acl, a: acl.op.set_attr_int(a, "i", 0), id="set_attr_int_zero"),
    pytest.param(lambda acl, a: acl.op.set_attr_int(a, "i", 2**63 - 1), id="set_attr_int_int64_max"),
    pytest.param(lambda acl, a: acl.op.set_attr_int(a, "i", -(2**63)), id="set_attr_int_int64_min"),
    pytest.param(lambda acl, a: acl.op.set_attr_int(a, "i", np.int32(7)), id="set_attr_int_numpy_index"),
    pytest.param(lambda acl, a: acl.op.set_attr_float(a, "f", 1.5), id="set_attr_float_float"),
    pytest.param(lambda acl, a: acl.op.set_attr_float(a, "f", 2), id="set_attr_float_int"),
    pytest.param(lambda acl, a: acl.op.set_attr_float(a, "f", float("nan")), id="set_attr_float_nan"),
    pytest.param(lambda acl, a: acl.op.set_attr_string(a, "s", "value"), id="set_attr_string"),
    pytest.param(lambda acl, a: acl.op.set_attr_string(a, "s", ""), id="set_attr_string_empty"),
    pytest.param(lambda acl, a: acl.op.set_attr_list_bool(a, "lb", [True, False, 0, 1, 255]), id="set_attr_list_bool_bools_and_bytes"),
    pytest.param(lambda acl, a: acl.op.set_attr_list_bool(a, "lb", []), id="set_attr_list_bool_empty"),
    pytest.param(lambda acl, a: acl.op.set_attr_list_int(a, "li", [1, -2, 2**63 - 1]), id="set_attr_list_int"),
    pytest.param(lambda acl, a: acl.op.set_attr_list_int(a, "li", []), id="set_attr_list_int_empty"),
    pytest.param(lambda acl, a: acl.op.set_attr_list_float(a, "lf", [1.0, -2.5]), id="set_attr_list_float_floats"),
    pytest.param(lambda acl, a: acl.op.set_attr_list_string(a, "ls", ["a", "bc"]), id="set_attr_list_string"),
    pytest.param(lambda acl, a: acl.op.set_attr_list_string(a, "ls", []), id="set_attr_list_string_empty"),
    pytest.param(lambda acl, a: acl.op.set_attr_list_list_int(a, "lli", [[1, 2], [3], []]), id="set_attr_list_list_int_lists"),
    pytest.param(lambda acl, a: acl.op.set_attr_list_list_int(a, "lli", []), id="set_attr_list_list_int_empty"),
]


@pytest.mark.parametrize("setter", VALID_SETS)
def test_setter_returns_success_as_bare_int(acl, setter):
    ret = setter(acl, acl.op.create_attr())
    assert type(ret) is int and ret == 0


@pytest.mark.parametrize("setter", VALID_SETS)
def test_setter_repeated_on_same_name_overwrites_with_success(acl, setter):
    attr = acl.op.create_attr()
    assert setter(acl, attr) == 0
    assert setter(acl, attr) == 0


def test_same_name_with_different_type_overwrites_with_success(acl):
    attr = acl.op.create_attr()
    assert acl.op.set_attr_int(attr, "x", 1) == 0
    assert acl.op.set_attr_string(attr, "x", "one") == 0
    assert acl.op.set_attr_list_float(attr, "x", [1.0]) == 0


def test_setters_need_no_init(acl):
    attr = acl.op.create_attr()
    assert acl.op.set_attr_int(attr, "i", 1) == 0
    assert acl.op.set_attr_data_type(attr, "d", 0) == (attr, 0)


def test_create_attr_returns_distinct_nonzero_ints(acl):
    attrs = [acl.op.create_attr() for _ in range(3)]
    assert all(type(attr) is int for attr in attrs)
    assert len(set(attrs)) == 3 and 0 not in attrs


def test_destroy_attr_returns_none_and_removes_live_attr(acl):
    attr = acl.op.create_attr()
    assert attr in [obj.handle for obj in aclcts.sim.live_objects("attr")]
    assert acl.op.destroy_attr(attr) is None
    assert attr not in [obj.handle for obj in aclcts.sim.live_objects("attr")]


@pytest.mark.parametrize(
    "value",
    [pytest.param(0, id="float"), pytest.param(1, id="float16"), pytest.param(-1, id="undefined"), pytest.param(27, id="bf16")],
)
def test_set_attr_data_type_returns_attr_ret(acl, value):
    attr = acl.op.create_attr()
    assert acl.op.set_attr_data_type(attr, "dst_type", value) == (attr, 0)


@pytest.mark.parametrize(
    "values",
    [pytest.param([0, 1, 27], id="several"), pytest.param([], id="empty"), pytest.param([-1], id="undefined")],
)
def test_set_attr_list_data_type_returns_attr_ret(acl, values):
    attr = acl.op.create_attr()
    assert acl.op.set_attr_list_data_type(attr, "types", values) == (attr, 0)


ATTR_0_SETS = [
    pytest.param(lambda acl: acl.op.set_attr_bool(0, "b", True), id="set_attr_bool_attr_0_is_100000"),
    pytest.param(lambda acl: acl.op.set_attr_int(0, "i", 1), id="set_attr_int_attr_0_is_100000"),
    pytest.param(lambda acl: acl.op.set_attr_float(0, "f", 1.0), id="set_attr_float_attr_0_is_100000"),
    pytest.param(lambda acl: acl.op.set_attr_string(0, "s", "v"), id="set_attr_string_attr_0_is_100000"),
    pytest.param(lambda acl: acl.op.set_attr_list_bool(0, "lb", [True]), id="set_attr_list_bool_attr_0_is_100000"),
    pytest.param(lambda acl: acl.op.set_attr_list_int(0, "li", [1]), id="set_attr_list_int_attr_0_is_100000"),
    pytest.param(lambda acl: acl.op.set_attr_list_float(0, "lf", [1.0]), id="set_attr_list_float_attr_0_is_100000"),
    pytest.param(lambda acl: acl.op.set_attr_list_string(0, "ls", ["a"]), id="set_attr_list_string_attr_0_is_100000"),
    pytest.param(lambda acl: acl.op.set_attr_list_list_int(0, "lli", [[1]]), id="set_attr_list_list_int_attr_0_is_100000"),
]


@pytest.mark.parametrize("setter", ATTR_0_SETS)
def test_setter_with_attr_0_is_100000(acl, setter):
    assert setter(acl) == 100000


def test_set_attr_data_type_attr_0_is_100000(acl):
    assert acl.op.set_attr_data_type(0, "d", 0) == (0, 100000)


def test_set_attr_list_data_type_attr_0_is_100000(acl):
    assert acl.op.set_attr_list_data_type(0, "d", [0]) == (0, 100000)


@pytest.mark.parametrize(
    ("call", "exception", "message"),
    [
        pytest.param(lambda acl, a: acl.op.set_attr_list_float(a, "lf", [1, 2]), ValueError, "get values from PyList failed", id="list_float_ints_rejected"),
        pytest.param(lambda acl, a: acl.op.set_attr_list_float(a, "lf", [1.0, 2]), ValueError, "get values from PyList failed", id="list_float_mixed_int_rejected"),
        pytest.param(lambda acl, a: acl.op.set_attr_list_float(a, "lf", [True]), ValueError, "get values from PyList failed", id="list_float_bool_rejected"),
        pytest.param(lambda acl, a: acl.op.set_attr_list_float(a, "lf", ["1.0"]), ValueError, "get values from PyList failed", id="list_float_str_rejected"),
        pytest.param(lambda acl, a: acl.op.set_attr_list_bool(a, "lb", ["x"]), ValueError, "get values from PyList failed", id="list_bool_str_rejected"),
        pytest.param(lambda acl, a: acl.op.set_attr_list_bool(a, "lb", [None]), ValueError, "get values from PyList failed", id="list_bool_none_rejected"),
        pytest.param(lambda acl, a: acl.op.set_attr_list_bool(a, "lb", [1.0]), ValueError, "get values from PyList failed", id="list_bool_float_rejected"),
        pytest.param(lambda acl, a: acl.op.set_attr_list_string(a, "ls", ["a", 1]), RuntimeError, "PyUnicode_AsUTF8String failed", id="list_string_int_element_runtime_error"),
        pytest.param(lambda acl, a: acl.op.set_attr_list_string(a, "ls", [b"a"]), RuntimeError, "PyUnicode_AsUTF8String failed", id="list_string_bytes_element_runtime_error"),
        pytest.param(lambda acl, a: acl.op.set_attr_list_string(a, "ls", ("a",)), TypeError, "argument 3 is not list", id="list_string_tuple_argument_3_is_not_list"),
        pytest.param(lambda acl, a: acl.op.set_attr_list_string(a, "ls", "ab"), TypeError, "argument 3 is not list", id="list_string_str_argument_3_is_not_list"),
        pytest.param(lambda acl, a: acl.op.set_attr_list_list_int(a, "lli", [[1], (2, 3)]), ValueError, "parse argument 3 failed", id="list_list_int_inner_tuple_value_error"),
        pytest.param(lambda acl, a: acl.op.set_attr_list_list_int(a, "lli", [[1, "x"]]), ValueError, "parse argument 3 failed", id="list_list_int_inner_str_value_error"),
        pytest.param(lambda acl, a: acl.op.set_attr_list_list_int(a, "lli", [5]), ValueError, "parse argument 3 failed", id="list_list_int_inner_int_value_error"),
        pytest.param(lambda acl, a: acl.op.set_attr_list_list_int(a, "lli", [np.array([1.0, 2.0])]), ValueError, "parse argument 3 failed", id="list_list_int_inner_float_array_value_error"),
        pytest.param(lambda acl, a: acl.op.set_attr_list_data_type(a, "d", (0, 1)), TypeError, "the third argument is not list", id="list_data_type_tuple_third_argument_is_not_list"),
        pytest.param(lambda acl, a: acl.op.set_attr_list_data_type(a, "d", 0), TypeError, "the third argument is not list", id="list_data_type_int_third_argument_is_not_list"),
        pytest.param(lambda acl, a: acl.op.set_attr_int(a, "i", 2**63), TypeError, "acl.op.set_attr_int args parse failed", id="set_attr_int_out_of_int64_parse_failed"),
        pytest.param(lambda acl, a: acl.op.set_attr_string(a, "s", None), TypeError, "acl.op.set_attr_string args parse failed", id="set_attr_string_none_parse_failed"),
        pytest.param(lambda acl, a: acl.op.set_attr_bool(a, b"b", True), TypeError, "acl.op.set_attr_bool args parse failed", id="set_attr_bool_bytes_name_parse_failed"),
        pytest.param(lambda acl, a: acl.op.set_attr_float(a, "f", None), TypeError, "acl.op.set_attr_float args parse failed", id="set_attr_float_none_parse_failed"),
        pytest.param(lambda acl, a: acl.op.set_attr_data_type(a, "d", 2**31), TypeError, "acl.op.set_attr_data_type args parse failed", id="set_attr_data_type_out_of_int32_parse_failed"),
    ],
)
def test_setter_binding_exception(acl, call, exception, message):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(exception) as raised:
            call(acl, acl.op.create_attr())
    assert type(raised.value) is exception
    assert str(raised.value) == message


NUMPY_SETS = [
    pytest.param(lambda acl, a: acl.op.set_attr_list_bool(a, "lb", np.array([1, 0, 1], dtype=np.uint8)), id="list_bool_uint8_array"),
    pytest.param(lambda acl, a: acl.op.set_attr_list_int(a, "li", np.array([1, -2, 3], dtype=np.int64)), id="list_int_int64_array"),
    pytest.param(lambda acl, a: acl.op.set_attr_list_float(a, "lf", np.array([1.0, 2.5], dtype=np.float32)), id="list_float_float32_array"),
]


@pytest.mark.parametrize("setter", NUMPY_SETS)
def test_numpy_array_branch_succeeds_and_warns_base_warning(acl, setter):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ret = setter(acl, acl.op.create_attr())
    assert ret == 0
    assert [w.category for w in caught] == [Warning]


@pytest.mark.parametrize("setter", NUMPY_SETS)
def test_numpy_array_branch_warns_on_every_call(acl, setter):
    attr = acl.op.create_attr()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        setter(acl, attr)
        setter(acl, attr)
    assert [w.category for w in caught] == [Warning, Warning]


@pytest.mark.parametrize("setter", NUMPY_SETS)
def test_numpy_array_branch_warning_escalates_when_errors(acl, setter):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(Warning) as raised:
            setter(acl, acl.op.create_attr())
    assert type(raised.value) is Warning


@pytest.mark.parametrize(
    "setter",
    [
        pytest.param(lambda acl, a: acl.op.set_attr_list_bool(a, "lb", [True, False]), id="list_bool_list"),
        pytest.param(lambda acl, a: acl.op.set_attr_list_int(a, "li", [1, 2]), id="list_int_list"),
        pytest.param(lambda acl, a: acl.op.set_attr_list_float(a, "lf", [1.0]), id="list_float_list"),
        pytest.param(lambda acl, a: acl.op.set_attr_list_list_int(a, "lli", [[1, 2]]), id="list_list_int_list"),
    ],
)
def test_list_branch_does_not_warn(acl, setter):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert setter(acl, acl.op.create_attr()) == 0


def test_list_list_int_accepts_int64_array_items(acl):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ret = acl.op.set_attr_list_list_int(acl.op.create_attr(), "lli", [np.array([1, 2], dtype=np.int64), [3]])
    assert ret == 0
