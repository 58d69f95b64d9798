"""execute_v2 over the case library: every case's outputs match the NumPy reference under its policy."""

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from aclcts.core.constants import DataType, ErrorCode, Format
from aclcts.drive import executor, flow
from aclcts.judge.decorator import compares_with_reference

pytestmark = [pytest.mark.execute]


@pytest.mark.cases(mode="execute_v2")
@compares_with_reference
def test_execute_v2_matches_reference(acl, stream, op_case, case_inputs):
    return executor.run(acl, stream, op_case, case_inputs, "execute_v2")


# ----------------------------------- how execute_v2 finds a model (op-load-execute.md#matching-an-execution-to-a-model)


OK, INVALID_PARAM = ErrorCode.ACL_SUCCESS, ErrorCode.ACL_ERROR_INVALID_PARAM
OP_NOT_FOUND = ErrorCode.ACL_ERROR_OP_NOT_FOUND
INT32, INT64, FLOAT, FLOAT16 = (int(DataType.ACL_INT32), int(DataType.ACL_INT64), int(DataType.ACL_FLOAT),
                                int(DataType.ACL_FLOAT16))
ND, NCHW, NHWC = int(Format.ACL_FORMAT_ND), int(Format.ACL_FORMAT_NCHW), int(Format.ACL_FORMAT_NHWC)
#: Add int32 [8, 16] is a suite model (aclcts/pytest_plugin/library.py SUITE_MODEL_CASES): the session's model folder
#: holds it on every backend whatever --cases selects.
LIBRARY = (INT32, [8, 16], ND)
#: Models of these tests only (loaded with acl.op.load): shapes and types no other test executes.
NCHW_SHAPE = [1, 3, 5, 7]
INT16 = int(DataType.ACL_INT16)
STATIC_INT64, DYNAMIC_INT64, UNBOUNDED_INT64 = [64, 3], [-1, 3], [-1, 3, 3]


def tensor_json(type_: str, shape: list[int], fmt: str = "ND", **extra: Any) -> dict:
    """One tensor of a single-op JSON element."""
    return {"format": fmt, "shape": shape, "type": type_, **extra}


@pytest.fixture(scope="module")
def matching_models(compile_ops: Callable, session: flow.Session) -> None:
    """Load the models these tests match against: NCHW int16 Add, MatMulV2 with unused optional inputs, Add int64
    static [64, 3], dynamic [-1, 3] in [60, 70] and [-1, 3, 3] unbounded above 2."""
    undefined = tensor_json("UNDEFINED", [], "RESERVED")
    ops = [
        {"op": "Add", "name": "add_nchw", "input_desc": [tensor_json("int16", NCHW_SHAPE, "NCHW")] * 2,
         "output_desc": [tensor_json("int16", NCHW_SHAPE, "NCHW")]},
        {"op": "MatMulV2", "name": "matmul_v2", "input_desc": [tensor_json("float", [4, 4])] * 2 + [undefined] * 2,
         "output_desc": [tensor_json("float", [4, 4])],
         "attr": [{"name": "transpose_x1", "type": "bool", "value": False},
                  {"name": "transpose_x2", "type": "bool", "value": False}]},
        {"op": "Add", "name": "add_static_int64", "input_desc": [tensor_json("int64", STATIC_INT64)] * 2,
         "output_desc": [tensor_json("int64", STATIC_INT64)]},
        {"op": "Add", "name": "add_dynamic_int64",
         "input_desc": [tensor_json("int64", DYNAMIC_INT64, shape_range=[[60, 70]])] * 2,
         "output_desc": [tensor_json("int64", DYNAMIC_INT64, shape_range=[[60, 70]])]},
        {"op": "Add", "name": "add_unbounded_int64",
         "input_desc": [tensor_json("int64", UNBOUNDED_INT64, shape_range=[[2, -1]])] * 2,
         "output_desc": [tensor_json("int64", UNBOUNDED_INT64, shape_range=[[2, -1]])]},
    ]
    for name, image in compile_ops(ops).items():
        flow.check(session.acl.op.load(session.acl.util.bytes_to_ptr(image), len(image)), f"acl.op.load({name})")


