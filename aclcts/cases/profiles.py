"""Value profiles: named magnitude classes of input values per dtype and op family, and the cases that run them.

`unit` is a case's own `values:` distributions, which every shape runs. The other classes run on one representative
shape per dtype combination and attribute set, as extra cases whose id ends in `-<profile>` (in execute_v2 mode
only, when the case has it):

- `subnormal` (floats): mostly subnormals of the input dtype, some smallest normals and unit values;
- `tiny` (floats): normal values within 2^12 of the smallest normal;
- `large` (floats): magnitudes in [M/2, M], M just inside the op's overflow boundary: the largest magnitude at which
  the reference, given every input filled with +-M, still has no infinite output (found by bisection), less 2 bits
  when that boundary is the dtype's own maximum (room for an intermediate step in a compute type no wider);
- `int_extremes` (integers): the type's min, min + 1, -1, 0, 1, max - 1, max and values over its whole range;
- `wide_sums` (matmul, reduction): values whose exact sums need the accumulator's full width: integer products or
  terms whose sums exceed 2^24 (int32) or the input float's precision while every partial sum stays exact in float32
  (so any summation order gives the reference's answer).

An input the case file gives a `choice` distribution (a fixed scalar such as GEMM's alpha) keeps it in every profile.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import ml_dtypes
import numpy as np

from aclcts.cases.case import Case, TensorCase
from aclcts.cases.schema import REFUSALS, refusal
from aclcts.core.yamlschema import SchemaChecker

UNIT = "unit"
PROFILES = (UNIT, "subnormal", "tiny", "large", "int_extremes", "wide_sums")
#: Families whose ops sum products or terms: the ones `wide_sums` exists for.
SUMMING_FAMILIES = ("matmul", "reduction", "conv")
#: The extra profiles each family runs when its case file names none: (for float inputs, for integer inputs).
DEFAULTS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "elementwise": (("subnormal", "tiny", "large"), ("int_extremes",)),
    "nn": (("subnormal", "large"), ("int_extremes",)),
    "compare": (("subnormal", "large"), ("int_extremes",)),
    "reduction": (("wide_sums", "large"), ("wide_sums",)),
    "matmul": (("wide_sums", "large"), ("wide_sums",)),
}
#: The execution mode profile cases run in when their case lists it (the values reach the same kernel in every mode).
PROFILE_MODE = "execute_v2"
#: Relative margin kept below the overflow boundary found by bisection, and the bisection's steps.
LARGE_MARGIN = 2.0 ** -10
LARGE_STEPS = 24
#: A boundary within this factor of the dtype's maximum is divided by it: there, an intermediate step of a compute type
#: no wider than the dtype (Log's scale * x) may overflow where the float64 reference does not.
HEADROOM = 4.0
#: Integers up to this magnitude are exact in each float type.
EXACT_INTEGERS = {"float16": 2 ** 11, "bfloat16": 2 ** 8, "float32": 2 ** 24, "float64": 2 ** 53}
FLOAT32_EXACT = 2 ** 24
INT64_WIDE = 2 ** 40


def is_float(dtype: np.dtype) -> bool:
    """Whether dtype is a floating type (NumPy's or ml_dtypes')."""
    return dtype.kind == "f" or dtype.name.startswith(("bfloat16", "float8"))


def available(dtype: np.dtype, family: str) -> tuple[str, ...]:
    """The profiles that exist for an input dtype in an op family."""
    wide = ("wide_sums",) if family in SUMMING_FAMILIES else ()
    if dtype == np.bool_ or dtype.kind == "c":  # no magnitude class of bool or complex is drawn
        return (UNIT,)
    if is_float(dtype):
        return (UNIT, "subnormal", "tiny", "large") + wide
    return (UNIT, "int_extremes") + wide


def profiled(case: Case) -> TensorCase | None:
    """The input whose dtype decides a case's profiles: its first non-constant one."""
    return next((t for t in case.inputs if t.const is None), None)


def _defaults(dtype: np.dtype, family: str) -> tuple[str, ...]:
    floats, ints = DEFAULTS.get(family, ((), ()))
    chosen = floats if is_float(dtype) else () if dtype == np.bool_ else ints
    return tuple(p for p in chosen if p in available(dtype, family))


