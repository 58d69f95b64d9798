"""Concrete conformance cases: one op, one dtype combination, one shape set, one attribute set."""

from __future__ import annotations

import zlib
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from aclcts.core.dtypes import JSON_TYPE_NAMES, numpy_dtype
from aclcts.core.opmodel import Attr, OpModel, TensorSpec

#: Data type names a case file may use (the single-op JSON spellings), by aclDataType.
DTYPE_BY_NAME = {name: code for code, name in JSON_TYPE_NAMES.items()}
FORMAT_BY_NAME = {"ND": 2, "NCHW": 0, "NHWC": 1}


@dataclass(frozen=True)
class TensorCase:
    """One input or output of a case."""

    name: str
    dtype: int
    shape: tuple[int, ...]
    const: tuple | None = None

    @property
    def np_dtype(self) -> np.dtype:
        """The NumPy dtype of the tensor."""
        return numpy_dtype(self.dtype)

    @property
    def dtype_name(self) -> str:
        """The single-op JSON spelling of the data type."""
        return JSON_TYPE_NAMES[self.dtype]

    def const_array(self) -> np.ndarray:
        """The constant value as an array of the tensor's dtype and shape."""
        return np.array(self.const, dtype=np.float64).astype(self.np_dtype).reshape(self.shape)


@dataclass(frozen=True)
class Case:
    """One expanded case, ready to run in any mode it lists."""

    id: str
    op: str
    family: str
    file: str
    source: str
    reference: str
    inputs: tuple[TensorCase, ...]
    outputs: tuple[TensorCase, ...]
    attrs: tuple[Attr, ...]
    modes: tuple[str, ...]
    values: dict[str, dict[str, Any]] = field(compare=False, hash=False)
    precision: Any = None
    format: int = 2
    dynamic_input: str = ""

    def seed(self, session_seed: int) -> int:
        """The case's input seed: stable across runs, machines and processes for a given session seed."""
        return (zlib.crc32(self.id.encode()) ^ session_seed) & 0x7FFFFFFF

    def attr_values(self) -> dict[str, Any]:
        """Attribute values as plain Python (lists, not tuples)."""

        def plain(value: Any) -> Any:
            return [plain(v) for v in value] if isinstance(value, tuple) else value

        return {a.name: plain(a.value) for a in self.attrs}

    def op_model(self, soc_version: str) -> OpModel:
        """The single-op model this case needs."""

        def spec(t: TensorCase, dynamic_name: bool) -> TensorSpec:
            const = t.const_array().tobytes() if t.const is not None else None
            return TensorSpec(t.dtype, self.format, t.shape, tuple((d, d) for d in t.shape), self.format, t.shape,
                              t.name if dynamic_name else "", t.const is not None, const)

        inputs = tuple(spec(t, bool(self.dynamic_input)) for t in self.inputs)
        outputs = tuple(spec(t, False) for t in self.outputs)
        return OpModel(self.op, inputs, outputs, self.attrs, soc_version)
