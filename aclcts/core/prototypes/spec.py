"""The record of one CANN operator prototype (REG_OP): inputs, outputs, attributes and dtype constraints."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field


class _Required:
    """Marker for an attribute without a default (REQUIRED_ATTR)."""

    def __repr__(self) -> str:
        return "REQUIRED"


REQUIRED = _Required()

#: Attribute types of the prototypes (REG_OP's Int, Float, Bool, String, Type, ListInt, ListFloat, ListBool,
#: ListString, ListListInt).
ATTR_TYPES = ("int", "float", "bool", "str", "type", "list_int", "list_float", "list_bool", "list_str",
              "list_list_int")
#: Other spellings of dtype names, mapped to the single-op JSON spelling the prototypes compare in.
DTYPE_ALIASES = {"float64": "double", "float": "float32", "half": "float16", "fp16": "float16", "bf16": "bfloat16"}
#: How a tensor appears in REG_OP: INPUT/OUTPUT, OPTIONAL_INPUT, DYNAMIC_INPUT/DYNAMIC_OUTPUT.
TENSOR_KINDS = ("required", "optional", "dynamic")


@dataclass(frozen=True)
class Tensor:
    """One input or output: its name, the type constraint it follows and how it appears."""

    name: str
    types: str
    kind: str = "required"


@dataclass(frozen=True)
class Attr:
    """One attribute: its name, its type (one of ATTR_TYPES) and its default (REQUIRED if it has none)."""

    name: str
    type: str
    default: object = REQUIRED


@dataclass(frozen=True)
class Prototype:
    """An operator's prototype; tensors naming the same constraint in `types` share one dtype."""

    op_type: str
    inputs: tuple[Tensor, ...]
    outputs: tuple[Tensor, ...]
    types: Mapping[str, tuple[str, ...]]
    attrs: tuple[Attr, ...] = ()
    source: str = ""
    #: Tensors whose dtype an attribute sets (Cast's y follows dst_type): tensor name -> attribute name.
    dtype_from: Mapping[str, str] = field(default_factory=dict)

    def attr(self, name: str) -> Attr | None:
        """The attribute called name, or None."""
        return next((a for a in self.attrs if a.name == name), None)


def canonical_dtype(name: str) -> str:
    """A dtype name in the single-op JSON spelling (float64 -> double, float -> float32)."""
    return DTYPE_ALIASES.get(name, name)


def tensors(spec: str) -> tuple[Tensor, ...]:
    """Tensors from a compact list "x1:T, x2:T, bias?:T, x*:T" (`?` optional, `*` dynamic)."""
    result = []
    for item in (part.strip() for part in spec.split(",") if part.strip()):
        name, _, types = item.partition(":")
        kind = "optional" if name.endswith("?") else "dynamic" if name.endswith("*") else "required"
        result.append(Tensor(name.rstrip("?*"), types.strip(), kind))
    return tuple(result)


def op(op_type: str, inputs: str, outputs: str, types: Mapping[str, tuple[str, ...]],
       attrs: tuple[Attr, ...] = (), source: str = "", dtype_from: Mapping[str, str] | None = None) -> Prototype:
    """A prototype written compactly: op("Add", "x1:T, x2:T", "y:T", {"T": FLOATS + INTS}, source=...)."""
    return Prototype(op_type, tensors(inputs), tensors(outputs), {k: tuple(canonical_dtype(d) for d in v)
                                                                   for k, v in types.items()},
                     attrs, source, dict(dtype_from or {}))
