"""msopst fuzz cases: the concrete cases a case with "fuzz" fields gives, drawn by its fuzz_impl or by hypothesis."""

from __future__ import annotations

import json
import zlib
from collections.abc import Callable
from typing import Any

import numpy as np

from aclcts.cases.case import FORMAT_BY_NAME
from aclcts.cases.msopst.golden import user_function
from aclcts.cases.msopst.read import DISTRIBUTIONS, FUZZ, TYPES, Where, check_frame, is_pair_list, is_shape
from aclcts.core.usercode import UserCodeError, guarded

#: msopst's limit (const_manager.py) on the fuzz cases of one case.
MAX_FUZZ_CASES = 2000
#: Tensor fields hypothesis draws when written "fuzz" in a case without fuzz_impl.
DRAWN_FIELDS = ("format", "ori_format", "type", "shape", "ori_shape", "typical_shape", "data_distribute",
                "value_range")
#: Shapes hypothesis draws without a shape_range: ranks and dims (the upper bound of an unbounded range too).
SMALL_RANKS, SMALL_DIMS = (1, 4), (1, 8)
#: The value_range bounds hypothesis draws in.
FUZZ_RANGE = (-10.0, 10.0)

#: Where a "fuzz" placeholder sits: ("input_desc" | "output_desc", position, field) or ("attr", position, "value").
Slot = tuple[str, int, str]


def is_fuzz_case(case: dict) -> bool:
    """Whether a case is a fuzz case: it has fuzz_impl or fuzz_case_num, or a field written "fuzz"."""
    return "fuzz_impl" in case or "fuzz_case_num" in case or bool(_fuzz_slots(case))


def _fuzz_slots(case: dict) -> list[Slot]:
    """Every "fuzz" placeholder of a case, tensors in order, then attrs."""
    slots = [(side, i, key) for side in ("input_desc", "output_desc") if isinstance(case.get(side), list)
             for i, t in enumerate(case[side]) if isinstance(t, dict) for key, v in t.items() if v == FUZZ]
    attrs = case.get("attr") if isinstance(case.get("attr"), list) else []
    return slots + [("attr", i, "value") for i, a in enumerate(attrs) if isinstance(a, dict) and a.get("value") == FUZZ]


def check_fuzz(where: Where, case: dict) -> None:
    """msopst's fuzz checks (fuzz_case_num 1..2000, fuzz_impl "file.py:func", named fuzz tensors), and without
    fuzz_impl only the fields aclcts draws itself."""
    check_frame(where, case)
    number = case.get("fuzz_case_num")
    if not (isinstance(number, int) and not isinstance(number, bool) and 1 <= number <= MAX_FUZZ_CASES):
        raise where.error("fuzz_case_num", f"an int in 1..{MAX_FUZZ_CASES} (a fuzz case's count)", number,
                          show="fuzz_case_num" in case)
    slots = _fuzz_slots(case)
    if not slots:
        raise where.error("fuzz_case_num", "a field written \"fuzz\" to draw (none in the case)", show=False)
    for side, i, key in slots:
        field = f"{side}[{i}].{key}" if side != "attr" else f"attr[{i}].value"
        if "fuzz_impl" in case and "name" not in case[side][i]:
            raise where.error(f"{side}[{i}].name", "a name (fuzz_impl's values are found by it)", show=False)
        if "fuzz_impl" not in case and (side == "attr" or key not in DRAWN_FIELDS):
            raise where.error(field, "a value (aclcts draws only " + ", ".join(DRAWN_FIELDS) +
                              " without fuzz_impl)", FUZZ)
        if "fuzz_impl" not in case and key == "type" and prototype_of(case["op"]) is None:
            raise where.error(field, f"a type (no prototype of op {case['op']} to draw one from; give fuzz_impl)",
                              FUZZ)


def prototype_of(op: Any) -> Any:
    from aclcts.core.prototypes import prototype

    return prototype(op) if isinstance(op, str) else None


