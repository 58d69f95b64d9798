"""The binding's conventions (docs/contract/binding-conventions.md): positional arguments, the wrapper's exceptions,
argument conversion by parse code, and return shapes. Each case carries the marker of its call's documented step."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

from aclcts.core.constants import DataType, ErrorCode, Format, RunMode
from aclcts.drive import flow
from documented_steps import marked

OK = ErrorCode.ACL_SUCCESS
INVALID_PARAM = ErrorCode.ACL_ERROR_INVALID_PARAM
FLOAT, ND = int(DataType.ACL_FLOAT), int(Format.ACL_FORMAT_ND)


@dataclass
class Held:
    """Valid objects for the calls to spoil: a float [2, 3] desc, an attr, host bytes and the session stream."""

    desc: int
    attr: int
    data: bytes
    pointer: int
    stream: int


@pytest.fixture
def held(acl: Any, res: flow.Resources, stream: int) -> Held:
    """A desc, an attr and a host pointer, released with the test's resources."""
    attr = acl.op.create_attr()
    res.attrs.append(attr)
    data = b"ab"
    return Held(flow.create_desc(res, FLOAT, (2, 3), ND), attr, data, acl.util.bytes_to_ptr(data), stream)


def _gemm_args(stream: Any) -> list[Any]:
    return [0, 0, 0, 16, 16, 16, 1, 2, -1, 1, 3, -1, 1, 4, 5, -1, 1, 0, stream]


KEYWORD_CALLS = [
    marked("create_tensor_desc", lambda acl, o: acl.create_tensor_desc(0, [1], format=2), id="create_tensor_desc"),
    marked("create_data_buffer", lambda acl, o: acl.create_data_buffer(data=0, size=0), id="create_data_buffer"),
    marked("rt.malloc", lambda acl, o: acl.rt.malloc(size=64, policy=0), id="rt.malloc"),
    marked("rt.set_device", lambda acl, o: acl.rt.set_device(device_id=0), id="rt.set_device"),
    marked("rt.synchronize_stream", lambda acl, o: acl.rt.synchronize_stream(stream=o.stream),
           id="rt.synchronize_stream"),
    marked("init", lambda acl, o: acl.init(config_path="x.json"), id="init"),
    marked("op.create_attr", lambda acl, o: acl.op.create_attr(x=1), id="op.create_attr"),
    marked("op.set_attr_int", lambda acl, o: acl.op.set_attr_int(o.attr, "a", value=1), id="op.set_attr_int"),
    marked("util.bytes_to_ptr", lambda acl, o: acl.util.bytes_to_ptr(data=b"x"), id="util.bytes_to_ptr"),
    marked("util.ptr_to_bytes", lambda acl, o: acl.util.ptr_to_bytes(o.pointer, size=1), id="util.ptr_to_bytes"),
]


@pytest.mark.negative
@pytest.mark.execute
def test_register_compile_func_needs_a_callable_and_update_params_lists(acl, held):
    with pytest.raises(TypeError):
        acl.op.register_compile_func("AclctsSelectedOp", 42)
    with pytest.raises(TypeError):
        acl.op.update_params("Add", (held.desc, held.desc), [held.desc], 0)


@pytest.mark.negative
@pytest.mark.parametrize("call", KEYWORD_CALLS)
def test_keyword_arguments_are_a_type_error(acl, held, call):
    with pytest.raises(TypeError):
        call(acl, held)


def parse(name: str, call: Any, id: str) -> Any:  # noqa: A002 - the test id, as pytest.param names it
    """A call whose arguments fail to parse, expected to raise TypeError("<name> args parse failed")."""
    return marked(name, name, call, id=id)


