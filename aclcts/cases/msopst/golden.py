"""msopst golden functions: importing them, calling them as msopst does, and the references the cases name.

A sub-case's reference spec is `aclcts.cases.msopst:<name>`; the package serves <name> from the references this
process loaded (`loaded_reference`), which aclcts.reference imports by that spec.
"""

from __future__ import annotations

import importlib.util
import inspect
import os
import unittest
import zlib
from collections.abc import Callable
from typing import Any

import numpy as np

from aclcts.cases.case import DTYPE_BY_NAME
from aclcts.cases.msopst.read import TYPES, Where
from aclcts.core.dtypes import numpy_dtype
from aclcts.core.inputs import one_line
from aclcts.core.usercode import UserCodeError, guarded
from aclcts.reference import RefOp

#: The module the reference specs of golden and no-reference sub-cases name (its __getattr__ serves them).
SPEC_MODULE = "aclcts.cases.msopst"
#: The golden and no-reference RefOps of the sub-cases loaded in this process, by the name their reference spec gives.
_REFERENCES: dict[str, RefOp] = {}
#: The golden (and fuzz) function files imported in this process, by path: each is imported once.
_MODULES: dict[str, Any] = {}


class GoldenError(AssertionError):
    """A golden function raised or returned something that is not one array per output."""


def reference_spec(kind: str, source: str, case_id: str, ref: RefOp) -> str:
    """Keep a sub-case's golden or no-reference RefOp in this process; the spec (`module:name`) its Case names it by."""
    name = f"{kind}_{zlib.crc32(f'{os.path.abspath(source)}/{case_id}'.encode()):08x}"
    _REFERENCES[name] = ref
    return f"{SPEC_MODULE}:{name}"


def loaded_reference(name: str) -> RefOp:
    """The RefOp a loaded sub-case's reference spec names; KeyError if no such sub-case was loaded here."""
    return _REFERENCES[name]


def _golden_module(where: Where, path: str, field: str) -> Any:
    """The module of a golden (or fuzz) function, imported once per file from its own folder."""
    if path in _MODULES:
        return _MODULES[path]
    name = f"aclcts_msopst_golden_{zlib.crc32(path.encode()):08x}"
    try:
        with guarded(path):
            spec = importlib.util.spec_from_file_location(name, path)
            module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
            spec.loader.exec_module(module)  # type: ignore[union-attr]
    except UserCodeError as exc:  # the user's file: raising, exiting or hanging at import is the case file's error
        error = where.error(field, f"an importable Python file ({exc})", show=False)
        error.stage = "golden" if field == "calc_expect_func_file" else error.stage
        raise error from None
    _MODULES[path] = module
    return module


def golden_function(where: Where, spec: Any, source: str) -> tuple[str, str, Callable[..., Any]]:
    """(path, function name, function) of a `calc_expect_func_file: "path.py:func"`, path relative to the case file."""
    return user_function(where, "calc_expect_func_file", spec, source)


def callable_golden(where: Where, params: dict, source: str, spec: Any) -> tuple[str, str, Callable[..., Any]]:
    """golden_function, checked to take the sub-case's named tensors and attrs as msopst passes them."""
    path, func, found = golden_function(where, spec, source)
    kwargs = set(golden_kwargs(params, [np.zeros(1)] * len(params["input_desc"])))
    try:
        inspect.signature(found).bind(**{k: None for k in kwargs})
    except TypeError as exc:
        raise where.error("calc_expect_func_file", f"a function taking the case's named tensors and attrs "
                          f"({', '.join(sorted(kwargs))}) as msopst calls it ({exc})", show=False) from None
    except ValueError:
        pass  # a builtin without a signature: called as it is
    return path, func, found


