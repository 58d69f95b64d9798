"""msopst golden functions: importing them, calling them as msopst does, and the references the cases name.

A sub-case's reference spec is `aclcts.cases.msopst:<name>`; the package serves <name> from the references this
process loaded (`loaded_reference`), which aclcts.reference imports by that spec.

A golden file stopped at import by a module that is not installed (TensorFlow, PyTorch: aclcts' extras golden-tf and
golden-torch), or a golden function that imports one when called (at its body or in a function of its file it calls),
raises MissingModule; the loader then judges its cases against aclcts' own reference of the op type
(`fall_back`), and `fallback_warnings` sums those up once per module. A golden file written for TensorFlow 1.x
(tf.Session, tf.placeholder) runs under TensorFlow 2 through tf.compat.v1 in a graph of its own per call, with
TensorFlow 1's Keras (tf.layers) where the tf-keras package is installed (`legacy_keras`).
"""

from __future__ import annotations

import dis
import functools
import importlib.util
import inspect
import os
import sys
import types
import unittest
import zlib
from collections.abc import Callable
from typing import Any

import numpy as np

from aclcts.cases.case import DTYPE_BY_NAME
from aclcts.cases.schema import CaseFileError
from aclcts.cases.msopst.read import OMITTED_TYPES, TYPES, Where
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
#: The golden (and fuzz) function files whose import failed in this process, by path, with why: tried once.
_BROKEN: dict[str, UserCodeError | MissingModule] = {}
#: The golden files written for TensorFlow 1.x imported in this process (their functions run in a graph, _in_graph).
_TF1_FILES: set[str] = set()
#: The extra of aclcts that installs a module golden files import (pyproject.toml's optional-dependencies).
EXTRAS = {"tensorflow": "golden-tf", "torch": "golden-torch"}
#: Attribute names of TensorFlow 1.x's graph API that TensorFlow 2 keeps only in tf.compat.v1.
TF1_NAMES = frozenset({"placeholder", "Session"})
#: The sub-cases that fell back to the built-in reference (or were refused) since the last fallback_warnings, by the
#: missing module: {"files": case files, "fell_back": count, "refused": count}.
_FALLBACKS: dict[str, dict[str, Any]] = {}


class GoldenError(AssertionError):
    """A golden function raised or returned something that is not one array per output."""


class MissingModule(Exception):
    """A golden file's import stopped at a module that is not installed."""

    def __init__(self, path: str, module: str) -> None:
        super().__init__(f"{path} imports {module}, which is not installed ({install_hint(module)})")
        self.path, self.module = path, module


def install_hint(module: str) -> str:
    """How to install a module golden files import: the aclcts extra that does, else that none does."""
    extra = EXTRAS.get(module)
    return f"pip install 'aclcts[{extra}]'" if extra else "no aclcts extra installs it"


def fallback_note(module: str) -> str:
    """What the reports say of a case judged against the built-in reference because its golden needs module."""
    return f"golden needs {module}: judged against aclcts' reference"


def fall_back(missing: MissingModule, where: Where, op: str, has_builtin: bool) -> str:
    """Count a sub-case whose golden file needs a missing module; the note its reports carry when it is judged against
    the built-in reference, else CaseFileError at stage golden (no reference to judge it against)."""
    seen = _FALLBACKS.setdefault(missing.module, {"files": set(), "fell_back": 0, "refused": 0})
    seen["files"].add(where.source)
    seen["fell_back" if has_builtin else "refused"] += 1
    if not has_builtin:
        raise CaseFileError(one_line(f"{where.source}: case {where.case}: calc_expect_func_file: {missing}, and "
                                     f"aclcts has no reference of op {op} to judge the case against instead"),
                            stage="golden")
    return fallback_note(missing.module)


def fallback_warnings() -> list[str]:
    """One line per missing module for the sub-cases counted by fall_back since the last call (which it forgets)."""
    lines = []
    for module, seen in sorted(_FALLBACKS.items()):
        refused = f", {seen['refused']} refused (no aclcts reference of their op)" if seen["refused"] else ""
        lines.append(f"msopst golden functions of {len(seen['files'])} case file(s) import {module}, which is not "
                     f"installed ({install_hint(module)}): {seen['fell_back']} case(s) judged against aclcts' own "
                     f"reference of their op type instead{refused}")
    _FALLBACKS.clear()
    return lines