PARSE_FAILURES = [
    # wrong argument count
    parse("acl.create_tensor_desc", lambda acl, o: acl.create_tensor_desc(0, [1]), id="create_tensor_desc-two-args"),
    parse("acl.create_tensor_desc", lambda acl, o: acl.create_tensor_desc(0, 1, [1], 2),
          id="create_tensor_desc-the-documented-four-argument-form"),
    parse("acl.create_data_buffer", lambda acl, o: acl.create_data_buffer(0), id="create_data_buffer-one-arg"),
    parse("acl.get_tensor_desc_dim_v2", lambda acl, o: acl.get_tensor_desc_dim_v2(o.desc),
          id="get_tensor_desc_dim_v2-one-arg"),
    parse("acl.init", lambda acl, o: acl.init("a.json", "b.json"), id="init-two-args"),
    parse("acl.rt.set_device", lambda acl, o: acl.rt.set_device(), id="rt.set_device-no-args"),
    parse("acl.rt.set_device", lambda acl, o: acl.rt.set_device(0, 1), id="rt.set_device-two-args"),
    parse("acl.rt.synchronize_stream", lambda acl, o: acl.rt.synchronize_stream(0, 0),
          id="rt.synchronize_stream-two-args"),
    parse("acl.rt.record_event", lambda acl, o: acl.rt.record_event(o.stream), id="rt.record_event-one-arg"),
    parse("acl.op.set_attr_int", lambda acl, o: acl.op.set_attr_int(o.attr, "a"), id="op.set_attr_int-two-args"),
    parse("acl.op.execute_v2", lambda acl, o: acl.op.execute_v2("Add", [], [], [], [], 0),
          id="op.execute_v2-six-args"),
    parse("acl.op.load", lambda acl, o: acl.op.load(0), id="op.load-one-arg"),
    parse("acl.util.ptr_to_bytes", lambda acl, o: acl.util.ptr_to_bytes(o.pointer), id="util.ptr_to_bytes-one-arg"),
    parse("acl.util.bytes_to_ptr", lambda acl, o: acl.util.bytes_to_ptr(), id="util.bytes_to_ptr-no-args"),
    parse("acl.blas.gemm_ex", lambda acl, o: acl.blas.gemm_ex(*_gemm_args(0)[:-1]), id="blas.gemm_ex-18-args"),
    # None where an int is expected
    parse("acl.create_data_buffer", lambda acl, o: acl.create_data_buffer(None, 0), id="create_data_buffer-None"),
    parse("acl.get_tensor_desc_type", lambda acl, o: acl.get_tensor_desc_type(None), id="get_tensor_desc_type-None"),
    parse("acl.create_tensor_desc", lambda acl, o: acl.create_tensor_desc(None, [1], 2),
          id="create_tensor_desc-None-dtype"),
    parse("acl.rt.free", lambda acl, o: acl.rt.free(None), id="rt.free-None"),
    parse("acl.rt.set_device", lambda acl, o: acl.rt.set_device(None), id="rt.set_device-None"),
    parse("acl.rt.malloc", lambda acl, o: acl.rt.malloc(64, None), id="rt.malloc-None-policy"),
    parse("acl.rt.synchronize_stream", lambda acl, o: acl.rt.synchronize_stream(None),
          id="rt.synchronize_stream-None"),
    parse("acl.rt.destroy_stream", lambda acl, o: acl.rt.destroy_stream(None), id="rt.destroy_stream-None"),
    parse("acl.op.set_attr_int", lambda acl, o: acl.op.set_attr_int(None, "a", 1), id="op.set_attr_int-None-attr"),
    parse("acl.op.execute_v2", lambda acl, o: acl.op.execute_v2("Add", [], [], [], [], 0, None),
          id="op.execute_v2-None-stream"),
    parse("acl.util.ptr_to_bytes", lambda acl, o: acl.util.ptr_to_bytes(None, 1), id="util.ptr_to_bytes-None"),
    parse("acl.blas.gemm_ex", lambda acl, o: acl.blas.gemm_ex(*_gemm_args(None)), id="blas.gemm_ex-None-stream"),
    parse("acl.init", lambda acl, o: acl.init(None), id="init-None-config"),
    # floats and strs where an int is expected
    parse("acl.create_data_buffer", lambda acl, o: acl.create_data_buffer(0, 1.0), id="create_data_buffer-float"),
    parse("acl.rt.set_device", lambda acl, o: acl.rt.set_device(0.0), id="rt.set_device-float"),
    parse("acl.rt.create_context", lambda acl, o: acl.rt.create_context("0"), id="rt.create_context-str"),
    # NumPy integers are refused for k (pointer, handle, size) arguments
    parse("acl.create_data_buffer", lambda acl, o: acl.create_data_buffer(np.uint64(0), 0),
          id="create_data_buffer-numpy-pointer"),
    parse("acl.create_data_buffer", lambda acl, o: acl.create_data_buffer(0, np.int64(8)),
          id="create_data_buffer-numpy-size"),
    parse("acl.get_tensor_desc_type", lambda acl, o: acl.get_tensor_desc_type(np.int64(o.desc)),
          id="get_tensor_desc_type-numpy-desc"),
    parse("acl.get_tensor_desc_dim_v2", lambda acl, o: acl.get_tensor_desc_dim_v2(o.desc, np.int64(0)),
          id="get_tensor_desc_dim_v2-numpy-index"),
    parse("acl.rt.free", lambda acl, o: acl.rt.free(np.int64(0)), id="rt.free-numpy-pointer"),
    parse("acl.rt.synchronize_stream", lambda acl, o: acl.rt.synchronize_stream(np.int64(o.stream)),
          id="rt.synchronize_stream-numpy-stream"),
    parse("acl.op.set_attr_int", lambda acl, o: acl.op.set_attr_int(np.int64(o.attr), "a", 1),
          id="op.set_attr_int-numpy-attr"),
    parse("acl.op.execute_v2", lambda acl, o: acl.op.execute_v2("Add", [], [], [], [], 0, np.int64(0)),
          id="op.execute_v2-numpy-stream"),
    parse("acl.util.ptr_to_bytes", lambda acl, o: acl.util.ptr_to_bytes(np.int64(o.pointer), 1),
          id="util.ptr_to_bytes-numpy-pointer"),
    parse("acl.blas.gemm_ex", lambda acl, o: acl.blas.gemm_ex(*_gemm_args(np.int64(0))),
          id="blas.gemm_ex-numpy-stream"),
    # i (int32) arguments out of range
    parse("acl.rt.set_device", lambda acl, o: acl.rt.set_device(2 ** 31), id="rt.set_device-2-pow-31"),
    parse("acl.rt.set_device", lambda acl, o: acl.rt.set_device(-(2 ** 31) - 1), id="rt.set_device-below-int32"),
    parse("acl.create_tensor_desc", lambda acl, o: acl.create_tensor_desc(2 ** 31, [1], 2),
          id="create_tensor_desc-dtype-beyond-int32"),
    parse("acl.create_tensor_desc", lambda acl, o: acl.create_tensor_desc(0, [1], 2 ** 40),
          id="create_tensor_desc-format-beyond-int32"),
    parse("acl.data_type_size", lambda acl, o: acl.data_type_size(2 ** 31), id="data_type_size-beyond-int32"),
    parse("acl.rt.malloc", lambda acl, o: acl.rt.malloc(64, 2 ** 31), id="rt.malloc-policy-beyond-int32"),
    parse("acl.rt.get_mem_info", lambda acl, o: acl.rt.get_mem_info(2 ** 32), id="rt.get_mem_info-beyond-int32"),
    parse("acl.rt.synchronize_stream_with_timeout",
          lambda acl, o: acl.rt.synchronize_stream_with_timeout(o.stream, 2 ** 31),
          id="rt.synchronize_stream_with_timeout-beyond-int32"),
    # L (int64) attribute values are range-checked; f takes a float or an int
    parse("acl.op.set_attr_int", lambda acl, o: acl.op.set_attr_int(o.attr, "a", -(2 ** 63) - 1),
          id="op.set_attr_int-below-int64"),
    parse("acl.op.set_attr_float", lambda acl, o: acl.op.set_attr_float(o.attr, "a", "1.0"),
          id="op.set_attr_float-str"),
    # s arguments take a str only: not bytes, not None, no embedded NUL
    parse("acl.init", lambda acl, o: acl.init(b"cfg.json"), id="init-bytes-path"),
    parse("acl.set_tensor_desc_name", lambda acl, o: acl.set_tensor_desc_name(o.desc, b"x"),
          id="set_tensor_desc_name-bytes"),
    parse("acl.set_tensor_desc_name", lambda acl, o: acl.set_tensor_desc_name(o.desc, None),
          id="set_tensor_desc_name-None"),
    parse("acl.op.set_attr_int", lambda acl, o: acl.op.set_attr_int(o.attr, b"a", 1), id="op.set_attr_int-bytes-name"),
    parse("acl.op.set_attr_string", lambda acl, o: acl.op.set_attr_string(o.attr, "a", b"v"),
          id="op.set_attr_string-bytes-value"),
    parse("acl.op.set_attr_string", lambda acl, o: acl.op.set_attr_string(o.attr, "a\0b", "v"),
          id="op.set_attr_string-embedded-NUL"),
    parse("acl.op.set_model_dir", lambda acl, o: acl.op.set_model_dir(b"models"), id="op.set_model_dir-bytes"),
    parse("acl.op.execute_v2", lambda acl, o: acl.op.execute_v2(b"Add", [], [], [], [], 0, 0),
          id="op.execute_v2-bytes-op-type"),
    parse("acl.op.infer_shape", lambda acl, o: acl.op.infer_shape(1, [], [], 0, [], 0),
          id="op.infer_shape-int-op-type"),
    parse("acl.op.update_params", lambda acl, o: acl.op.update_params(1, [o.desc, o.desc], [o.desc], 0),
          id="op.update_params-int-op-type"),
]


