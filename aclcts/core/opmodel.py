"""The stored description of one compiled single-operator model: attributes, tensors, the .om file format and name.

File format of a simulator model (version 1), all integers little-endian:

    offset 0   8 bytes   magic b"ACLCTSOM" (an aclcts simulator model)
    offset 8   uint32    format version (1)
    offset 12  uint64    body length in bytes
    offset 20  body      UTF-8 JSON object: op_type, soc_version, fuzzy, inputs, outputs, attrs

A tensor in the body holds dtype, format, shape, shape_range, origin_format, origin_shape, name,
is_const and const_data (hex string or null); dtype and format are aclDataType / aclFormat values.
An attribute holds name, type and value; float values are written as their float32 bit pattern so
that NaN payloads, infinities and -0.0 survive.  The file name carries no meaning.

A real Ascend .om starts with GE's ModelFileHeader, whose first uint32 is MODEL_FILE_MAGIC_NUM
0x444F4D49 (bytes b"IMOD") followed by a 256-byte header (hicann/ge
`inc/framework/executor_c/types.h`); such a file is recognised and refused with 100013.
"""

from __future__ import annotations

import json
import re
import struct
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from aclcts.core.constants import DataType, ErrorCode
from aclcts.core.inputs import MAX_NESTING_DEPTH, DuplicateKeyError, too_deep, unique_keys

ATTR_TYPES = ("bool", "int", "float", "string", "list_bool", "list_int", "list_float",
              "list_string", "list_list_int", "data_type", "list_data_type")

MAGIC = b"ACLCTSOM"
FORMAT_VERSION = 1
_HEADER = struct.Struct("<8sIQ")

#: GE ModelFileHeader magic of a real Ascend .om (uint32 0x444F4D49, little-endian) and its header size.
ASCEND_OM_MAGIC = struct.pack("<I", 0x444F4D49)
ASCEND_OM_HEADER_SIZE = 256

#: GE enum numbers written in file names for the ACL "undefined" values (DT_UNDEFINED, FORMAT_RESERVED).
GE_DT_UNDEFINED = 28
GE_FORMAT_RESERVED = 40
MAX_FILE_NAME_LEN = 128
_VALID_NAME = re.compile(r"[a-zA-Z0-9._-]+")

_INT64_MIN, _INT64_MAX = -(2 ** 63), 2 ** 63 - 1
_DATA_TYPE_VALUES = frozenset(int(t) for t in DataType)


class ModelFormatError(Exception):
    """A byte string is not a loadable simulator single-op model; `code` is the aclError to return."""

    def __init__(self, code: int, reason: str) -> None:
        super().__init__(reason)
        self.code = code
        self.reason = reason


def _float32(value: float) -> float:
    """Round a Python number to the nearest float32 and return it as a Python float."""
    with np.errstate(over="ignore"):
        return float(np.float32(value))


def _float32_bits(value: float) -> int:
    """Return the float32 bit pattern of a number already representable as float32."""
    with np.errstate(over="ignore"):
        return int(np.float32(value).view(np.uint32))


def _float_from_bits(bits: int) -> float:
    """Return the float32 whose bit pattern is `bits`, as a Python float."""
    return float(np.uint32(bits).view(np.float32))


def _is_int(value: object) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def _is_bool(value: object) -> bool:
    return isinstance(value, (bool, np.bool_))


def _is_number(value: object) -> bool:
    return _is_int(value) or isinstance(value, (float, np.floating))


def _as_list(name: str, type_: str, value: object) -> list:
    if not isinstance(value, (list, tuple)):
        raise ValueError(f'attr "{name}" (type {type_}): expected a list, got {value!r}')
    return list(value)


def _scalar(name: str, type_: str, value: object, where: str = "") -> object:
    """Validate and canonicalise one scalar of an attribute of scalar type `type_`."""
    label = f'attr "{name}" (type {type_}){where}'
    if type_ == "bool":
        if not _is_bool(value):
            raise ValueError(f"{label}: expected true or false, got {value!r}")
        return bool(value)
    if type_ == "int":
        if not _is_int(value) or not _INT64_MIN <= int(value) <= _INT64_MAX:
            raise ValueError(f"{label}: expected an int64 integer, got {value!r}")
        return int(value)
    if type_ == "float":
        if not _is_number(value):
            raise ValueError(f"{label}: expected a number, got {value!r}")
        return _float32(float(value))
    if type_ == "string":
        if not isinstance(value, str):
            raise ValueError(f"{label}: expected a string, got {value!r}")
        return value
    if type_ == "data_type":
        if not _is_int(value) or int(value) not in _DATA_TYPE_VALUES:
            raise ValueError(f"{label}: expected an aclDataType value, got {value!r}")
        return int(value)
    raise AssertionError(type_)


