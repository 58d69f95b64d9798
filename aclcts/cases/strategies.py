"""Hypothesis strategies of the suite (shapes inside ranges, broadcastable pairs, dtypes, values, attrs) and its profiles.

Profiles: `ci` (fast, the default when none is chosen), `survey` (ci's examples, a failure reported as found, not
shrunk: what `aclcts msopst survey` runs), `default` and `qualification` (thorough, for release runs).
All have no deadline and print the falsifying example and its reproduce_failure blob. A profile is chosen by
hypothesis' own `--hypothesis-profile=NAME` option or by the environment variable ACLCTS_HYPOTHESIS_PROFILE;
`--hypothesis-profile` needs this module imported before pytest configures, e.g. `pytest -p aclcts.cases.strategies`.
"""

from __future__ import annotations

import math
import os
from dataclasses import replace
from collections.abc import Sequence
from typing import Any

import ml_dtypes
import numpy as np
from hypothesis import HealthCheck, Phase, assume, settings
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument
from hypothesis.extra import numpy as hnp

from aclcts.cases.msopst.draw import FIXED
from aclcts.cases.schema import shape_fits
from aclcts.cases.values import draw, draw_runtime
from aclcts.core.dtypes import numpy_dtype
from aclcts.core.prototypes import prototype
from aclcts.core.prototypes.spec import Axes
from aclcts.reference import OP_TYPES as _OP_REFERENCES, reference

PROFILE_ENV = "ACLCTS_HYPOTHESIS_PROFILE"
#: output_fitting_ranges by (case id, input name): computed once per case and process.
_FITTING: dict[tuple[str, str], list[tuple[int, int]]] = {}
#: The input, by record family, whose values are axes of the data input (drawn as distinct axes of its rank).
AXES_INPUTS = {"reduction": "axes", "index": "dimension"}
#: Largest dim drawn for a range without an upper bound (max -1).
UNBOUNDED_CAP = 16
#: Largest dim drawn alone (a matrix dim, a concat size) for a range with an upper bound above it.
DIM_CAP = 64
#: Most elements a drawn shape has when its ranges allow so few: dims are drawn small first, each capped so the shape
#: stays under this count (never below a range's minimum; a range whose minimum is larger is drawn at its minimum).
MOST_ELEMENTS = 4096
#: Above this many elements an array is drawn as one drawn fill value with some drawn elements over it (smaller ones
#: have every element drawn), so a large minimum shape does not make hypothesis draw millions of values. The limit is
#: per example: the inputs of one example share it, since hypothesis throws away an example that makes more than
#: about 8,000 choices (two dense float arrays of 1,024 elements each did, so nearly every example was rejected).
DENSE_LIMIT = 1024
#: Above this many elements an array's values come from NumPy's generator seeded by one drawn integer (hypothesis
#: would take seconds per example even with a fill value), in the same value classes as elements().
BULK_LIMIT = 65536
#: Highest rank and largest dim drawn for an unknown-rank [-2] input (from the least rank its attributes allow).
UNKNOWN_RANK_MAX, UNKNOWN_RANK_DIM = 4, 3
#: Health checks every profile suppresses, on purpose: too_slow and data_too_large and large_base_example concern the
#: size of the data, which a case's own ranges decide (a range whose minimum is large makes the smallest example
#: large) and the memory budget (--memory-budget) bounds; function_scoped_fixture because the suite's fixtures hold
#: no per-example state. filter_too_much stays on: it means a strategy rejects nearly everything it draws.
SUPPRESSED_HEALTH_CHECKS = (HealthCheck.too_slow, HealthCheck.function_scoped_fixture, HealthCheck.data_too_large,
                            HealthCheck.large_base_example)
_COMMON: dict[str, Any] = {
    "deadline": None, "print_blob": True, "suppress_health_check": list(SUPPRESSED_HEALTH_CHECKS),
}
#: The profile of a survey run: a failing example is reported as found, neither shrunk nor explained (over a large
#: case of a tree like CANN's, shrinking one failure took minutes; the same examples are drawn as under `ci`).
SURVEY_PROFILE = "survey"
_CI: dict[str, Any] = {"max_examples": 8, "stateful_step_count": 12, "derandomize": True, "database": None}
PROFILES: dict[str, dict[str, Any]] = {
    "ci": _CI,
    SURVEY_PROFILE: {**_CI, "phases": [phase for phase in Phase if phase not in (Phase.shrink, Phase.explain)]},
    "default": {"max_examples": 60, "stateful_step_count": 30},
    "qualification": {"max_examples": 400, "stateful_step_count": 60},
}
for _name, _values in PROFILES.items():
    settings.register_profile(_name, **_COMMON, **_values)