@pytest.mark.negative
@pytest.mark.parametrize("name, call", PARSE_FAILURES)
def test_arguments_that_fail_to_parse_raise_the_wrappers_type_error(acl, held, name, call):
    with pytest.raises(TypeError) as raised:
        call(acl, held)
    assert type(raised.value) is TypeError
    assert str(raised.value) == f"{name} args parse failed"


#: Wrappers whose parse failure has its own wording (hicann/runtime python/pyACL; docs/sim-contract-additions.md):
#: a "!" after "args parse failed", or CPython's own PyArg_ParseTuple message left in place (util.start_thread).
OWN_WORDING = [
    marked("acl.set_tensor_dynamic_input", "acl.set_tensor_dynamic_input args parse failed!",
           lambda acl, o: acl.set_tensor_dynamic_input(o.desc), id="set_tensor_dynamic_input-one-arg"),
    marked("acl.rt.stream_query", "acl.rt.stream_query args parse failed!",
           lambda acl, o: acl.rt.stream_query(None), id="rt.stream_query-None"),
    marked("acl.rt.peek_at_last_error", "acl.rt.peek_at_last_error args parse failed!",
           lambda acl, o: acl.rt.peek_at_last_error(), id="rt.peek_at_last_error-no-args"),
    marked("acl.rt.synchronize_device_with_timeout", "acl.rt.synchronize_device_with_timeout args parse failed!",
           lambda acl, o: acl.rt.synchronize_device_with_timeout(2 ** 31),
           id="rt.synchronize_device_with_timeout-beyond-int32"),
    marked("acl.util.start_thread", "function takes exactly 2 arguments (0 given)",
           lambda acl, o: acl.util.start_thread(), id="util.start_thread-no-args"),
    marked("acl.util.start_thread", "function takes exactly 2 arguments (1 given)",
           lambda acl, o: acl.util.start_thread(print), id="util.start_thread-one-arg"),
    marked("acl.util.start_thread", "parameter must be callable",
           lambda acl, o: acl.util.start_thread("", ""), id="util.start_thread-not-callable"),
    marked("acl.op.register_compile_func", "argument 1 must be str, not int",
           lambda acl, o: acl.op.register_compile_func(1, print), id="op.register_compile_func-int-op-type"),
    marked("acl.op.register_compile_func", "function takes exactly 2 arguments (1 given)",
           lambda acl, o: acl.op.register_compile_func("AclctsSelectedOp"), id="op.register_compile_func-one-arg"),
    marked("acl.rt.launch_callback", "parameter must be callable",
           lambda acl, o: acl.rt.launch_callback(None, None, 0, o.stream), id="rt.launch_callback-not-callable"),
    marked("acl.op.register_compile_func", "argument 2 must be a callback function.",
           lambda acl, o: acl.op.register_compile_func("AclctsSelectedOp", 42), id="op.register_compile_func-not-callable"),
    marked("acl.rt.launch_callback", "acl.rt.launch_callback args parse failed",
           lambda acl, o: acl.rt.launch_callback(print, None, 0), id="rt.launch_callback-three-args"),
]