def zero_tensor(res: flow.Resources, data_type: int, dims: list[int], fmt: int = ND) -> tuple[int, int, int]:
    """(desc, buffer, pointer) of a zero-filled device tensor (at least 1 byte)."""
    size = max(int(np.prod(dims, dtype=np.int64)) * res.acl.data_type_size(data_type), 1)
    ptr = flow.malloc(res, size)
    flow.check(res.acl.rt.memset(ptr, size, 0, size), "acl.rt.memset")
    return flow.create_desc(res, data_type, tuple(dims), fmt), flow.create_buffer(res, ptr, size), ptr


def attempt(res: flow.Resources, stream: int, op_type: str, inputs: list[tuple], outputs: list[tuple],
            attr: int = 0) -> int:
    """execute_v2 of op_type on zero-filled tensors given as (aclDataType, dims[, aclFormat]); synchronised if 0."""
    ins, outs = [zero_tensor(res, *spec) for spec in inputs], [zero_tensor(res, *spec) for spec in outputs]
    ret = res.acl.op.execute_v2(op_type, [t[0] for t in ins], [t[1] for t in ins], [t[0] for t in outs],
                                [t[1] for t in outs], attr, stream)
    if ret == OK:
        flow.check(res.acl.rt.synchronize_stream(stream), "acl.rt.synchronize_stream")
    return ret


@pytest.mark.negative
@pytest.mark.parametrize("op_type", ["add", "ADD", "Add ", "AddV2"])
def test_the_op_type_is_compared_exactly_and_case_sensitively(res, stream, op_type):
    assert attempt(res, stream, op_type, [LIBRARY] * 2, [LIBRARY]) == OP_NOT_FOUND


@pytest.mark.negative
@pytest.mark.parametrize("inputs, outputs", [(1, 1), (3, 1), (2, 2)], ids=["1-in", "3-in", "2-out"])
def test_the_input_and_output_counts_must_equal_the_models(res, stream, inputs, outputs):
    assert attempt(res, stream, "Add", [LIBRARY] * inputs, [LIBRARY] * outputs) == OP_NOT_FOUND


@pytest.mark.negative
@pytest.mark.parametrize("position", [0, 1, 2], ids=["input0", "input1", "output"])
@pytest.mark.parametrize("spec", [(FLOAT, [8, 16], ND), (FLOAT16, [8, 16], ND), (INT64, [8, 16], ND),
                                  (INT32, [8, 16], NCHW), (INT32, [8, 16], NHWC),
                                  (INT32, [8, 16], int(Format.ACL_FORMAT_UNDEFINED)), (INT32, [1, 16], ND)],
                         ids=["FLOAT", "FLOAT16", "INT64", "NCHW", "NHWC", "UNDEFINED-format", "broadcast-1x16"])
def test_the_type_format_and_dims_of_every_tensor_must_equal_the_models(res, stream, position, spec):
    specs = [LIBRARY] * 3
    specs[position] = spec
    assert attempt(res, stream, "Add", specs[:2], specs[2:]) == OP_NOT_FOUND


@pytest.mark.negative
@pytest.mark.parametrize("dims", [[16, 8], [128], [8, 16, 1], [1, 8, 16], [8, 17], []])
def test_a_static_model_needs_exactly_its_dims(res, stream, dims):
    assert attempt(res, stream, "Add", [(INT32, dims)] * 2, [(INT32, dims)]) == OP_NOT_FOUND


@pytest.mark.usefixtures("matching_models")
def test_a_model_of_another_format_matches_that_format_only(res, stream):
    # int16: no model of the case library (cases/dynamic holds an unknown-rank float16 Add) matches it in ND.
    assert attempt(res, stream, "Add", [(INT16, NCHW_SHAPE, NCHW)] * 2, [(INT16, NCHW_SHAPE, NCHW)]) == OK
    assert attempt(res, stream, "Add", [(INT16, NCHW_SHAPE, ND)] * 2, [(INT16, NCHW_SHAPE, ND)]) == OP_NOT_FOUND


