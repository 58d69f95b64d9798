"""The case-file schema: what an op case file may contain, checked with errors naming file, line and field."""

from __future__ import annotations

import math
import os
import re
import warnings
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from aclcts.core.files import inside, unsafe_name
from aclcts.core.prototypes import Prototype, VendorRecordError, lookup
from aclcts.core.inputs import file_problem
from aclcts.core.yamlpos import Path
from aclcts.core.yamlschema import SchemaChecker

#: Top-level keys of a case file and whether they are required.
KEYS = {
    "op": True,
    "policy": False,
    "family": False,
    "source": False,
    "reference": False,
    "inputs": False,
    "outputs": False,
    "dynamic_input": False,
    "modes": False,
    "dtypes": True,
    "shapes": True,
    "attrs": False,
    "const": False,
    "values": False,
    "profiles": False,
    "precision": False,
    "format": False,
    "ori_format": False,
    "name": False,
    "shape_range": False,
    "runtime_shapes": False,
    "shape_rule": False,
    "elements": False,
    "data_dependent": False,
    "expect": False,
    "exact_because": False,
}
#: Keys the op's record gives when a case file leaves them out.
FROM_RECORD = ("inputs", "outputs", "policy", "source")
#: Keys read under their old name for one more release, old name -> new name.
RENAMED_KEYS = {"family": "policy"}
#: Keys that only a dynamic case (a shape with -1 dims or the unknown rank [-2]) may have.
DYNAMIC_KEYS = ("shape_range", "runtime_shapes", "shape_rule", "elements", "data_dependent")
MODES = ("execute_v2", "handle")
ATTR_TYPES = ("bool", "int", "float", "string", "list_bool", "list_int", "list_float", "list_string",
              "list_list_int", "data_type", "list_data_type")
#: msopst's data_distribute names (aclcts.cases.msopst.read.DISTRIBUTIONS, which imports this module); a case file draws
#: with one as `msopst_<name>: [min, max]`, msopst's value_range, by msopst's data rules.
MSOPST_DISTRIBUTIONS = ("uniform", "normal", "beta", "laplace", "triangular", "relu", "sigmoid", "softmax", "tanh")
MSOPST_KINDS = tuple(f"msopst_{name}" for name in MSOPST_DISTRIBUTIONS)
#: Kinds that give an input's data instead of drawing it: the values themselves, or a raw file of them.
FIXED_KINDS = ("fixed", "file")
DISTRIBUTIONS = ("uniform", "normal", "integers", "choice", "special", "positive") + FIXED_KINDS + MSOPST_KINDS
#: The smallest and largest int a distribution parameter may be (NumPy's generator draws int64).
INT64 = (-2 ** 63, 2 ** 63 - 1)
#: How a dynamic case's runtime input shapes relate (strategies.model_shapes) and which element values it draws.
SHAPE_RULES = ("broadcast", "matmul", "concat", "each", "same", "given", "square")
ELEMENT_KINDS = ("full", "finite", "pool", "values")
#: A case's expected outcome: "failed" means it must fail to compile or execute (msopst's `expect`).
EXPECTS = ("success", "failed")
#: How a case file or a golden case names the documentation line that demands exactness (issue 40), e.g.
#: "docs/precision-policy.md#cann-commercial-standard: integer compute is bitwise".
EXACT_BECAUSE = re.compile(r"docs/[\w./-]+\.md#[\w-]+: \S.*")
#: The dimension written for an unknown rank: the whole shape is [-2].
UNKNOWN_RANK = (-2,)


#: The stages at which one case can be refused or fail, in the order a case meets them: reading its file (`load`),
#: importing its golden function (`golden`), ATC's checks of its op model, static or dynamic (`atc`), making the models
#: ATC accepted (`compile`), executing (`run`) and judging its outputs (`compare`).
STAGES = ("load", "golden", "atc", "compile", "run", "compare")