@pytest.mark.negative
@pytest.mark.parametrize("message, call", OWN_WORDING)
def test_wrappers_with_their_own_wording_raise_it(acl, held, message, call):
    with pytest.raises(TypeError) as raised:
        call(acl, held)
    assert type(raised.value) is TypeError
    assert str(raised.value) == message


@pytest.mark.memory
def test_start_thread_calls_the_function_without_arguments_when_args_is_none(acl):
    calls: list[tuple] = []
    thread, ret = acl.util.start_thread(lambda *args: calls.append(args), None)
    assert ret == OK
    assert acl.util.stop_thread(thread) == OK
    assert calls == [()]


@pytest.mark.memory
def test_start_thread_passes_args_as_the_one_argument(acl):
    calls: list[tuple] = []
    thread, ret = acl.util.start_thread(lambda *args: calls.append(args), {"n": 1})
    assert ret == OK
    assert acl.util.stop_thread(thread) == OK
    assert calls == [({"n": 1},)]


@pytest.mark.memory
def test_stop_thread_reports_what_the_thread_raised_as_runtime_error(acl, capfd):
    def fails() -> None:
        raise ValueError("raised in the helper thread")

    thread, ret = acl.util.start_thread(fails, None)
    assert ret == OK
    with pytest.raises(RuntimeError) as raised:
        acl.util.stop_thread(thread)
    assert str(raised.value) == "exception=ValueError,msg=thread call failed;"
    assert "raised in the helper thread" in capfd.readouterr().err  # the binding prints the thread's exception