def reference_spec(kind: str, source: str, case_id: str, ref: RefOp) -> str:
    """Keep a sub-case's golden or no-reference RefOp in this process; the spec (`module:name`) its Case names it by."""
    name = f"{kind}_{zlib.crc32(f'{os.path.abspath(source)}/{case_id}'.encode()):08x}"
    _REFERENCES[name] = ref
    return f"{SPEC_MODULE}:{name}"


def loaded_reference(name: str) -> RefOp:
    """The RefOp a loaded sub-case's reference spec names; KeyError if no such sub-case was loaded here."""
    return _REFERENCES[name]


def _golden_module(where: Where, path: str, field: str) -> Any:
    """The module of a golden (or fuzz) function, imported once per file from its own folder; MissingModule for a
    golden file that needs a module not installed."""
    if path in _MODULES:
        return _MODULES[path]
    if path not in _BROKEN:
        try:
            _MODULES[path] = _import(path)
            return _MODULES[path]
        except (UserCodeError, MissingModule) as exc:
            _BROKEN[path] = exc
    problem = _BROKEN[path]
    if isinstance(problem, MissingModule) and field == "calc_expect_func_file":
        raise problem
    raise where.error(field, f"an importable Python file ({problem})", show=False)


def legacy_keras(environ: dict[str, str] | None = None) -> None:
    """Before TensorFlow is first imported, ask it for the Keras of TensorFlow 1.x (TF_USE_LEGACY_KERAS=1) that the
    tf.layers functions of TensorFlow 1 goldens need, when the tf-keras package is installed and the variable is
    not set already."""
    environ = os.environ if environ is None else environ
    unset = "tensorflow" not in sys.modules and "TF_USE_LEGACY_KERAS" not in environ
    if unset and importlib.util.find_spec("tf_keras"):
        environ["TF_USE_LEGACY_KERAS"] = "1"


def _import(path: str) -> types.ModuleType:
    """Import one user file under guard; MissingModule when a module it imports is not installed."""
    legacy_keras()
    name = f"aclcts_msopst_golden_{zlib.crc32(path.encode()):08x}"
    try:
        with guarded(path, passing=(ModuleNotFoundError,)):
            spec = importlib.util.spec_from_file_location(name, path)
            module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
            spec.loader.exec_module(module)  # type: ignore[union-attr]
    except ModuleNotFoundError as exc:
        if not exc.name:
            raise UserCodeError(one_line(f"{path} raised ModuleNotFoundError: {exc}")) from None
        raise MissingModule(path, exc.name.partition(".")[0]) from None
    if _as_tf1(module):
        _TF1_FILES.add(path)
    return module


def _as_tf1(module: types.ModuleType) -> bool:
    """Whether a golden module is written for TensorFlow 1.x and TensorFlow 2 is installed; if so, its names for the
    tensorflow module now name tf.compat.v1 (TensorFlow 1's API, kept in TensorFlow 2)."""
    tf = sys.modules.get("tensorflow")
    if tf is None or not str(getattr(tf, "__version__", "1")).startswith("2."):
        return False
    names = [name for name, value in vars(module).items() if value is tf]
    if not names or not TF1_NAMES & _attribute_names(module):
        return False
    for name in names:
        setattr(module, name, tf.compat.v1)
    return True


def _attribute_names(module: types.ModuleType) -> set[str]:
    """The global and attribute names the functions and methods defined in a module use."""
    found: set[str] = set()
    pending = [value.__code__ for value in vars(module).values()
               if inspect.isfunction(value) and value.__module__ == module.__name__]
    pending += [member.__code__ for value in vars(module).values()
                if inspect.isclass(value) and value.__module__ == module.__name__
                for member in vars(value).values() if inspect.isfunction(member)]
    while pending:
        code = pending.pop()
        found.update(code.co_names)
        pending.extend(c for c in code.co_consts if isinstance(c, types.CodeType))
    return found


def _in_graph(func: Callable[..., Any]) -> Callable[..., Any]:
    """func run in a new TensorFlow graph per call, as TensorFlow 1.x ran code: placeholders and sessions work, and
    no graph outlives the call."""
    tf = sys.modules["tensorflow"]

    @functools.wraps(func)
    def run(*args: Any, **kwargs: Any) -> Any:
        with tf.Graph().as_default():
            return func(*args, **kwargs)

    return run