def _requested(data: dict, cases: list[Case], c: SchemaChecker) -> dict[str, tuple[str, ...]] | None:
    """The profiles the file names per input dtype name (None: the family's defaults), checked against its dtypes."""
    given = data.get("profiles")
    if given is None:
        return None
    family = data["policy"]
    dtypes = {t.dtype_name: t.np_dtype for t in (profiled(case) for case in cases) if t is not None}

    def names(value: Any, path: tuple, only: str | None) -> tuple[str, ...]:
        c.kind(value, list, path, "a list of profile names (" + ", ".join(PROFILES) + ")")
        for index, name in enumerate(value):
            c.one_of(name, PROFILES, path + (index,))
            for dtype_name in [only] if only else sorted(dtypes):
                if name not in available(dtypes[dtype_name], family):
                    c.fail(path + (index,), f"a profile that exists for {dtype_name} inputs of a {family} op ("
                                            + ", ".join(available(dtypes[dtype_name], family)) + ")", name)
        return tuple(dict.fromkeys(n for n in value if n != UNIT))

    if isinstance(given, list):
        chosen = names(given, ("profiles",), None)
        return {name: chosen for name in dtypes}
    result = {}
    for dtype_name, value in given.items():
        if dtype_name not in dtypes:
            c.fail(("profiles", dtype_name), "the data type of a first non-constant input of the file (" +
                   ", ".join(sorted(dtypes)) + ")", dtype_name)
        result[dtype_name] = names(value, ("profiles", dtype_name), dtype_name)
    return result


def _representative(case: Case) -> bool:
    return all(0 not in t.shape for t in case.inputs if t.const is None)


def with_profiles(cases: list[Case], data: dict, c: SchemaChecker) -> list[Case]:
    """The cases of one file plus one case per extra profile on the first shape of each dtype combination and attr set
    whose inputs are not empty; a profile the file names that does not exist for its dtype is a schema error."""
    requested = _requested(data, cases, c)
    extra: list[Case] = []
    seen: set[tuple] = set()
    for case in cases:
        tensor = profiled(case)
        key = (tuple(t.dtype for t in case.inputs + case.outputs), case.attrs)
        if case.dynamic or tensor is None or key in seen or not _representative(case):
            continue
        seen.add(key)
        chosen = _defaults(tensor.np_dtype, case.family) if requested is None else \
            requested.get(tensor.dtype_name, _defaults(tensor.np_dtype, case.family))
        modes = tuple(m for m in case.modes if m == PROFILE_MODE) or case.modes
        extra += [replace(case, id=f"{case.id}-{name}", profile=name, modes=modes) for name in chosen]
    return cases + extra


# drawing --------------------------------------------------------------------------------------------------------
def keeps_own(case: Case, tensor: TensorCase) -> bool:
    """Whether an input keeps the case file's own distribution under a profile: a `choice` of fixed values, or an input
    whose dtype has no such class (the bool mask of an op whose profile follows its float input)."""
    spec = case.values.get(tensor.name, case.values.get("default"))
    return bool(spec) and "choice" in spec or case.profile not in available(tensor.np_dtype, case.family)


def draw(case: Case, tensor: TensorCase, rng: np.random.Generator) -> np.ndarray:
    """One input array of a profile case, drawn from its profile's class for the tensor's dtype."""
    dtype, shape = tensor.np_dtype, tensor.shape
    raw = _DRAWERS[case.profile](case, tensor, rng)
    with np.errstate(all="ignore"):
        return np.asarray(raw).astype(dtype).reshape(shape)


