"""Tensor descriptors, data buffers and fp16 helpers on the top-level acl module
(docs/contract/tensor-desc-and-buffers.md)."""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

import numpy as np

from aclcts.core.constants import ACL_UNKNOWN_RANK, DIM_RANGE_NUM_MAX, data_type_size as _data_type_size
from aclcts.sim import core
from aclcts.sim.binding import MASK64
from aclcts.sim.core import INVALID_PARAM, OK, export, fail
from aclcts.sim.memory import read_bytes
from aclcts.sim.seams import Seam

_INT64_MIN, _INT64_MAX = -(1 << 63), (1 << 63) - 1

#: Bytes per element of each aclDataType (aclDataTypeSize and every desc size).
element_size = Seam("data type sizes", _data_type_size)


@dataclass(eq=False, slots=True)
class TensorDesc:
    """What an aclTensorDesc holds: origin and storage layout, ranges, name, const bytes and placement."""

    dtype: int
    format: int
    dims: list
    storage_format: int | None = None
    storage_dims: list | None = None
    shape_range: list = field(default_factory=list)
    value_range: list = field(default_factory=list)
    name: str = ""
    const_data: bytes | None = None
    memtype: int = 0
    dynamic_input: str = ""

    def element_count(self) -> int:
        """aclGetTensorDescElementCount: 1 for a scalar, 0 with any negative dim."""
        count = 1
        for dim in self.dims:
            if dim < 0:
                return 0
            count *= dim
        return count

    def size(self) -> int:
        """aclGetTensorDescSize: element count × type size, 0 for dynamic dims or overflow."""
        total = self.element_count() * element_size(self.dtype)
        return total if total <= MASK64 else 0

    def is_static(self) -> bool:
        """Whether every dim is known (no -1, no unknown rank)."""
        return all(dim >= 0 for dim in self.dims)


@dataclass(eq=False, slots=True)
class DataBuffer:
    """What an aclDataBuffer holds: an address and a size, never validated at creation."""

    data: int
    size: int


def _dims(value: object, argument: int) -> list[int]:
    if type(value) is not list and not isinstance(value, list):
        raise TypeError(f"argument {argument} is not list")
    for dim in value:
        if type(dim) is not int and not isinstance(dim, int) or not _INT64_MIN <= dim <= _INT64_MAX:
            raise TypeError("invalid data type")
    return list(map(int, value))


def _ranges(value: object) -> list[tuple[int, int]]:
    if not isinstance(value, list):
        raise TypeError("argument 2 is not list")
    pairs = []
    for inner in value:
        if not isinstance(inner, list):
            raise TypeError("the list argument is not list")
        if len(inner) < 2 or not all(isinstance(v, int) for v in inner[:2]):
            raise TypeError("the list argument is not list of int")
        pairs.append((int(inner[0]), int(inner[1])))
    return pairs


def desc(handle: int, api: str) -> TensorDesc:
    """The live tensor desc behind a non-zero handle (SimMisuseError otherwise)."""
    return core.STATE.lookup("desc", handle, api)


@export("", "create_tensor_desc", "iOi")
def create_tensor_desc(data_type: int, dims: object, tensor_format: int) -> int:
    """aclCreateTensorDesc(dataType, len(dims), dims, format)."""
    return core.STATE.register("desc", TensorDesc(data_type, tensor_format, _dims(dims, 2)), "acl.create_tensor_desc")


@export("", "destroy_tensor_desc", "k")
def destroy_tensor_desc(handle: int) -> None:
    """aclDestroyTensorDesc."""
    if handle:
        desc(handle, "acl.destroy_tensor_desc")
        core.STATE.release(handle, "acl.destroy_tensor_desc")


@export("", "get_tensor_desc_type", "k")
def get_tensor_desc_type(handle: int) -> int:
    """aclGetTensorDescType: -1 for desc 0."""
    return desc(handle, "acl.get_tensor_desc_type").dtype if handle else -1


@export("", "get_tensor_desc_format", "k")
def get_tensor_desc_format(handle: int) -> int:
    """aclGetTensorDescFormat: the origin format, -1 for desc 0."""
    return desc(handle, "acl.get_tensor_desc_format").format if handle else -1


@export("", "get_tensor_desc_size", "k")
def get_tensor_desc_size(handle: int) -> int:
    """aclGetTensorDescSize."""
    return desc(handle, "acl.get_tensor_desc_size").size() if handle else 0


@export("", "get_tensor_desc_element_count", "k")
def get_tensor_desc_element_count(handle: int) -> int:
    """aclGetTensorDescElementCount."""
    return desc(handle, "acl.get_tensor_desc_element_count").element_count() if handle else 0


