"""Single-op JSON vocabulary: type, format and data_type-attribute strings with their GE and ACL numbers."""

from __future__ import annotations

#: GE DT_UNDEFINED / FORMAT_RESERVED, the JSON's "undefined" (ACL -1 for both).
GE_DT_UNDEFINED = 28
GE_FORMAT_RESERVED = 40

#: JSON `type` (lower-cased) → GE DataType (docs/contract/single-op-json.md#data-type-strings).  hifloat8 / float8_*
#: carry the ACL numbers; their GE numbers are UNCONFIRMED.  "fp16"/"half" are in FP16_HALF_SPELLINGS.
TYPE_VALUES: dict[str, int] = {
    "float": 0, "float32": 0, "float16": 1, "int8": 2, "int32": 3, "uint8": 4, "int16": 6,
    "uint16": 7, "uint32": 8, "int64": 9, "uint64": 10, "double": 11, "bool": 12,
    "complex64": 16, "complex128": 17, "bfloat16": 27, "int4": 29, "uint1": 30, "complex32": 33,
    "hifloat8": 34, "float8_e5m2": 35, "float8_e4m3fn": 36,
}
FP16_HALF_SPELLINGS = ("fp16", "half")
UNDEFINED_TYPE_SPELLINGS = ("undefined",)

#: JSON `format` (lower-cased) → GE Format, GE's kFormatDict (docs/contract/single-op-json.md#format-strings).
FORMAT_VALUES: dict[str, int] = {
    "nchw": 0, "nhwc": 1, "nd": 2, "nc1hwc0": 3, "fractal_z": 4, "nc1c0hwpad": 5, "nhwc1c0": 6,
    "fsr_nchw": 7, "fractal_deconv": 8, "c1hwnc0": 9, "fractal_deconv_transpose": 10,
    "fractal_deconv_sp_stride_trans": 11, "nc1hwc0_c04": 12, "fractal_z_c04": 13, "chwn": 14,
    "deconv_sp_stride8_trans": 15, "hwcn": 16, "nc1khkwhwc0": 17, "bn_weight": 18,
    "filter_hwck": 19, "lookup_lookups": 20, "lookup_keys": 21, "lookup_value": 22,
    "lookup_output": 23, "lookup_hits": 24, "c1hwncoc0": 25, "md": 26, "ndhwc": 27,
    "fractal_nz": 29, "ncdhw": 30, "dhwcn": 31, "ndc1hwc0": 32, "fractal_z_3d": 33, "cn": 34,
    "nc": 35, "dhwnc": 36, "fractal_z_3d_transpose": 37, "fractal_zn_lstm": 38, "fractal_z_g": 39,
}
#: Spellings that mean FORMAT_RESERVED (the doc writes RESERVED, msopst writes UNDEFINED;
#: docs/contract/single-op-json.md#undefined-spellings).
UNDEFINED_FORMAT_SPELLINGS = ("reserved", "undefined")
#: Format names that pass GE's name check but are not in kFormatDict: they become RESERVED
#: (docs/contract/single-op-json.md#format-strings).
RESERVED_ONLY_FORMATS = ("ncl", "fractal_nz_c0_16", "fractal_nz_c0_32", "fractal_nz_c0_2",
                         "fractal_nz_c0_4", "fractal_nz_c0_8")

#: `data_type` attribute strings → GE DataType (GE's serial names, matched exactly).
DATA_TYPE_NAMES: dict[str, int] = {
    "DT_FLOAT": 0, "DT_FLOAT16": 1, "DT_INT8": 2, "DT_INT32": 3, "DT_UINT8": 4, "DT_INT16": 6,
    "DT_UINT16": 7, "DT_UINT32": 8, "DT_INT64": 9, "DT_UINT64": 10, "DT_DOUBLE": 11,
    "DT_BOOL": 12, "DT_STRING": 13, "DT_COMPLEX64": 16, "DT_COMPLEX128": 17, "DT_BF16": 27,
    "DT_UNDEFINED": 28, "DT_INT4": 29, "DT_UINT1": 30, "DT_COMPLEX32": 33, "DT_HIFLOAT8": 34,
    "DT_FLOAT8_E5M2": 35, "DT_FLOAT8_E4M3FN": 36,
}

#: Attribute `type` strings of the JSON (matched exactly; docs/contract/single-op-json.md#attribute-types). 
#: list_data_type is not one of them.
JSON_ATTR_TYPES = ("bool", "int", "float", "string", "list_bool", "list_int", "list_float",
                   "list_string", "list_list_int", "data_type")


def acl_data_type(ge_value: int) -> int:
    """Return the aclDataType of a GE DataType number (DT_UNDEFINED 28 → -1)."""
    return -1 if ge_value == GE_DT_UNDEFINED else ge_value


def acl_format(ge_value: int) -> int:
    """Return the aclFormat of a GE Format number (FORMAT_RESERVED 40 → -1)."""
    return -1 if ge_value == GE_FORMAT_RESERVED else ge_value


_TYPE_NAMES = {value: name for name, value in TYPE_VALUES.items()}
_FORMAT_NAMES = {value: name.upper() for name, value in FORMAT_VALUES.items()}
_DATA_TYPE_ATTR_NAMES = {value: name for name, value in DATA_TYPE_NAMES.items()}


def json_type_name(acl_dtype: int) -> str:
    """Return the JSON `type` string of an aclDataType (-1 → "UNDEFINED"); KeyError if it has none."""
    return "UNDEFINED" if acl_dtype == -1 else _TYPE_NAMES[acl_dtype]


def json_format_name(acl_format_value: int) -> str:
    """Return the JSON `format` string of an aclFormat (-1 → "RESERVED"); KeyError if it has none."""
    return "RESERVED" if acl_format_value == -1 else _FORMAT_NAMES[acl_format_value]


def data_type_attr_name(acl_dtype: int) -> str:
    """Return the "DT_*" string of an aclDataType attribute value; KeyError if it has none."""
    return _DATA_TYPE_ATTR_NAMES[GE_DT_UNDEFINED if acl_dtype == -1 else acl_dtype]