class CaseFileError(Exception):
    """A case file breaks the schema; the message is `file:line: field: what was expected`.

    stage is where the problem stops the case (STAGES): a loader that can go on without the case makes it a refused
    case (aclcts.cases.case.Refusal) instead of ending the run.
    """

    def __init__(self, message: str, stage: str = "load") -> None:
        super().__init__(message)
        self.stage = stage


class CaseKeyRenamed(FutureWarning):
    """A case file gives a key by its old name, still read for one release; the message is `file:line: field: ...`.

    A FutureWarning: Python's category for deprecations meant for the people who write the input, shown by default.
    """


#: What a reference's shape or compute function raises for inputs it cannot take (an IndexError: a rank, an attr list
#: or a const shorter than the op indexes).
REFUSALS = (ValueError, IndexError)


def refusal(op: str, exc: Exception) -> str:
    """A reference's refusal of a case as one message naming the op (a ValueError's own message names it)."""
    if isinstance(exc, ValueError):
        return str(exc)
    return f"{op}: {type(exc).__name__}: {exc} (an input rank, attr list or const shorter than the op needs)"


class CaseChecker(SchemaChecker):
    """The case file's checks; fields are written as in the file (dtypes[1].y) and a got of None is left out."""

    error = CaseFileError
    shows_none = False

    def names(self, value: Any, path: Path, may_be_empty: bool = False) -> None:
        self.kind(value, list, path, "a list of tensor names")
        if not value and not may_be_empty:
            self.fail(path, "at least one tensor name")
        for index, name in enumerate(value):
            self.kind(name, str, path + (index,), "a tensor name (string)")
        if len(set(value)) != len(value):
            self.fail(path, "distinct tensor names", value)

    def shape(self, value: Any, path: Path, dynamic: bool = True) -> None:
        self.kind(value, list, path, "a shape (list of ints >= 0)")
        if dynamic and value == list(UNKNOWN_RANK):
            return
        lowest = -1 if dynamic else 0
        expected = "a dimension (int >= 0, or -1 for an unknown dim)" if dynamic else "a dimension (int >= 0)"
        for index, dim in enumerate(value):
            if not isinstance(dim, int) or isinstance(dim, bool) or dim < lowest:
                self.fail(path + (index,), expected + (", or the whole shape [-2]" if dynamic else ""), dim)

    def pair(self, value: Any, path: Path) -> None:
        if not (isinstance(value, list) and len(value) == 2 and all(isinstance(v, int) and not isinstance(v, bool)
                                                                       for v in value)):
            self.fail(path, "a [min, max] pair of ints", value)
        low, high = value
        if low < 0 or (high != -1 and high < low):
            self.fail(path, "0 <= min <= max (max -1 = no upper bound)", value)


def _int64(value: Any) -> bool:
    """Whether value is an int (not a bool) within INT64."""
    return isinstance(value, int) and not isinstance(value, bool) and INT64[0] <= value <= INT64[1]


def _finite(value: Any) -> bool:
    """Whether value is an int within INT64 or a finite float."""
    return _int64(value) or (isinstance(value, float) and math.isfinite(value))


def _range(args: Any, number: Callable[[Any], bool] = _finite) -> bool:
    """Whether args is a [low, high] pair of numbers with low <= high and a finite high - low."""
    return (isinstance(args, list) and len(args) == 2 and all(number(v) for v in args) and args[0] <= args[1]
            and math.isfinite(args[1] - args[0]))


def _normal(args: Any) -> bool:
    """Whether args is a [mean, std] pair of finite numbers with std >= 0."""
    return isinstance(args, list) and len(args) == 2 and all(_finite(v) for v in args) and args[1] >= 0


def _choice(args: Any) -> bool:
    """Whether args is a non-empty list of numbers (ints within INT64, floats including inf and NaN, or bools)."""
    return isinstance(args, list) and bool(args) and all(
        _int64(v) or isinstance(v, (bool, float)) for v in args)


def _special(args: Any) -> bool:
    """Whether args is [] or [fraction] with 0 <= fraction <= 1."""
    return isinstance(args, list) and len(args) <= 1 and all(_finite(v) and 0 <= v <= 1 for v in args)


