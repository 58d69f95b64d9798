"""Named dtype sets of the prototypes' type constraints (the headers' TensorType groups), as dtype names."""

from __future__ import annotations

FLOATS = ("float16", "float32", "bfloat16")
FLOAT64 = ("float64",)
SIGNED_INTS = ("int8", "int16", "int32", "int64")
UNSIGNED_INTS = ("uint8", "uint16", "uint32", "uint64")
INTS = SIGNED_INTS + UNSIGNED_INTS
BOOL = ("bool",)
COMPLEX = ("complex64", "complex128")
#: TensorType::NumberType / RealNumberType-style groups, as the headers compose them.
REALS = FLOATS + FLOAT64 + INTS
#: TensorType::NumberType (its quantized types left out: the suite has none).
NUMBERS = REALS + COMPLEX
#: TensorType::BasicType: every number and bool.
BASIC = NUMBERS + BOOL
#: TensorType::IndexNumberType.
INDEX = ("int32", "int64")
#: TensorType::UnaryDataType (complex32 left out).
UNARY = FLOATS + FLOAT64 + COMPLEX