def choose_profile(environ: dict[str, str] | None = None) -> str:
    """Load the profile named by ACLCTS_HYPOTHESIS_PROFILE, else `ci` unless one was loaded already; its name."""
    environ = os.environ if environ is None else environ
    name = environ.get(PROFILE_ENV) or ""
    if not name:
        current = settings.get_current_profile_name()
        name = current if current in PROFILES and current != "default" else "ci"
    try:
        settings.load_profile(name)
    except InvalidArgument:
        raise ValueError(f"{PROFILE_ENV}={name!r}: unknown hypothesis profile; expected one of {', '.join(PROFILES)}") \
            from None
    return name


def _profile_at_import() -> str | None:
    """Choose the profile as the module is imported; the one-line problem with ACLCTS_HYPOTHESIS_PROFILE, if any (the
    `ci` profile is loaded then, and whoever starts the run reports the problem)."""
    try:
        choose_profile()
    except ValueError as exc:
        choose_profile({})
        return str(exc)
    return None


#: Why ACLCTS_HYPOTHESIS_PROFILE could not be used when this module was imported, or None.
PROFILE_PROBLEM = _profile_at_import()


# shapes ---------------------------------------------------------------------------------------------------
def dim_in(low: int, high: int) -> st.SearchStrategy[int]:
    """One dim inside [low, high], small first: at most DIM_CAP (UNBOUNDED_CAP for high -1, unbounded) unless low is
    above that."""
    return st.integers(low, min(_top(low, high), max(low, DIM_CAP)))


def _top(low: int, high: int) -> int:
    """The largest dim drawn inside [low, high]."""
    return max(low, UNBOUNDED_CAP) if high == -1 else high


@st.composite
def shape_in(data: st.DrawFn, ranges: Sequence[tuple[int, int]], most: int = MOST_ELEMENTS) -> tuple[int, ...]:
    """A shape with one dim inside each (min, max) range, small first: each dim is capped so the shape has at most
    `most` elements where the ranges' minimums allow it."""
    lows = [low for low, _ in ranges]
    dims: list[int] = []
    for index, (low, high) in enumerate(ranges):
        room = most // max(1, math.prod(dims) * math.prod(lows[index + 1:]))
        dims.append(data(st.integers(low, min(_top(low, high), max(low, room)))))
    return tuple(dims)


def smallest(ranges: Sequence[tuple[int, int]], nonempty: bool = False) -> tuple[int, ...]:
    """The smallest shape inside the ranges (every dim at its minimum; with nonempty, at least 1 where the range
    allows it)."""
    return tuple(max(low, 1) if nonempty and high != 0 else low for low, high in ranges)


def outside(ranges: Sequence[tuple[int, int]]) -> st.SearchStrategy[tuple[int, ...]]:
    """A shape of the same rank with one dim 1 to 4 above its bounded maximum, the other dims inside (small first;
    the dim whose smallest such shape is smallest comes first, so examples shrink to it)."""
    bounded = [i for i, (_, hi) in enumerate(ranges) if hi != -1]
    if not bounded:
        raise ValueError(f"no bounded dim in ranges {list(ranges)}")

    def pushed(index: int) -> list[tuple[int, int]]:
        high = ranges[index][1]
        return [(high + 1, high + 4) if i == index else pair for i, pair in enumerate(ranges)]

    bounded.sort(key=lambda index: math.prod(smallest(pushed(index))))
    return st.sampled_from(bounded).flatmap(lambda index: shape_in(pushed(index)))