def numbers(value: Any) -> Iterator[Any]:
    """The leaves of a (nested) list, in order; value itself when it is not a list."""
    if not isinstance(value, list):
        yield value
        return
    for item in value:
        yield from numbers(item)


def _fixed(args: Any) -> bool:
    """Whether args is a list (nested lists allowed) of numbers: ints within INT64, floats (inf and NaN too), bools."""
    return isinstance(args, list) and all(_int64(v) or isinstance(v, (bool, float)) for v in numbers(args))


def _file(args: Any) -> bool:
    """Whether args is a relative path whose every part is a plain name (no '..', '.', empty part or NUL)."""
    return isinstance(args, str) and all(unsafe_name(part) is None for part in args.split("/"))


#: Each distribution's check of its parameters and what the error says they should be.
PARAMETERS: dict[str, tuple[Callable[[Any], bool], str]] = {
    "uniform": (_range, "a [low, high] pair of finite numbers with low <= high and a finite high - low"),
    "positive": (lambda args: _range(args) and args[0] >= 0,
                 "a [low, high] pair of finite numbers with 0 <= low <= high and a finite high - low"),
    "integers": (lambda args: _range(args, _int64), "a [low, high] pair of int64 ints with low <= high"),
    "normal": (_normal, "a [mean, std] pair of finite numbers with std >= 0"),
    "choice": (_choice, "a non-empty list of numbers"),
    "special": (_special, "[] or [fraction] with 0 <= fraction <= 1"),
    "fixed": (_fixed, "a list of numbers (nested lists allowed), one per element of the input"),
    "file": (_file, "a relative path of plain names (no '..', '.', empty part or NUL) to a raw data file"),
} | {kind: (_range, "a [min, max] pair of finite numbers with min <= max and a finite max - min (msopst's "
                    "value_range)") for kind in MSOPST_KINDS}


def data_file(source: str, name: str) -> str:
    """The path of a `file:` value: name relative to the case file's folder."""
    return os.path.join(os.path.dirname(os.path.abspath(source)), name)


def _check_values(c: CaseChecker, data: dict, source: str) -> None:
    """Each `values` entry: an input (or default) with one known kind, its parameters, a data file inside the case
    file's folder."""
    for name, spec in data.get("values", {}).items():
        path = ("values", name)
        if name != "default" and name not in data["inputs"]:
            c.fail(path, "an input name or 'default'", name)
        c.kind(spec, dict, path, "a mapping with one distribution (" + ", ".join(DISTRIBUTIONS) + ")")
        if len(spec) != 1 or next(iter(spec)) not in DISTRIBUTIONS:
            c.fail(path, "exactly one of " + ", ".join(DISTRIBUTIONS), spec)
        (kind, args), = spec.items()
        if name == "default" and kind in FIXED_KINDS:
            c.fail(path + (kind,), "a distribution: fixed data (fixed, file) is given per input, not as the default")
        if not PARAMETERS[kind][0](args):
            c.fail(path + (kind,), PARAMETERS[kind][1], args if kind != "fixed" else _first_bad(args))
        if kind == "file":
            _check_data_file(c, path + (kind,), source, args)


def _first_bad(args: Any) -> Any:
    """What a `fixed` error shows: the first leaf that is not a number, or the value when it is not a list."""
    if not isinstance(args, list):
        return args
    return next(v for v in numbers(args) if not (_int64(v) or isinstance(v, (bool, float))))


def _check_data_file(c: CaseChecker, path: Path, source: str, name: str) -> None:
    """A `file:` value names a regular file inside the case file's folder (symbolic links resolved)."""
    full = data_file(source, name)
    if not inside(os.path.dirname(os.path.abspath(source)), os.path.realpath(full)):
        c.fail(path, "a file inside the case file's folder (a symbolic link leads out of it)", name)
    problem = file_problem(full)
    if problem is not None:
        c.fail(path, f"a regular file relative to the case file ({full}: {problem})", name)