def _canonical_value(name: str, type_: str, value: object) -> object:
    if type_ in ("bool", "int", "float", "string", "data_type"):
        return _scalar(name, type_, value)
    if type_ == "list_list_int":
        outer = _as_list(name, type_, value)
        return tuple(tuple(_scalar(name, "int", v, f" item [{i}][{j}]")
                           for j, v in enumerate(_as_list(name, type_, inner)))
                     for i, inner in enumerate(outer))
    element_type = type_.removeprefix("list_")
    return tuple(_scalar(name, element_type, v, f" item [{i}]")
                 for i, v in enumerate(_as_list(name, type_, value)))


@dataclass(frozen=True, eq=False)
class Attr:
    """One operator attribute: name, ATTR_TYPES type and canonical value (equal iff their attrs_key is)."""

    name: str
    type: str
    value: object

    def _key(self) -> tuple:
        return (self.name, self.type, _value_key(self.type, self.value))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Attr) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())


def canonical_attr(name: str, type: str, value: object) -> Attr:
    """Validate an attribute and return it with its canonical value; ValueError says what is wrong."""
    if not isinstance(name, str) or not name:
        raise ValueError(f"attr name: expected a non-empty string, got {name!r}")
    if type not in ATTR_TYPES:
        raise ValueError(f'attr "{name}": unknown type {type!r}, expected one of {", ".join(ATTR_TYPES)}')
    return Attr(name, type, _canonical_value(name, type, value))


def _value_key(type_: str, value: object) -> object:
    if type_ == "float":
        return _float32_bits(value)
    if type_ == "list_float":
        return tuple(_float32_bits(v) for v in value)
    return value


def attrs_key(attrs: Iterable[Attr]) -> tuple:
    """Return a hashable, order-independent key of an attribute set (floats compared by float32 bits)."""
    return tuple(sorted(a._key() for a in attrs))


@dataclass(frozen=True)
class TensorSpec:
    """One input or output tensor of a single-op model (ACL dtype/format values)."""

    dtype: int
    format: int
    shape: tuple[int, ...]
    shape_range: tuple[tuple[int, int], ...]
    origin_format: int
    origin_shape: tuple[int, ...]
    name: str = ""
    is_const: bool = False
    const_data: bytes | None = None

    @property
    def is_dynamic(self) -> bool:
        """Whether any dimension is unknown (-1) or the rank is unknown (-2)."""
        return any(d < 0 for d in self.shape)


@dataclass(frozen=True)
class OpModel:
    """A compiled single-operator model: op type, tensors, attributes, SoC and fuzzy flag."""

    op_type: str
    inputs: tuple[TensorSpec, ...]
    outputs: tuple[TensorSpec, ...]
    attrs: tuple[Attr, ...]
    soc_version: str
    fuzzy: bool = False

    @property
    def is_dynamic(self) -> bool:
        """Whether any input or output tensor has an unknown dimension or rank."""
        return any(t.is_dynamic for t in self.inputs + self.outputs)

    def to_bytes(self) -> bytes:
        """Return the content of this model's .om file."""
        body = json.dumps({
            "op_type": self.op_type,
            "soc_version": self.soc_version,
            "fuzzy": self.fuzzy,
            "inputs": [_tensor_to_json(t) for t in self.inputs],
            "outputs": [_tensor_to_json(t) for t in self.outputs],
            "attrs": [_attr_to_json(a) for a in self.attrs],
        }, allow_nan=False, separators=(",", ":")).encode("utf-8")
        return _HEADER.pack(MAGIC, FORMAT_VERSION, len(body)) + body

    @classmethod
    def from_bytes(cls, data: bytes) -> OpModel:
        """Parse the content of a simulator .om file; ModelFormatError says why it cannot be used."""
        return _decode(bytes(data))


def _tensor_to_json(t: TensorSpec) -> dict:
    return {
        "dtype": t.dtype, "format": t.format, "shape": list(t.shape),
        "shape_range": [list(r) for r in t.shape_range],
        "origin_format": t.origin_format, "origin_shape": list(t.origin_shape),
        "name": t.name, "is_const": t.is_const,
        "const_data": None if t.const_data is None else t.const_data.hex(),
    }