@pytest.mark.negative
@pytest.mark.parametrize("setter", ["set_tensor_format", "set_tensor_storage_format"])
@pytest.mark.parametrize("position", [0, 2], ids=["input", "output"])
def test_a_desc_with_a_storage_format_set_does_not_match(acl, res, stream, setter, position):
    tensors = [zero_tensor(res, *LIBRARY) for _ in range(3)]
    assert getattr(acl, setter)(tensors[position][0], ND) == OK
    assert acl.op.execute_v2("Add", [t[0] for t in tensors[:2]], [t[1] for t in tensors[:2]], [tensors[2][0]],
                             [tensors[2][1]], 0, stream) == OP_NOT_FOUND


def test_tensor_names_take_no_part_in_matching(acl, res, stream):
    tensors = [zero_tensor(res, *LIBRARY) for _ in range(3)]
    for index, (desc, _, _) in enumerate(tensors):
        acl.set_tensor_desc_name(desc, f"renamed{index}")
    assert acl.op.execute_v2("Add", [t[0] for t in tensors[:2]], [t[1] for t in tensors[:2]], [tensors[2][0]],
                             [tensors[2][1]], 0, stream) == OK
    assert acl.rt.synchronize_stream(stream) == OK


def matmul_attr(acl: Any, res: flow.Resources) -> int:
    """The attr of the MatMulV2 model: transpose_x1 and transpose_x2 false."""
    attr = acl.op.create_attr()
    res.attrs.append(attr)
    for name in ("transpose_x1", "transpose_x2"):
        flow.check(acl.op.set_attr_bool(attr, name, False), "acl.op.set_attr_bool")
    return attr


def unused_input(res: flow.Resources) -> tuple[int, int]:
    """The documented unused optional input: create_tensor_desc(-1, [], -1) with create_data_buffer(0, 0)."""
    return flow.create_desc(res, -1, (), -1), flow.create_buffer(res, 0, 0)


@pytest.mark.usefixtures("matching_models")
def test_unused_optional_inputs_are_undefined_descs_with_empty_buffers(acl, res, stream):
    x1, x2 = np.arange(16, dtype=np.float32).reshape(4, 4), np.eye(4, dtype=np.float32) * 2
    ins = [zero_tensor(res, FLOAT, [4, 4]) for _ in range(2)]
    for (_, _, ptr), array in zip(ins, (x1, x2)):
        flow.copy_to_device(acl, ptr, array)
    unused = [unused_input(res) for _ in range(2)]
    out = zero_tensor(res, FLOAT, [4, 4])
    assert acl.op.execute_v2("MatMulV2", [t[0] for t in ins] + [u[0] for u in unused],
                             [t[1] for t in ins] + [u[1] for u in unused], [out[0]], [out[1]],
                             matmul_attr(acl, res), stream) == OK
    assert acl.rt.synchronize_stream(stream) == OK
    np.testing.assert_array_equal(flow.array_from(flow.copy_to_host(res, out[2], 64), FLOAT, (4, 4)), x1 @ x2)


@pytest.mark.negative
@pytest.mark.usefixtures("matching_models")
def test_unused_optional_inputs_cannot_be_left_out(acl, res, stream):
    spec = (FLOAT, [4, 4])
    assert attempt(res, stream, "MatMulV2", [spec, spec], [spec], matmul_attr(acl, res)) == OP_NOT_FOUND


@pytest.mark.negative
@pytest.mark.usefixtures("matching_models")
def test_a_real_tensor_in_an_unused_optional_position_does_not_match(acl, res, stream):
    spec = (FLOAT, [4, 4])
    ins = [zero_tensor(res, *spec), zero_tensor(res, *spec), zero_tensor(res, FLOAT, [4])]
    unused = unused_input(res)
    out = zero_tensor(res, *spec)
    assert acl.op.execute_v2("MatMulV2", [t[0] for t in ins] + [unused[0]], [t[1] for t in ins] + [unused[1]],
                             [out[0]], [out[1]], matmul_attr(acl, res), stream) == OP_NOT_FOUND


