"""Mapping between aclDataType values and NumPy dtypes (bf16 and float8 through ml_dtypes)."""

from __future__ import annotations

import ml_dtypes
import numpy as np

from aclcts.core.constants import DataType

_NUMPY_DTYPES: dict[int, np.dtype] = {
    DataType.ACL_FLOAT: np.dtype(np.float32),
    DataType.ACL_FLOAT16: np.dtype(np.float16),
    DataType.ACL_INT8: np.dtype(np.int8),
    DataType.ACL_INT32: np.dtype(np.int32),
    DataType.ACL_UINT8: np.dtype(np.uint8),
    DataType.ACL_INT16: np.dtype(np.int16),
    DataType.ACL_UINT16: np.dtype(np.uint16),
    DataType.ACL_UINT32: np.dtype(np.uint32),
    DataType.ACL_INT64: np.dtype(np.int64),
    DataType.ACL_UINT64: np.dtype(np.uint64),
    DataType.ACL_DOUBLE: np.dtype(np.float64),
    DataType.ACL_BOOL: np.dtype(np.bool_),
    DataType.ACL_COMPLEX64: np.dtype(np.complex64),
    DataType.ACL_COMPLEX128: np.dtype(np.complex128),
    DataType.ACL_BF16: np.dtype(ml_dtypes.bfloat16),
    DataType.ACL_FLOAT8_E5M2: np.dtype(ml_dtypes.float8_e5m2),
    DataType.ACL_FLOAT8_E4M3FN: np.dtype(ml_dtypes.float8_e4m3fn),
    DataType.ACL_FLOAT8_E8M0: np.dtype(ml_dtypes.float8_e8m0fnu),
}

_ACL_TYPES: dict[np.dtype, int] = {v: int(k) for k, v in _NUMPY_DTYPES.items()}

#: JSON `type` strings of the single-op description, by aclDataType (the first is the canonical spelling).
JSON_TYPE_NAMES: dict[int, str] = {
    DataType.ACL_FLOAT: "float32",
    DataType.ACL_FLOAT16: "float16",
    DataType.ACL_INT8: "int8",
    DataType.ACL_INT32: "int32",
    DataType.ACL_UINT8: "uint8",
    DataType.ACL_INT16: "int16",
    DataType.ACL_UINT16: "uint16",
    DataType.ACL_UINT32: "uint32",
    DataType.ACL_INT64: "int64",
    DataType.ACL_UINT64: "uint64",
    DataType.ACL_DOUBLE: "double",
    DataType.ACL_BOOL: "bool",
    DataType.ACL_COMPLEX64: "complex64",
    DataType.ACL_COMPLEX128: "complex128",
    DataType.ACL_BF16: "bfloat16",
    DataType.ACL_INT4: "int4",
    DataType.ACL_UINT1: "uint1",
    DataType.ACL_COMPLEX32: "complex32",
    DataType.ACL_HIFLOAT8: "hifloat8",
    DataType.ACL_FLOAT8_E5M2: "float8_e5m2",
    DataType.ACL_FLOAT8_E4M3FN: "float8_e4m3fn",
}


def numpy_dtype(data_type: int) -> np.dtype:
    """Return the NumPy dtype holding elements of an aclDataType; KeyError if NumPy has none."""
    return _NUMPY_DTYPES[data_type]


def has_numpy_dtype(data_type: int) -> bool:
    """Whether an aclDataType has a NumPy representation."""
    return data_type in _NUMPY_DTYPES


def acl_data_type(dtype: np.dtype | type) -> int:
    """Return the aclDataType of a NumPy dtype; KeyError if there is none."""
    return _ACL_TYPES[np.dtype(dtype)]
