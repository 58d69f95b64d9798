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
  underflow follow an order the documentation leaves open); matrix products, convolution, pooling and norms get one
  non-finite point at one element of their data input (zeros among their other inputs), +inf beside -inf, or the
  point everywhere; an attribute's special values (Axpy's alpha 0) run too; a record's open points never;
- every generated case is checked on the inputs the session seed draws for it: one the reference refuses is left
  out (so the set can differ slightly between seeds);
- broadcasting: every two-input op whose shapes broadcast runs zero-size against size-1 dims and rank 0 inputs;
- dynamic twins: an op of an element-wise shape rule (`same`, `broadcast`) none of whose library cases is dynamic gets
  its base as a dynamic model, every dim -1 inside [1, max(8, twice the base's dim)], run at the base's shapes and at
  every dim 1 (ids `-domain-dynamic-`).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import Any

import ml_dtypes
import numpy as np

from aclcts.cases.case import DTYPE_BY_NAME, Case, TensorCase
from aclcts.core.dtypes import JSON_TYPE_NAMES
from aclcts.cases.values import draw_inputs, draw_runtime, is_float, special_values
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
#: The families whose ops get special-point cases laid out element by element: those computing each output from
#: their inputs in one rounded step (element-wise maths, activations, comparisons, reductions, softmax).
SPECIAL_FAMILIES = ("elementwise", "unary_math", "binary_math", "activation", "logic", "reduction", "softmax",
                    "special_math")
#: The families whose outputs combine many inputs (matrix products, convolution, pooling, norms): their special-point
#: cases place one non-finite point at one element of the data input (only the outputs reading it may change), two
#: opposite infinities side by side, or the point everywhere, with zeros among the other inputs (0 * inf is NaN).
#: Their +-max and subnormals are left out: sums of products overflow and underflow in intermediate steps of a
#: compute type no wider than the input, where the float64 reference does not.
SCATTERED_FAMILIES = ("matmul", "conv", "pooling", "norm")
#: The value distribution (aclcts.cases.schema.DISTRIBUTIONS) that mixes IEEE specials in; a scattered case draws its
#: base values without it.
SPECIAL_DRAW = "special"
#: The non-finite points the scattered cases place.
NONFINITE = (math.inf, -math.inf, math.nan)
#: Ops of the element-wise families computed in two rounded steps (Axpy's alpha * x2, then the sum): their points
#: leave out +-max and subnormals, which the intermediate step rounds or overflows where the reference does not.
TWO_STEP_OPS = ("Axpy",)
#: The execution mode generated cases run in (the values reach the same kernel in every mode).
MODE = "execute_v2"


def generated(library: Iterable[Case], seed: int) -> list[Case]:
    """The domain, special-point, broadcasting and shape-corner cases of every op of the library that has a record,
    each checked on the inputs the session seed draws for it."""
    library = list(library)
    by_op: dict[str, list[Case]] = {}
    for case in library:
        if _usable(case):
            by_op.setdefault(case.op, []).append(case)
    result: list[Case] = shape_corner_cases([case for case in library if case.dynamic], seed)
    dynamic_ops = {case.op for case in library if case.dynamic}
    for op_type, cases in by_op.items():
        record = prototype(op_type)
        if record is None:
            continue
        cases.sort(key=lambda c: _base_order(c, record))
        result += attribute_cases(record, cases, seed) + special_cases(record, cases, seed) + \
            broadcast_cases(record, cases, seed)
        if op_type not in dynamic_ops:
            result += dynamic_twins(record, cases, seed)
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
    """The points a floating input of the op runs at in the dtype: IEEE specials, COMMON_POINTS, the record's own,
    without the record's open points."""
    points = [*special_values(dtype).tolist(), *COMMON_POINTS, *record.specials]
    unique: dict[str, float] = {}
    for p in points:
        if not _is_open(record, p):
            unique.setdefault(repr(float(np.asarray(p).astype(dtype).astype(np.float64))), p)
    return list(unique.values())


def _is_open(record: Prototype, point: float) -> bool:
    """Whether the documentation leaves the op's result at point open (the record's open_points, NaN included)."""
    return repr(float(point)) in {repr(float(p)) for p in record.open_points}


def special_cases(record: Prototype, cases: list[Case], seed: int) -> list[Case]:
    """One case per floating input dtype (and per special value of an attribute): an element-wise op gets every
    (pair of) special point(s) laid out in one vector; an op of SCATTERED_FAMILIES its non-finite points placed
    among its base's values; another op's floating inputs are drawn from the points."""
    if record.family not in SPECIAL_FAMILIES + SCATTERED_FAMILIES:
        return []
    by_dtype: dict[str, Case] = {}
    for case in cases:
        variable = [t for t in case.inputs if t.const is None]
        if variable and is_float(variable[0].np_dtype):
            by_dtype.setdefault(variable[0].dtype_name, case)
    result = []
    for dtype_name, base in by_dtype.items():
        case_id = f"{record.op_type}-{SPECIAL}-{dtype_name}"
        if record.family in SCATTERED_FAMILIES:
            result += _scattered(base, record, seed, case_id)
            continue
        for attrs, suffix in [({}, "")] + [({a.name: v}, f"-{a.name}_{_tag(v)}") for a in record.attrs
                                             for v in a.specials]:
            case = _pointwise(base, record, seed, case_id + suffix, attrs)
            result += [case] if case is not None else []
    return result


def _pointwise(base: Case, record: Prototype, seed: int, case_id: str, attrs: dict[str, Any]) -> Case | None:
    """base with every (pair of) special point(s) laid out in one vector when it is element-wise with at most two
    inputs, else with its floating inputs drawn from the points; None if the reference refuses both."""
    variable = [t for t in base.inputs if t.const is None]
    floating = [t for t in variable if is_float(t.np_dtype)]
    points = special_points(record, floating[0].np_dtype)
    if record.op_type in TWO_STEP_OPS:
        points = _unaccumulated(points, floating[0])
    case = None
    if record.shape_rule in ("same", "broadcast") and len(floating) == len(variable) <= 2:
        grid = list(itertools.product(points, repeat=len(variable)))
        values = {t.name: {"fixed": [row[i] for row in grid]} for i, t in enumerate(variable)}
        case = _variant(base, record, seed, case_id, attrs, shapes=[(len(grid),)] * len(variable), values=values)
    if case is None:
        case = _variant(base, record, seed, case_id, attrs, values={t.name: {"choice": _unaccumulated(points, floating[0])}
                                                                     for t in floating})
    return case


def _scattered(base: Case, record: Prototype, seed: int, case_id: str) -> list[Case]:
    """The special-point cases of an op combining many inputs: its data input (the first floating one) holding one
    non-finite point at one element (`one`), +inf and -inf side by side (`pair`), or the point in
    every element (`full`); its other floating inputs hold +-0 at about a quarter of their elements."""
    plain = replace(base, values={name: spec for name, spec in base.values.items() if SPECIAL_DRAW not in spec})
    arrays = draw_inputs(plain, base.seed(seed))
    rng = np.random.default_rng(base.seed(seed))
    floating = [(t, a.astype(np.float64)) for t, a in zip(base.inputs, arrays)
                if t.const is None and is_float(t.np_dtype) and a.size]
    if not floating:
        return []
    (data, values), others = floating[0], floating[1:]
    zeroed = {t.name: {"fixed": _with_zeros(a, rng).ravel().tolist()} for t, a in others if a.size > 1}
    at = int(rng.integers(values.size))
    layouts = [(f"one_{_tag(p)}", _placed(values, {at: p}), (p,)) for p in NONFINITE]
    pair = _neighbours(values.shape, rng)
    if pair:
        layouts.append(("pair_inf_minf", _placed(values, dict(zip(pair, (math.inf, -math.inf)))), (math.inf, -math.inf)))
    layouts += [(f"full_{_tag(p)}", np.full_like(values, p), (p,)) for p in NONFINITE]
    result = []
    for name, array, used in layouts:
        if any(_is_open(record, p) for p in used):
            continue
        case = _variant(base, record, seed, f"{case_id}-{name}",
                        values={**zeroed, data.name: {"fixed": array.ravel().tolist()}})
        result += [case] if case is not None else []
    return result


def _neighbours(shape: tuple[int, ...], rng: np.random.Generator) -> tuple[int, int] | None:
    """The flat positions of two neighbouring elements along the last dim longer than 1 (they meet in one sum or
    window); None if every dim is 1."""
    axis = next((k for k in reversed(range(len(shape))) if shape[k] > 1), None)
    if axis is None:
        return None
    index = [int(rng.integers(n)) for n in shape]
    index[axis] = int(rng.integers(shape[axis] - 1))
    first = int(np.ravel_multi_index(index, shape))
    return first, first + int(np.prod(shape[axis + 1:]))


def _placed(values: np.ndarray, points: dict[int, float]) -> np.ndarray:
    """values with the given flat positions set to the given points."""
    placed = values.copy().ravel()
    for index, point in points.items():
        placed[index] = point
    return placed.reshape(values.shape)


def _with_zeros(values: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """values with about a quarter of the elements +0 or -0 (alternating)."""
    zeroed = values.copy().ravel()
    chosen = np.flatnonzero(rng.random(zeroed.size) < 0.25)
    zeroed[chosen] = np.where(np.arange(chosen.size) % 2, -0.0, 0.0)
    return zeroed.reshape(values.shape)


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


# dynamic twins ---------------------------------------------------------------------------------------------------
#: The shape rules under which a twin's outputs can follow its runtime inputs' broadcast shape, dim for dim.
ELEMENTWISE_TWIN_RULES = ("same", "broadcast")
#: A twin's -1 input dim ranges over [min(1, the base's dim), max(TWIN_RANGE_FLOOR, twice the base's dim)].
TWIN_RANGE_FLOOR = 8


def dynamic_twins(record: Prototype, bases: Sequence[Case], seed: int) -> list[Case]:
    """The first base (in base order) that makes a dynamic twin, an element-wise one if any does: a model with every
    dim of every non-scalar runtime input and output -1, run at the base's shapes and at the ranges' minimum where the
    reference takes them. An element-wise twin (ELEMENTWISE_TWIN_RULES, outputs at the runtime inputs' broadcast
    shape, two inputs or inputs of one shape) ranges its outputs as its inputs; any other twin, shape rule `given`,
    ranges its output dims over [1, unbounded] (max -1). A base of a private storage format, or without a non-scalar
    runtime input, makes none."""
    forms = [(base, rule) for base in bases if (rule := _twin_rule(base, record)) is not None]
    for base, rule in sorted(forms, key=lambda form: form[1] == "given"):
        twin = _dynamic_twin(base, record, rule, seed)
        if twin is not None:
            return [twin]
    return []


def _twin_rule(base: Case, record: Prototype) -> str | None:
    """The shape rule of base's twin (dynamic_twins): the record's for an element-wise one, else `given`; None where
    base makes none."""
    shapes = tuple(t.shape for t in base.inputs if t.const is None)
    if (not any(shapes) or base.msopst is not None
            or any(t.storage_format is not None for t in base.inputs + base.outputs)):
        return None
    rule = record.shape_rule if len(shapes) <= 2 else "same"
    elementwise = (record.shape_rule in ELEMENTWISE_TWIN_RULES and all(shapes)
                   and (rule == "broadcast" or len(set(shapes)) == 1)
                   and all(t.shape == np.broadcast_shapes(*shapes) for t in base.outputs))
    return rule if elementwise else "given"


def _dynamic_twin(base: Case, record: Prototype, rule: str, seed: int) -> Case | None:
    """base as a dynamic model of shape rule rule (dynamic_twins), or None where it runs at none of its shapes."""
    shapes = tuple(t.shape for t in base.inputs if t.const is None)
    elementwise = rule != "given"

    def unknown(tensor: TensorCase, output: bool = False) -> TensorCase:
        ranges = tuple((min(1, d), -1 if output and not elementwise else max(TWIN_RANGE_FLOOR, 2 * d))
                       for d in tensor.shape)
        return replace(tensor, shape=(-1,) * len(tensor.shape), shape_range=ranges)

    twin = replace(base, id=f"{record.op_type}-{DOMAIN}-dynamic-{base.id}", modes=(MODE,), shape_rule=rule,
                   inputs=tuple(t if t.const is not None else unknown(t) for t in base.inputs),
                   outputs=tuple(unknown(t, output=True) for t in base.outputs))
    smallest = tuple(tuple(lo for lo, _ in t.dim_ranges()) for t in twin.inputs if t.const is None)
    runs = [s for s in dict.fromkeys((shapes, smallest)) if _runs_at(twin, s, seed)]
    return replace(twin, runtime_shapes=tuple(runs)) if shapes in runs else None


# shape corners ---------------------------------------------------------------------------------------------------
def shape_corner_cases(dynamic: Iterable[Case], seed: int) -> list[Case]:
    """For every dynamic library case whose output shapes follow from its input shapes: its model run with each
    runtime input at its range minimum or maximum (every combination), and the same op with every runtime input and
    output of unknown rank [-2], run at the base's runtime shapes and at those bounds. A shape set the reference
    refuses, or whose outputs leave the model's output ranges, is left out."""
    dynamic = list(dynamic)
    result = []
    for base in dynamic:
        if base.data_dependent or base.expect != "success" or is_generated(base) or prototype(base.op) is None:
            continue
        ranked = not any(t.unknown_rank for t in base.inputs)
        bounds = [shapes for shapes in _bounds(base) if _runs_at(base, shapes, seed)] if ranked else []
        if bounds:
            result.append(replace(base, id=f"{base.op}-{DOMAIN}-bounds-{base.id}", runtime_shapes=tuple(bounds)))
        taken = {c.inputs[0].dtype for c in dynamic if c.op == base.op}
        twins = (_unknown_rank(base, dtype) for dtype in _other_dtypes(base, taken)) if ranked else ()
        for unknown in (twin for twin in twins if twin is not None):
            shapes = [s for s in dict.fromkeys(base.runtime_shapes + tuple(bounds)) if _runs_at(unknown, s, seed)]
            if shapes:
                result.append(replace(unknown, runtime_shapes=tuple(shapes)))
                break
    return result


def _other_dtypes(case: Case, taken: set[int]) -> list[int]:
    """The dtypes the record allows the case's first input besides those of the op's dynamic library cases: an
    unknown-rank model of a dtype a ranked model has would take that model's out-of-range shapes too."""
    record = prototype(case.op)
    first = case.inputs[0]
    names = record.dtypes_of(_record_name(record, first.name))
    return [DTYPE_BY_NAME[n] for n in names if n in DTYPE_BY_NAME and DTYPE_BY_NAME[n] not in taken | {first.dtype}]


def _bounds(case: Case) -> list[tuple[tuple[int, ...], ...]]:
    """Every combination of each runtime input at its range minimum or maximum (an unbounded maximum left out)."""
    runtime = [t for t in case.inputs if t.const is None]
    ends = [[tuple(pair[k] for pair in t.dim_ranges()) for k in (0, 1)] for t in runtime]
    return list(dict.fromkeys(shapes for shapes in itertools.product(*ends) if all(min(s, default=0) >= 0
                                                                                   for s in shapes)))


def _record_name(record: Prototype, name: str) -> str:
    """The record's name of a case tensor (a dynamic input's x0, x1 are the record's x)."""
    names = record.input_names() + record.output_names()
    return name if name in names else name.rstrip("0123456789")


def _unknown_rank(case: Case, dtype: int) -> Case | None:
    """case with every runtime input and every output of unknown rank [-2], those of its first input's dtype in
    dtype; None if the record does not allow dtype for one of them."""
    record = prototype(case.op)
    old = case.inputs[0].dtype
    moved = [t for t in case.inputs + case.outputs if t.const is None and t.dtype == old]
    if any(JSON_TYPE_NAMES[dtype] not in record.dtypes_of(_record_name(record, t.name)) for t in moved):
        return None

    def unknown(t: TensorCase) -> TensorCase:
        if t.const is not None:
            return t
        return replace(t, shape=(-2,), shape_range=(), dtype=dtype if t.dtype == old else t.dtype)
    twin = replace(case, inputs=tuple(map(unknown, case.inputs)), outputs=tuple(map(unknown, case.outputs)))
    return replace(twin, id=f"{case.op}-{DOMAIN}-unknown-rank-{twin.inputs[0].dtype_name}-{case.id}")


def _runs_at(case: Case, shapes: tuple[tuple[int, ...], ...], seed: int) -> bool:
    """Whether the reference takes the case at these runtime shapes (on the inputs the dynamic tests give: drawn, and
    filled with 1.5) and every output shape lies inside the model's output dims and ranges."""
    ref = reference(case.reference)
    filled = [np.full(shape, 1.5).astype(t.np_dtype) for shape, t in zip(shapes, [t for t in case.inputs
                                                                                  if t.const is None])]
    for runtime in (draw_runtime(case, shapes, case.seed(seed)), filled):
        given = iter(runtime)
        arrays = [t.const_array() if t.const is not None else next(given) for t in case.inputs]
        try:
            out_shapes = ref.shape([a.shape for a in arrays], arrays, case.attr_values())
            ref.compute(arrays, case.attr_values(), [t.np_dtype for t in case.outputs])
        except Exception:  # noqa: BLE001 - any refusal: the op does not take these shapes
            return False
        if not all(t.unknown_rank or (len(s) == len(t.shape) and all(lo <= d and (hi < 0 or d <= hi)
                                                                      for d, (lo, hi) in zip(s, t.dim_ranges())))
                   for t, s in zip(case.outputs, out_shapes)):
            return False
    return True
