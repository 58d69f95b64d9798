"""pyacl binding conventions (pyacl-api.md §1, §13): argument parsing, wrapper exceptions and return shapes."""

import numpy as np
import pytest

PARSE_FAILED = "{} args parse failed"


def _desc(acl):
    return acl.create_tensor_desc(0, [2, 3], 2)


KEYWORD_CALLS = [
    pytest.param(lambda acl: acl.create_tensor_desc(0, [1], format=2), id="top_level_create_tensor_desc_keyword_rejected"),
    pytest.param(lambda acl: acl.create_data_buffer(data=0, size=0), id="top_level_create_data_buffer_keyword_rejected"),
    pytest.param(lambda acl: acl.rt.malloc(size=64, policy=0), id="rt_malloc_keyword_rejected"),
    pytest.param(lambda acl: acl.rt.set_device(device_id=0), id="rt_set_device_keyword_rejected"),
    pytest.param(lambda acl: acl.op.create_attr(x=1), id="op_create_attr_keyword_rejected"),
    pytest.param(lambda acl: acl.op.set_attr_int(acl.op.create_attr(), "a", value=1), id="op_set_attr_int_keyword_rejected"),
    pytest.param(lambda acl: acl.util.bytes_to_ptr(data=b"x"), id="util_bytes_to_ptr_keyword_rejected"),
    pytest.param(lambda acl: acl.util.ptr_to_bytes(acl.util.bytes_to_ptr(b"xy"), size=1), id="util_ptr_to_bytes_keyword_rejected"),
]


@pytest.mark.parametrize("call", KEYWORD_CALLS)
def test_keyword_arguments_raise_type_error(acl, call):
    with pytest.raises(TypeError):
        call(acl)


def _gemm_args(stream):
    return [0, 0, 0, 16, 16, 16, 1, 2, -1, 1, 3, -1, 1, 4, 5, -1, 1, 0, stream]


