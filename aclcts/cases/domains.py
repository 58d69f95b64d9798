"""Cases generated from the op records' domains (issue 40): every attribute value class, every special point of a
floating input and the broadcasting corners, derived from the library's own cases of each op.

Each generated case is a library case (its base: the smallest of its dtype family and rank) with attribute values,
input values or shapes changed; its expected values come from the reference like any other case's. Ids carry
`-domain-` (attribute values, broadcasting corners) or `-special-` (special points). The combination rule:

- attributes: per op and rank of the input an axis indexes, the factors are the attributes with a domain (their
  value classes: every axis of both signs, every enum value, lists of every length; both bools); the rows cover every
  pair of values of two non-bool attributes (greedy all-pairs; the bools' own pairs when the op has only bools), the
  bools and the op's dtype families (a float and an integer base when the op has both) taken in turn; a value class whose rows the reference refused (a combination the op does not take,
  checked on the inputs the session seed draws) gets one more case with only that value changed; every enum value also
  runs once on the base with every dim doubled (branches may agree at the smallest shapes);
- special points: one case per op and floating input dtype, every input holding each of ±0, ±inf, NaN, the smallest
  subnormal, ±max, ±1, ±0.5, 2 and the record's own points; a two-input element-wise op gets every pair of them; an
  op combining many elements draws from the points without ±max and subnormals (its intermediate overflow and
  underflow follow an order the documentation leaves open);
- every generated case is checked on the inputs the session seed draws for it: one the reference refuses is left
  out (so the set can differ slightly between seeds);
- broadcasting: every two-input op whose shapes broadcast runs zero-size against size-1 dims and rank 0 inputs.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import Any

import ml_dtypes
import numpy as np

from aclcts.cases.case import Case, TensorCase
from aclcts.cases.values import draw_inputs, is_float, special_values
from aclcts.core.opmodel import canonical_attr
from aclcts.core.prototypes import Prototype, prototype
from aclcts.core.prototypes.check import JSON_ATTR_TYPE
from aclcts.core.prototypes.spec import Axes, OneOf
from aclcts.reference import reference

DOMAIN = "domain"
SPECIAL = "special"
#: Points every floating input runs at besides the dtype's IEEE specials (values.special_values).
COMMON_POINTS = (1.0, -1.0, 0.5, -0.5, 2.0)
#: Shape pairs of the broadcasting corners: zero-size dims against size-1 dims, rank 0 against any rank.
BROADCAST_CORNERS = (((0, 3), (1, 3)), ((3, 1), (1, 0)), ((), (2, 3)))
#: The families whose ops get special-point cases: those computing each output from their inputs in one rounded step
#: (element-wise maths, activations, comparisons, reductions, softmax). Sums of products (matmul, conv, pooling,
#: norms) overflow in intermediate steps of a compute type no wider than the input, where the float64 reference
#: does not: their results at +-max are the compute type's, not a property of the function.
SPECIAL_FAMILIES = ("elementwise", "unary_math", "binary_math", "activation", "logic", "reduction", "softmax")
#: Ops of those families computed in two rounded steps (Axpy's alpha * x2, then the sum).
TWO_STEP_OPS = ("Axpy",)
#: The execution mode generated cases run in (the values reach the same kernel in every mode).
MODE = "execute_v2"


def generated(library: Iterable[Case], seed: int) -> list[Case]:
    """The domain, special-point and broadcasting cases of every op of the library that has a record, each checked
    on the inputs the session seed draws for it."""
    by_op: dict[str, list[Case]] = {}
    for case in library:
        if _usable(case):
            by_op.setdefault(case.op, []).append(case)
    result: list[Case] = []
    for op_type, cases in by_op.items():
        record = prototype(op_type)
        if record is None:
            continue
        cases.sort(key=lambda c: _base_order(c, record))
        result += attribute_cases(record, cases, seed) + special_cases(record, cases, seed) + \
            broadcast_cases(record, cases, seed)
    return result
    return result


def is_generated(case: Case) -> bool:
    """Whether a case is one of this module's."""
    return f"-{DOMAIN}-" in case.id or f"-{SPECIAL}-" in case.id