def fuzz_cases(where: Where, case: dict, source: str) -> list[tuple[str, dict]]:
    """The concrete cases of a checked fuzz case: (sub-case name, case with every "fuzz" replaced), named
    `<case_name>_fuzz_case_<NNN>_<format>_<type>` as msopst names them."""
    seed = zlib.crc32(f"{case['case_name']}/fuzz".encode())
    if "fuzz_impl" in case:
        draws = _fuzz_impl_draws(where, case, source, seed)
    else:
        draws = _hypothesis_draws(where, case, seed)
    base = case["case_name"].replace("/", "_")
    result = []
    for number, values in enumerate(draws, 1):
        concrete = _replaced(case, values)
        out = concrete["output_desc"][0] if concrete["output_desc"] else {}
        suffix = f"{_first(out.get('format'))}_{_first(out.get('type'))}"
        result.append((f"{base}_fuzz_case_{number:03d}_{suffix}", concrete))
    return result


def _first(value: Any) -> Any:
    return value[0] if isinstance(value, list) and value else value


def _replaced(case: dict, values: dict[Slot, Any]) -> dict:
    """A copy of the case with each placeholder replaced by its value, without the fuzz fields."""
    concrete = json.loads(json.dumps({k: v for k, v in case.items() if k not in ("fuzz_impl", "fuzz_case_num")}))
    for (side, i, key), value in values.items():
        concrete[side][i][key] = value
    return concrete


def _fuzz_impl_draws(where: Where, case: dict, source: str, seed: int) -> list[dict[Slot, Any]]:
    """fuzz_case_num calls of the fuzz_impl function (random and numpy.random seeded from the case each time), each
    giving a dict, or a list of them, {"input_desc"|"output_desc"|"attr": {name: {field: value}}}."""
    spec = case["fuzz_impl"]
    func = user_function(where, "fuzz_impl", spec, source)[2]
    slots = _fuzz_slots(case)
    draws = []
    for call in range(case["fuzz_case_num"]):
        returned = _seeded_call(where, spec, func, seed + call)
        for one in returned if isinstance(returned, list) else [returned]:
            draws.append({slot: _fuzz_value(where, spec, case, slot, one) for slot in slots})
    return draws


def _seeded_call(where: Where, spec: str, func: Callable[[], Any], seed: int) -> Any:
    """func() with Python's and NumPy's global generators seeded (and restored after): one line if it raises."""
    import random

    saved = random.getstate(), np.random.get_state()
    random.seed(seed)
    np.random.seed(seed & 0xFFFFFFFF)
    try:
        with guarded(spec):
            returned = func()
    except UserCodeError as exc:  # the user's fuzz function: raising, exiting or hanging is the case file's error
        raise where.error("fuzz_impl", f"a function that returns field values ({exc})", show=False) from None
    finally:
        random.setstate(saved[0])
        np.random.set_state(saved[1])
    if not isinstance(returned, (dict, list)) or isinstance(returned, list) and not all(
            isinstance(r, dict) for r in returned):
        raise where.error("fuzz_impl", f"a dict of field values, or a list of them, from {spec}",
                          type(returned).__name__)
    return returned


def _fuzz_value(where: Where, spec: str, case: dict, slot: Slot, returned: dict) -> Any:
    """The value fuzz_impl returned for one placeholder: returned[side][tensor or attr name][field]."""
    side, i, key = slot
    name = case[side][i]["name"]
    if not isinstance(name, str):
        raise where.error(f"{side}[{i}].name", "a name (fuzz_impl's values are found by it)", name)
    value = returned.get(side, {}).get(name, {}) if isinstance(returned.get(side), dict) else {}
    if not isinstance(value, dict) or key not in value:
        raise where.error(f"{side}[{i}].{key}", f"a value from fuzz_impl {spec} at [{side!r}][{name!r}][{key!r}]",
                          show=False)
    return value[key]