PARSE_FAILURES = [
    # wrong argument count
    pytest.param("acl.create_tensor_desc", lambda acl: acl.create_tensor_desc(0, [1]), id="create_tensor_desc_two_args_parse_failed"),
    pytest.param("acl.create_tensor_desc", lambda acl: acl.create_tensor_desc(0, 1, [1], 2), id="create_tensor_desc_four_arg_doc_form_parse_failed"),
    pytest.param("acl.create_data_buffer", lambda acl: acl.create_data_buffer(0), id="create_data_buffer_one_arg_parse_failed"),
    pytest.param("acl.get_tensor_desc_dim_v2", lambda acl: acl.get_tensor_desc_dim_v2(_desc(acl)), id="get_tensor_desc_dim_v2_one_arg_parse_failed"),
    pytest.param("acl.init", lambda acl: acl.init("a.json", "b.json"), id="init_two_args_parse_failed"),
    pytest.param("acl.rt.malloc", lambda acl: acl.rt.malloc(64), id="rt_malloc_one_arg_parse_failed"),
    pytest.param("acl.rt.memcpy", lambda acl: acl.rt.memcpy(1, 2, 3, 4), id="rt_memcpy_four_args_parse_failed"),
    pytest.param("acl.rt.set_device", lambda acl: acl.rt.set_device(), id="rt_set_device_no_args_parse_failed"),
    pytest.param("acl.rt.synchronize_stream", lambda acl: acl.rt.synchronize_stream(0, 0), id="rt_synchronize_stream_two_args_parse_failed"),
    pytest.param("acl.op.set_attr_int", lambda acl: acl.op.set_attr_int(acl.op.create_attr(), "a"), id="op_set_attr_int_two_args_parse_failed"),
    pytest.param("acl.op.execute_v2", lambda acl: acl.op.execute_v2("Add", [], [], [], [], 0), id="op_execute_v2_six_args_parse_failed"),
    pytest.param("acl.op.load", lambda acl: acl.op.load(0), id="op_load_one_arg_parse_failed"),
    pytest.param("acl.util.ptr_to_bytes", lambda acl: acl.util.ptr_to_bytes(acl.util.bytes_to_ptr(b"ab")), id="util_ptr_to_bytes_one_arg_parse_failed"),
    pytest.param("acl.util.bytes_to_ptr", lambda acl: acl.util.bytes_to_ptr(), id="util_bytes_to_ptr_no_args_parse_failed"),
    pytest.param("acl.blas.gemm_ex", lambda acl: acl.blas.gemm_ex(*_gemm_args(0)[:-1]), id="blas_gemm_ex_eighteen_args_parse_failed"),
    # None where an int is expected
    pytest.param("acl.create_data_buffer", lambda acl: acl.create_data_buffer(None, 0), id="create_data_buffer_none_pointer_parse_failed"),
    pytest.param("acl.get_tensor_desc_type", lambda acl: acl.get_tensor_desc_type(None), id="get_tensor_desc_type_none_desc_parse_failed"),
    pytest.param("acl.create_tensor_desc", lambda acl: acl.create_tensor_desc(None, [1], 2), id="create_tensor_desc_none_dtype_parse_failed"),
    pytest.param("acl.rt.free", lambda acl: acl.rt.free(None), id="rt_free_none_parse_failed"),
    pytest.param("acl.rt.set_device", lambda acl: acl.rt.set_device(None), id="rt_set_device_none_parse_failed"),
    pytest.param("acl.rt.malloc", lambda acl: acl.rt.malloc(64, None), id="rt_malloc_none_policy_parse_failed"),
    pytest.param("acl.rt.synchronize_stream", lambda acl: acl.rt.synchronize_stream(None), id="rt_synchronize_stream_none_parse_failed"),
    pytest.param("acl.op.set_attr_int", lambda acl: acl.op.set_attr_int(None, "a", 1), id="op_set_attr_int_none_attr_parse_failed"),
    pytest.param("acl.op.execute_v2", lambda acl: acl.op.execute_v2("Add", [], [], [], [], 0, None), id="op_execute_v2_none_stream_parse_failed"),
    pytest.param("acl.util.ptr_to_bytes", lambda acl: acl.util.ptr_to_bytes(None, 1), id="util_ptr_to_bytes_none_pointer_parse_failed"),
    pytest.param("acl.blas.gemm_ex", lambda acl: acl.blas.gemm_ex(*_gemm_args(None)), id="blas_gemm_ex_none_stream_parse_failed"),
    pytest.param("acl.init", lambda acl: acl.init(None), id="init_none_config_parse_failed"),
    # floats where an int is expected
    pytest.param("acl.create_data_buffer", lambda acl: acl.create_data_buffer(0, 1.0), id="create_data_buffer_float_size_parse_failed"),
    pytest.param("acl.rt.set_device", lambda acl: acl.rt.set_device(0.0), id="rt_set_device_float_parse_failed"),
    # numpy integers rejected for `k` (pointer / handle / size) arguments
    pytest.param("acl.create_data_buffer", lambda acl: acl.create_data_buffer(np.uint64(0), 0), id="create_data_buffer_numpy_pointer_k_rejected"),
    pytest.param("acl.create_data_buffer", lambda acl: acl.create_data_buffer(0, np.int64(8)), id="create_data_buffer_numpy_size_k_rejected"),
    pytest.param("acl.get_tensor_desc_type", lambda acl: acl.get_tensor_desc_type(np.int64(_desc(acl))), id="get_tensor_desc_type_numpy_desc_k_rejected"),
    pytest.param("acl.get_tensor_desc_dim_v2", lambda acl: acl.get_tensor_desc_dim_v2(_desc(acl), np.int64(0)), id="get_tensor_desc_dim_v2_numpy_index_k_rejected"),
    pytest.param("acl.rt.malloc", lambda acl: acl.rt.malloc(np.int64(64), 0), id="rt_malloc_numpy_size_k_rejected"),
    pytest.param("acl.rt.free", lambda acl: acl.rt.free(np.int64(0)), id="rt_free_numpy_pointer_k_rejected"),
    pytest.param("acl.rt.synchronize_stream", lambda acl: acl.rt.synchronize_stream(np.int64(0)), id="rt_synchronize_stream_numpy_stream_k_rejected"),
    pytest.param("acl.op.set_attr_int", lambda acl: acl.op.set_attr_int(np.int64(acl.op.create_attr()), "a", 1), id="op_set_attr_int_numpy_attr_k_rejected"),
    pytest.param("acl.op.execute_v2", lambda acl: acl.op.execute_v2("Add", [], [], [], [], 0, np.int64(0)), id="op_execute_v2_numpy_stream_k_rejected"),
    pytest.param("acl.util.ptr_to_bytes", lambda acl: acl.util.ptr_to_bytes(np.int64(acl.util.bytes_to_ptr(b"ab")), 1), id="util_ptr_to_bytes_numpy_pointer_k_rejected"),
    pytest.param("acl.blas.gemm_ex", lambda acl: acl.blas.gemm_ex(*_gemm_args(np.int64(0))), id="blas_gemm_ex_numpy_stream_k_rejected"),
    # out-of-range `i` (int32) arguments
    pytest.param("acl.rt.set_device", lambda acl: acl.rt.set_device(2**31), id="rt_set_device_2pow31_i_out_of_range"),
    pytest.param("acl.rt.set_device", lambda acl: acl.rt.set_device(-(2**31) - 1), id="rt_set_device_below_int32_i_out_of_range"),
    pytest.param("acl.create_tensor_desc", lambda acl: acl.create_tensor_desc(2**31, [1], 2), id="create_tensor_desc_dtype_i_out_of_range"),
    pytest.param("acl.create_tensor_desc", lambda acl: acl.create_tensor_desc(0, [1], 2**40), id="create_tensor_desc_format_i_out_of_range"),
    pytest.param("acl.data_type_size", lambda acl: acl.data_type_size(2**31), id="data_type_size_i_out_of_range"),
    pytest.param("acl.rt.malloc", lambda acl: acl.rt.malloc(64, 2**31), id="rt_malloc_policy_i_out_of_range"),
    pytest.param("acl.rt.get_mem_info", lambda acl: acl.rt.get_mem_info(2**32), id="rt_get_mem_info_attr_i_out_of_range"),
    # `L` int64 attribute values are range-checked
    pytest.param("acl.op.set_attr_int", lambda acl: acl.op.set_attr_int(acl.op.create_attr(), "a", 2**63), id="op_set_attr_int_2pow63_L_out_of_range"),
    pytest.param("acl.op.set_attr_int", lambda acl: acl.op.set_attr_int(acl.op.create_attr(), "a", -(2**63) - 1), id="op_set_attr_int_below_int64_L_out_of_range"),
    # `f` accepts float or int only
    pytest.param("acl.op.set_attr_float", lambda acl: acl.op.set_attr_float(acl.op.create_attr(), "a", "1.0"), id="op_set_attr_float_str_value_parse_failed"),
    # `s` arguments accept str only (not bytes, not None, no embedded NUL)
    pytest.param("acl.init", lambda acl: acl.init(b"cfg.json"), id="init_bytes_path_s_rejected"),
    pytest.param("acl.set_tensor_desc_name", lambda acl: acl.set_tensor_desc_name(_desc(acl), b"x"), id="set_tensor_desc_name_bytes_s_rejected"),
    pytest.param("acl.set_tensor_desc_name", lambda acl: acl.set_tensor_desc_name(_desc(acl), None), id="set_tensor_desc_name_none_s_rejected"),
    pytest.param("acl.op.set_attr_int", lambda acl: acl.op.set_attr_int(acl.op.create_attr(), b"a", 1), id="op_set_attr_int_bytes_name_s_rejected"),
    pytest.param("acl.op.set_attr_string", lambda acl: acl.op.set_attr_string(acl.op.create_attr(), "a", b"v"), id="op_set_attr_string_bytes_value_s_rejected"),
    pytest.param("acl.op.set_attr_string", lambda acl: acl.op.set_attr_string(acl.op.create_attr(), "a\0b", "v"), id="op_set_attr_string_embedded_nul_s_rejected"),
    pytest.param("acl.op.set_model_dir", lambda acl: acl.op.set_model_dir(b"models"), id="op_set_model_dir_bytes_s_rejected"),
    pytest.param("acl.op.execute_v2", lambda acl: acl.op.execute_v2(b"Add", [], [], [], [], 0, 0), id="op_execute_v2_bytes_op_type_s_rejected"),
    pytest.param("acl.op.infer_shape", lambda acl: acl.op.infer_shape(1, [], [], 0, [], 0), id="op_infer_shape_int_op_type_s_rejected"),
]