@pytest.mark.usefixtures("matching_models")
@pytest.mark.parametrize("dims, expected", [
    pytest.param([60, 3], OK, id="range-min"), pytest.param([70, 3], OK, id="range-max"),
    pytest.param([71, 3], OP_NOT_FOUND, id="above-the-range"), pytest.param([65, 4], OP_NOT_FOUND, id="static-dim"),
    pytest.param([2, 3, 3], OK, id="unbounded-min"), pytest.param([5000, 3, 3], OK, id="unbounded-5000"),
    pytest.param([1, 3, 3], OP_NOT_FOUND, id="below-the-unbounded-range"),
])
def test_a_dynamic_model_takes_dims_inside_its_ranges_and_a_max_of_minus_1_is_unbounded(res, stream, dims,
                                                                                          expected):
    assert attempt(res, stream, "Add", [(INT64, dims)] * 2, [(INT64, dims)]) == expected


@pytest.mark.negative
@pytest.mark.usefixtures("matching_models")
def test_a_dynamic_model_still_needs_the_data_type(res, stream):
    assert attempt(res, stream, "Add", [(INT32, [65, 3])] * 2, [(INT32, [65, 3])]) == OP_NOT_FOUND


@pytest.mark.handle
@pytest.mark.usefixtures("matching_models")
@pytest.mark.parametrize("dims, matches", [(STATIC_INT64, True), ([65, 3], False)], ids=["static", "dynamic-only"])
def test_create_handle_takes_a_static_model_and_refuses_a_match_that_is_only_dynamic(acl, res, dims, matches):
    descs = [flow.create_desc(res, INT64, tuple(dims), ND) for _ in range(3)]
    handle, ret = acl.op.create_handle("Add", descs[:2], descs[2:], 0)
    if handle:
        res.handles.append(handle)
    assert (ret == OK, handle != 0) == (matches, matches)


@pytest.mark.negative
def test_a_null_desc_is_100000_even_when_no_model_matches(acl, res, stream):
    tensors = [zero_tensor(res, *LIBRARY) for _ in range(3)]
    assert acl.op.execute_v2("NoSuchOperator", [0, tensors[1][0]], [t[1] for t in tensors[:2]], [tensors[2][0]],
                             [tensors[2][1]], 0, stream) == INVALID_PARAM


@pytest.mark.parametrize("out_dims", [[[0, 3]], [[0]], [[2, 0, 3]], [[0], [3, 0]]],
                         ids=["0x3", "0", "2x0x3", "two-outputs"])
def test_every_output_empty_returns_0_without_executing(acl, res, stream, out_dims):
    ins = [zero_tensor(res, *LIBRARY) for _ in range(2)]
    outs = []
    for dims in out_dims:
        ptr = flow.malloc(res, 64)
        flow.check(acl.rt.memset(ptr, 64, 0xAB, 64), "acl.rt.memset")
        outs.append((flow.create_desc(res, INT32, tuple(dims), ND), flow.create_buffer(res, ptr, 64), ptr))
    assert acl.op.execute_v2("NoSuchOperator", [t[0] for t in ins], [t[1] for t in ins], [t[0] for t in outs],
                             [t[1] for t in outs], 0, stream) == OK
    assert acl.rt.synchronize_stream(stream) == OK
    assert all(flow.copy_to_host(res, ptr, 64) == b"\xab" * 64 for _, _, ptr in outs)


def test_the_empty_output_shortcut_comes_before_the_buffer_checks(acl, res, stream):
    ins = [zero_tensor(res, *LIBRARY) for _ in range(2)]
    out = flow.create_desc(res, INT32, (0,), ND)
    assert acl.op.execute_v2("Add", [t[0] for t in ins], [0, 0], [out], [0], 0, stream) == OK


@pytest.mark.negative
def test_the_empty_output_shortcut_comes_after_the_desc_checks(acl, res, stream):
    ins = [zero_tensor(res, *LIBRARY) for _ in range(2)]
    out = zero_tensor(res, INT32, [0])
    assert acl.op.execute_v2("Add", [ins[0][0], 0], [t[1] for t in ins], [out[0]], [out[1]], 0,
                             stream) == INVALID_PARAM