LIST_FAILURES = [
    marked("create_tensor_desc", "argument 2 is not list", lambda acl, o: acl.create_tensor_desc(0, (2, 3), 2),
           id="create_tensor_desc-tuple-dims"),
    marked("create_tensor_desc", "invalid data type", lambda acl, o: acl.create_tensor_desc(0, [np.int64(2), 3], 2),
           id="create_tensor_desc-numpy-dim"),
    marked("op.execute_v2", "argument 2, 3, 4, or 5 is not list",
           lambda acl, o: acl.op.execute_v2("Add", (), [], [], [], 0, 0), id="execute_v2-tuple-input-descs"),
    marked("op.execute_v2", "argument 2, 3, 4, or 5 is not list",
           lambda acl, o: acl.op.execute_v2("Add", [], (), [], [], 0, 0), id="execute_v2-tuple-inputs"),
    marked("op.execute_v2", "argument 2, 3, 4, or 5 is not list",
           lambda acl, o: acl.op.execute_v2("Add", [], [], (), [], 0, 0), id="execute_v2-tuple-output-descs"),
    marked("op.execute_v2", "argument 2, 3, 4, or 5 is not list",
           lambda acl, o: acl.op.execute_v2("Add", [], [], [], (), 0, 0), id="execute_v2-tuple-outputs"),
    marked("op.execute_v2", "argument 2, 3, 4, or 5 is not list",
           lambda acl, o: acl.op.execute_v2("Add", [None], [], [], (), 0, 0),
           id="execute_v2-the-list-check-comes-before-the-element-check"),
    marked("op.execute_v2", "the list argument is not list of int",
           lambda acl, o: acl.op.execute_v2("Add", [None], [], [], [], 0, 0), id="execute_v2-None-element"),
    marked("op.execute_v2", "the list argument is not list of int",
           lambda acl, o: acl.op.execute_v2("Add", [], [np.int64(1)], [], [], 0, 0), id="execute_v2-numpy-element"),
    marked("op.execute_v2", "the list argument is not list of int",
           lambda acl, o: acl.op.execute_v2("Add", [], [], [], [1.0], 0, 0), id="execute_v2-float-element"),
    marked("op.execute", "argument 2, 3, 4, or 5 is not list",
           lambda acl, o: acl.op.execute("Add", (), [], [], [], 0, o.stream),
           id="deprecated-execute-tuple-input-descs"),
    marked("set_tensor_shape_range", "the list argument is not list",
           lambda acl, o: acl.set_tensor_shape_range(o.desc, [(1, 4), [1, 8]]), id="set_tensor_shape_range-tuple"),
    marked("op.set_attr_list_string", "argument 3 is not list",
           lambda acl, o: acl.op.set_attr_list_string(o.attr, "s", ("a",)), id="set_attr_list_string-tuple"),
    marked("op.set_attr_list_data_type", "the third argument is not list",
           lambda acl, o: acl.op.set_attr_list_data_type(o.attr, "d", (0, 1)), id="set_attr_list_data_type-tuple"),
]