@pytest.mark.parametrize(("name", "call"), PARSE_FAILURES)
def test_parse_failure_raises_wrapper_type_error(acl, name, call):
    with pytest.raises(TypeError) as raised:
        call(acl)
    assert type(raised.value) is TypeError
    assert str(raised.value) == PARSE_FAILED.format(name)


LIST_FAILURES = [
    pytest.param("argument 2 is not list", lambda acl: acl.create_tensor_desc(0, (2, 3), 2), id="create_tensor_desc_tuple_dims_argument_2_is_not_list"),
    pytest.param("invalid data type", lambda acl: acl.create_tensor_desc(0, [np.int64(2), 3], 2), id="create_tensor_desc_numpy_dim_invalid_data_type"),
    pytest.param("argument 2, 3, 4, or 5 is not list", lambda acl: acl.op.execute_v2("Add", (), [], [], [], 0, 0), id="execute_v2_tuple_input_desc_not_list"),
    pytest.param("argument 2, 3, 4, or 5 is not list", lambda acl: acl.op.execute_v2("Add", [], (), [], [], 0, 0), id="execute_v2_tuple_inputs_not_list"),
    pytest.param("argument 2, 3, 4, or 5 is not list", lambda acl: acl.op.execute_v2("Add", [], [], (), [], 0, 0), id="execute_v2_tuple_output_desc_not_list"),
    pytest.param("argument 2, 3, 4, or 5 is not list", lambda acl: acl.op.execute_v2("Add", [], [], [], (), 0, 0), id="execute_v2_tuple_outputs_not_list"),
    pytest.param("argument 2, 3, 4, or 5 is not list", lambda acl: acl.op.execute_v2("Add", [None], [], [], (), 0, 0), id="execute_v2_list_check_precedes_element_check"),
    pytest.param("the list argument is not list of int", lambda acl: acl.op.execute_v2("Add", [None], [], [], [], 0, 0), id="execute_v2_none_element_not_list_of_int"),
    pytest.param("the list argument is not list of int", lambda acl: acl.op.execute_v2("Add", [], [np.int64(1)], [], [], 0, 0), id="execute_v2_numpy_element_not_list_of_int"),
    pytest.param("the list argument is not list of int", lambda acl: acl.op.execute_v2("Add", [], [], [], [1.0], 0, 0), id="execute_v2_float_element_not_list_of_int"),
    pytest.param("the list argument is not list", lambda acl: acl.set_tensor_shape_range(_desc(acl), [(1, 4), [1, 8]]), id="set_tensor_shape_range_inner_tuple_not_list"),
    pytest.param("argument 3 is not list", lambda acl: acl.op.set_attr_list_string(acl.op.create_attr(), "s", ("a",)), id="set_attr_list_string_tuple_argument_3_is_not_list"),
    pytest.param("the third argument is not list", lambda acl: acl.op.set_attr_list_data_type(acl.op.create_attr(), "d", (0, 1)), id="set_attr_list_data_type_tuple_third_argument_is_not_list"),
]


