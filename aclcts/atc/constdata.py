"""Conversion of a JSON `const_value` list to the little-endian bytes of the tensor's data type."""

from __future__ import annotations

import numpy as np

from aclcts.core.constants import DataType

#: Types GE converts const_value for (docs/contract/single-op-json.md#tensor-entries); any other type keeps no constant
#: data.
CONST_TYPES: dict[int, np.dtype] = {
    DataType.ACL_INT8: np.dtype("<i1"), DataType.ACL_UINT8: np.dtype("<u1"),
    DataType.ACL_INT16: np.dtype("<i2"), DataType.ACL_UINT16: np.dtype("<u2"),
    DataType.ACL_INT32: np.dtype("<i4"), DataType.ACL_UINT32: np.dtype("<u4"),
    DataType.ACL_INT64: np.dtype("<i8"), DataType.ACL_UINT64: np.dtype("<u8"),
    DataType.ACL_FLOAT16: np.dtype("<f2"), DataType.ACL_FLOAT: np.dtype("<f4"),
    DataType.ACL_DOUBLE: np.dtype("<f8"),
}


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def const_bytes(acl_dtype: int, values: list) -> bytes:
    """Convert const_value numbers to bytes of `acl_dtype` (one of CONST_TYPES); ValueError names the bad item.

    Integer types need integers inside the type's range; float types take any number.  float16 is
    converted through float32 first, as GE does.
    """
    dtype = CONST_TYPES[acl_dtype]
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        for i, v in enumerate(values):
            if not _is_int(v) or not info.min <= v <= info.max:
                raise ValueError(f"item [{i}] = {v!r}: expected an integer in [{info.min}, {info.max}] for {dtype.name}")
        return np.array(values, dtype=dtype).tobytes()
    for i, v in enumerate(values):
        if not (_is_int(v) or isinstance(v, float)):
            raise ValueError(f"item [{i}] = {v!r}: expected a number")
    with np.errstate(over="ignore"):
        if dtype == np.dtype("<f2"):
            return np.array(values, dtype=np.float32).astype(dtype).tobytes()
        return np.array(values, dtype=dtype).tobytes()


def const_values(acl_dtype: int, data: bytes) -> list:
    """Return the Python numbers held in constant bytes of `acl_dtype` (inverse of const_bytes)."""
    return np.frombuffer(data, dtype=CONST_TYPES[acl_dtype]).tolist()