def _usable(case: Case) -> bool:
    """Whether a library case can be a base: static, expected to succeed, its own values, run in MODE."""
    return not case.dynamic and case.expect == "success" and not case.profile and MODE in case.modes and \
        not is_generated(case) and _size(case) > 0


def _base_order(case: Case, record: Prototype) -> tuple:
    """Bases first whose indexed input has distinct dims of at least 2 (a wrong axis changes the result there), then
    the smallest."""
    shape = _indexed(case, record).shape
    return (min(shape, default=2) < 2, len(set(shape)) < len(shape), _size(case), case.id)


def _size(case: Case) -> int:
    """The number of input elements."""
    return sum(int(np.prod(t.shape)) for t in case.inputs)


def _family(case: Case) -> str:
    """The dtype family of a case's first input: float, int, bool or complex."""
    dtype = case.inputs[0].np_dtype
    return "float" if is_float(dtype) else {"b": "bool", "c": "complex"}.get(dtype.kind, "int")


def _tag(value: Any) -> str:
    """An attribute value as an id part."""
    if isinstance(value, (list, tuple)):
        return "_".join(_tag(v) for v in value) or "none"
    if isinstance(value, bool):
        return str(value).lower()
    return str(value).replace("-", "m")


def _variant(base: Case, record: Prototype, seed: int, case_id: str, attrs: dict[str, Any] | None = None,
             shapes: Sequence[tuple[int, ...]] | None = None, values: dict | None = None) -> Case | None:
    """base with attribute values, non-constant input shapes and value distributions replaced; None when the
    reference's shape function refuses the result."""
    changed = {name: canonical_attr(name, JSON_ATTR_TYPE[record.attr(name).type],
                                    list(value) if isinstance(value, tuple) else value)
               for name, value in (attrs or {}).items()}
    new_attrs = tuple(changed.pop(a.name, a) for a in base.attrs) + tuple(changed.values())
    shape_iter = iter(shapes or ())
    inputs = tuple(t if t.const is not None or shapes is None else replace(t, shape=tuple(next(shape_iter)),
                                                                             shape_range=())
                   for t in base.inputs)
    plain = {a.name: (list(a.value) if isinstance(a.value, tuple) else a.value) for a in new_attrs}
    try:
        out_shapes = reference(base.reference).shape([t.shape for t in inputs],
                                                     [t.const_array() if t.const is not None else None for t in inputs],
                                                     plain)
    except Exception:  # noqa: BLE001 - any refusal of the shape function: the op does not take this combination
        return None
    if len(out_shapes) != len(base.outputs):
        return None
    outputs = tuple(TensorCase(t.name, t.dtype, tuple(s)) for t, s in zip(base.outputs, out_shapes))
    case = replace(base, id=case_id, inputs=inputs, outputs=outputs, attrs=new_attrs, modes=(MODE,),
                   values={**base.values, **(values or {})})
    return case if _accepted(case, seed) else None


def _accepted(case: Case, seed: int) -> bool:
    """Whether the reference computes the case on the inputs the session seed draws (it refuses values the op does
    not take: an index beyond the new axis, a reflect padding wider than the dim, a shifts list of another length)."""
    try:
        reference(case.reference).compute(draw_inputs(case, case.seed(seed)), case.reference_attr_values(),
                                          [t.np_dtype for t in case.outputs])
    except Exception:  # noqa: BLE001 - any refusal: the op does not take this combination
        return False
    return True