def check_case_file(data: Any, source: str, lines: dict[Path, int], known_dtypes: set[str]) -> None:
    """Raise CaseFileError at the first place where a loaded case file breaks the schema."""
    c = CaseChecker(source, lines)
    c.kind(data, dict, (), "a mapping with keys " + ", ".join(KEYS))
    c.keys(data, (), KEYS)
    _read_renamed_keys(c, data)
    _fill_from_record(c, data)
    for key in ("op", "policy", "source", "reference", "ori_format", "dynamic_input", "name"):
        if key in data:
            c.kind(data[key], str, (key,), "a string")
    if "format" in data:
        c.kind(data["format"], (str, dict), ("format",), "a format name, or a mapping tensor name -> format name")
    for key, kind, expected in (("modes", list, "a list of modes"), ("attrs", list, "a list of attr sets"),
                                ("const", dict, "a mapping input name -> values"),
                                ("values", dict, "a mapping input name -> distribution")):
        if key in data:
            c.kind(data[key], kind, (key,), expected)
    c.names(data["inputs"], ("inputs",), may_be_empty=True)
    c.names(data["outputs"], ("outputs",))
    tensors = data["inputs"] + data["outputs"]
    for index, mode in enumerate(data.get("modes", list(MODES))):
        c.one_of(mode, MODES, ("modes", index))
    c.kind(data["dtypes"], list, ("dtypes",), "a list of dtype combinations")
    for index, combo in enumerate(data["dtypes"]):
        path = ("dtypes", index)
        if isinstance(combo, str):
            if combo not in known_dtypes:
                c.fail(path, "a data type name (" + ", ".join(sorted(known_dtypes)) + ")", combo)
            continue
        c.kind(combo, dict, path, "a data type name or a mapping tensor name -> data type")
        for name, dtype in combo.items():
            if name != "*" and name not in tensors:
                c.fail(path + (name,), "a tensor name of inputs/outputs or '*'", name)
            if not isinstance(dtype, str) or dtype not in known_dtypes:
                c.fail(path + (name,), "a data type name", dtype)
        if "*" not in combo and any(t not in combo for t in tensors):
            c.fail(path, "a data type for every tensor (or '*' for the rest)", combo)
    c.kind(data["shapes"], list, ("shapes",), "a list of shape sets")
    variable = [n for n in data["inputs"] if n not in data.get("const", {})]
    for index, shapes in enumerate(data["shapes"]):
        path = ("shapes", index)
        if isinstance(shapes, list):
            if len(shapes) != len(variable):
                c.fail(path, f"{len(variable)} input shapes ({', '.join(variable)})", shapes)
            for position, shape in enumerate(shapes):
                c.shape(shape, path + (position,))
            continue
        c.kind(shapes, dict, path, "a list of input shapes or a mapping tensor name -> shape")
        for name, shape in shapes.items():
            if name not in tensors:
                c.fail(path + (name,), "a tensor name of inputs/outputs", name)
            c.shape(shape, path + (name,))
        for name in variable:
            if name not in shapes:
                c.fail(path, f"a shape for input {name!r}", shapes)
    _check_dynamic(c, data, variable)
    for index, attr_set in enumerate(data.get("attrs", [{}])):
        path = ("attrs", index)
        c.kind(attr_set, dict, path, "a mapping attr name -> {type, value}")
        for name, spec in attr_set.items():
            c.kind(spec, dict, path + (name,), "a mapping with keys type and value")
            c.one_of(spec.get("type"), ATTR_TYPES, path + (name, "type"))
            if "value" not in spec:
                c.fail(path + (name,), "a value")
    for name, values in data.get("const", {}).items():
        if name not in data["inputs"]:
            c.fail(("const", name), "an input name", name)
        if not isinstance(values, (int, float)) and not (
                isinstance(values, list) and all(isinstance(v, (int, float)) for v in values)):
            c.fail(("const", name), "a number or a list of numbers", values)
    _check_values(c, data, source)
    if "expect" in data:
        c.one_of(data["expect"], EXPECTS, ("expect",))
    if "profiles" in data:
        c.kind(data["profiles"], (list, dict), ("profiles",), "a list of value profile names, or a mapping data type -> "
                                                            "list of value profile names")
    precision = data.get("precision")
    if precision is not None and not isinstance(precision, (str, dict)):
        c.fail(("precision",), "a policy spec or a mapping data type -> policy spec", precision)
    _check_exact_because(c, precision, data.get("exact_because"))


