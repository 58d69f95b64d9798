"""Drawing a case's input values from its distributions with a seeded generator."""

from __future__ import annotations

from dataclasses import replace

import ml_dtypes
import numpy as np

from aclcts.cases.case import Case, TensorCase
from aclcts.cases import profiles
from aclcts.cases.msopst.draw import DRAW_PREFIX, FIXED, msopst_draw


def is_float(dtype: np.dtype) -> bool:
    """Whether dtype is a floating type (NumPy's or ml_dtypes')."""
    return dtype.kind == "f" or dtype.name.startswith(("bfloat16", "float8"))


def special_values(dtype: np.dtype) -> np.ndarray:
    """±0, ±inf, NaN, the smallest subnormal and the largest finite value of a float dtype (float64)."""
    info = ml_dtypes.finfo(dtype)
    tiny = float(info.smallest_subnormal) if hasattr(info, "smallest_subnormal") else float(info.tiny)
    values = [0.0, -0.0, np.inf, -np.inf, np.nan, tiny, -tiny, float(info.max), -float(info.max)]
    return np.array(values, dtype=np.float64)


def _default(dtype: np.dtype) -> dict[str, list]:
    if dtype == np.bool_:
        return {"choice": [False, True]}
    if is_float(dtype):
        return {"uniform": [-10.0, 10.0]}
    info = np.iinfo(dtype)
    return {"integers": [max(info.min, -100), min(info.max, 100)]}


def draw(tensor: TensorCase, spec: dict[str, list] | None, rng: np.random.Generator) -> np.ndarray:
    """One input array of the tensor's dtype and shape."""
    dtype = tensor.np_dtype
    spec = spec or _default(dtype)
    (kind, args), = spec.items()
    shape = tensor.shape
    if kind == FIXED or kind.startswith(DRAW_PREFIX):
        return msopst_draw(kind, args, shape, dtype, rng)
    if kind in ("uniform", "positive"):
        low, high = args
        if is_float(dtype):
            raw = rng.uniform(low, high, shape)
        else:
            raw = rng.integers(int(low), int(high), shape, endpoint=True)
    elif kind == "normal":
        raw = rng.normal(args[0], args[1], shape)
    elif kind == "integers":
        raw = rng.integers(int(args[0]), int(args[1]), shape, endpoint=True)
    elif kind == "choice":
        raw = rng.choice(np.array(args, dtype=np.float64), shape)
    else:
        fraction = float(args[0]) if args else 0.25
        raw = rng.uniform(-10.0, 10.0, shape)
        if is_float(dtype) and raw.size:
            mask = rng.random(shape) < fraction
            raw = np.where(mask, rng.choice(special_values(dtype), shape), raw)
    with np.errstate(all="ignore"):
        return np.asarray(raw).astype(dtype)


def draw_inputs(case: Case, seed: int) -> list[np.ndarray]:
    """Every input of a case (constants as given), from one generator seeded by the case seed; a profile case's from
    its value profile (aclcts.cases.profiles)."""
    rng = np.random.default_rng(seed)
    default = case.values.get("default")
    arrays = []
    for tensor in case.inputs:
        if tensor.const is not None:
            arrays.append(tensor.const_array())
        elif case.profile and not profiles.keeps_own(case, tensor):
            arrays.append(profiles.draw(case, tensor, rng))
        else:
            arrays.append(draw(tensor, case.values.get(tensor.name, default), rng))
    return arrays


def draw_runtime(case: Case, shapes: tuple[tuple[int, ...], ...], seed: int) -> list[np.ndarray]:
    """The non-constant inputs of a dynamic case at concrete runtime shapes (one of its runtime_shapes), drawn from
    the case's distributions with one generator seeded by seed."""
    rng = np.random.default_rng(seed)
    default = case.values.get("default")
    runtime = [t for t in case.inputs if t.const is None]
    return [draw(replace(t, shape=tuple(shape), shape_range=()), case.values.get(t.name, default), rng)
            for t, shape in zip(runtime, shapes)]