# attribute domains -----------------------------------------------------------------------------------------------
def all_pairs(factors: Sequence[Sequence[Any]]) -> list[tuple[Any, ...]]:
    """Rows (one value per factor) covering every pair of values of two different factors, built greedily."""
    if len(factors) == 1:
        return [(v,) for v in factors[0]]
    uncovered = {(i, a, j, b) for i, j in itertools.combinations(range(len(factors)), 2)
                 for a in range(len(factors[i])) for b in range(len(factors[j]))}
    rows: list[tuple[int, ...]] = []
    while uncovered:
        i0, a0, j0, b0 = min(uncovered)
        row = {i0: a0, j0: b0}
        for k in range(len(factors)):
            if k not in row:
                row[k] = max(range(len(factors[k])), key=lambda v: sum(
                    (min(k, m), v if k < m else row[m], max(k, m), row[m] if k < m else v) in uncovered
                    for m in row))
        chosen = tuple(row[k] for k in range(len(factors)))
        uncovered -= {(i, chosen[i], j, chosen[j]) for i, j in itertools.combinations(range(len(factors)), 2)}
        rows.append(chosen)
    return [tuple(factors[k][v] for k, v in enumerate(row)) for row in rows]


def _indexed(case: Case, record: Prototype) -> TensorCase:
    """The input the record's first axis-like attribute indexes (else the first input)."""
    axes = next((a.domain for a in record.attrs if isinstance(a.domain, Axes)), None)
    name = axes.of if axes is not None else case.inputs[0].name
    return next((t for t in case.inputs if t.name == name), case.inputs[0])


def _rank_of(case: Case, record: Prototype) -> int:
    """The rank of the input the record's first axis-like attribute indexes (else of the first input)."""
    return len(_indexed(case, record).shape)


def attribute_cases(record: Prototype, cases: list[Case], seed: int) -> list[Case]:
    """Every value class of every attribute with a domain, per rank of the indexed input, combined all-pairs with
    the dtype families; see the module docstring."""
    named = [a for a in record.attrs if a.value_classes(1)]
    if not named:
        return []
    bases: dict[int, dict[str, Case]] = {}
    for case in cases:
        bases.setdefault(_rank_of(case, record), {}).setdefault(_family(case), case)
    result: list[Case] = []
    for rank, by_family in sorted(bases.items()):
        families = list(by_family.values())
        classes = [a.value_classes(rank) for a in named]
        seen = {(a.name, _tag(v)): False for a, values in zip(named, classes) for v in values}
        paired = [k for k, a in enumerate(named) if a.type != "bool"] or list(range(len(named)))
        rows = []
        for i, row in enumerate(all_pairs([classes[k] for k in paired])):
            cycled = {k: classes[k][(i + k) % len(classes[k])] for k in range(len(named)) if k not in paired}
            chosen = {**cycled, **dict(zip(paired, row))}
            rows.append((families[i % len(families)], {named[k].name: chosen[k] for k in range(len(named))}))
        for base, attrs in rows:
            tags = "-".join(f"{n}_{_tag(v)}" for n, v in attrs.items())
            case = _variant(base, record, seed, f"{record.op_type}-{DOMAIN}-{_family(base)}-r{rank}-{tags}", attrs)
            if case is not None:
                result.append(case)
                seen.update({(n, _tag(v)): True for n, v in attrs.items()})
        result += _doubled(record, seed, families[0], rank, [a for a in named if isinstance(a.domain, OneOf)])
        for a, values in zip(named, classes):
            for value in values:
                if not seen[(a.name, _tag(value))]:
                    case = _alone(record, seed, [c for c in cases if _rank_of(c, record) == rank], rank, a.name, value)
                    result += [case] if case is not None else []
    return result


def _doubled(record: Prototype, seed: int, base: Case, rank: int, enums: list) -> list[Case]:
    """Every value of each enum attribute once more on the base with every dim doubled: the branches an enum selects
    may agree at the smallest valid shapes (DepthToSpace's CRD and DCR do when the output has one channel)."""
    result = []
    shapes = [tuple(2 * d for d in t.shape) for t in base.inputs if t.const is None]
    for attr in enums:
        for value in attr.domain.values:
            case = _variant(base, record, seed, f"{record.op_type}-{DOMAIN}-{_family(base)}-r{rank}-{attr.name}_"
                                          f"{_tag(value)}-doubled", {attr.name: value}, shapes=shapes)
            result += [case] if case is not None else []
    return result