def golden_function(where: Where, spec: Any, source: str) -> tuple[str, str, Callable[..., Any]]:
    """(path, function name, function) of a `calc_expect_func_file: "path.py:func"`, path relative to the case file;
    a problem with it is a CaseFileError at stage golden (MissingModule when a module it imports is not installed)."""
    try:
        path, func, found = user_function(where, "calc_expect_func_file", spec, source)
    except CaseFileError as exc:
        exc.stage = "golden"
        raise
    return path, func, _in_graph(found) if path in _TF1_FILES else found


def callable_golden(where: Where, params: dict, source: str, spec: Any) -> tuple[str, str, Callable[..., Any]]:
    """golden_function, checked to take the sub-case's named tensors and attrs as msopst passes them."""
    path, func, found = golden_function(where, spec, source)
    missing = missing_call_import(found)
    if missing is not None:
        raise MissingModule(path, missing)
    kwargs = set(golden_kwargs(params, [np.zeros(1)] * len(given_inputs(params))))
    try:
        inspect.signature(found).bind(**{k: None for k in kwargs})
    except TypeError as exc:
        error = where.error("calc_expect_func_file", f"a function taking the case's named tensors and attrs "
                            f"({', '.join(sorted(kwargs))}) as msopst calls it ({exc})", show=False)
        error.stage = "golden"
        raise error from None
    except ValueError:
        pass  # a builtin without a signature: called as it is
    return path, func, found


def missing_call_import(func: Callable[..., Any]) -> str | None:
    """The first top-level module not installed that a golden function imports when called, in its own body or in a
    function of its file it calls by name (CANN's goldens import TBE's `impl`, `te` inside functions); None if none."""
    code = getattr(inspect.unwrap(func), "__code__", None)
    if code is None:
        return None
    namespace = getattr(inspect.unwrap(func), "__globals__", {})
    pending, seen = [code], set()
    while pending:
        code = pending.pop()
        if code in seen:
            continue
        seen.add(code)
        steps = list(dis.get_instructions(code))
        for i, step in enumerate(steps):
            absolute = i >= 2 and steps[i - 2].opname == "LOAD_CONST" and steps[i - 2].argval == 0
            if step.opname == "IMPORT_NAME" and absolute and _not_installed(step.argval.partition(".")[0]):
                return step.argval.partition(".")[0]
        pending += [c for c in code.co_consts if isinstance(c, types.CodeType)]
        pending += [value.__code__ for name in code.co_names if inspect.isfunction(value := namespace.get(name))
                    and value.__globals__ is namespace]
    return None


def _not_installed(module: str) -> bool:
    """Whether a top-level module is neither imported nor found on the import path."""
    return sys.modules.get(module) is None and importlib.util.find_spec(module) is None


def given_inputs(params: dict) -> list[tuple[int, dict]]:
    """(position, tensor) of a sub-case's inputs but its omitted optional ones, which msopst passes to no golden
    function (data_generator.py skips UNDEFINED and RESERVED types)."""
    return [(i, t) for i, t in enumerate(params["input_desc"]) if t["type"] not in OMITTED_TYPES]


def golden_kwargs(params: dict, arrays: list[np.ndarray]) -> dict[str, Any]:
    """msopst's calling convention: inputs {value, dtype, shape, format} and outputs {dtype, shape, format} by name
    (an unnamed tensor as input<i> / output<i>), attrs by name with their JSON value."""
    kwargs: dict[str, Any] = {}
    for (i, tensor), array in zip(given_inputs(params), arrays):
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
        # copies: msopst has written the inputs' data files when it calls the golden function, so a function that
        # changes its arguments in place (CANN's Xlog1py golden does) leaves what the op runs on unchanged
        kwargs = golden_kwargs(params, [np.array(x, copy=True) for x in xs])
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
                 for v, s, (_, t) in zip(values or [None] * len(in_shapes), in_shapes, given_inputs(params))]
        return [tuple(a.shape) for a in call(given)]

    return RefOp(params["op"], compute, shape_of, tuple(t.get("name", f"input{i}") for i, t in given_inputs(params)),
                 {}, outputs)


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