def _attr_to_json(a: Attr) -> dict:
    value: object = a.value
    if a.type == "float":
        value = _float32_bits(a.value)
    elif a.type == "list_float":
        value = [_float32_bits(v) for v in a.value]
    return {"name": a.name, "type": a.type, "value": value}


def _parse_error(reason: str) -> ModelFormatError:
    return ModelFormatError(ErrorCode.ACL_ERROR_PARSE_MODEL, f"simulator model with a bad body: {reason}")


def _decode(data: bytes) -> OpModel:
    if data.startswith(ASCEND_OM_MAGIC):
        if len(data) < ASCEND_OM_HEADER_SIZE:
            raise ModelFormatError(ErrorCode.ACL_ERROR_DESERIALIZE_MODEL,
                                   f"truncated Ascend .om header ({len(data)} of {ASCEND_OM_HEADER_SIZE} bytes)")
        raise ModelFormatError(ErrorCode.ACL_ERROR_PARSE_MODEL,
                               "a real Ascend .om compiled by ATC for hardware; the simulator loads only "
                               "models built by `aclcts atc`")
    if len(data) < _HEADER.size:
        reason = ("truncated simulator model header" if data and MAGIC.startswith(data[:len(MAGIC)])
                  else "not a single-op model (unknown file header)")
        raise ModelFormatError(ErrorCode.ACL_ERROR_DESERIALIZE_MODEL, f"{reason} ({len(data)} bytes)")
    magic, version, length = _HEADER.unpack_from(data)
    if magic != MAGIC:
        raise ModelFormatError(ErrorCode.ACL_ERROR_DESERIALIZE_MODEL,
                               f"not a single-op model (unknown file header {data[:8]!r})")
    if version != FORMAT_VERSION:
        raise ModelFormatError(ErrorCode.ACL_ERROR_PARSE_MODEL,
                               f"unsupported simulator model format version {version} "
                               f"(this aclcts reads version {FORMAT_VERSION})")
    body = data[_HEADER.size:]
    if len(body) != length:
        raise ModelFormatError(ErrorCode.ACL_ERROR_DESERIALIZE_MODEL,
                               f"truncated or padded simulator model: header says {length} body bytes, "
                               f"file has {len(body)}")
    try:
        text = body.decode("utf-8")
        doc = json.loads(text, object_pairs_hook=unique_keys)
    except DuplicateKeyError as exc:
        raise _parse_error(f"expected every key once in a JSON object, got {exc.key!r} twice") from None
    except (UnicodeDecodeError, ValueError) as exc:
        raise _parse_error(f"body is not UTF-8 JSON ({exc})") from None
    except RecursionError:
        raise _parse_error(f"expected at most {MAX_NESTING_DEPTH} levels of nesting, got more") from None
    if too_deep(doc, text):
        raise _parse_error(f"expected at most {MAX_NESTING_DEPTH} levels of nesting, got more")
    if not isinstance(doc, dict):
        raise _parse_error("body is not a JSON object")
    return _model_from_json(doc)


def _require(doc: dict, key: str, where: str) -> object:
    if key not in doc:
        raise ModelFormatError(ErrorCode.ACL_ERROR_MODEL_MISSING_ATTR,
                               f"simulator model is missing required key {where}{key}")
    return doc[key]


def _int_field(value: object, where: str) -> int:
    if not _is_int(value):
        raise _parse_error(f"{where}: expected an integer, got {value!r}")
    return int(value)


def _int_tuple(value: object, where: str) -> tuple[int, ...]:
    if not isinstance(value, list):
        raise _parse_error(f"{where}: expected a list of integers, got {value!r}")
    return tuple(_int_field(v, f"{where}[{i}]") for i, v in enumerate(value))