def names_exact(precision: Any) -> bool:
    """Whether a case file's `precision` judges some output by the exact policy."""
    specs = precision.values() if isinstance(precision, dict) else [precision]
    return any(isinstance(spec, str) and spec.strip().lower() == "exact" for spec in specs)


def _check_exact_because(c: CaseChecker, precision: Any, because: Any) -> None:
    """A file naming the exact policy gives exact_because, the documentation line demanding exactness (no case is
    judged more strictly than the documentation); a file naming no exact policy gives none."""
    if names_exact(precision):
        if not (isinstance(because, str) and EXACT_BECAUSE.fullmatch(because)):
            c.fail(("exact_because",) if because is not None else ("precision",),
                   "the documentation line demanding exactness, as 'docs/<page>.md#<heading>: <why>' (precision names "
                   "exact), or the documented standard's policy instead of exact", because, field="exact_because")
    elif because is not None:
        c.fail(("exact_because",), "no exact_because: precision names no exact policy", because)


def _read_renamed_keys(c: CaseChecker, data: dict) -> None:
    """Give each old key name (RENAMED_KEYS) its new name in data, with one CaseKeyRenamed per file naming the old
    ones; a file that gives both names of a key, or neither, fails."""
    old = [key for key in RENAMED_KEYS if key in data]
    for key in old:
        new = RENAMED_KEYS[key]
        if new in data:
            c.fail((key,), f"only {new!r} ({key!r} is its old name, and the file gives both)")
        c.lines[(new,)] = c.line((key,))
        data[new] = data.pop(key)
    if old:
        where = "; ".join(f"{c.source}:{c.line((RENAMED_KEYS[key],))}: {key}: the old name of {RENAMED_KEYS[key]!r}, "
                          f"read until the next release; rename it" for key in old)
        warnings.warn(CaseKeyRenamed(where), stacklevel=4)


def _fill_from_record(c: CaseChecker, data: dict) -> None:
    """Give the keys of FROM_RECORD the file leaves out the op's record's values (the required tensors' names, the
    precision policy, the documentation source); an op without a record, or with a dynamic input or output, needs
    the file to give them."""
    missing = [key for key in FROM_RECORD if key not in data]
    if not missing:
        return
    c.kind(data.get("op"), str, ("op",), "a string")
    record = record_of(data["op"])
    for key in missing:
        if record is None:
            c.fail((), f"the key {key!r} (no operator record of {data['op']} gives it)")
        tensors = {"inputs": record.inputs, "outputs": record.outputs}.get(key, ())
        if any(t.kind == "dynamic" for t in tensors):
            c.fail((), f"the key {key!r} naming each tensor ({data['op']} has a dynamic {key[:-1]}, whose number "
                       "its record cannot give)")
        data[key] = ([t.name for t in tensors if t.kind == "required"] if key in ("inputs", "outputs")
                     else getattr(record, key))
        c.lines[(key,)] = c.line(())


def record_of(op_type: str) -> Prototype | None:
    """The op's record: built-in, else from an OPP vendor folder (None when there is none or it cannot be read)."""
    try:
        return lookup(op_type)[0]
    except VendorRecordError:
        return None


def _is_dynamic(shape: list[int]) -> bool:
    return any(d < 0 for d in shape)


def shape_fits(shape: Sequence[int], model: Sequence[int], ranges: Sequence[Sequence[int]]) -> bool:
    """Whether a concrete shape is one that a shape with -1 dims (one range per -1) or [-2] accepts."""
    if tuple(model) == UNKNOWN_RANK:
        return True
    if len(shape) != len(model):
        return False
    pairs = iter(ranges)
    for dim, fixed in zip(shape, model):
        if fixed == -1:
            low, high = next(pairs)
            if dim < low or (high != -1 and dim > high):
                return False
        elif dim != fixed:
            return False
    return True