@pytest.mark.negative
def test_one_empty_output_among_others_is_not_the_shortcut(res, stream):
    assert attempt(res, stream, "NoSuchOperator", [LIBRARY] * 2, [(INT32, [0]), LIBRARY]) == OP_NOT_FOUND


@pytest.mark.negative
def test_an_empty_input_with_an_output_that_is_not_empty_is_matched_as_usual(res, stream):
    assert attempt(res, stream, "Add", [(INT32, [0, 16])] * 2, [LIBRARY]) == OP_NOT_FOUND


# One desc short, C reads the list's NULL end
# (docs/contract/op-load-execute.md#execute_v2-check-order, step 4); a longer desc list is ignored there, so not
# checked.
@pytest.mark.negative
@pytest.mark.parametrize("which", ["fewer-input-descs", "fewer-output-descs"])
def test_desc_and_buffer_lists_of_different_lengths_fail(acl, res, stream, which):
    tensors = [zero_tensor(res, *LIBRARY) for _ in range(3)]
    in_descs, out_descs = [t[0] for t in tensors[:2]], [tensors[2][0]]
    lists = {"fewer-input-descs": (in_descs[:1], out_descs), "fewer-output-descs": (in_descs, [])}[which]
    assert acl.op.execute_v2("Add", lists[0], [t[1] for t in tensors[:2]], lists[1], [tensors[2][1]], 0,
                             stream) == INVALID_PARAM


def test_a_static_model_leaves_the_output_descs_as_they_were(acl, res, stream):
    tensors = [zero_tensor(res, *LIBRARY) for _ in range(3)]
    assert acl.op.execute_v2("Add", [t[0] for t in tensors[:2]], [t[1] for t in tensors[:2]], [tensors[2][0]],
                             [tensors[2][1]], 0, stream) == OK
    assert acl.rt.synchronize_stream(stream) == OK
    out = tensors[2][0]
    assert [acl.get_tensor_desc_dim_v2(out, i) for i in range(acl.get_tensor_desc_num_dims(out))] == [(8, OK), (16, OK)]
    assert acl.get_tensor_desc_size(out) == 8 * 16 * 4


def test_the_deprecated_execute_matches_checks_and_runs_like_execute_v2(acl, res, stream):
    x = np.arange(128, dtype=np.int32).reshape(8, 16)
    ins = [zero_tensor(res, *LIBRARY) for _ in range(2)]
    for _, _, ptr in ins:
        flow.copy_to_device(acl, ptr, x)
    out, wrong = zero_tensor(res, *LIBRARY), zero_tensor(res, FLOAT, [8, 16])
    descs, bufs = [t[0] for t in ins], [t[1] for t in ins]
    assert acl.op.execute("Add", descs, bufs, [wrong[0]], [wrong[1]], 0, stream) == OP_NOT_FOUND
    assert acl.op.execute("Add", [descs[0], 0], bufs, [out[0]], [out[1]], 0, stream) == INVALID_PARAM
    assert acl.op.execute("Add", descs, bufs, [out[0]], [out[1]], 0, stream) == OK
    assert acl.rt.synchronize_stream(stream) == OK
    np.testing.assert_array_equal(flow.array_from(flow.copy_to_host(res, out[2], x.nbytes), INT32, (8, 16)), x * 2)


# ---------------------------------------------------------- the op queue and the operator selector (op-load-execute.md)


@pytest.mark.parametrize("count", [1, 2 ** 40, 20000], ids=["1", "2-pow-40", "the-default-20000"])
def test_set_max_op_queue_num_takes_any_positive_count(acl, count):
    assert acl.op.set_max_op_queue_num(count) == OK


def selected_op_compiler(num_inputs: int, input_desc: list, num_outputs: int, output_desc: list, op_attr: int,
                         kernel_desc: int) -> None:
    """A compile callback with the documented parameters; never called."""