@export("", "get_tensor_desc_num_dims", "k")
def get_tensor_desc_num_dims(handle: int) -> int:
    """aclGetTensorDescNumDims: ACL_UNKNOWN_RANK for [-2]."""
    if not handle:
        return 0
    dims = desc(handle, "acl.get_tensor_desc_num_dims").dims
    if dims and dims[0] == -2:
        return ACL_UNKNOWN_RANK
    return len(dims)


@export("", "get_tensor_desc_dim", "kk")
def get_tensor_desc_dim(handle: int, index: int) -> int:
    """aclGetTensorDescDim (deprecated): -1 for desc 0 or an index out of range."""
    if not handle:
        return -1
    dims = desc(handle, "acl.get_tensor_desc_dim").dims
    return dims[index] if index < len(dims) else -1


@export("", "get_tensor_desc_dim_v2", "kk")
def get_tensor_desc_dim_v2(handle: int, index: int) -> tuple[int, int]:
    """aclGetTensorDescDimV2: (0, 100000) for desc 0 or index ≥ number of dims."""
    api = "acl.get_tensor_desc_dim_v2"
    if not handle:
        return 0, fail(INVALID_PARAM, f"{api}: desc is null")
    dims = desc(handle, api).dims
    if index >= len(dims):
        return 0, fail(INVALID_PARAM, f"{api}: index {index} >= number of dims {len(dims)}")
    return dims[index], OK


@export("", "get_tensor_desc_dim_range", "kkk")
def get_tensor_desc_dim_range(handle: int, index: int, dim_range_num: int) -> tuple[list | None, int]:
    """aclGetTensorDescDimRange: a list of dim_range_num ints [min, max, 0, ...]."""
    api = "acl.get_tensor_desc_dim_range"
    if dim_range_num > DIM_RANGE_NUM_MAX:
        return None, fail(INVALID_PARAM, f"{api}: dim_range_num {dim_range_num} > {DIM_RANGE_NUM_MAX}")
    if not handle:
        return None, fail(INVALID_PARAM, f"{api}: desc is null")
    ranges = desc(handle, api).shape_range
    if index >= len(ranges):
        return None, fail(INVALID_PARAM, f"{api}: no shape range is set for dim {index} ({len(ranges)} set)")
    if dim_range_num < 2:
        return None, fail(INVALID_PARAM, f"{api}: dim_range_num {dim_range_num} < 2")
    low, high = ranges[index]
    return [low, high] + [0] * (dim_range_num - 2), OK


@export("", "set_tensor_shape_range", "kO")
def set_tensor_shape_range(handle: int, dims_range: object) -> int:
    """aclSetTensorShapeRange: replace the whole range list (not validated against the rank)."""
    pairs = _ranges(dims_range)
    if not handle:
        return fail(INVALID_PARAM, "acl.set_tensor_shape_range: desc is null")
    desc(handle, "acl.set_tensor_shape_range").shape_range = pairs
    return OK


@export("", "set_tensor_value_range", "kO")
def set_tensor_value_range(handle: int, value_range: object) -> int:
    """aclSetTensorValueRange."""
    pairs = _ranges(value_range)
    if not handle:
        return fail(INVALID_PARAM, "acl.set_tensor_value_range: desc is null")
    desc(handle, "acl.set_tensor_value_range").value_range = pairs
    return OK


@export("", "set_tensor_desc_name", "ks")
def set_tensor_desc_name(handle: int, name: str) -> None:
    """aclSetTensorDescName."""
    if handle:
        desc(handle, "acl.set_tensor_desc_name").name = name


@export("", "get_tensor_desc_name", "k")
def get_tensor_desc_name(handle: int) -> str:
    """aclGetTensorDescName: "" if unset or desc 0."""
    return desc(handle, "acl.get_tensor_desc_name").name if handle else ""


@export("", "set_tensor_const", "kkk")
def set_tensor_const(handle: int, data_ptr: int, length: int) -> int:
    """aclSetTensorConst: mark constant and copy length host bytes now."""
    api = "acl.set_tensor_const"
    if not handle or not data_ptr or not length:
        what = "desc" if not handle else "data pointer" if not data_ptr else "length"
        return fail(INVALID_PARAM, f"{api}: {what} is {'null' if what != 'length' else '0'}")
    target = desc(handle, api)
    st = core.STATE
    real, _ = st.memory.resolve(api, data_ptr, length, "data", st.settings.run_mode == "host")
    target.const_data = read_bytes(real, length)
    return OK


