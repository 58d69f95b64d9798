"""The record of one operator type: its CANN prototype (REG_OP) and everything the suite knows about it.

A record states each fact once: tensor names, kinds and dtype constraints, attributes with their types and defaults,
the documentation source, the family (the module it is written in), the precision policy its results are judged by,
how a dynamic case's runtime shapes relate (the shape rule) and where its inputs are drawn by default (sample hints).
The reference, the simulator kernel, the case loader, the ATC and docs/operators.md all read it.
"""

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
class Axes:
    """The domain of an axis-like attribute: indices of the dims of input `of`, every one in [-rank, rank) with rank
    the input's rank plus `extra` (Pack's axis indexes the output, one dim more); many: a list of distinct axes, of
    every length from 1 to the rank, or to `longest` when another value fixes it (Roll's dims pair with its shifts)."""

    of: str
    many: bool = False
    extra: int = 0
    longest: int = 0

    def values(self, rank: int) -> tuple[object, ...]:
        """Every value class at an input of the given rank: each axis of both signs; for a list, also every longer
        length (the first axes, the later ones negative)."""
        top = rank + self.extra
        single = tuple(range(-top, top))
        if not self.many:
            return single
        longer = tuple(tuple(a - top if a >= top // 2 else a for a in range(length)) for length in range(2, (self.longest or top) + 1))
        return tuple((a,) for a in single) + longer


@dataclass(frozen=True)
class OneOf:
    """The domain of an enum attribute: the values the op documents."""

    values: tuple[object, ...]


@dataclass(frozen=True)
class Attr:
    """One attribute: its name, its type (one of ATTR_TYPES) and its default (REQUIRED if it has none).

    counts names a dynamic input whose number of tensors the attribute holds (ConcatD's N); when the attribute is
    not given, that number is its value. domain says which values the attribute takes (Axes, OneOf; a bool's is
    both values, implied), for the cases generated from it. specials are values of the attribute where the function
    has a special point (Axpy's alpha 0: 0 * inf is NaN), run with the inputs at their special points.
    """

    name: str
    type: str
    default: object = REQUIRED
    counts: str = ""
    domain: Axes | OneOf | None = None
    specials: tuple[object, ...] = ()

    def value_classes(self, rank: int) -> tuple[object, ...]:
        """The attribute's value classes when the input its domain indexes has the given rank (none: no domain)."""
        if isinstance(self.domain, Axes):
            return self.domain.values(rank)
        if isinstance(self.domain, OneOf):
            return self.domain.values
        return (False, True) if self.type == "bool" else ()


@dataclass(frozen=True)
class Sample:
    """Where an input's values are drawn when a case does not say: the closed range [low, high] and why; with
    special, that fraction of a float input's elements are ±0, ±inf, NaN, subnormals or ±max instead."""

    low: float
    high: float
    why: str = ""
    special: float = 0.0


@dataclass(frozen=True)
class GradientOf:
    """The forward op a gradient op differentiates: which of the gradient op's inputs holds the forward input x, the
    forward output y and the incoming gradient dy ("" where the op takes no such input), the gradient op's attributes
    the forward op takes under the same name, and the interval the finite-difference check draws x from. A forward op
    of several inputs names them in wrt instead of x (the gradient op's input names, in the forward op's order): the
    gradient op's outputs are then the gradients with respect to each, in that order, one summed over the output
    elements an input element reaches."""

    forward: str
    dy: str
    x: str = ""
    y: str = ""
    attrs: tuple[str, ...] = ()
    domain: tuple[float, float] = (-4.0, 4.0)
    wrt: tuple[str, ...] = ()


@dataclass(frozen=True)
class Prototype:
    """An operator's record; tensors naming the same constraint in `types` share one dtype."""

    op_type: str
    inputs: tuple[Tensor, ...]
    outputs: tuple[Tensor, ...]
    types: Mapping[str, tuple[str, ...]]
    attrs: tuple[Attr, ...] = ()
    source: str = ""
    #: Tensors whose dtype an attribute sets (Cast's y follows dst_type): tensor name -> attribute name.
    dtype_from: Mapping[str, str] = field(default_factory=dict)
    #: The family: the name of the module the record is written in (set when the table is built).
    family: str = ""
    #: The precision policy class the op's results are judged by (aclcts.judge policies), "" = the family's.
    policy: str = ""
    #: How the runtime shapes of a dynamic case relate (aclcts.cases.schema.SHAPE_RULES), "" = the family's.
    shape_rule: str = ""
    #: Default value ranges of some inputs, by input name (e.g. Log's x drawn positive).
    samples: Mapping[str, Sample] = field(default_factory=dict)
    #: The input shapes of the op's default cases: one entry per case, one shape per required input; none means
    #: DEFAULT_SHAPES.
    sample_shapes: tuple[tuple[tuple[int, ...], ...], ...] = ()
    #: Attribute values the default cases give (at least every REQUIRED attribute's).
    sample_attrs: Mapping[str, object] = field(default_factory=dict)
    #: The [min, max] of each dim of the op's dynamic default case, by tensor name (every required input and output);
    #: none means no dynamic default case. Its -1 dims run at sample_shapes and at shapes drawn by shape_rule.
    sample_ranges: Mapping[str, tuple[tuple[int, int], ...]] = field(default_factory=dict)
    #: A custom op's reference as `module:ATTR` and simulator kernel module (imported from the folder its record was
    #: found under, aclcts.cases.custom_ops); a built-in op's are found by op type and these stay empty.
    reference: str = ""
    kernel: str = ""
    #: The private formats (docs/formats.md) each tensor may be stored in besides the plain ones, by tensor name, as
    #: the op's CANN op info lists them; a tensor not named is plain only.
    formats: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    #: Points of the function, beyond IEEE's (+-0, +-inf, NaN, subnormals, +-max), where it has a pole, a zero or a
    #: branch cut (Log's 1, Atanh's +-1): every floating input is run at them.
    specials: tuple[float, ...] = ()
    #: Special points where the documentation leaves the op's result open (SoftmaxCrossEntropyWithLogits at +inf:
    #: the limit or NaN): no generated case places them.
    open_points: tuple[float, ...] = ()
    #: The value profiles (aclcts.cases.profiles) of the default cases, None: the policy family's defaults; an op whose
    #: formula divides by its inputs (an optimizer's accumulators) names the ones its samples' reasons still allow.
    profiles: tuple[str, ...] | None = None
    #: For a gradient op: its forward op and how its inputs map onto the forward op's x, y and dy, for the
    #: finite-difference check of conformance/test_gradients.py; None for any other op.
    gradient_of: GradientOf | None = None

    def attr(self, name: str) -> Attr | None:
        """The attribute called name, or None."""
        return next((a for a in self.attrs if a.name == name), None)

    def defaults(self, n_inputs: int | None = None) -> dict[str, object]:
        """Every attribute's default by name (REQUIRED for one without); with n_inputs, the number of inputs given,
        an attribute that counts a dynamic input defaults to that input's number of tensors."""
        dynamic = n_inputs - (len(self.inputs) - 1) if n_inputs is not None else None
        return {a.name: dynamic if a.counts and dynamic is not None else a.default for a in self.attrs}

    def input_names(self) -> tuple[str, ...]:
        """The input names in order."""
        return tuple(t.name for t in self.inputs)

    def output_names(self) -> tuple[str, ...]:
        """The output names in order."""
        return tuple(t.name for t in self.outputs)

    def dtypes_of(self, name: str) -> tuple[str, ...]:
        """The dtype names the tensor called name may have (its type constraint)."""
        tensor = next(t for t in self.inputs + self.outputs if t.name == name)
        return self.types[tensor.types]


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
       attrs: tuple[Attr, ...] = (), source: str = "", dtype_from: Mapping[str, str] | None = None, *,
       policy: str = "", shape_rule: str = "", samples: Mapping[str, Sample] | None = None,
       sample_shapes: tuple[tuple[tuple[int, ...], ...], ...] = (),
       sample_attrs: Mapping[str, object] | None = None,
       sample_ranges: Mapping[str, tuple[tuple[int, int], ...]] | None = None, reference: str = "",
       kernel: str = "", formats: Mapping[str, tuple[str, ...]] | None = None,
       specials: tuple[float, ...] = (), open_points: tuple[float, ...] = (),
       profiles: tuple[str, ...] | None = None, gradient_of: GradientOf | None = None) -> Prototype:
    """A record written compactly: op("Add", "x1:T, x2:T", "y:T", {"T": FLOATS + INTS}, source=...)."""
    return Prototype(op_type, tensors(inputs), tensors(outputs), {k: tuple(canonical_dtype(d) for d in v)
                                                                   for k, v in types.items()},
                     attrs, source, dict(dtype_from or {}), policy=policy, shape_rule=shape_rule,
                     samples=dict(samples or {}), sample_shapes=sample_shapes, sample_attrs=dict(sample_attrs or {}),
                     sample_ranges=dict(sample_ranges or {}), reference=reference, kernel=kernel,
                     formats=dict(formats or {}), specials=specials, open_points=open_points,
                     profiles=profiles, gradient_of=gradient_of)
