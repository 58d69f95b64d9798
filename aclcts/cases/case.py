"""Concrete conformance cases: one op, one dtype combination, one shape set, one attribute set."""

from __future__ import annotations

import zlib
from dataclasses import dataclass, field
from collections.abc import Callable
from typing import Any

import numpy as np

from aclcts.core.constants import DataType, Format
from aclcts.core.dtypes import JSON_TYPE_NAMES, numpy_dtype
from aclcts.core.formats import FORMAT_VALUES, storage_shape, unknown_dim_places
from aclcts.core.opmodel import Attr, OpModel, TensorSpec
from aclcts.core.prototypes import VendorRecordError, lookup

#: Data type names a case file may use (the single-op JSON spellings), by aclDataType.
DTYPE_BY_NAME = {name: code for code, name in JSON_TYPE_NAMES.items()}
#: The plain formats a case's tensors may have (origin formats); STORAGE_FORMAT_BY_NAME adds the private ones.
FORMAT_BY_NAME = {name: FORMAT_VALUES[name] for name in ("ND", "NCHW", "NHWC", "NCDHW", "NDHWC", "HWCN", "DHWCN")}
STORAGE_FORMAT_BY_NAME = dict(FORMAT_VALUES)


@dataclass(frozen=True)
class TensorCase:
    """One input or output of a case."""

    name: str
    dtype: int
    shape: tuple[int, ...]
    const: tuple | None = None
    shape_range: tuple[tuple[int, int], ...] = ()
    #: The aclFormat the tensor is stored in when it is not the case's format (a private format such as FRACTAL_NZ,
    #: docs/formats.md); shape is then its origin shape, in the case's format.
    storage_format: int | None = None

    @property
    def unknown_rank(self) -> bool:
        """Whether the shape is the unknown rank [-2]."""
        return self.shape == (-2,)

    @property
    def dynamic(self) -> bool:
        """Whether the shape has -1 dims or is [-2]."""
        return any(d < 0 for d in self.shape)

    def dim_ranges(self) -> tuple[tuple[int, int], ...]:
        """(min, max) of every dim: (d, d) for a fixed dim, its shape_range pair for a -1, none for [-2]."""
        if self.unknown_rank:
            return ()
        pairs = iter(self.shape_range)
        return tuple(next(pairs) if d == -1 else (d, d) for d in self.shape)

    @property
    def np_dtype(self) -> np.dtype:
        """The NumPy dtype of the tensor."""
        return numpy_dtype(self.dtype)

    @property
    def dtype_name(self) -> str:
        """The single-op JSON spelling of the data type."""
        return JSON_TYPE_NAMES[self.dtype]

    def stored(self, origin_format: int) -> tuple[int, tuple[int, ...]]:
        """The tensor's format and dims on the device, for a case whose format is origin_format."""
        if self.storage_format is None:
            return origin_format, self.shape
        return self.storage_format, storage_shape(self.shape, origin_format, self.storage_format, self.np_dtype)

    def stored_ranges(self, origin_format: int) -> tuple[tuple[int, int], ...]:
        """(min, max) of every stored dim, for a case whose format is origin_format: a stored dim holding an unknown
        origin dim has that dim's range, every other stored dim is fixed."""
        fmt, dims = self.stored(origin_format)
        if self.storage_format is None:
            return self.dim_ranges()
        origin = dict(enumerate(self.dim_ranges()))
        held = {s: origin[p] for p, s in unknown_dim_places(self.shape, origin_format, fmt, self.np_dtype).items()
                if s is not None}
        return tuple(held.get(s, (d, d)) for s, d in enumerate(dims))

    def const_array(self) -> np.ndarray:
        """The constant value as an array of the tensor's dtype and shape."""
        return np.array(self.const, dtype=np.float64).astype(self.np_dtype).reshape(self.shape)


@dataclass(frozen=True)
class Refusal:
    """Why one case cannot run and at which stage (aclcts.cases.schema.STAGES): its tests fail with this one line,
    and every other case runs."""

    stage: str
    reason: str


class CaseRefused(Exception):
    """Raised inside a test of a refused case: the failure's message is the reason and its stage is reported."""

    def __init__(self, refusal: Refusal) -> None:
        super().__init__(f"{refusal.stage}: {refusal.reason}")
        self.refusal = refusal