@export("", "set_tensor_place_ment", "ki")
def set_tensor_place_ment(handle: int, mem_type: int) -> int:
    """aclSetTensorPlaceMent: 0 device, 1 host, 2 host compile-independent."""
    api = "acl.set_tensor_place_ment"
    if not handle:
        return fail(INVALID_PARAM, f"{api}: desc is null")
    if mem_type not in (0, 1, 2):
        return fail(INVALID_PARAM, f"{api}: mem_type {mem_type} is not 0, 1 or 2")
    desc(handle, api).memtype = mem_type
    return OK


def _setter(name: str, attribute: str, kind: str) -> None:
    api = f"acl.{name}"

    def set_value(handle: int, value: object) -> int:
        converted = _dims(value, 2) if kind == "dims" else value
        if not handle:
            return fail(INVALID_PARAM, f"{api}: desc is null")
        setattr(desc(handle, api), attribute, converted)
        return OK

    set_value.__doc__ = f"Set the tensor desc's {attribute.replace('_', ' ')}."
    export("", name, "kO" if kind == "dims" else "ki")(set_value)


_setter("set_tensor_format", "storage_format", "format")
_setter("set_tensor_storage_format", "storage_format", "format")
_setter("set_tensor_shape", "storage_dims", "dims")
_setter("set_tensor_storage_shape", "storage_dims", "dims")
_setter("set_tensor_origin_format", "format", "format")
_setter("set_tensor_origin_shape", "dims", "dims")


@export("", "set_tensor_dynamic_input", "ks")
def set_tensor_dynamic_input(handle: int, name: str) -> int:
    """aclSetTensorDynamicInput."""
    if not handle:
        return fail(INVALID_PARAM, "acl.set_tensor_dynamic_input: desc is null")
    desc(handle, "acl.set_tensor_dynamic_input").dynamic_input = name
    return OK


@export("", "data_type_size", "i")
def data_type_size(data_type: int) -> int:
    """aclDataTypeSize."""
    return element_size(data_type)


def buffer(handle: int, api: str) -> DataBuffer:
    """The live data buffer behind a non-zero handle (SimMisuseError otherwise)."""
    return core.STATE.lookup("buffer", handle, api)


@export("", "create_data_buffer", "kk")
def create_data_buffer(data: int, size: int) -> int:
    """aclCreateDataBuffer: (0, 0) is the empty buffer of an unused optional input."""
    return core.STATE.register("buffer", DataBuffer(data, size), "acl.create_data_buffer")


@export("", "destroy_data_buffer", "k")
def destroy_data_buffer(handle: int) -> int:
    """aclDestroyDataBuffer: does not free the data."""
    api = "acl.destroy_data_buffer"
    if not handle:
        return fail(INVALID_PARAM, f"{api}: buffer is null")
    buffer(handle, api)
    core.STATE.release(handle, api)
    return OK


@export("", "get_data_buffer_addr", "k")
def get_data_buffer_addr(handle: int) -> int:
    """aclGetDataBufferAddr: 0 for buffer 0."""
    return buffer(handle, "acl.get_data_buffer_addr").data if handle else 0


@export("", "get_data_buffer_size_v2", "k")
def get_data_buffer_size_v2(handle: int) -> int:
    """aclGetDataBufferSizeV2: 0 for buffer 0."""
    return buffer(handle, "acl.get_data_buffer_size_v2").size if handle else 0


@export("", "get_data_buffer_size", "k")
def get_data_buffer_size(handle: int) -> int:
    """aclGetDataBufferSize (deprecated): truncated to 32 bits."""
    return buffer(handle, "acl.get_data_buffer_size").size & 0xFFFFFFFF if handle else 0


@export("", "update_data_buffer", "kkk")
def update_data_buffer(handle: int, data: int, size: int) -> int:
    """aclUpdateDataBuffer: replace pointer and size (the old memory stays the caller's)."""
    api = "acl.update_data_buffer"
    if not handle:
        return fail(INVALID_PARAM, f"{api}: buffer is null")
    target = buffer(handle, api)
    target.data, target.size = data, size
    return OK


@export("", "float16_to_float", "H")
def float16_to_float(bits: int) -> float:
    """aclFloat16ToFloat: fp16 given as its uint16 bit pattern."""
    return float(np.array(bits, np.uint16).view(np.float16))


@export("", "float_to_float16", "f")
def float_to_float16(value: float) -> int:
    """aclFloatToFloat16: the uint16 bit pattern of the nearest fp16 (ties to even)."""
    return struct.unpack("<H", np.float16(value).tobytes())[0]