def test_register_compile_func_twice_for_one_op_is_100030(acl):
    assert acl.op.register_compile_func("AclctsSelectedOp", selected_op_compiler) == OK
    try:
        assert acl.op.register_compile_func("AclctsSelectedOp", selected_op_compiler) == \
            ErrorCode.ACL_ERROR_BIN_SELECTOR_ALREADY_REGISTERED
    finally:
        flow.check(acl.op.unregister_compile_func("AclctsSelectedOp"), "acl.op.unregister_compile_func")


# --------------------------------------------------------- output descs of a data-dependent output (op-load-execute.md)

#: NonZero int32 x [-1, 3] (rows 1 to 4): y int64 [count, 2] of the nonzero indices, count known only after it ran.
NONZERO_MAX = [12, 2]


@pytest.fixture(scope="module")
def nonzero_model(compile_ops: Callable, session: flow.Session) -> None:
    """Load a NonZero model of these tests' own dims: x int32 [-1, 3] in [1, 4] rows, y int64 [-1, 2] in [0, 12]."""
    op = {"op": "NonZero", "name": "nonzero_rows_of_3",
          "input_desc": [tensor_json("int32", [-1, 3], shape_range=[[1, 4]])],
          "output_desc": [tensor_json("int64", [-1, 2], shape_range=[[0, 12]])]}
    for name, image in compile_ops([op]).items():
        flow.check(session.acl.op.load(session.acl.util.bytes_to_ptr(image), len(image)), f"acl.op.load({name})")


def run_nonzero(acl: Any, res: flow.Resources, stream: int, x: np.ndarray, out: tuple[int, int, int],
                execute: Callable[..., int]) -> np.ndarray:
    """execute(…) NonZero of x into out (desc, buffer, pointer), synchronised; the first rows y of the real result."""
    x_tensor = zero_tensor(res, INT32, list(x.shape))
    flow.copy_to_device(acl, x_tensor[2], x)
    flow.check(execute("NonZero", [x_tensor[0]], [x_tensor[1]], [out[0]], [out[1]], 0, stream), "NonZero")
    flow.check(acl.rt.synchronize_stream(stream), "acl.rt.synchronize_stream")
    expected = np.argwhere(x).astype(np.int64)
    return flow.array_from(flow.copy_to_host(res, out[2], expected.nbytes), INT64, expected.shape)


def desc_dims(acl: Any, desc: int) -> list[int]:
    """get_tensor_desc_dim_v2 of every dim of desc."""
    return [flow.value(acl.get_tensor_desc_dim_v2(desc, i), "acl.get_tensor_desc_dim_v2")
            for i in range(acl.get_tensor_desc_num_dims(desc))]


@pytest.mark.usefixtures("nonzero_model")
def test_a_data_dependent_output_desc_gets_the_real_dims_and_serves_again_once_set_back_to_the_maximum(
        acl, res, stream):
    out = zero_tensor(res, INT64, NONZERO_MAX)
    first = np.array([[0, 4, 0], [0, 0, -1]], np.int32)
    np.testing.assert_array_equal(run_nonzero(acl, res, stream, first, out, acl.op.execute_v2), np.argwhere(first))
    assert desc_dims(acl, out[0]) == [2, 2]
    assert acl.set_tensor_origin_shape(out[0], NONZERO_MAX) == OK
    second = np.arange(1, 13, dtype=np.int32).reshape(4, 3) % 3
    np.testing.assert_array_equal(run_nonzero(acl, res, stream, second, out, acl.op.execute_v2), np.argwhere(second))
    assert desc_dims(acl, out[0]) == [int(np.count_nonzero(second)), 2]


@pytest.mark.usefixtures("nonzero_model")
def test_the_deprecated_execute_never_updates_the_output_descs(acl, res, stream):
    out = zero_tensor(res, INT64, NONZERO_MAX)
    x = np.array([[0, 5, -1], [7, 0, 2]], np.int32)
    np.testing.assert_array_equal(run_nonzero(acl, res, stream, x, out, acl.op.execute), np.argwhere(x))
    assert desc_dims(acl, out[0]) == NONZERO_MAX


@pytest.mark.negative
def test_no_outputs_at_all_is_not_the_empty_output_shortcut(res, stream):
    assert attempt(res, stream, "Add", [LIBRARY] * 2, []) == OP_NOT_FOUND