def _hypothesis_draws(where: Where, case: dict, seed: int) -> list[dict[Slot, Any]]:
    """fuzz_case_num value sets drawn by hypothesis from the case's strategy, seeded by the case (repeatable); when
    hypothesis runs out of distinct values first, they repeat in order."""
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as with_seed

    number = case["fuzz_case_num"]
    found: list[dict[Slot, Any]] = []

    @settings(max_examples=number, database=None, phases=[Phase.generate], derandomize=False, deadline=None,
              suppress_health_check=list(HealthCheck))
    @with_seed(seed)
    @given(_fuzz_strategy(case))
    def collect(values: dict[Slot, Any]) -> None:
        if len(found) < number:
            found.append(values)

    collect()
    return [found[i % len(found)] for i in range(number)]


def _fuzz_strategy(case: dict) -> Any:
    """A hypothesis strategy of one value per placeholder: one format, one shape and one typical shape shared by the
    case's "fuzz" ones (as an elementwise op needs), types from the op's prototype (one per type constraint),
    msopst's distributions, value ranges in FUZZ_RANGE."""
    from hypothesis import strategies as st

    slots = _fuzz_slots(case)
    proto = prototype_of(case["op"])

    @st.composite
    def draw(take: Any) -> dict[Slot, Any]:
        shared: dict[str, Any] = {}

        def once(key: str, strategy: Any) -> Any:
            if key not in shared:
                shared[key] = take(strategy)
            return shared[key]

        values: dict[Slot, Any] = {}
        for side, i, key in slots:
            tensor = case[side][i]
            if key in ("format", "ori_format"):
                values[(side, i, key)] = once("format", st.sampled_from(_formats(case)))
            elif key in ("shape", "ori_shape"):
                values[(side, i, key)] = once("shape", _shape_strategy(tensor))
            elif key == "typical_shape":
                values[(side, i, key)] = once(f"typical {tensor.get('shape')}", _shape_strategy(tensor))
            elif key == "type":
                var, choices = _type_choices(proto, side, i)
                values[(side, i, key)] = once(f"type {var}", st.sampled_from(choices))
            elif key == "data_distribute":
                values[(side, i, key)] = take(st.sampled_from(DISTRIBUTIONS))
            else:
                values[(side, i, key)] = sorted(take(st.lists(st.floats(*FUZZ_RANGE, width=32), min_size=2,
                                                              max_size=2)))
        return values

    return draw()


def _formats(case: dict) -> list[str]:
    """The formats a "fuzz" format may take: the case's one given format, else every format aclcts runs."""
    given = {t.get(k) for side in ("input_desc", "output_desc") for t in case[side] for k in ("format", "ori_format")}
    given = {f for f in given if isinstance(f, str) and f != FUZZ}
    return sorted(given) if len(given) == 1 else list(FORMAT_BY_NAME)


def _shape_strategy(tensor: dict) -> Any:
    """Shapes inside the tensor's shape (its -1 dims) and shape_range when it gives them, else small shapes."""
    from hypothesis import strategies as st

    shape, ranges = tensor.get("shape"), tensor.get("shape_range")
    if is_shape(shape) and -1 in shape:
        pairs = ranges if is_pair_list(ranges) and len(ranges) in (1, shape.count(-1)) else [[1, -1]]
        pairs = pairs * shape.count(-1) if len(pairs) == 1 else pairs
        bounds = iter(pairs)
        dims = [_dim(*next(bounds)) if d == -1 else st.just(d) for d in shape]
        return st.tuples(*dims).map(list)
    if is_pair_list(ranges) and ranges:
        return st.tuples(*(_dim(low, high) for low, high in ranges)).map(list)
    return st.lists(_dim(*SMALL_DIMS), min_size=SMALL_RANKS[0], max_size=SMALL_RANKS[1])


def _dim(low: int, high: int) -> Any:
    from hypothesis import strategies as st

    low = max(low, 1)
    return st.integers(low, max(low, high if high != -1 else max(SMALL_DIMS[1], low)))


def _type_choices(proto: Any, side: str, position: int) -> tuple[str, list[str]]:
    """(type constraint, the types aclcts runs in it) of the tensor at a prototype position."""
    tensors = proto.inputs if side == "input_desc" else proto.outputs
    var = tensors[min(position, len(tensors) - 1)].types
    return var, [t for t in proto.types[var] if t in TYPES] or sorted(TYPES)