@pytest.mark.parametrize(("message", "call"), LIST_FAILURES)
def test_list_argument_failure_raises_documented_type_error(acl, message, call):
    with pytest.raises(TypeError) as raised:
        call(acl)
    assert type(raised.value) is TypeError
    assert str(raised.value) == message


def test_numpy_int_accepted_for_i_dtype_and_format_of_create_tensor_desc(acl):
    desc = acl.create_tensor_desc(np.int64(1), [4], np.int32(1))
    assert desc != 0
    assert (acl.get_tensor_desc_type(desc), acl.get_tensor_desc_format(desc)) == (1, 1)


def test_numpy_int_accepted_for_i_data_type_size(acl):
    assert acl.data_type_size(np.int64(9)) == 8


def test_numpy_int_accepted_for_i_device_id_of_set_device(acl, session):
    assert acl.rt.set_device(np.int64(0)) == 0


def test_numpy_int_accepted_for_i_policy_of_malloc(acl, session):
    ptr, ret = acl.rt.malloc(64, np.int64(0))
    assert ret == 0 and ptr != 0
    assert acl.rt.free(ptr) == 0


def test_numpy_int_accepted_for_i_attr_of_get_mem_info(acl, session):
    free, total, ret = acl.rt.get_mem_info(np.int32(1))
    assert ret == 0 and total > 0


def test_numpy_int_accepted_for_L_value_of_set_attr_int(acl):
    assert acl.op.set_attr_int(acl.op.create_attr(), "a", np.int64(-5)) == 0


def test_bool_accepted_for_k_arguments(acl):
    buf = acl.create_data_buffer(True, True)
    assert (acl.get_data_buffer_addr(buf), acl.get_data_buffer_size_v2(buf)) == (1, 1)


@pytest.mark.parametrize(
    ("data", "size", "addr", "size_v2"),
    [
        pytest.param(-1, -64, 2**64 - 1, 2**64 - 64, id="negative_k_pointer_and_size_wrap_mod_2pow64"),
        pytest.param(-(2**63), -1, 2**63, 2**64 - 1, id="int64_min_k_wraps_to_2pow63"),
    ],
)
def test_negative_k_values_wrap_mod_2pow64(acl, data, size, addr, size_v2):
    buf = acl.create_data_buffer(data, size)
    assert acl.get_data_buffer_addr(buf) == addr
    assert acl.get_data_buffer_size_v2(buf) == size_v2


def test_negative_k_index_wraps_and_is_out_of_range(acl):
    assert acl.get_tensor_desc_dim_v2(_desc(acl), -1) == (0, 100000)