@pytest.mark.negative
@pytest.mark.parametrize("message, call", LIST_FAILURES)
def test_list_arguments_that_are_not_lists_of_ints_raise_the_documented_type_error(acl, held, message, call):
    with pytest.raises(TypeError) as raised:
        call(acl, held)
    assert type(raised.value) is TypeError
    assert str(raised.value) == message


# ---------------------------------------------------------------- conversions that succeed


@pytest.mark.descriptors
def test_i_arguments_take_numpy_integers(acl, res, session):
    desc = acl.create_tensor_desc(np.int64(1), [4], np.int32(1))
    res.descs.append(desc)
    assert (acl.get_tensor_desc_type(desc), acl.get_tensor_desc_format(desc)) == (1, 1)
    assert acl.data_type_size(np.int64(9)) == 8
    assert acl.rt.set_device(np.int32(session.device_id)) == OK
    flow.check(acl.rt.set_context(session.context), "acl.rt.set_context")
    res.device.append(flow.value(acl.rt.malloc(64, np.int64(0)), "acl.rt.malloc"))
    _, total, ret = acl.rt.get_mem_info(np.int32(flow.memory_attr(acl)))
    assert ret == OK and total > 0
    attr = acl.op.create_attr()
    res.attrs.append(attr)
    assert acl.op.set_attr_int(attr, "a", np.int64(-5)) == OK


@pytest.mark.descriptors
def test_k_arguments_take_bools(acl, res, stream):
    buf = flow.create_buffer(res, True, True)
    assert (acl.get_data_buffer_addr(buf), acl.get_data_buffer_size_v2(buf)) == (1, 1)
    assert acl.rt.synchronize_stream(False) == OK


@pytest.mark.descriptors
@pytest.mark.parametrize("data, size, addr, size_v2", [
    pytest.param(-1, -64, 2 ** 64 - 1, 2 ** 64 - 64, id="minus-1"),
    pytest.param(-(2 ** 63), -1, 2 ** 63, 2 ** 64 - 1, id="int64-min"),
])
def test_negative_k_arguments_wrap_modulo_2_pow_64(acl, res, data, size, addr, size_v2):
    buf = flow.create_buffer(res, data, size)
    assert (acl.get_data_buffer_addr(buf), acl.get_data_buffer_size_v2(buf)) == (addr, size_v2)
    assert acl.update_data_buffer(buf, -2, -3) == OK
    assert (acl.get_data_buffer_addr(buf), acl.get_data_buffer_size_v2(buf)) == (2 ** 64 - 2, 2 ** 64 - 3)