def _signs(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    return np.where(rng.random(shape) < 0.5, -1.0, 1.0)


def _subnormal(case: Case, tensor: TensorCase, rng: np.random.Generator) -> np.ndarray:
    info = ml_dtypes.finfo(tensor.np_dtype)
    smallest, normal = float(info.smallest_subnormal), float(info.smallest_normal)
    shape = tensor.shape
    subnormals = rng.integers(1, 2 ** int(info.nmant), shape, endpoint=False) * smallest
    near_normal = normal * (1.0 + rng.integers(0, 4, shape))
    pick = rng.random(shape)
    magnitude = np.where(pick < 0.6, subnormals, np.where(pick < 0.8, near_normal, rng.uniform(0.0, 10.0, shape)))
    return _signs(rng, shape) * magnitude


def _tiny(case: Case, tensor: TensorCase, rng: np.random.Generator) -> np.ndarray:
    normal = float(ml_dtypes.finfo(tensor.np_dtype).smallest_normal)
    return _signs(rng, tensor.shape) * normal * np.exp2(rng.uniform(0.0, 12.0, tensor.shape))


def _large(case: Case, tensor: TensorCase, rng: np.random.Generator) -> np.ndarray:
    bound = large_bound(case)
    return _signs(rng, tensor.shape) * rng.uniform(bound / 2, bound, tensor.shape)


def _int_extremes(case: Case, tensor: TensorCase, rng: np.random.Generator) -> np.ndarray:
    dtype = tensor.np_dtype
    info = np.iinfo(dtype)
    low, high = int(info.min), int(info.max)
    corners = np.array(sorted({low, low + 1, max(low, -1), 0, 1, high - 1, high}), dtype=dtype)
    spread = rng.integers(low, high, tensor.shape, endpoint=True, dtype=dtype)
    return np.where(rng.random(tensor.shape) < 0.5, rng.choice(corners, tensor.shape), spread)


def _wide_sums(case: Case, tensor: TensorCase, rng: np.random.Generator) -> np.ndarray:
    bound = wide_bound(case, tensor)
    low = 0 if tensor.np_dtype.kind == "u" else -bound
    return rng.integers(low, bound, tensor.shape, endpoint=True, dtype=np.int64)


_DRAWERS = {"subnormal": _subnormal, "tiny": _tiny, "large": _large, "int_extremes": _int_extremes,
            "wide_sums": _wide_sums}


def _terms(case: Case) -> int:
    """How many products or terms at most one output element of a summing op adds."""
    first = profiled(case)
    if case.family == "matmul" and first is not None and len(first.shape) >= 2:
        return max(first.shape[-2:])
    return max(1, max(int(np.prod(t.shape, dtype=np.int64)) for t in case.inputs if t.const is None))


def wide_bound(case: Case, tensor: TensorCase) -> int:
    """The largest magnitude of the `wide_sums` values of an input: exact sums of `_terms` products (matmul) or terms
    that fit the accumulator (int32 without wrap, float32 exactly) and the output type, in integers exact in the
    input type."""
    terms = _terms(case)
    dtype = tensor.np_dtype
    products = case.family == "matmul"
    if not is_float(dtype):
        info = np.iinfo(dtype)
        if dtype.itemsize < 4:
            return int(info.max)
        room = (2 ** 31 - 1) // terms if dtype.itemsize == 4 else INT64_WIDE
        return max(1, math.isqrt(room) if products else room)
    out_max = min(float(ml_dtypes.finfo(t.np_dtype).max) for t in case.outputs if is_float(t.np_dtype)) \
        if any(is_float(t.np_dtype) for t in case.outputs) else math.inf
    room = min(FLOAT32_EXACT, out_max) / terms
    bound = math.isqrt(int(room)) if products else int(room)
    return max(1, min(bound, EXACT_INTEGERS.get(dtype.name, FLOAT32_EXACT)))


_LARGE: dict[str, float] = {}


def large_bound(case: Case) -> float:
    """M of the `large` profile: the largest magnitude (less a margin of LARGE_MARGIN) at which the reference, given
    every profiled input filled with +M or -M in every sign pattern, has no infinite output. Found once per case."""
    if case.id in _LARGE:
        return _LARGE[case.id]
    from aclcts.reference import reference

    ref = reference(case.reference)
    tensor = profiled(case)
    top = float(ml_dtypes.finfo(tensor.np_dtype).max)
    free = [t for t in case.inputs if t.const is None and not keeps_own(case, t)]
    patterns = list(itertools.product((1.0, -1.0), repeat=len(free))) if len(free) <= 4 else \
        [(1.0,) * len(free), (-1.0,) * len(free), tuple((-1.0) ** i for i in range(len(free)))]
    ceiling = top / _terms(case) if case.family == "reduction" else top

    def finite(magnitude: float) -> bool:
        for signs in patterns:
            by_name = dict(zip((t.name for t in free), signs))
            inputs = [t.const_array() if t.const is not None else
                      _filled(case, t, by_name[t.name] * magnitude) if t.name in by_name else _filled(case, t, None)
                      for t in case.inputs]
            with np.errstate(all="ignore"):
                outputs = ref.compute(inputs, case.reference_attr_values(), [t.np_dtype for t in case.outputs])
            if any(_has_inf(o) for o in outputs):
                return False
        return True

    low, high = float(ml_dtypes.finfo(tensor.np_dtype).smallest_normal), ceiling
    if finite(high):
        low = high
    else:
        for _ in range(LARGE_STEPS):
            middle = math.sqrt(low) * math.sqrt(high) if high / low > 4 else low + (high - low) / 2  # no overflow
            low, high = (middle, high) if finite(middle) else (low, middle)
    _LARGE[case.id] = low / HEADROOM if low > top / HEADROOM else low * (1 - LARGE_MARGIN)
    return _LARGE[case.id]


def _filled(case: Case, tensor: TensorCase, value: float | None) -> np.ndarray:
    """An input filled with value, or (value None: an input keeping its own distribution) with its largest choice or
    its range's larger end (a mask of a dtype the profile has no class for)."""
    if value is None:
        spec = case.values.get(tensor.name, case.values.get("default")) or {}
        value = max(spec.get("choice") or spec.get("uniform") or [1.0], key=abs)
    with np.errstate(all="ignore"):
        return np.full(tensor.shape, value, dtype=np.float64).astype(tensor.np_dtype)


# checking the file's own ranges ------------------------------------------------------------------------------------
#: Families whose outputs are computed (not moved or converted): a `values` range that makes their reference infinite
#: is an error. Cast is left out: its overflow to inf is the behaviour its ranges test.
COMPUTE_FAMILIES = ("elementwise", "reduction", "matmul", "conv", "nn")
RANGE_KINDS = ("uniform", "positive", "integers")


def _has_inf(values: Any) -> bool:
    """Whether an output holds an infinity (in either part of a complex value)."""
    array = np.asarray(values)
    return bool(np.isinf(array if array.dtype.kind == "c" else array.astype(np.float64)).any())


def check_ranges(cases: Sequence[Case], c: SchemaChecker) -> None:
    """Fail at the first `values` range (uniform, positive, integers) of a compute op whose ends, filled into the
    case's inputs in every combination, give an infinite reference output or inputs the reference refuses (a case
    that must fail, `expect: failed`, need not have a computable reference)."""
    from aclcts.reference import reference

    checked: set[tuple] = set()
    for case in cases:
        if case.family not in COMPUTE_FAMILIES or case.dynamic or not case.values or case.expect == "failed":
            continue
        ranged = {t.name: case.values.get(t.name, case.values.get("default")) for t in case.inputs if t.const is None}
        ranged = {n: s for n, s in ranged.items() if s and next(iter(s)) in RANGE_KINDS}
        key = (tuple(t.dtype for t in case.inputs + case.outputs), case.attrs)
        if not ranged or key in checked or not _representative(case):
            continue
        checked.add(key)
        ref = reference(case.reference)
        names = sorted(ranged)
        for ends in itertools.product(*(next(iter(ranged[n].values())) for n in names)):
            fill = dict(zip(names, ends))
            inputs = [t.const_array() if t.const is not None else
                      np.full(t.shape, fill.get(t.name, 1.0), dtype=np.float64).astype(t.np_dtype) for t in case.inputs]
            try:
                with np.errstate(all="ignore"):
                    outputs = ref.compute(inputs, case.reference_attr_values(), [t.np_dtype for t in case.outputs])
            except REFUSALS as exc:
                c.fail(("shapes",), f"shapes and attrs the reference accepts; {case.id}: {refusal(case.op, exc)}")
            if any(_has_inf(o) for o in outputs):
                at = ", ".join(f"{n}={v}" for n, v in fill.items())
                name = names[0] if names[0] in case.values else "default"
                c.fail(("values", name), f"a range whose reference outputs stay finite; {case.op} "
                                         f"{profiled(case).dtype_name} gives inf at {at}", ranged[names[0]])