def test_negative_k_update_data_buffer_wraps(acl):
    buf = acl.create_data_buffer(0, 0)
    assert acl.update_data_buffer(buf, -2, -3) == 0
    assert (acl.get_data_buffer_addr(buf), acl.get_data_buffer_size_v2(buf)) == (2**64 - 2, 2**64 - 3)


def test_B_bool_value_is_masked_without_range_check(acl):
    assert acl.op.set_attr_bool(acl.op.create_attr(), "b", 256) == 0


def test_f_float_value_accepts_int(acl):
    assert acl.op.set_attr_float(acl.op.create_attr(), "f", 3) == 0


def test_op_create_attr_ignores_positional_arguments(acl):
    attr = acl.op.create_attr(1, "two", None)
    assert type(attr) is int and attr != 0


def test_init_config_argument_is_optional(acl):
    assert acl.init() == 0


@pytest.mark.parametrize("module_name", ["acl", "acl.rt", "acl.op", "acl.util", "acl.blas"])
def test_no_acl_constants_on_module(acl, module_name):
    module = acl
    for part in module_name.split(".")[1:]:
        module = getattr(module, part)
    assert [name for name in dir(module) if name.startswith("ACL_")] == []


def test_get_soc_name_is_top_level_not_rt(acl):
    assert type(acl.get_soc_name()) is str
    assert not hasattr(acl.rt, "get_soc_name")


def _all_int(values):
    return all(type(value) is int for value in values)


def test_return_shape_handle_is_bare_int(acl):
    handles = [acl.create_tensor_desc(0, [1], 2), acl.create_data_buffer(0, 0), acl.op.create_attr()]
    assert _all_int(handles) and 0 not in handles


def test_return_shape_ret_only_is_bare_int(acl):
    ret = acl.destroy_data_buffer(acl.create_data_buffer(0, 0))
    assert type(ret) is int and ret == 0


def test_return_shape_rt_ret_only_is_bare_int(acl):
    ret = acl.init()
    assert type(ret) is int and ret == 0


def test_return_shape_failure_ret_is_bare_int(acl):
    ret = acl.destroy_data_buffer(0)
    assert type(ret) is int and ret == 100000


def test_return_shape_out_value_then_ret_tuple(acl):
    result = acl.get_tensor_desc_dim_v2(acl.create_tensor_desc(0, [7], 2), 0)
    assert type(result) is tuple and result == (7, 0) and _all_int(result)


def test_return_shape_malloc_is_pointer_ret_tuple(acl, session):
    result = acl.rt.malloc(64, 0)
    assert type(result) is tuple and len(result) == 2 and _all_int(result)
    assert result[1] == 0 and result[0] != 0


def test_return_shape_get_mem_info_is_free_total_ret(acl, session):
    result = acl.rt.get_mem_info(1)
    assert type(result) is tuple and len(result) == 3 and _all_int(result)
    assert result[2] == 0 and result[0] <= result[1]


def test_return_shape_get_version_is_four_tuple(acl):
    result = acl.get_version()
    assert type(result) is tuple and len(result) == 4 and _all_int(result)
    assert result[3] == 0


def test_return_shape_value_function_returns_value_without_ret(acl):
    size = acl.get_tensor_desc_size(acl.create_tensor_desc(0, [2, 3], 2))
    assert type(size) is int and size == 24


@pytest.mark.parametrize(
    "call",
    [
        pytest.param(lambda acl: acl.destroy_tensor_desc(acl.create_tensor_desc(0, [1], 2)), id="destroy_tensor_desc_void_returns_none"),
        pytest.param(lambda acl: acl.set_tensor_desc_name(acl.create_tensor_desc(0, [1], 2), "x"), id="set_tensor_desc_name_void_returns_none"),
        pytest.param(lambda acl: acl.op.destroy_attr(acl.op.create_attr()), id="op_destroy_attr_void_returns_none"),
    ],
)
def test_return_shape_void_returns_none(acl, call):
    assert call(acl) is None


def test_return_shape_get_tensor_desc_name_is_str(acl):
    desc = acl.create_tensor_desc(0, [1], 2)
    acl.set_tensor_desc_name(desc, "x")
    name = acl.get_tensor_desc_name(desc)
    assert type(name) is str and name == "x"


def test_return_shape_set_attr_data_type_is_attr_ret_tuple(acl):
    attr = acl.op.create_attr()
    result = acl.op.set_attr_data_type(attr, "dt", 0)
    assert type(result) is tuple and result == (attr, 0) and _all_int(result)