def golden_kwargs(params: dict, arrays: list[np.ndarray]) -> dict[str, Any]:
    """msopst's calling convention: inputs {value, dtype, shape, format} and outputs {dtype, shape, format} by name
    (an unnamed tensor as input<i> / output<i>), attrs by name with their JSON value."""
    kwargs: dict[str, Any] = {}
    for i, (tensor, array) in enumerate(zip(params["input_desc"], arrays)):
        kwargs[tensor.get("name", f"input{i}")] = {"value": array, "dtype": tensor["type"],
                                                   "shape": list(array.shape), "format": tensor["format"]}
    for i, tensor in enumerate(params["output_desc"]):
        kwargs[tensor.get("name", f"output{i}")] = {"dtype": tensor["type"], "shape": list(tensor.get(
            "typical_shape", tensor["shape"])), "format": tensor["format"]}
    for attr in params.get("attr", []):
        kwargs[attr["name"]] = attr["value"]
    return kwargs


def golden_reference(case_id: str, where: Where, params: dict, func: Callable[..., Any],
                     shapes: list[tuple[int, ...]], spec: str) -> RefOp:
    """A RefOp whose compute calls the golden function as msopst does and whose shape is the function's outputs'."""
    outputs = tuple(t.get("name", f"output{i}") for i, t in enumerate(params["output_desc"]))

    def call(xs: list[np.ndarray]) -> list[np.ndarray]:
        kwargs = golden_kwargs(params, [np.asarray(x) for x in xs])
        try:
            with guarded(f"{where.source}: case {case_id}: calc_expect_func_file {spec}", watchdog=False), \
                    np.errstate(all="ignore"):
                result = func(**kwargs)
        except UserCodeError as exc:  # the user's golden function: its failure is this case's failure, in one line
            raise GoldenError(one_line(str(exc))) from None
        arrays = [np.asarray(r) for r in (result if isinstance(result, (list, tuple)) else [result])]
        if len(arrays) != len(outputs):
            raise GoldenError(one_line(f"{where.source}: case {case_id}: calc_expect_func_file {spec} returned "
                                       f"{len(arrays)} array(s), expected one per output ({len(outputs)})"))
        return arrays

    def compute(xs: list[np.ndarray], attrs: dict[str, Any], dtypes: list[np.dtype]) -> list[np.ndarray]:
        arrays = call(xs)
        return [a.reshape(s) if a.shape != tuple(s) and a.size == int(np.prod(s, dtype=np.int64)) and -1 not in s
                else a for a, s in zip(arrays, shapes)]

    def shape_of(in_shapes: list, values: list, attrs: dict[str, Any]) -> list[tuple[int, ...]]:
        """The golden function's output shapes at these inputs (zeros of their shapes where no value is given)."""
        given = [v if v is not None else np.zeros(s, numpy_dtype(DTYPE_BY_NAME[TYPES[t["type"]]]))
                 for v, s, t in zip(values or [None] * len(in_shapes), in_shapes, params["input_desc"])]
        return [tuple(a.shape) for a in call(given)]

    return RefOp(params["op"], compute, shape_of, tuple(t.get("name", f"input{i}")
                                                       for i, t in enumerate(params["input_desc"])), {}, outputs)


def no_reference(case_id: str, op: str, shapes: list[tuple[int, ...]]) -> RefOp:
    """A RefOp that ends the test as skipped after execution, saying it had no numeric reference."""

    def compute(xs: list[np.ndarray], attrs: dict[str, Any], dtypes: list[np.dtype]) -> list[np.ndarray]:
        raise unittest.SkipTest(f"{case_id}: no numeric reference (no calc_expect_func_file, and aclcts has no "
                                f"reference of op {op}): executed, output shapes and error codes checked only")

    return RefOp(op, compute, lambda in_shapes, values, attrs: [tuple(s) for s in shapes], (), {}, ())


def user_function(where: Where, field: str, spec: Any, source: str) -> tuple[str, str, Callable[..., Any]]:
    """(path, function name, function) of a `"path.py:func"` field, path relative to the case file."""
    if not isinstance(spec, str) or ":" not in spec or not spec.rpartition(":")[2]:
        raise where.error(field, "\"path/file.py:function\"", spec)
    file, _, func = spec.rpartition(":")
    path = file if os.path.isabs(file) else os.path.join(os.path.dirname(os.path.abspath(source)), file)
    if not os.path.isfile(path):
        raise where.error(field, f"an existing Python file ({path} does not exist)", spec)
    found = getattr(_golden_module(where, path, field), func, None)
    if not callable(found):
        raise where.error(field, f"a function {func} in {file}", spec)
    return path, func, found