@st.composite
def broadcastable_pair(data: st.DrawFn, ranges: Sequence[tuple[int, int]] | None = None,
                       max_rank: int = 4, max_dim: int = 6) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Two shapes that broadcast together: both inside `ranges` (same rank), or of ranks 0..max_rank if None.

    Each dim of each shape is the common dim or, where the range allows it, 1.
    """
    if ranges is None:
        rank = data(st.integers(0, max_rank))
        ranges = [(1, max_dim)] * rank
        ranks = (data(st.integers(0, rank)), data(st.integers(0, rank)))
    else:
        ranks = (len(ranges), len(ranges))
    common = data(shape_in(ranges))
    pair = []
    for rank in ranks:
        dims = []
        for position in range(len(ranges) - rank, len(ranges)):
            may_be_one = ranges[position][0] <= 1 and common[position] != 1
            dims.append(1 if may_be_one and data(st.booleans()) else common[position])
        pair.append(tuple(dims))
    return pair[0], pair[1]


@st.composite
def broadcast_pair_in(data: st.DrawFn, first: Sequence[tuple[int, int]],
                      second: Sequence[tuple[int, int]]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Two shapes that broadcast together, each inside its own dim ranges (ranks may differ: aligned from the last
    dim); at each aligned dim both take one common dim inside both ranges, or one is 1 where its range allows it.
    Dims are drawn small first (at most BROADCAST_DIM_CAP unless a range's minimum is above)."""
    rank = max(len(first), len(second))
    padded = [[None] * (rank - len(r)) + list(r) for r in (first, second)]
    pair: list[list[int]] = [[], []]
    for a, b in zip(*padded):
        options = []
        if a is None or b is None:
            options.append(("own", "own"))
        else:
            if max(a[0], b[0]) <= _bounded_high(a, b):
                options.append(("common", "common"))
            if a[0] <= 1 <= _bounded_high(a):
                options.append(("one", "own"))
            if b[0] <= 1 <= _bounded_high(b):
                options.append(("own", "one"))
        assume(options)
        kinds = data(st.sampled_from(options))
        common = data(_small_dim(max(a[0], b[0]), _bounded_high(a, b))) if kinds[0] == "common" else None
        for side, kind, bounds in zip(pair, kinds, (a, b)):
            if bounds is not None:
                side.append(common if kind == "common" else 1 if kind == "one" else data(_small_dim(*bounds)))
    return tuple(pair[0]), tuple(pair[1])


#: The largest dim broadcast_pair_in draws where the ranges allow less.
BROADCAST_DIM_CAP = 16


def _bounded_high(*ranges: tuple[int, int]) -> int:
    """The least maximum of dim ranges, an unbounded (-1) one counting as no bound."""
    highs = [high for _, high in ranges if high != -1]
    return min(highs) if highs else 1 << 62


def _small_dim(low: int, high: int) -> st.SearchStrategy[int]:
    """A dim inside [low, high] (high -1: unbounded), small first."""
    top = max(low, BROADCAST_DIM_CAP)
    return st.integers(low, top if high == -1 else min(high, top))