def _tensor_from_json(doc: object, where: str) -> TensorSpec:
    if not isinstance(doc, dict):
        raise _parse_error(f"{where}: expected an object")
    prefix = f"{where}."
    ranges = _require(doc, "shape_range", prefix)
    if not isinstance(ranges, list):
        raise _parse_error(f"{prefix}shape_range: expected a list of [min, max] pairs")
    shape_range = tuple(_int_tuple(r, f"{prefix}shape_range[{i}]") for i, r in enumerate(ranges))
    if any(len(r) != 2 for r in shape_range):
        raise _parse_error(f"{prefix}shape_range: every entry must be a [min, max] pair")
    name, is_const, const_hex = (_require(doc, k, prefix) for k in ("name", "is_const", "const_data"))
    if not isinstance(name, str) or not isinstance(is_const, bool):
        raise _parse_error(f"{prefix}name/is_const: expected a string and a bool")
    try:
        const_data = None if const_hex is None else bytes.fromhex(const_hex)
    except (TypeError, ValueError):
        raise _parse_error(f"{prefix}const_data: expected a hex string or null") from None
    return TensorSpec(
        dtype=_int_field(_require(doc, "dtype", prefix), f"{prefix}dtype"),
        format=_int_field(_require(doc, "format", prefix), f"{prefix}format"),
        shape=_int_tuple(_require(doc, "shape", prefix), f"{prefix}shape"),
        shape_range=shape_range,
        origin_format=_int_field(_require(doc, "origin_format", prefix), f"{prefix}origin_format"),
        origin_shape=_int_tuple(_require(doc, "origin_shape", prefix), f"{prefix}origin_shape"),
        name=name, is_const=is_const, const_data=const_data)


def _attr_from_json(doc: object, where: str) -> Attr:
    if not isinstance(doc, dict):
        raise _parse_error(f"{where}: expected an object")
    name, type_, value = (_require(doc, k, f"{where}.") for k in ("name", "type", "value"))
    try:
        if type_ == "float":
            value = _float_from_bits(_int_field(value, f"{where}.value"))
        elif type_ == "list_float":
            value = [_float_from_bits(_int_field(v, f"{where}.value[{i}]"))
                     for i, v in enumerate(_as_list(str(name), "list_float", value))]
        return canonical_attr(name, type_, value)
    except (ValueError, OverflowError) as exc:
        raise _parse_error(f"{where}: {exc}") from None


def _list_field(doc: dict, key: str) -> list:
    value = _require(doc, key, "")
    if not isinstance(value, list):
        raise _parse_error(f"{key}: expected a list")
    return value


def _model_from_json(doc: dict) -> OpModel:
    op_type, soc_version, fuzzy = (_require(doc, k, "") for k in ("op_type", "soc_version", "fuzzy"))
    if not isinstance(op_type, str) or not op_type:
        raise _parse_error(f"op_type: expected a non-empty string, got {op_type!r}")
    if not isinstance(soc_version, str) or not isinstance(fuzzy, bool):
        raise _parse_error("soc_version/fuzzy: expected a string and a bool")
    return OpModel(
        op_type=op_type,
        inputs=tuple(_tensor_from_json(t, f"inputs[{i}]") for i, t in enumerate(_list_field(doc, "inputs"))),
        outputs=tuple(_tensor_from_json(t, f"outputs[{i}]") for i, t in enumerate(_list_field(doc, "outputs"))),
        attrs=tuple(_attr_from_json(a, f"attrs[{i}]") for i, a in enumerate(_list_field(doc, "attrs"))),
        soc_version=soc_version,
        fuzzy=fuzzy)


def ge_data_type(acl_dtype: int) -> int:
    """Return the GE DataType number of an aclDataType value (ACL_DT_UNDEFINED -1 → DT_UNDEFINED 28)."""
    return GE_DT_UNDEFINED if acl_dtype == DataType.ACL_DT_UNDEFINED else acl_dtype


def ge_format(acl_format: int) -> int:
    """Return the GE Format number of an aclFormat value (ACL_FORMAT_UNDEFINED -1 → FORMAT_RESERVED 40)."""
    return GE_FORMAT_RESERVED if acl_format == -1 else acl_format


def is_valid_model_name(name: str | None) -> bool:
    """Whether a JSON `name` (after the 128-character cut) is used as the file name."""
    if not name:
        return False
    cut = name[:MAX_FILE_NAME_LEN]
    return cut not in (".", "..") and _VALID_NAME.fullmatch(cut) is not None


def _generated_name(index: int, model: OpModel) -> str:
    parts = [str(index), model.op_type]
    for tensor in model.inputs + model.outputs:
        parts += [str(ge_data_type(tensor.dtype)), str(ge_format(tensor.format))]
        parts += [str(d) for d in tensor.shape]
    return "_".join(parts)


def model_file_name(index: int, model: OpModel, name: str | None) -> str:
    """Return the .om file name ATC gives operator element `index` with JSON `name` (section 7 rule)."""
    if is_valid_model_name(name):
        return name[:MAX_FILE_NAME_LEN] + ".om"
    return _generated_name(index, model)[:MAX_FILE_NAME_LEN] + ".om"