@dataclass(frozen=True)
class MsopstInfo:
    """What an msopst sub-case was in msopst's terms: its parameters (as st_report.json shows them), its reference."""

    case_name: str
    parent: str
    expect: str
    op_params: dict[str, Any]
    reference_kind: str  # "golden", "builtin", "builtin-fallback" (its golden file needs a missing module) or "none"
    threshold: tuple[float, float]


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
    runtime_shapes: tuple[tuple[tuple[int, ...], ...], ...] = ()
    shape_rule: str = "each"
    elements: str = "full"
    data_dependent: tuple[str, ...] = ()
    #: "failed" when the case must fail to compile or execute (an msopst case's `expect`), else "success".
    expect: str = "success"
    #: The value profile the inputs are drawn from (aclcts.cases.profiles), or "" for the case's own distributions.
    profile: str = ""
    #: The msopst sub-case this case was read from (aclcts.cases.msopst), or None for a case file's case.
    msopst: MsopstInfo | None = field(default=None, compare=False)
    #: Why the case cannot run (its tests fail with it), or None for a case that runs.
    refusal: Refusal | None = field(default=None, compare=False)
    #: The optional inputs the case leaves out, as (position among the op's inputs, name): msopst's UNDEFINED /
    #: RESERVED inputs. The model and the call carry an undefined tensor there (ACL_DT_UNDEFINED, no data), as CANN's
    #: single-op JSON and aclopExecuteV2 do; inputs holds the others.
    omitted: tuple[tuple[int, str], ...] = ()
    #: The documentation line demanding exactness when the case file's precision names the exact policy, else "".
    exact_because: str = field(default="", compare=False)

    @property
    def dynamic(self) -> bool:
        """Whether the case's model has -1 dims or an unknown rank [-2] anywhere."""
        return any(t.dynamic for t in self.inputs + self.outputs)

    def desc_names(self, tensors: tuple[TensorCase, ...]) -> list[str]:
        """The names infer_shape needs on the descs: IR names for an op with a dynamic input, else none."""
        return [t.name if self.dynamic_input else "" for t in tensors]

    def seed(self, session_seed: int) -> int:
        """The case's input seed: stable across runs, machines and processes for a given session seed."""
        return (zlib.crc32(self.id.encode()) ^ session_seed) & 0x7FFFFFFF

    def attr_values(self) -> dict[str, Any]:
        """Attribute values as plain Python (lists, not tuples)."""

        def plain(value: Any) -> Any:
            return [plain(v) for v in value] if isinstance(value, tuple) else value

        return {a.name: plain(a.value) for a in self.attrs}

    def with_omitted(self, present: list[Any], undefined: Callable[[str], Any]) -> list[Any]:
        """One item per op input: present's items (one per input given) with undefined(name) at each omitted one."""
        items = list(present)
        for position, name in self.omitted:
            items.insert(position, undefined(name))
        return items

    def reference_attr_values(self) -> dict[str, Any]:
        """The attribute values the op's computation reads: those its prototype declares. ATC keeps an attribute the
        IR does not declare on the model and compiles it with a warning (aclcts.atc.settings.WARNED_PROBLEMS), and no
        kernel reads it, so the reference is not given it (every attribute when the op has no prototype)."""
        values = self.attr_values()
        try:
            record, _ = lookup(self.op)
        except VendorRecordError:
            record = None
        if record is None:
            return values
        declared = {a.name for a in record.attrs}
        return {name: value for name, value in values.items() if name in declared}

    def op_model(self, soc_version: str) -> OpModel:
        """The single-op model this case needs."""

        def spec(t: TensorCase, dynamic_name: bool) -> TensorSpec:
            const = t.const_array().tobytes() if t.const is not None else None
            fmt, shape = t.stored(self.format)
            ranges = t.stored_ranges(self.format)
            return TensorSpec(t.dtype, fmt, shape, ranges, self.format, t.shape,
                              t.name if dynamic_name else "", t.const is not None, const)

        def undefined(name: str) -> TensorSpec:
            nothing = Format.ACL_FORMAT_UNDEFINED
            named = name if self.dynamic_input else ""
            return TensorSpec(DataType.ACL_DT_UNDEFINED, nothing, (), (), nothing, (), named)

        inputs = tuple(self.with_omitted([spec(t, bool(self.dynamic_input)) for t in self.inputs], undefined))
        outputs = tuple(spec(t, False) for t in self.outputs)
        return OpModel(self.op, inputs, outputs, self.attrs, soc_version)