def _alone(record: Prototype, seed: int, bases: list[Case], rank: int, name: str, value: Any) -> Case | None:
    """A case changing only attribute name to value: on the first base of the rank the reference accepts it on, else
    on one with every non-constant input a cube (all dims one of the base's dims: Unpack's num, ConcatD's other
    dims, Squeeze's size-1 dims agree then); None if none is accepted."""
    case_id = f"{record.op_type}-{DOMAIN}-r{rank}-{name}_{_tag(value)}"
    for base in bases:
        case = _variant(base, record, seed, f"{case_id}-{_family(base)}", {name: value})
        if case is not None:
            return case
    for base in bases[:1]:
        variable = [t for t in base.inputs if t.const is None]
        for side in sorted({1, *(d for t in variable for d in t.shape)}):
            shapes = [(side,) * len(t.shape) for t in variable]
            case = _variant(base, record, seed, f"{case_id}-{_family(base)}-cube{side}", {name: value}, shapes=shapes)
            if case is not None:
                return case
    return None


# special points --------------------------------------------------------------------------------------------------
def special_points(record: Prototype, dtype: np.dtype) -> list[float]:
    """The points a floating input of the op runs at in the dtype: IEEE specials, COMMON_POINTS, the record's own."""
    points = [*special_values(dtype).tolist(), *COMMON_POINTS, *record.specials]
    unique: dict[str, float] = {}
    for p in points:
        unique.setdefault(repr(float(np.asarray(p).astype(dtype).astype(np.float64))), p)
    return list(unique.values())


def special_cases(record: Prototype, cases: list[Case], seed: int) -> list[Case]:
    """One case per floating input dtype: an element-wise op gets every (pair of) special point(s) laid out in one
    vector; another op's floating inputs are drawn from the points, its other inputs as its base case's."""
    by_dtype: dict[str, Case] = {}
    if record.family not in SPECIAL_FAMILIES or record.op_type in TWO_STEP_OPS:
        return []
    for case in cases:
        variable = [t for t in case.inputs if t.const is None]
        if variable and is_float(variable[0].np_dtype):
            by_dtype.setdefault(variable[0].dtype_name, case)
    result = []
    for dtype_name, base in by_dtype.items():
        variable = [t for t in base.inputs if t.const is None]
        floating = [t for t in variable if is_float(t.np_dtype)]
        points = special_points(record, floating[0].np_dtype)
        case_id = f"{record.op_type}-{SPECIAL}-{dtype_name}"
        if record.shape_rule in ("same", "broadcast") and len(floating) == len(variable) <= 2:
            grid = list(itertools.product(points, repeat=len(variable)))
            values = {t.name: {"fixed": [row[i] for row in grid]} for i, t in enumerate(variable)}
            case = _variant(base, record, seed, case_id, shapes=[(len(grid),)] * len(variable), values=values)
        else:
            case = None
        if case is None:
            case = _variant(base, record, seed, case_id, values={t.name: {"choice": _unaccumulated(points, floating[0])}
                                                           for t in floating})
        if case is not None:
            result.append(case)
    return result


def _unaccumulated(points: list[float], tensor: TensorCase) -> list[float]:
    """The points without the dtype's largest and subnormal magnitudes: an op combining many elements (a reduction, a
    softmax) overflows or underflows in intermediate steps there in an order the documentation leaves open."""
    info = ml_dtypes.finfo(tensor.np_dtype)
    return [p for p in points if not (float(info.max) <= abs(p) < math.inf or 0 < abs(p) < float(info.tiny))]


# broadcasting corners ---------------------------------------------------------------------------------------------
def broadcast_cases(record: Prototype, cases: list[Case], seed: int) -> list[Case]:
    """The broadcasting corners of a two-input op whose record broadcasts, on its first case's dtypes."""
    base = cases[0]
    if record.shape_rule != "broadcast" or len([t for t in base.inputs if t.const is None]) != 2:
        return []
    result = []
    for index, shapes in enumerate(BROADCAST_CORNERS):
        tag = "_".join("x".join(map(str, s)) or "scalar" for s in shapes)
        case = _variant(base, record, seed, f"{record.op_type}-{DOMAIN}-broadcast-{base.inputs[0].dtype_name}-{tag}",
                        shapes=shapes)
        if case is not None:
            result.append(case)
    return result
