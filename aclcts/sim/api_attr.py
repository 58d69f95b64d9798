"""Operator attributes: acl.op.create_attr, destroy_attr and every set_attr_* form (docs/contract/attributes.md)."""

from __future__ import annotations

import numpy as np

from aclcts.core.opmodel import Attr
from aclcts.sim import core
from aclcts.sim.binding import to_float32
from aclcts.sim.core import INVALID_PARAM, OK, export, fail
from aclcts.sim.errors import warn

_INT64_MIN, _INT64_MAX = -(1 << 63), (1 << 63) - 1
_LIST_FAILED = "get values from PyList failed"
#: What the binding warns for a value that is not a list, word for word (hicann/runtime python/pyACL/op/op.cpp).
NOT_A_LIST_WARNING = "argument 3 only support the format of list in the future."


class OpAttr(dict):
    """What an aclopAttr holds: attribute name → Attr (setting a name again overwrites it)."""


def attr(handle: int, api: str) -> OpAttr:
    """The live attribute object behind a non-zero handle (SimMisuseError otherwise)."""
    return core.STATE.lookup("attr", handle, api)


def _store(api: str, handle: int, name: str, kind: str, value: object) -> int:
    if not handle:
        return fail(INVALID_PARAM, f"{api}: attr is null")
    attr(handle, api)[name] = Attr(name, kind, value)
    return OK


@export("op", "create_attr", "|OOOOOOOO")
def create_attr(*ignored: object) -> int:
    """aclopCreateAttr: any arguments are ignored."""
    return core.STATE.register("attr", OpAttr(), "acl.op.create_attr")


@export("op", "destroy_attr", "k")
def destroy_attr(handle: int) -> None:
    """aclopDestroyAttr."""
    if handle:
        attr(handle, "acl.op.destroy_attr")
        core.STATE.release(handle, "acl.op.destroy_attr")


@export("op", "set_attr_bool", "ksB")
def set_attr_bool(handle: int, name: str, value: int) -> int:
    """aclopSetAttrBool: stored as value != 0 (value masked to 8 bits)."""
    return _store("acl.op.set_attr_bool", handle, name, "bool", value != 0)


@export("op", "set_attr_int", "ksL")
def set_attr_int(handle: int, name: str, value: int) -> int:
    """aclopSetAttrInt: int64."""
    return _store("acl.op.set_attr_int", handle, name, "int", value)


@export("op", "set_attr_float", "ksf")
def set_attr_float(handle: int, name: str, value: float) -> int:
    """aclopSetAttrFloat: stored as a C float."""
    return _store("acl.op.set_attr_float", handle, name, "float", value)


@export("op", "set_attr_string", "kss")
def set_attr_string(handle: int, name: str, value: str) -> int:
    """aclopSetAttrString."""
    return _store("acl.op.set_attr_string", handle, name, "string", value)


def _numpy_values(values: np.ndarray, dtype: type, error: type[Exception], message: str) -> list:
    if values.ndim != 1 or values.dtype != np.dtype(dtype):
        raise error(message)
    return values.tolist()


def _list_of(values: object, check, convert, dtype: type) -> tuple:
    if not isinstance(values, list):
        warn(NOT_A_LIST_WARNING, Warning)
        if not isinstance(values, np.ndarray):
            raise TypeError("argument 3 is not list or numpy array")
        return tuple(convert(v) for v in _numpy_values(values, dtype, ValueError, _LIST_FAILED))
    for value in values:
        if not check(value):
            raise ValueError(_LIST_FAILED)
    return tuple(convert(v) for v in values)


@export("op", "set_attr_list_bool", "ksO")
def set_attr_list_bool(handle: int, name: str, values: object) -> int:
    """aclopSetAttrListBool: ints 0..255 (bools allowed) or a 1-D uint8 array (deprecated)."""
    items = _list_of(values, lambda v: isinstance(v, int) and 0 <= v <= 255, lambda v: v != 0, np.uint8)
    return _store("acl.op.set_attr_list_bool", handle, name, "list_bool", items)


@export("op", "set_attr_list_int", "ksO")
def set_attr_list_int(handle: int, name: str, values: object) -> int:
    """aclopSetAttrListInt: int64 list or a 1-D int64 array (deprecated)."""
    items = _list_of(values, lambda v: isinstance(v, int) and _INT64_MIN <= v <= _INT64_MAX, int, np.int64)
    return _store("acl.op.set_attr_list_int", handle, name, "list_int", items)


@export("op", "set_attr_list_float", "ksO")
def set_attr_list_float(handle: int, name: str, values: object) -> int:
    """aclopSetAttrListFloat: Python floats only (ints rejected) or a 1-D float32 array (deprecated)."""
    items = _list_of(values, lambda v: isinstance(v, float), lambda v: to_float32(float(v)), np.float32)
    return _store("acl.op.set_attr_list_float", handle, name, "list_float", items)


@export("op", "set_attr_list_string", "ksO")
def set_attr_list_string(handle: int, name: str, values: object) -> int:
    """aclopSetAttrListString: a list of str."""
    if not isinstance(values, list):
        raise TypeError("argument 3 is not list")
    for value in values:
        if not isinstance(value, str):
            raise RuntimeError("PyUnicode_AsUTF8String failed")
    return _store("acl.op.set_attr_list_string", handle, name, "list_string", tuple(values))


def _int_row(row: object) -> tuple[int, ...]:
    if not isinstance(row, list):
        warn(NOT_A_LIST_WARNING, Warning)
        if not isinstance(row, np.ndarray):
            raise ValueError("parse argument 3 failed")
        return tuple(int(v) for v in _numpy_values(row, np.int64, ValueError, "parse argument 3 failed"))
    if not all(isinstance(v, int) and _INT64_MIN <= v <= _INT64_MAX for v in row):
        raise ValueError("parse argument 3 failed")
    return tuple(int(v) for v in row)


@export("op", "set_attr_list_list_int", "ksO")
def set_attr_list_list_int(handle: int, name: str, values: object) -> int:
    """aclopSetAttrListListInt: a list of int lists (or 1-D int64 arrays)."""
    if not isinstance(values, list):
        raise TypeError("argument 3 is not list")
    rows = tuple(_int_row(row) for row in values)
    return _store("acl.op.set_attr_list_list_int", handle, name, "list_list_int", rows)


@export("op", "set_attr_data_type", "ksi")
def set_attr_data_type(handle: int, name: str, value: int) -> tuple[int, int]:
    """aclopSetAttrDataType: returns (attr, ret)."""
    return handle, _store("acl.op.set_attr_data_type", handle, name, "data_type", value)


@export("op", "set_attr_list_data_type", "ksO")
def set_attr_list_data_type(handle: int, name: str, values: object) -> tuple[int, int]:
    """aclopSetAttrListDataType: a list of aclDataType ints; returns (attr, ret)."""
    if not isinstance(values, list):
        raise TypeError("the third argument is not list")
    if not all(isinstance(v, int) for v in values):
        raise TypeError("the list argument is not list of int")
    return handle, _store("acl.op.set_attr_list_data_type", handle, name, "list_data_type", tuple(int(v) for v in values))
