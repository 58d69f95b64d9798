"""msopst's data rules: an input's values drawn from its data_distribute and value_range, or given as `value`."""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from aclcts.cases.msopst.read import Where
from aclcts.core.files import inside

#: The value kind (Case.values) under which a fixed `value` list or .bin is given to the input drawer.
FIXED = "fixed"
#: Prefix of the `value` kinds that draw with msopst's distributions (values.draw dispatches on it).
DRAW_PREFIX = "msopst_"


def msopst_draw(kind: str, args: Any, shape: tuple[int, ...], dtype: np.dtype, rng: np.random.Generator) -> np.ndarray:
    """One input array by msopst's data rules (data_generator.py), with aclcts' seeded generator.

    kind is FIXED (args: the flat values) or DRAW_PREFIX + a data_distribute (args: value_range [min, max]).
    """
    if kind == FIXED:
        return np.asarray(args, dtype=np.float64 if dtype.kind != "c" else np.complex128).astype(dtype).reshape(shape)
    low, high = (float(v) for v in args)
    dist = kind[len(DRAW_PREFIX):]
    with np.errstate(all="ignore"):
        if dtype == np.bool_:  # msopst: int8 uniform on [0, 2), truncated
            return rng.uniform(0, 2, shape).astype(np.int8).astype(np.bool_)
        if dist == "normal":
            raw = rng.normal(low, abs(high) + 1e-4, shape)
        elif dist == "beta":
            raw = rng.beta(abs(low) + 1e-4, abs(high) + 1e-4, shape)
        elif dist == "laplace":
            raw = rng.laplace(low, abs(high) + 1e-4, shape)
        elif dist == "triangular":
            raw = rng.triangular(low, rng.uniform(low, high), high, shape) if high > low else np.full(shape, low)
        else:
            raw = rng.uniform(low, high, shape)
            if dist != "uniform":
                u = raw.astype(dtype).astype(np.float64)
                raw = {"relu": lambda: np.maximum(0, u), "sigmoid": lambda: 1 / (1 + np.exp(-u)),
                       "softmax": lambda: np.exp(u) / np.sum(np.exp(u)),
                       "tanh": lambda: np.tanh(u)}[dist]()
        return np.asarray(raw).astype(dtype)


def given_values(where: Where, field: str, tensor: dict, source: str, dtype: np.dtype,
                  shape: tuple[int, ...]) -> list | None:
    """An input's fixed data: its `value`, else its `const_value`; both given, they must hold the same numbers."""
    found = {key: _fixed_values(where, f"{field}.{key}", tensor[key], source, dtype, shape)
             for key in ("value", "const_value") if key in tensor}
    if len(found) == 2 and not np.array_equal(np.asarray(found["value"]), np.asarray(found["const_value"]),
                                              equal_nan=dtype.kind in "fc"):
        raise where.error(f"{field}.const_value", "the same numbers as value (both are the constant's data)",
                          tensor["const_value"])
    return found.get("value", found.get("const_value"))


def _fixed_values(where: Where, field: str, value: Any, source: str, dtype: np.dtype,
                  shape: tuple[int, ...]) -> list:
    """The flat values of a `value` (or `const_value`) field: a literal list, or a .bin file (raw, the tensor's dtype)
    relative to the case file; their count must be the shape's element count."""
    if isinstance(value, str):
        folder = os.path.dirname(os.path.abspath(source))
        path = os.path.join(folder, value)
        if os.path.isabs(value) or not inside(folder, os.path.realpath(path)):
            raise where.error(field, "a .bin file inside the case file's folder (a relative path that does not lead "
                                     "out of it, symbolic links resolved)", value)
        if not os.path.isfile(path):
            raise where.error(f"{field}.value", "a literal list or an existing .bin file (relative to the case file)",
                              value)
        flat = np.fromfile(path, dtype=dtype)
    else:
        flat = np.ravel(np.asarray(value, dtype=np.float64)).astype(dtype)
    expected = int(np.prod(shape, dtype=np.int64))
    if flat.size != expected:
        raise where.error(field, f"{expected} element(s), the element count of shape {list(shape)}", int(flat.size))
    return flat.tolist()