@pytest.mark.descriptors
def test_a_negative_k_index_wraps_out_of_range(acl, held):
    assert acl.get_tensor_desc_dim_v2(held.desc, -1) == (0, INVALID_PARAM)


# ---------------------------------------------------------------- module layout and return shapes


@pytest.mark.sync
@pytest.mark.parametrize("module_name", ["acl", "acl.rt", "acl.op", "acl.util", "acl.blas"])
def test_no_acl_constants_are_exported(acl, module_name):
    module = acl
    for part in module_name.split(".")[1:]:
        module = getattr(module, part)
    assert [name for name in dir(module) if name.startswith("ACL_")] == []


@pytest.mark.sync
def test_soc_name_version_and_error_message_are_top_level_calls(acl):
    assert isinstance(acl.get_soc_name(), (str, type(None)))
    assert not hasattr(acl.rt, "get_soc_name") and not hasattr(acl.rt, "get_version")
    version = acl.get_version()
    assert type(version) is tuple and len(version) == 4 and all(type(v) is int for v in version)
    assert version[3] == OK
    assert acl.rt.malloc(0, 0) == (0, INVALID_PARAM)
    assert isinstance(acl.get_recent_err_msg(), (str, type(None)))


@pytest.mark.sync
def test_init_takes_no_argument_and_returns_a_bare_int(acl):
    assert type(acl.init()) is int


@pytest.mark.sync
@pytest.mark.parametrize("call, length", [
    pytest.param(lambda acl: acl.rt.get_device(), 2, id="get_device"),
    pytest.param(lambda acl: acl.rt.get_run_mode(), 2, id="get_run_mode"),
    pytest.param(lambda acl: acl.rt.get_device_count(), 2, id="get_device_count"),
    pytest.param(lambda acl: acl.rt.get_context(), 2, id="get_context"),
    pytest.param(lambda acl: acl.rt.get_mem_info(flow.memory_attr(acl)), 3, id="get_mem_info"),
])
def test_calls_with_out_values_return_them_first_and_the_ret_last(acl, call, length):
    result = call(acl)
    assert type(result) is tuple and len(result) == length
    assert all(type(item) is int for item in result) and result[-1] == OK


@pytest.mark.sync
def test_run_mode_is_a_documented_value(acl):
    assert flow.value(acl.rt.get_run_mode(), "acl.rt.get_run_mode") in (RunMode.ACL_DEVICE, RunMode.ACL_HOST)


@pytest.mark.descriptors
def test_descriptor_calls_return_handles_values_rets_and_none_in_their_documented_shapes(acl, res):
    desc = acl.create_tensor_desc(FLOAT, [7], ND)
    buf = acl.create_data_buffer(0, 0)
    attr = acl.op.create_attr()
    assert all(type(handle) is int and handle for handle in (desc, buf, attr))
    res.attrs.append(attr)
    assert acl.get_tensor_desc_dim_v2(desc, 0) == (7, OK) and type(acl.get_tensor_desc_dim_v2(desc, 0)[0]) is int
    assert type(acl.get_tensor_desc_size(desc)) is int and acl.get_tensor_desc_size(desc) == 28
    assert acl.set_tensor_desc_name(desc, "x") is None
    assert type(acl.get_tensor_desc_name(desc)) is str
    assert acl.op.set_attr_data_type(attr, "dt", 0) == (attr, OK)
    ret = acl.destroy_data_buffer(buf)
    assert type(ret) is int and ret == OK
    failed = acl.destroy_data_buffer(0)
    assert type(failed) is int and failed == INVALID_PARAM
    assert acl.destroy_tensor_desc(desc) is None


@pytest.mark.memory
def test_malloc_returns_the_pointer_then_the_ret(acl, res):
    result = acl.rt.malloc(64, 0)
    assert type(result) is tuple and len(result) == 2 and all(type(item) is int for item in result)
    assert result[1] == OK and result[0] != 0
    res.device.append(result[0])