@st.composite
def matmul_pair(data: st.DrawFn, ranges_a: Sequence[tuple[int, int]], ranges_b: Sequence[tuple[int, int]],
                transpose_a: bool = False, transpose_b: bool = False) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(.., m, k) and (.., k, n), each with its last two dims swapped when transposed, every dim inside its input's
    range; batch dims (aligned from the right, as they broadcast) are drawn equal where both inputs have them."""
    a = _swapped(ranges_a) if transpose_a else list(ranges_a)
    b = _swapped(ranges_b) if transpose_b else list(ranges_b)
    batch_a, batch_b = a[:-2], b[:-2]
    width = max(len(batch_a), len(batch_b))
    batch = []
    for position in range(width):
        own = [r[position - width + len(r)] for r in (batch_a, batch_b) if position >= width - len(r)]
        batch.append(data(dim_in(max(lo for lo, _ in own), _min_high(*(hi for _, hi in own)))))
    m = data(dim_in(*a[-2]))
    k = data(dim_in(max(a[-1][0], b[-2][0]), _min_high(a[-1][1], b[-2][1])))
    n = data(dim_in(*b[-1]))
    shape_a = (*batch[width - len(batch_a):], m, k)
    shape_b = (*batch[width - len(batch_b):], k, n)
    return (_swapped(shape_a) if transpose_a else shape_a), (_swapped(shape_b) if transpose_b else shape_b)


def _swapped(dims: Sequence[Any]) -> Any:
    """dims with its last two entries swapped (a matrix's transpose)."""
    return (*dims[:-2], dims[-1], dims[-2])


@st.composite
def concat_shapes(data: st.DrawFn, ranges: Sequence[Sequence[tuple[int, int]]], axis: int,
                  out_ranges: Sequence[tuple[int, int]]) -> tuple[tuple[int, ...], ...]:
    """One shape per input, equal except along axis, with the concatenated dim inside out_ranges[axis]."""
    common = list(data(shape_in(ranges[0])))
    shapes = []
    budget = out_ranges[axis][1]
    for index, own in enumerate(ranges):
        left = len(ranges) - index - 1
        top = own[axis][1] if budget == -1 else min(_min_high(own[axis][1], budget - left), budget - left)
        size = data(dim_in(own[axis][0], top))
        if budget != -1:
            budget -= size
        shapes.append(tuple(size if i == axis else d for i, d in enumerate(common)))
    return tuple(shapes)


def _min_high(a: int, b: int = -1) -> int:
    if a == -1:
        return b
    if b == -1:
        return a
    return min(a, b)


# dtypes and attributes ----------------------------------------------------------------------------------
def dtypes_for(op_type: str, cases: Sequence[Any]) -> st.SearchStrategy[tuple[tuple[int, ...], tuple[int, ...]]]:
    """(input aclDataTypes, output aclDataTypes) of one of the case library's dtype combinations for op_type."""
    combos = sorted({(tuple(t.dtype for t in c.inputs), tuple(t.dtype for t in c.outputs))
                     for c in cases if c.op == op_type})
    if not combos:
        raise ValueError(f"the case library has no case for op {op_type!r}")
    return st.sampled_from(combos)


def permutation(rank: int) -> st.SearchStrategy[list[int]]:
    """A perm attribute/input value: a permutation of range(rank)."""
    return st.permutations(list(range(rank)))


def reduce_axes(rank: int) -> st.SearchStrategy[list[int]]:
    """Distinct axes in [-rank, rank), at least one (each axis written either way)."""
    return st.lists(st.integers(0, rank - 1), min_size=1, max_size=rank, unique=True).flatmap(
        lambda axes: st.tuples(*(st.sampled_from([a, a - rank]) for a in axes)).map(list))


def multiples(rank: int, most: int = 3) -> st.SearchStrategy[list[int]]:
    """A Tile multiples value: rank integers in [1, most]."""
    return st.lists(st.integers(1, most), min_size=rank, max_size=rank)


# values -------------------------------------------------------------------------------------------------
def _is_float(dtype: np.dtype) -> bool:
    return dtype.kind == "f" or dtype.name.startswith("bfloat16")


def special_floats(dtype: np.dtype, nonfinite: bool = True, excluded: Sequence[float] = ()) -> list[float]:
    """±0, the smallest and largest subnormal and (if nonfinite) ±inf and NaN of a float dtype, without the points
    `excluded` names."""
    info = ml_dtypes.finfo(dtype)
    tiny = float(info.smallest_subnormal)
    largest_subnormal = float(info.tiny) - tiny
    values = [0.0, -0.0, tiny, -tiny, largest_subnormal, -largest_subnormal]
    if nonfinite:
        values += [float("inf"), float("-inf"), float("nan")]
    left_out = {repr(float(p)) for p in excluded}
    return [v for v in values if repr(v) not in left_out]


def elements(dtype: np.dtype, kind: str = "full", excluded: Sequence[float] = ()) -> st.SearchStrategy[Any]:
    """Element values of a dtype: kind "full" (±0, subnormals, ±inf, NaN), "finite" (|x| <= 64, ±0, subnormals)
    or "pool" (a few small values with zeros and repeats); floats never take a point `excluded` names (an op's
    open points)."""
    dtype = np.dtype(dtype)
    if kind == "pool" and dtype != np.bool_:
        return st.sampled_from(pool_values(dtype))
    if dtype == np.bool_:
        return st.booleans()
    if not _is_float(dtype):
        info = np.iinfo(dtype)
        return st.integers(max(int(info.min), -(2 ** 12)), min(int(info.max), 2 ** 12))
    width = {2: 16, 4: 32}.get(dtype.itemsize, 64)
    bound = 64.0 if kind == "finite" else float(ml_dtypes.finfo(dtype).max)
    regular = st.floats(-bound, bound, width=width, allow_subnormal=True) if dtype.name != "bfloat16" else \
        st.floats(-bound, bound, width=32).map(lambda v: float(np.float32(v).astype(dtype)))
    if excluded:
        left_out = {repr(float(p)) for p in excluded}
        regular = regular.filter(lambda v: repr(float(v)) not in left_out)
    return st.one_of(st.sampled_from(special_floats(dtype, kind == "full", excluded)), regular)


def arrays(dtype: int | np.dtype, shape: tuple[int, ...], kind: str = "full", dense_limit: int = DENSE_LIMIT,
           excluded: Sequence[float] = ()) -> st.SearchStrategy[np.ndarray]:
    """An array of an aclDataType (or NumPy dtype) and shape with elements(kind, excluded), every element drawn up
    to dense_limit elements."""
    np_dtype = numpy_dtype(dtype) if isinstance(dtype, int) else np.dtype(dtype)
    if math.prod(shape) > BULK_LIMIT:
        return st.integers(0, 2**32 - 1).map(
            lambda seed: _bulk(np_dtype, shape, kind, np.random.default_rng(seed), excluded))
    storage = np.dtype(np.float64) if np_dtype.name == "bfloat16" else np_dtype
    values = elements(np_dtype, kind, excluded)
    fill = values if math.prod(shape) > dense_limit else st.nothing()
    strategy = hnp.arrays(storage, shape, elements=values, fill=fill)
    return strategy.map(lambda a: a.astype(np_dtype)) if storage != np_dtype else strategy


def _bulk(dtype: np.dtype, shape: tuple[int, ...], kind: str, rng: np.random.Generator,
          excluded: Sequence[float] = ()) -> np.ndarray:
    """A large array of elements(kind)'s value classes from a seeded generator: floats in [-64, 64] with one element
    in 64 a special value (kind "full": ±0, subnormals, ±inf, NaN; else the finite ones; never one `excluded`
    names), integers in the range elements() draws, booleans; kind "pool" picks from its small pool."""
    if kind == "pool" or dtype == np.bool_:
        pool = np.array(pool_values(dtype), dtype=np.float64)
        return rng.choice(pool, shape).astype(dtype)
    if not _is_float(dtype):
        info = np.iinfo(dtype)
        return rng.integers(max(int(info.min), -(2 ** 12)), min(int(info.max), 2 ** 12), shape, endpoint=True).astype(dtype)
    values = rng.uniform(-64.0, 64.0, shape)
    specials = np.array(special_floats(dtype, kind == "full", excluded), np.float64)
    values = np.where(rng.random(shape) < 1 / 64, rng.choice(specials, shape), values)
    with np.errstate(all="ignore"):
        return values.astype(dtype)


def pool_values(dtype: np.dtype) -> list[float]:
    """The values elements(dtype, "pool") samples from (booleans: False and True)."""
    if dtype == np.bool_:
        return [0, 1]
    pool = [0, 1, 2, 3, 7, -1, -4] if not _is_float(dtype) else [0.0, -0.0, 1.5, 2.0, -3.25, 7.0]
    return [v for v in pool if v >= 0] if dtype.kind == "u" else pool


# dynamic cases ------------------------------------------------------------------------------------------
def model_shapes(model: Any) -> st.SearchStrategy[tuple[tuple[int, ...], ...]]:
    """Shapes of a dynamic case's runtime inputs inside its ranges, related by the case's `shape_rule`; when every
    output is static, one of its runtime_shapes (only those are known to give the outputs it declares)."""
    runtime = [t for t in model.inputs if t.const is None]
    unknown = any(t.unknown_rank for t in runtime)
    if model.runtime_shapes and not any(t.dynamic for t in model.outputs):
        return st.sampled_from(model.runtime_shapes)
    return _by_rule(model, runtime, unknown)


def _by_rule(model: Any, runtime: list[Any], unknown: bool) -> st.SearchStrategy[tuple[tuple[int, ...], ...]]:
    """Shapes of the runtime inputs drawn by the case's shape rule."""
    if model.shape_rule == "given":
        if not model.runtime_shapes:
            raise ValueError(f"case {model.id}: shape_rule given needs runtime_shapes to run at")
        return st.sampled_from(model.runtime_shapes)
    if model.shape_rule == "broadcast" and len(runtime) == 2 and not (unknown and _ranked_output(model)):
        if unknown:
            return broadcastable_pair(None if runtime[0].unknown_rank else runtime[0].dim_ranges())
        return broadcast_pair_in(runtime[0].dim_ranges(), runtime[1].dim_ranges())
    if unknown:
        return _unknown_rank_shapes(model, runtime)
    if model.shape_rule == "matmul":
        attrs = model.attr_values()
        flags = (bool(attrs.get(f"transpose_x{i}", attrs.get(f"adj_x{i}", False))) for i in (1, 2))
        pair = matmul_pair(runtime[0].dim_ranges(), runtime[1].dim_ranges(), *flags)
        return st.tuples(pair, *(shape_in(t.dim_ranges()) for t in runtime[2:])).map(lambda x: (*x[0], *x[1:]))
    if model.shape_rule == "concat":
        ranges = [t.dim_ranges() for t in runtime]
        out = model.outputs[0]
        out_ranges = ((0, -1),) * len(ranges[0]) if out.unknown_rank else out.dim_ranges()
        return concat_shapes(ranges, _concat_axis(model) % len(ranges[0]), out_ranges)
    if model.shape_rule in ("each", "broadcast"):  # broadcast with other than two runtime inputs: each in its range
        if len(runtime) == 1:
            return st.tuples(shape_in(output_fitting_ranges(model, runtime[0])))
        return st.tuples(*(shape_in(t.dim_ranges()) for t in runtime))
    if model.shape_rule == "same":
        return shape_in(runtime[0].dim_ranges()).map(lambda shape: (shape,) * len(runtime))
    if model.shape_rule == "square":
        return _square_shapes(runtime[0].dim_ranges()).map(lambda shape: (shape,))
    raise ValueError(f"case {model.id}: unknown shape_rule {model.shape_rule!r}")


def _square_shapes(ranges: Sequence[tuple[int, int]]) -> st.SearchStrategy[tuple[int, ...]]:
    """Shapes [D1..Dk, D1..Dk] inside the ranges (DiagPart's x): each Di inside both of its dims' ranges."""
    half = len(ranges) // 2
    if len(ranges) % 2:
        raise ValueError(f"shape rule square needs an even rank, got ranges {list(ranges)}")
    merged = [(max(a[0], b[0]), max(a[1], b[1]) if min(a[1], b[1]) < 0 else min(a[1], b[1]))
              for a, b in zip(ranges[:half], ranges[half:])]
    return shape_in(merged).map(lambda shape: shape + shape)


def output_fitting_ranges(model: Any, tensor: Any) -> list[tuple[int, int]]:
    """The dim ranges of a case's one runtime input, each -1 dim's range narrowed to the dims (probed from its
    minimum, the other dims at theirs) at which the op's built-in reference gives an output dim, at the same position,
    inside the declared output's: a pooling window larger than the smallest dim the case allows, an output range
    that starts above what the smallest input gives. A range no probed dim fits, or a case whose first output has
    another rank or whose op has no built-in reference, is kept as declared."""
    key = (model.id, tensor.name)
    if key not in _FITTING:
        _FITTING[key] = _narrowed(model, tensor)
    return list(_FITTING[key])


def _narrowed(model: Any, tensor: Any) -> list[tuple[int, int]]:
    """output_fitting_ranges, computed."""
    ranges = list(tensor.dim_ranges())
    out = model.outputs[0] if model.outputs else None
    if out is None or out.unknown_rank or len(out.shape) != len(ranges) or model.op not in _OP_REFERENCES:
        return ranges
    out_ranges = out.dim_ranges()
    for _ in range(2):  # again once the other dims have their narrowed minimums
        for index, (low, high) in enumerate(ranges):
            if low == high:
                continue
            top = min(_top(low, high), low + DIM_CAP)
            fits = [d for d in range(low, top + 1) if _output_dim_fits(model, tensor, ranges, index, d, out_ranges)]
            if fits:
                ranges[index] = (fits[0], fits[-1] if fits[-1] < top else high)
    return ranges


def _output_dim_fits(model: Any, tensor: Any, ranges: list[tuple[int, int]], index: int, dim: int,
                     out_ranges: Sequence[tuple[int, int]]) -> bool:
    """Whether the op's built-in reference, at the input's minimum shape with dim `dim` at `index`, gives an output
    dim at `index` inside the declared output's range there."""
    shape = [low for low, _ in ranges]
    shape[index] = dim
    inputs = [t.const_array() if t.const is not None else np.zeros(shape, t.np_dtype) for t in model.inputs]
    try:
        produced = reference(model.op).shape([a.shape for a in inputs], inputs, model.reference_attr_values())
    except (ValueError, KeyError, IndexError, TypeError, ZeroDivisionError):
        return False
    low, high = out_ranges[index]
    return len(produced[0]) == len(out_ranges) and low <= produced[0][index] and (high == -1 or produced[0][index] <= high)


def _unknown_rank_shapes(model: Any, runtime: list[Any]) -> st.SearchStrategy[tuple[tuple[int, ...], ...]]:
    """Shapes of a case with [-2] runtime inputs: one of its runtime_shapes or, when its one data input is [-2] (a
    reduction's axes input besides it counts as data it is drawn for), that input at a drawn rank from the least its
    attributes allow (rank 0 included) with small dims, and the axes input one entry per reduced axis (none at all,
    for rank 0). Ranks are drawn only when every output is [-2] too: an output of known rank ties the input's rank
    in a way only the case's own shapes are known to meet."""
    data_inputs = [t for t in runtime if not _is_axes_input(model, t)]
    drawn = None
    if len(data_inputs) == 1 and data_inputs[0].unknown_rank and not _ranked_output(model):
        least = _least_rank(model, data_inputs[0].name)
        ranks = st.integers(least, max(least, UNKNOWN_RANK_MAX))
        drawn = ranks.flatmap(lambda rank: st.tuples(*(_shape_at_rank(model, t, rank) for t in runtime)))
    given = st.sampled_from(model.runtime_shapes) if model.runtime_shapes else None
    if drawn is None and given is None:
        names = ", ".join(t.name for t in runtime if t.unknown_rank)
        raise ValueError(f"case {model.id}: unknown-rank input(s) {names} relate to others and the case gives no "
                         "runtime shapes to run them at")
    return st.one_of(*(s for s in (given, drawn) if s is not None))


def _ranked_output(model: Any) -> bool:
    """Whether some output of the case has a known rank."""
    return not all(t.unknown_rank for t in model.outputs)


def _shape_at_rank(model: Any, tensor: Any, rank: int) -> st.SearchStrategy[tuple[int, ...]]:
    """A runtime input's shape when the data input has this rank: the data input's dims small, an axes input's
    length at most rank (inside its own range when it has one)."""
    if not _is_axes_input(model, tensor):
        return st.tuples(*(st.integers(1, UNKNOWN_RANK_DIM) for _ in range(rank)))
    low, high = (0, rank) if tensor.unknown_rank else tensor.dim_ranges()[0]
    top = rank if high == -1 else min(high, rank)
    return st.integers(low, top).map(lambda length: (length,)) if low <= top else st.nothing()


def _is_axes_input(model: Any, tensor: Any) -> bool:
    """Whether the tensor is a runtime axes input whose values index the dims of the data input: a reduction's
    `axes`, an index op's `dimension` (ArgMaxV2, ArgMin), by its position in the op's record (a case may name it)."""
    wanted = AXES_INPUTS.get(model.family)
    record = prototype(model.op)
    if wanted is None or record is None or tensor.const is not None:
        return False
    position = next(i for i, t in enumerate(model.inputs) if t is tensor)
    return position < len(record.inputs) and record.inputs[position].name == wanted


def _least_rank(model: Any, name: str) -> int:
    """The least rank input `name` may have: one above the highest axis an axis-like attribute of the case names."""
    record = prototype(model.op)
    attrs = model.attr_values()
    least = 0
    for attr in record.attrs if record is not None else ():
        if isinstance(attr.domain, Axes) and attr.domain.of == name and attr.name in attrs:
            value = attrs[attr.name]
            for axis in value if isinstance(value, list) else [value]:
                least = max(least, (int(axis) + 1 if int(axis) >= 0 else -int(axis)) - attr.domain.extra)
    return least


def axes_of(rank: int, count: int) -> st.SearchStrategy[list[int]]:
    """`count` distinct axes of a rank-`rank` tensor, each written either way (count 0: none)."""
    if count == 0:
        return st.just([])
    return st.lists(st.integers(0, rank - 1), min_size=count, max_size=count, unique=True).flatmap(
        lambda axes: st.tuples(*(st.sampled_from([a, a - rank]) for a in axes)).map(list))


def _concat_axis(model: Any) -> int:
    """The concat dim of a concat case: its concat_dim attribute (ConcatD), else its last constant input (ConcatV2)."""
    attrs = model.attr_values()
    if "concat_dim" in attrs:
        return int(attrs["concat_dim"])
    constants = [t for t in model.inputs if t.const is not None]
    if not constants:
        raise ValueError(f"case {model.id}: shape_rule concat needs a concat_dim attribute or constant input")
    return int(constants[-1].const[0])


@st.composite
def model_arrays(data: st.DrawFn, model: Any, shapes: tuple[tuple[int, ...], ...] | None = None) -> list[np.ndarray]:
    """Runtime input arrays of a dynamic case: at `shapes` (else shapes by model_shapes), elements by the case's
    `elements` kind, never at an open point of the op's record, where its documentation leaves the result open (as
    the generated special-point cases leave them out; a `values` draw that lands on one is moved off it); the inputs
    share DENSE_LIMIT, each having every element drawn up to its share.

    Under shape_rule `given` (inputs whose values index one another), every input is drawn from the case's own
    distributions, with a drawn seed; so is every input the rules below do not draw of a case whose elements kind is
    `values` (every msopst case: the data msopst makes for it). An input whose values the case fixes (an msopst
    `value`) holds them wherever the drawn shape has as many elements (a BroadcastTo shape, a Transpose perm given at
    run time). A scalar int32 input of a value-dependent op (TopK's k) is drawn inside [1, size of the first input]; a
    reduction's axes input holds distinct axes of its data input (an example with more entries than that input has
    dims is rejected); an integer input whose op record gives it a sample range (OneHot's depth, a size) is drawn
    inside it, where the whole type would give values the op refuses. With an unknown-rank input, drawn shapes the
    op's reference refuses or gives outputs the case does not declare are rejected (the case's own runtime_shapes are
    among the choices and never rejected).
    """
    shapes = data(model_shapes(model)) if shapes is None else shapes
    if model.shape_rule == "given":
        return draw_runtime(model, shapes, data(st.integers(0, 2 ** 32 - 1)))
    runtime = [t for t in model.inputs if t.const is None]
    dense_limit = DENSE_LIMIT // max(1, len(runtime))
    record = prototype(model.op)
    open_points = record.open_points if record is not None else ()
    result = []
    for tensor, shape in zip(runtime, shapes):
        if shape == () and model.family == "index":
            top = int(np.prod(result[0].shape[-1:], dtype=np.int64))
            result.append(np.array(data(st.integers(1, top)), dtype=numpy_dtype(tensor.dtype)))
        elif _fixed_fits(model, tensor, shape):
            fixed = model.values[tensor.name][FIXED]
            result.append(np.asarray(fixed, np.float64).astype(numpy_dtype(tensor.dtype)).reshape(shape))
        elif _is_axes_input(model, tensor) and result:
            rank, count = result[0].ndim, math.prod(shape)
            assume(count <= rank)
            result.append(np.array(data(axes_of(rank, count)), dtype=numpy_dtype(tensor.dtype)).reshape(shape))
        elif model.elements == "values":
            seed = data(st.integers(0, 2 ** 32 - 1))
            spec = model.values.get(tensor.name, model.values.get("default"))
            drawn = draw(replace(tensor, shape=tuple(shape), shape_range=()), spec, np.random.default_rng(seed))
            result.append(off_open_points(drawn, open_points))
        elif (bounds := _integer_sample(model, tensor)) is not None:
            result.append(data(hnp.arrays(numpy_dtype(tensor.dtype), shape, elements=st.integers(*bounds))))
        else:
            result.append(data(arrays(tensor.dtype, shape, model.elements, dense_limit, open_points)))
    if any(t.unknown_rank for t in runtime) and tuple(map(tuple, shapes)) not in model.runtime_shapes:
        assume(_reference_accepts(model, result))
    return result


def off_open_points(array: np.ndarray, open_points: Sequence[float]) -> np.ndarray:
    """A float array with every element at one of open_points moved one step of its dtype toward the median of the
    array (Ndtri's 1, which msopst's uniform [0.1, 1.0] reaches in float16, becomes the float16 below 1)."""
    if not open_points or not _is_float(array.dtype) or not array.size:
        return array
    at = np.isin(array.astype(np.float64), np.array(open_points, np.float64))
    if not at.any():
        return array
    median = np.median(array[~at].astype(np.float64)) if (~at).any() else 0.0
    stepped = np.nextafter(array, np.asarray(median, np.float64).astype(array.dtype))
    return np.where(at, stepped, array)


def _fixed_fits(model: Any, tensor: Any, shape: tuple[int, ...]) -> bool:
    """Whether the case fixes the input's values and they fill this shape."""
    spec = model.values.get(tensor.name) or {}
    return FIXED in spec and len(spec[FIXED]) == math.prod(shape)


def _integer_sample(model: Any, tensor: Any) -> tuple[int, int] | None:
    """The [low, high] the op's record gives an integer input's values (OneHot's depth, a size), else None."""
    record = prototype(model.op)
    sample = record.samples.get(tensor.name) if record is not None else None
    if sample is None or numpy_dtype(tensor.dtype).kind not in "iu":
        return None
    return math.ceil(sample.low), math.floor(sample.high)


def _reference_accepts(model: Any, runtime: list[np.ndarray]) -> bool:
    """Whether the case's reference gives output shapes for these runtime inputs (with its constants) that its
    declared outputs accept; True when the case has no reference to ask."""
    values = iter(runtime)
    inputs = [t.const_array() if t.const is not None else next(values) for t in model.inputs]
    try:
        ref = reference(model.reference)
    except (KeyError, ValueError):
        return True
    try:
        shapes = ref.shape([a.shape for a in inputs], inputs, model.reference_attr_values())
    except ValueError:
        return False
    return all(shape_fits(shape, t.shape, t.shape_range) for shape, t in zip(shapes, model.outputs))