def _check_dynamic(c: CaseChecker, data: dict, variable: list[str]) -> None:
    """The dynamic-shape keys: shape_range for every -1, runtime shapes inside it, the rule, the output names."""
    sets = [s if isinstance(s, dict) else dict(zip(variable, s)) for s in data["shapes"]]
    dynamic = [index for index, shapes in enumerate(sets) if any(_is_dynamic(s) for s in shapes.values())]
    if not dynamic:
        for key in DYNAMIC_KEYS:
            if key in data:
                c.fail((key,), "a key only a dynamic case has (a shape with -1 dims or [-2])")
    for index in dynamic:
        missing = [n for n in data["outputs"] if n not in sets[index]]
        if not isinstance(data["shapes"][index], dict) or missing:
            c.fail(("shapes", index), "a mapping that gives every output's shape too (a dynamic case's output shapes "
                                      "are not computed)", data["shapes"][index])
    ranges = data.get("shape_range", {})
    c.kind(ranges, dict, ("shape_range",), "a mapping tensor name -> list of [min, max] pairs, one per -1 dim")
    for name, pairs in ranges.items():
        path = ("shape_range", name)
        if name not in data["inputs"] + data["outputs"]:
            c.fail(path, "a tensor name of inputs/outputs", name)
        c.kind(pairs, list, path, "a list of [min, max] pairs, one per -1 dim")
        for position, pair in enumerate(pairs):
            c.pair(pair, path + (position,))
        if not any(-1 in shapes.get(name, []) for shapes in sets):
            c.fail(path, "a tensor with -1 dims", name)
    for index in dynamic:
        shapes, path = sets[index], ("shapes", index)
        for name, shape in shapes.items():
            unknown = shape.count(-1) if shape != list(UNKNOWN_RANK) else 0
            if unknown and len(ranges.get(name, [])) != unknown:
                c.fail(("shape_range", name) if name in ranges else path + (name,),
                       f"{unknown} [min, max] pair(s) in shape_range.{name}, one per -1 of {shape}",
                       ranges.get(name))
    for key, allowed in (("shape_rule", SHAPE_RULES), ("elements", ELEMENT_KINDS)):
        if key in data:
            c.one_of(data[key], allowed, (key,))
    if "data_dependent" in data:
        c.names(data["data_dependent"], ("data_dependent",))
        for position, name in enumerate(data["data_dependent"]):
            if name not in data["outputs"] or not all(_is_dynamic(sets[i].get(name, [])) for i in dynamic):
                c.fail(("data_dependent", position), "an output with -1 dims or [-2]", name)
    runtime = data.get("runtime_shapes", [])
    c.kind(runtime, list, ("runtime_shapes",), "a list of runtime shape sets (one shape per non-const input)")
    for index, given in enumerate(runtime):
        path = ("runtime_shapes", index)
        c.kind(given, list, path, f"a list of {len(variable)} input shapes ({', '.join(variable)})")
        if len(given) != len(variable):
            c.fail(path, f"{len(variable)} input shapes ({', '.join(variable)})", given)
        for position, (name, shape) in enumerate(zip(variable, given)):
            c.shape(shape, path + (position,), dynamic=False)
            for set_index in dynamic:
                model = sets[set_index][name]
                if not shape_fits(shape, model, ranges.get(name, [])):
                    c.fail(path + (position,), f"a shape of input {name!r} inside {model} with shape_range "
                                               f"{ranges.get(name, [])}", shape)
    if "name" in data:
        count = len(data["dtypes"]) * len(data["shapes"]) * len(data.get("attrs", [{}]))
        if count != 1:
            c.fail(("name",), "a file that expands to one case (one dtype combination, shape set and attr set) "
                              f"to name it; this one expands to {count}")
