"""How execute_v2 finds a loaded model, and its argument checks (pyacl-api.md §6.2–§6.4, §13; atc §6, §9)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from opkit import FLOAT, FLOAT16, INT32, ND, Device, attr, binary, op, tensor

from aclcts.core.constants import DataType, ErrorCode, Format, MemType

OK = 0
INVALID_PARAM = int(ErrorCode.ACL_ERROR_INVALID_PARAM)
OP_NOT_FOUND = int(ErrorCode.ACL_ERROR_OP_NOT_FOUND)
NCHW, NHWC = int(Format.ACL_FORMAT_NCHW), int(Format.ACL_FORMAT_NHWC)
HOST = int(MemType.ACL_MEMTYPE_HOST)

SHAPE = [2, 3]
ADD = binary("Add", "int32", SHAPE)


def _three(data_type: int = INT32, dims: list[int] | None = None, fmt: int = ND) -> list[tuple]:
    spec = (data_type, list(SHAPE if dims is None else dims), fmt)
    return [spec, spec, spec]


@pytest.fixture
def add_loaded(acl: Any, dev: Device, models: Callable[..., Path]) -> Device:
    """A session with the int32 [2, 3] Add model loaded."""
    assert acl.op.set_model_dir(str(models([ADD]))) == OK
    return dev


def test_matching_model_executes_and_computes(add_loaded: Device) -> None:
    a = np.arange(6, dtype=np.int32).reshape(SHAPE)
    ret, result = add_loaded.run("Add", [a, a * 10], [(INT32, SHAPE)])
    assert ret == OK
    np.testing.assert_array_equal(result[0], a * 11)


@pytest.mark.parametrize("op_type", ["add", "ADD", "Add ", "AddV2", "Sub"])
def test_op_type_is_compared_case_sensitively_and_exactly(add_loaded: Device, op_type: str) -> None:
    assert add_loaded.attempt(op_type, _three()[:2], _three()[2:]) == OP_NOT_FOUND


@pytest.mark.parametrize("n_in,n_out", [(1, 1), (3, 1), (2, 2), (2, 0)])
def test_input_and_output_counts_must_equal_the_model(add_loaded: Device, n_in: int, n_out: int) -> None:
    spec = (INT32, SHAPE, ND)
    assert add_loaded.attempt("Add", [spec] * n_in, [spec] * n_out) == OP_NOT_FOUND


@pytest.mark.parametrize("position", [0, 1, 2], ids=["input0", "input1", "output"])
@pytest.mark.parametrize("data_type", [FLOAT, FLOAT16, int(DataType.ACL_INT64)])
def test_data_type_of_every_tensor_must_equal_the_model(add_loaded: Device, position: int, data_type: int) -> None:
    specs = _three()
    specs[position] = (data_type, SHAPE, ND)
    assert add_loaded.attempt("Add", specs[:2], specs[2:]) == OP_NOT_FOUND


@pytest.mark.parametrize("position", [0, 1, 2], ids=["input0", "input1", "output"])
@pytest.mark.parametrize("fmt", [NCHW, NHWC, int(Format.ACL_FORMAT_UNDEFINED)])
def test_format_of_every_tensor_must_equal_the_model(add_loaded: Device, position: int, fmt: int) -> None:
    specs = _three()
    specs[position] = (INT32, SHAPE, fmt)
    assert add_loaded.attempt("Add", specs[:2], specs[2:]) == OP_NOT_FOUND


@pytest.mark.parametrize("dims", [[3, 2], [6], [2, 3, 1], [1, 2, 3], [2, 4], []])
def test_static_model_needs_exactly_its_dims(add_loaded: Device, dims: list[int]) -> None:
    assert add_loaded.attempt("Add", _three(dims=dims)[:2], _three(dims=dims)[2:]) == OP_NOT_FOUND


def test_static_model_does_not_match_a_smaller_or_broadcast_shape_of_one_input(add_loaded: Device) -> None:
    specs = _three()
    specs[1] = (INT32, [1, 3], ND)
    assert add_loaded.attempt("Add", specs[:2], specs[2:]) == OP_NOT_FOUND


def test_model_with_other_format_matches_only_that_format(acl: Any, dev: Device, models: Callable[..., Path]) -> None:
    shape = [1, 2, 2, 2]
    assert acl.op.set_model_dir(str(models([op("Add", [tensor("float16", shape, "NCHW")] * 2,
                                                [tensor("float16", shape, "NCHW")])]))) == OK
    assert dev.attempt("Add", [(FLOAT16, shape, NCHW)] * 2, [(FLOAT16, shape, NCHW)]) == OK
    assert dev.attempt("Add", [(FLOAT16, shape, ND)] * 2, [(FLOAT16, shape, ND)]) == OP_NOT_FOUND


# ---- constant inputs ---------------------------------------------------------------------------

CONST = np.array([[5, 6, 7], [8, 9, 10]], dtype=np.int32)
CONST_ADD = op("Add", [tensor("int32", SHAPE), tensor("int32", SHAPE, is_const=True,
                                                       const_value=CONST.ravel().tolist())],
               [tensor("int32", SHAPE)])


@pytest.fixture
def const_loaded(acl: Any, dev: Device, models: Callable[..., Path]) -> Device:
    """A session with an int32 [2, 3] Add whose second input is the constant CONST."""
    assert acl.op.set_model_dir(str(models([CONST_ADD]))) == OK
    return dev


def _run_with_second_input(dev: Device, prepare: Callable[[int], int | None], x: np.ndarray) -> tuple[int, np.ndarray]:
    """Execute Add with x and a second input desc set up by prepare(desc) (returns its buffer or None)."""
    first = dev.tensor(x)
    second_desc = dev.desc(INT32, SHAPE)
    second_buf = prepare(second_desc)
    if second_buf is None:
        second_buf = dev.acl.create_data_buffer(0, 0)
    out = dev.output(INT32, SHAPE, fill=0x11)
    ret = dev.acl.op.execute_v2("Add", [first[0], second_desc], [first[1], second_buf], [out[0]], [out[1]], 0,
                                dev.stream)
    if ret == OK:
        dev.sync()
    return ret, dev.get(out[2], np.int32, SHAPE)


def test_const_input_with_the_compiled_bytes_matches_and_is_used(const_loaded: Device) -> None:
    x = np.arange(6, dtype=np.int32).reshape(SHAPE)

    def as_const(desc: int) -> None:
        assert const_loaded.acl.set_tensor_const(desc, const_loaded.host_ptr(CONST), CONST.nbytes) == OK

    ret, result = _run_with_second_input(const_loaded, as_const, x)
    assert ret == OK
    np.testing.assert_array_equal(result, x + CONST)


@pytest.mark.parametrize("data", [CONST + 1, CONST[::-1].copy(), np.zeros_like(CONST)],
                         ids=["plus-one", "reversed", "zeros"])
def test_const_input_with_different_bytes_does_not_match(const_loaded: Device, data: np.ndarray) -> None:
    def as_const(desc: int) -> None:
        assert const_loaded.acl.set_tensor_const(desc, const_loaded.host_ptr(data), data.nbytes) == OK

    ret, _ = _run_with_second_input(const_loaded, as_const, np.zeros(SHAPE, np.int32))
    assert ret == OP_NOT_FOUND


def test_non_const_input_does_not_match_a_const_model_input(const_loaded: Device) -> None:
    def plain(desc: int) -> int:
        return const_loaded.tensor(CONST)[1]

    ret, _ = _run_with_second_input(const_loaded, plain, np.zeros(SHAPE, np.int32))
    assert ret == OP_NOT_FOUND


def test_const_input_does_not_match_a_non_const_model_input(add_loaded: Device) -> None:
    def as_const(desc: int) -> None:
        assert add_loaded.acl.set_tensor_const(desc, add_loaded.host_ptr(CONST), CONST.nbytes) == OK

    ret, _ = _run_with_second_input(add_loaded, as_const, np.zeros(SHAPE, np.int32))
    assert ret == OP_NOT_FOUND


def test_host_placed_input_is_tried_as_a_const_holding_its_data(const_loaded: Device) -> None:
    x = np.arange(6, dtype=np.int32).reshape(SHAPE) * 3

    def on_host(desc: int) -> int:
        assert const_loaded.acl.set_tensor_place_ment(desc, HOST) == OK
        return const_loaded.acl.create_data_buffer(const_loaded.host_ptr(CONST), CONST.nbytes)

    ret, result = _run_with_second_input(const_loaded, on_host, x)
    assert ret == OK
    np.testing.assert_array_equal(result, x + CONST)


def test_host_placed_input_with_other_data_does_not_match_a_const_model(const_loaded: Device) -> None:
    other = CONST * 2

    def on_host(desc: int) -> int:
        assert const_loaded.acl.set_tensor_place_ment(desc, HOST) == OK
        return const_loaded.acl.create_data_buffer(const_loaded.host_ptr(other), other.nbytes)

    ret, _ = _run_with_second_input(const_loaded, on_host, np.zeros(SHAPE, np.int32))
    assert ret == OP_NOT_FOUND


def test_host_placed_input_falls_back_to_a_plain_model_input(add_loaded: Device) -> None:
    x = np.arange(6, dtype=np.int32).reshape(SHAPE)
    y = np.full(SHAPE, 100, dtype=np.int32)

    def on_host(desc: int) -> int:
        assert add_loaded.acl.set_tensor_place_ment(desc, HOST) == OK
        return add_loaded.acl.create_data_buffer(add_loaded.host_ptr(y), y.nbytes)

    ret, result = _run_with_second_input(add_loaded, on_host, x)
    assert ret == OK
    np.testing.assert_array_equal(result, x + y)


# ---- attributes --------------------------------------------------------------------------------

MODEL_ATTRS = [
    attr("flag", "bool", True),
    attr("count", "int", 3),
    attr("scale", "float", 0.1),
    attr("mode", "string", "fast"),
    attr("axes", "list_int", [1, 2]),
    attr("weights", "list_float", [0.5, 0.25]),
    attr("mask", "list_bool", [True, False]),
    attr("names", "list_string", ["a", "b"]),
    attr("pads", "list_list_int", [[1, 2], [3, 4]]),
    attr("dtype", "data_type", "DT_FLOAT16"),
]


def _set_all(acl: Any, handle: int, skip: str = "") -> None:
    """Set the runtime equivalents of MODEL_ATTRS (except skip) on an attr handle."""
    setters: dict[str, Callable[[], Any]] = {
        "flag": lambda: acl.op.set_attr_bool(handle, "flag", 1),
        "count": lambda: acl.op.set_attr_int(handle, "count", 3),
        "scale": lambda: acl.op.set_attr_float(handle, "scale", 0.1),
        "mode": lambda: acl.op.set_attr_string(handle, "mode", "fast"),
        "axes": lambda: acl.op.set_attr_list_int(handle, "axes", [1, 2]),
        "weights": lambda: acl.op.set_attr_list_float(handle, "weights", [0.5, 0.25]),
        "mask": lambda: acl.op.set_attr_list_bool(handle, "mask", [1, 0]),
        "names": lambda: acl.op.set_attr_list_string(handle, "names", ["a", "b"]),
        "pads": lambda: acl.op.set_attr_list_list_int(handle, "pads", [[1, 2], [3, 4]]),
        "dtype": lambda: acl.op.set_attr_data_type(handle, "dtype", FLOAT16)[1],
    }
    for name, setter in setters.items():
        if name != skip:
            assert setter() == OK


@pytest.fixture
def attr_loaded(acl: Any, dev: Device, models: Callable[..., Path]) -> Device:
    """A session with an int32 [2, 3] Add model carrying MODEL_ATTRS."""
    assert acl.op.set_model_dir(str(models([binary("Add", "int32", SHAPE, MODEL_ATTRS)]))) == OK
    return dev


def _with_attrs(dev: Device, change: Callable[[Any, int], Any]) -> int:
    handle = dev.acl.op.create_attr()
    assert handle != 0
    change(dev.acl, handle)
    return dev.attempt("Add", _three()[:2], _three()[2:], handle)


def test_attributes_with_the_same_names_types_and_values_match(attr_loaded: Device) -> None:
    assert _with_attrs(attr_loaded, lambda acl, h: _set_all(acl, h)) == OK


def test_attributes_set_in_another_order_match(attr_loaded: Device) -> None:
    def reversed_order(acl: Any, handle: int) -> None:
        assert acl.op.set_attr_data_type(handle, "dtype", FLOAT16)[1] == OK
        assert acl.op.set_attr_string(handle, "mode", "fast") == OK
        _set_all(acl, handle)

    assert _with_attrs(attr_loaded, reversed_order) == OK


@pytest.mark.parametrize("name", [a["name"] for a in MODEL_ATTRS])
def test_a_missing_attribute_does_not_match(attr_loaded: Device, name: str) -> None:
    assert _with_attrs(attr_loaded, lambda acl, h: _set_all(acl, h, skip=name)) == OP_NOT_FOUND


def test_an_extra_attribute_does_not_match(attr_loaded: Device) -> None:
    def extra(acl: Any, handle: int) -> None:
        _set_all(acl, handle)
        assert acl.op.set_attr_int(handle, "unexpected", 0) == OK

    assert _with_attrs(attr_loaded, extra) == OP_NOT_FOUND


DIFFERENT_VALUES = {
    "flag": lambda acl, h: acl.op.set_attr_bool(h, "flag", 0),
    "count": lambda acl, h: acl.op.set_attr_int(h, "count", 4),
    "scale": lambda acl, h: acl.op.set_attr_float(h, "scale", 0.2),
    "mode": lambda acl, h: acl.op.set_attr_string(h, "mode", "Fast"),
    "axes": lambda acl, h: acl.op.set_attr_list_int(h, "axes", [1, 2, 3]),
    "weights": lambda acl, h: acl.op.set_attr_list_float(h, "weights", [0.25, 0.5]),
    "mask": lambda acl, h: acl.op.set_attr_list_bool(h, "mask", [1, 1]),
    "names": lambda acl, h: acl.op.set_attr_list_string(h, "names", ["a"]),
    "pads": lambda acl, h: acl.op.set_attr_list_list_int(h, "pads", [[1, 2], [3, 5]]),
    "dtype": lambda acl, h: acl.op.set_attr_data_type(h, "dtype", FLOAT)[1],
}


@pytest.mark.parametrize("name", list(DIFFERENT_VALUES))
def test_an_attribute_with_a_different_value_does_not_match(attr_loaded: Device, name: str) -> None:
    def changed(acl: Any, handle: int) -> None:
        _set_all(acl, handle, skip=name)
        assert DIFFERENT_VALUES[name](acl, handle) == OK

    assert _with_attrs(attr_loaded, changed) == OP_NOT_FOUND


DIFFERENT_TYPES = {
    "count as float": ("count", lambda acl, h: acl.op.set_attr_float(h, "count", 3.0)),
    "scale as int": ("scale", lambda acl, h: acl.op.set_attr_int(h, "scale", 0)),
    "flag as int": ("flag", lambda acl, h: acl.op.set_attr_int(h, "flag", 1)),
    "count as bool": ("count", lambda acl, h: acl.op.set_attr_bool(h, "count", 3)),
    "axes as list_float": ("axes", lambda acl, h: acl.op.set_attr_list_float(h, "axes", [1.0, 2.0])),
    "mode as list_string": ("mode", lambda acl, h: acl.op.set_attr_list_string(h, "mode", ["fast"])),
    "dtype as int": ("dtype", lambda acl, h: acl.op.set_attr_int(h, "dtype", FLOAT16)),
}


@pytest.mark.parametrize("case", list(DIFFERENT_TYPES))
def test_an_attribute_with_the_same_value_but_another_type_does_not_match(attr_loaded: Device, case: str) -> None:
    name, setter = DIFFERENT_TYPES[case]

    def changed(acl: Any, handle: int) -> None:
        _set_all(acl, handle, skip=name)
        assert setter(acl, handle) == OK

    assert _with_attrs(attr_loaded, changed) == OP_NOT_FOUND


def test_a_float_attribute_one_float32_step_away_does_not_match(attr_loaded: Device) -> None:
    near = float(np.nextafter(np.float32(0.1), np.float32(1)))
    assert abs(near - float(np.float32(0.1))) < 1e-6

    def nudged(acl: Any, handle: int) -> None:
        _set_all(acl, handle, skip="scale")
        assert acl.op.set_attr_float(handle, "scale", near) == OK

    assert _with_attrs(attr_loaded, nudged) == OP_NOT_FOUND


def test_a_float_attribute_matches_any_python_value_rounding_to_the_same_float32(attr_loaded: Device) -> None:
    same = float(np.float32(0.1))
    assert same != 0.1

    def rounded(acl: Any, handle: int) -> None:
        _set_all(acl, handle, skip="scale")
        assert acl.op.set_attr_float(handle, "scale", same) == OK

    assert _with_attrs(attr_loaded, rounded) == OK


@pytest.mark.parametrize("values,expected", [((99, 3), OK), ((3, 99), OP_NOT_FOUND)],
                         ids=["last-matches", "last-differs"])
def test_setting_an_attribute_twice_overwrites_it(attr_loaded: Device, values: tuple[int, int], expected: int) -> None:
    def twice(acl: Any, handle: int) -> None:
        _set_all(acl, handle, skip="count")
        for value in values:
            assert acl.op.set_attr_int(handle, "count", value) == OK

    assert _with_attrs(attr_loaded, twice) == expected


def test_attr_zero_and_an_empty_attr_match_a_model_without_attributes(add_loaded: Device) -> None:
    assert add_loaded.attempt("Add", _three()[:2], _three()[2:], 0) == OK
    assert add_loaded.attempt("Add", _three()[:2], _three()[2:], add_loaded.acl.op.create_attr()) == OK


def test_any_attribute_fails_to_match_a_model_without_attributes(add_loaded: Device) -> None:
    assert _with_attrs(add_loaded, lambda acl, h: acl.op.set_attr_bool(h, "flag", 0)) == OP_NOT_FOUND


def test_attr_zero_does_not_match_a_model_with_attributes(attr_loaded: Device) -> None:
    assert attr_loaded.attempt("Add", _three()[:2], _three()[2:], 0) == OP_NOT_FOUND


# ---- unused optional inputs, storage format ----------------------------------------------------

MATMUL_V2 = op("MatMulV2",
               [tensor("float", [4, 4]), tensor("float", [4, 4]), tensor("UNDEFINED", [], "RESERVED"),
                tensor("UNDEFINED", [], "RESERVED")],
               [tensor("float", [4, 4])],
               [attr("transpose_x1", "bool", False), attr("transpose_x2", "bool", False)])


@pytest.fixture
def matmul_loaded(acl: Any, dev: Device, models: Callable[..., Path]) -> tuple[Device, int]:
    """A session with MatMulV2 (bias and offset_w unused) loaded, and the matching attr handle."""
    assert acl.op.set_model_dir(str(models([MATMUL_V2]))) == OK
    handle = acl.op.create_attr()
    assert acl.op.set_attr_bool(handle, "transpose_x1", 0) == OK
    assert acl.op.set_attr_bool(handle, "transpose_x2", 0) == OK
    return dev, handle


def _unused(dev: Device) -> tuple[int, int, int]:
    return dev.acl.create_tensor_desc(-1, [], -1), dev.acl.create_data_buffer(0, 0), 0


def test_unused_optional_inputs_are_undefined_descs_with_empty_buffers(matmul_loaded: tuple[Device, int]) -> None:
    dev, handle = matmul_loaded
    x1 = np.arange(16, dtype=np.float32).reshape(4, 4)
    x2 = np.eye(4, dtype=np.float32) * 2
    out = dev.output(FLOAT, [4, 4])
    ret = dev.execute("MatMulV2", [dev.tensor(x1), dev.tensor(x2), _unused(dev), _unused(dev)], [out], handle)
    assert ret == OK
    dev.sync()
    np.testing.assert_array_equal(dev.get(out[2], np.float32, [4, 4]), x1 @ x2)


def test_unused_optional_inputs_cannot_be_left_out(matmul_loaded: tuple[Device, int]) -> None:
    dev, handle = matmul_loaded
    spec = (FLOAT, [4, 4], ND)
    assert dev.attempt("MatMulV2", [spec, spec], [spec], handle) == OP_NOT_FOUND


def test_a_real_tensor_in_an_unused_optional_position_does_not_match(matmul_loaded: tuple[Device, int]) -> None:
    dev, handle = matmul_loaded
    spec = (FLOAT, [4, 4], ND)
    ins = [dev.output(*spec), dev.output(*spec), dev.output(FLOAT, [4]), _unused(dev)]
    assert dev.execute("MatMulV2", ins, [dev.output(*spec)], handle) == OP_NOT_FOUND


@pytest.mark.parametrize("setter", ["set_tensor_format", "set_tensor_storage_format"])
@pytest.mark.parametrize("position", [0, 2], ids=["input", "output"])
def test_a_desc_with_a_storage_format_set_does_not_match(add_loaded: Device, setter: str, position: int) -> None:
    tensors = [add_loaded.output(*spec) for spec in _three()]
    assert getattr(add_loaded.acl, setter)(tensors[position][0], ND) == OK
    assert add_loaded.execute("Add", tensors[:2], tensors[2:]) == OP_NOT_FOUND


def test_tensor_names_take_no_part_in_matching(add_loaded: Device) -> None:
    tensors = [add_loaded.output(*spec) for spec in _three()]
    for index, (desc, _, _) in enumerate(tensors):
        add_loaded.acl.set_tensor_desc_name(desc, f"renamed{index}")
    assert add_loaded.execute("Add", tensors[:2], tensors[2:]) == OK


# ---- dynamic models ----------------------------------------------------------------------------


def _dynamic_add(shape: list[int], ranges: list[list[int]] | None, type_: str = "int32") -> dict:
    extra = {} if ranges is None else {"shape_range": ranges}
    return op("Add", [tensor(type_, shape, **extra)] * 2, [tensor(type_, shape, **extra)])


@pytest.mark.parametrize("dims,expected", [
    ([1, 16], OK), ([7, 16], OK), ([32, 16], OK),
    ([33, 16], OP_NOT_FOUND), ([7, 15], OP_NOT_FOUND), ([7], OP_NOT_FOUND), ([7, 16, 1], OP_NOT_FOUND),
])
def test_dynamic_model_accepts_dims_inside_its_ranges_and_its_rank_only(
        acl: Any, dev: Device, models: Callable[..., Path], dims: list[int], expected: int) -> None:
    assert acl.op.set_model_dir(str(models([_dynamic_add([-1, 16], [[1, 32]])]))) == OK
    assert dev.attempt("Add", _three(dims=dims)[:2], _three(dims=dims)[2:]) == expected


@pytest.mark.parametrize("dims,expected", [([2], OK), ([5000], OK), ([1], OP_NOT_FOUND)])
def test_dynamic_range_max_minus_one_is_unbounded(acl: Any, dev: Device, models: Callable[..., Path],
                                                  dims: list[int], expected: int) -> None:
    assert acl.op.set_model_dir(str(models([_dynamic_add([-1], [[2, -1]])]))) == OK
    assert dev.attempt("Add", _three(dims=dims)[:2], _three(dims=dims)[2:]) == expected


@pytest.mark.parametrize("dims", [[], [3], [2, 3], [2, 1, 3], [1, 1, 1, 2]])
def test_unknown_rank_model_accepts_any_rank(acl: Any, dev: Device, models: Callable[..., Path],
                                             dims: list[int]) -> None:
    assert acl.op.set_model_dir(str(models([_dynamic_add([-2], None)]))) == OK
    a = np.arange(int(np.prod(dims)), dtype=np.int32).reshape(dims)
    ret, result = dev.run("Add", [a, a], [(INT32, dims)])
    assert ret == OK
    np.testing.assert_array_equal(result[0], a + a)


def test_dynamic_model_still_needs_dtype_to_match(acl: Any, dev: Device, models: Callable[..., Path]) -> None:
    assert acl.op.set_model_dir(str(models([_dynamic_add([-2], None)]))) == OK
    assert dev.attempt("Add", _three(FLOAT)[:2], _three(FLOAT)[2:]) == OP_NOT_FOUND


@pytest.mark.parametrize("position", [0, 2], ids=["input", "output"])
@pytest.mark.parametrize("dims", [[-1, 16], [-2]], ids=["unknown-dim", "unknown-rank"])
@pytest.mark.parametrize("loaded", [True, False], ids=["dynamic-model-loaded", "no-model"])
def test_a_dynamic_dim_left_in_a_runtime_desc_is_invalid_param(
        acl: Any, dev: Device, models: Callable[..., Path], position: int, dims: list[int], loaded: bool) -> None:
    if loaded:
        assert acl.op.set_model_dir(str(models([_dynamic_add([-1, 16], [[1, 32]])]))) == OK
    tensors = [dev.output(INT32, [4, 16]) for _ in range(3)]
    ptr = dev.alloc(4 * 16 * 4)
    tensors[position] = (dev.desc(INT32, dims), acl.create_data_buffer(ptr, 4 * 16 * 4), ptr)
    assert dev.execute("Add", tensors[:2], tensors[2:]) == INVALID_PARAM


def test_a_static_model_is_matched_before_a_dynamic_one(acl: Any, dev: Device, models: Callable[..., Path]) -> None:
    assert acl.op.set_model_dir(str(models([_dynamic_add([-1, -1], [[1, 8], [1, 8]]), ADD]))) == OK
    descs = [dev.desc(INT32, SHAPE) for _ in range(3)]
    handle, ret = acl.op.create_handle("Add", descs[:2], descs[2:], 0)
    assert (ret, handle != 0) == (OK, True)


def test_handle_mode_refuses_a_match_that_is_only_dynamic(acl: Any, dev: Device, models: Callable[..., Path]) -> None:
    assert acl.op.set_model_dir(str(models([_dynamic_add([-1, -1], [[1, 8], [1, 8]])]))) == OK
    descs = [dev.desc(INT32, SHAPE) for _ in range(3)]
    handle, ret = acl.op.create_handle("Add", descs[:2], descs[2:], 0)
    assert handle == 0 and ret != OK


# ---- argument checks of execute_v2 -------------------------------------------------------------


@pytest.mark.parametrize("position", [0, 1, 2], ids=["input0", "input1", "output"])
def test_a_null_desc_element_is_invalid_param(add_loaded: Device, position: int) -> None:
    tensors = [add_loaded.output(*spec) for spec in _three()]
    desc, buf, ptr = tensors[position]
    tensors[position] = (0, buf, ptr)
    assert add_loaded.execute("Add", tensors[:2], tensors[2:]) == INVALID_PARAM


@pytest.mark.parametrize("position", [0, 1, 2], ids=["input0", "input1", "output"])
def test_a_null_buffer_element_is_invalid_param(add_loaded: Device, position: int) -> None:
    tensors = [add_loaded.output(*spec) for spec in _three()]
    desc, _, ptr = tensors[position]
    tensors[position] = (desc, 0, ptr)
    assert add_loaded.execute("Add", tensors[:2], tensors[2:]) == INVALID_PARAM


@pytest.mark.parametrize("position", [0, 1, 2], ids=["input0", "input1", "output"])
def test_a_buffer_with_null_data_and_nonzero_size_is_invalid_param(add_loaded: Device, position: int) -> None:
    tensors = [add_loaded.output(*spec) for spec in _three()]
    desc, _, _ = tensors[position]
    tensors[position] = (desc, add_loaded.acl.create_data_buffer(0, 24), 0)
    assert add_loaded.execute("Add", tensors[:2], tensors[2:]) == INVALID_PARAM


def test_a_null_desc_is_reported_even_when_no_model_is_loaded(dev: Device) -> None:
    tensors = [dev.output(*spec) for spec in _three()]
    tensors[0] = (0,) + tensors[0][1:]
    assert dev.execute("Add", tensors[:2], tensors[2:]) == INVALID_PARAM


@pytest.mark.parametrize("out_dims", [[[0, 3]], [[0]], [[2, 0, 3]], [[0], [3, 0]]],
                         ids=["0x3", "0", "2x0x3", "two-outputs"])
def test_every_output_empty_returns_success_without_executing(dev: Device, out_dims: list[list[int]]) -> None:
    ins = [dev.tensor(np.ones(SHAPE, np.int32)) for _ in range(2)]
    outs = []
    for dims in out_dims:
        ptr = dev.alloc(64)
        assert dev.acl.rt.memset(ptr, 64, 0xAB, 64) == OK
        outs.append((dev.desc(INT32, dims), dev.acl.create_data_buffer(ptr, 64), ptr))
    assert dev.execute("NoSuchOp", ins, outs) == OK
    dev.sync()
    for _, _, ptr in outs:
        assert dev.get(ptr, np.uint8, [64]).tolist() == [0xAB] * 64


def test_the_empty_output_shortcut_comes_before_the_buffer_checks(dev: Device) -> None:
    ins = [dev.output(*spec) for spec in _three()[:2]]
    assert dev.acl.op.execute_v2("Add", [t[0] for t in ins], [0, 0], [dev.desc(INT32, [0])], [0], 0,
                                 dev.stream) == OK


def test_the_empty_output_shortcut_comes_after_the_desc_checks(dev: Device) -> None:
    ins = [dev.output(*spec) for spec in _three()[:2]]
    out = dev.output(INT32, [0])
    assert dev.acl.op.execute_v2("Add", [ins[0][0], 0], [t[1] for t in ins], [out[0]], [out[1]], 0,
                                 dev.stream) == INVALID_PARAM


def test_one_empty_output_among_others_is_not_the_shortcut(dev: Device) -> None:
    ins = [dev.output(*spec) for spec in _three()[:2]]
    outs = [dev.output(INT32, [0]), dev.output(INT32, SHAPE)]
    assert dev.execute("NoSuchOp", ins, outs) == OP_NOT_FOUND


def test_an_empty_input_with_a_nonempty_output_is_matched_as_usual(dev: Device) -> None:
    assert dev.attempt("Add", [(INT32, [0, 3], ND)] * 2, [(INT32, SHAPE, ND)]) == OP_NOT_FOUND


@pytest.mark.parametrize("which", ["fewer-input-descs", "more-input-descs", "fewer-output-descs", "more-output-descs"])
def test_desc_and_buffer_lists_of_different_lengths_fail(add_loaded: Device, which: str) -> None:
    tensors = [add_loaded.output(*spec) for spec in _three()]
    extra = add_loaded.desc(INT32, SHAPE)
    in_descs, out_descs = [t[0] for t in tensors[:2]], [tensors[2][0]]
    if which == "fewer-input-descs":
        in_descs = in_descs[:1]
    elif which == "more-input-descs":
        in_descs = in_descs + [extra]
    elif which == "fewer-output-descs":
        out_descs = []
    else:
        out_descs = out_descs + [extra]
    ret = add_loaded.acl.op.execute_v2("Add", in_descs, [t[1] for t in tensors[:2]], out_descs, [tensors[2][1]], 0,
                                       add_loaded.stream)
    assert ret != OK


@pytest.mark.parametrize("position", [1, 2, 3, 4])
def test_execute_v2_list_arguments_must_be_lists(add_loaded: Device, position: int) -> None:
    tensors = [add_loaded.output(*spec) for spec in _three()]
    args: list[Any] = ["Add", [t[0] for t in tensors[:2]], [t[1] for t in tensors[:2]], [tensors[2][0]],
                       [tensors[2][1]], 0, add_loaded.stream]
    args[position] = tuple(args[position])
    with pytest.raises(TypeError, match=r"^argument 2, 3, 4, or 5 is not list$"):
        add_loaded.acl.op.execute_v2(*args)


@pytest.mark.parametrize("bad", [None, np.int64(1), 1.0, "1"], ids=["None", "numpy-int", "float", "str"])
def test_execute_v2_list_elements_must_be_ints(add_loaded: Device, bad: Any) -> None:
    tensors = [add_loaded.output(*spec) for spec in _three()]
    with pytest.raises(TypeError, match=r"^the list argument is not list of int$"):
        add_loaded.acl.op.execute_v2("Add", [tensors[0][0], bad], [t[1] for t in tensors[:2]], [tensors[2][0]],
                                     [tensors[2][1]], 0, add_loaded.stream)


@pytest.mark.parametrize("args", [
    (b"Add",), (None,), (3,),
], ids=["bytes-op-type", "None-op-type", "int-op-type"])
def test_execute_v2_op_type_must_be_str(add_loaded: Device, args: tuple) -> None:
    with pytest.raises(TypeError, match=r"^acl\.op\.execute_v2 args parse failed$"):
        add_loaded.acl.op.execute_v2(args[0], [], [], [], [], 0, add_loaded.stream)


def test_execute_v2_takes_seven_positional_arguments(add_loaded: Device) -> None:
    with pytest.raises(TypeError, match=r"^acl\.op\.execute_v2 args parse failed$"):
        add_loaded.acl.op.execute_v2("Add", [], [], [], [], 0)
