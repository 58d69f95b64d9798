"""The case-file schema: what an op case file may contain, checked with errors naming file, line and field."""

from __future__ import annotations

from typing import Any

from aclcts.core.yamlpos import Path, line_of

#: Top-level keys of a case file and whether they are required.
KEYS = {
    "op": True,
    "family": True,
    "source": True,
    "reference": False,
    "inputs": True,
    "outputs": True,
    "dynamic_input": False,
    "modes": False,
    "dtypes": True,
    "shapes": True,
    "attrs": False,
    "const": False,
    "values": False,
    "precision": False,
    "format": False,
}
MODES = ("execute_v2", "handle")
ATTR_TYPES = ("bool", "int", "float", "string", "list_bool", "list_int", "list_float", "list_string",
              "list_list_int", "data_type", "list_data_type")
DISTRIBUTIONS = ("uniform", "normal", "integers", "choice", "special", "positive")


class CaseFileError(Exception):
    """A case file breaks the schema; the message is `file:line: field: what was expected`."""


def field_name(path: Path) -> str:
    """A value's path written as in the case file: dtypes[1].y, shapes[0]."""
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text or "(file)"


class _Checker:
    def __init__(self, source: str, lines: dict[Path, int]) -> None:
        self.source, self.lines = source, lines

    def fail(self, path: Path, expected: str, got: Any = None) -> None:
        detail = f", got {got!r}" if got is not None else ""
        raise CaseFileError(f"{self.source}:{line_of(self.lines, path)}: {field_name(path)}: expected {expected}{detail}")

    def kind(self, value: Any, kinds: type | tuple[type, ...], path: Path, expected: str) -> None:
        if not isinstance(value, kinds):
            self.fail(path, expected, value)

    def names(self, value: Any, path: Path) -> None:
        self.kind(value, list, path, "a list of tensor names")
        if not value:
            self.fail(path, "at least one tensor name")
        for index, name in enumerate(value):
            self.kind(name, str, path + (index,), "a tensor name (string)")
        if len(set(value)) != len(value):
            self.fail(path, "distinct tensor names", value)

    def shape(self, value: Any, path: Path) -> None:
        self.kind(value, list, path, "a shape (list of ints >= 0)")
        for index, dim in enumerate(value):
            if not isinstance(dim, int) or isinstance(dim, bool) or dim < 0:
                self.fail(path + (index,), "a dimension (int >= 0)", dim)


def check_case_file(data: Any, source: str, lines: dict[Path, int], known_dtypes: set[str]) -> None:
    """Raise CaseFileError at the first place where a loaded case file breaks the schema."""
    c = _Checker(source, lines)
    c.kind(data, dict, (), "a mapping with keys " + ", ".join(KEYS))
    for key in data:
        if key not in KEYS:
            c.fail((key,), "one of the keys " + ", ".join(KEYS), key)
    for key, required in KEYS.items():
        if required and key not in data:
            c.fail((), f"the required key {key!r}")
    for key in ("op", "family", "source", "reference", "format", "dynamic_input"):
        if key in data:
            c.kind(data[key], str, (key,), "a string")
    c.names(data["inputs"], ("inputs",))
    c.names(data["outputs"], ("outputs",))
    tensors = data["inputs"] + data["outputs"]
    for index, mode in enumerate(data.get("modes", list(MODES))):
        if mode not in MODES:
            c.fail(("modes", index), "one of " + ", ".join(MODES), mode)
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
            if dtype not in known_dtypes:
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
    for index, attr_set in enumerate(data.get("attrs", [{}])):
        path = ("attrs", index)
        c.kind(attr_set, dict, path, "a mapping attr name -> {type, value}")
        for name, spec in attr_set.items():
            c.kind(spec, dict, path + (name,), "a mapping with keys type and value")
            if spec.get("type") not in ATTR_TYPES:
                c.fail(path + (name, "type"), "one of " + ", ".join(ATTR_TYPES), spec.get("type"))
            if "value" not in spec:
                c.fail(path + (name,), "a value")
    for name, values in data.get("const", {}).items():
        if name not in data["inputs"]:
            c.fail(("const", name), "an input name", name)
        c.kind(values, (list, int, float), ("const", name), "a number or a list of numbers")
    for name, spec in data.get("values", {}).items():
        path = ("values", name)
        if name != "default" and name not in data["inputs"]:
            c.fail(path, "an input name or 'default'", name)
        c.kind(spec, dict, path, "a mapping with one distribution (" + ", ".join(DISTRIBUTIONS) + ")")
        if len(spec) != 1 or next(iter(spec)) not in DISTRIBUTIONS:
            c.fail(path, "exactly one of " + ", ".join(DISTRIBUTIONS), spec)
    precision = data.get("precision")
    if precision is not None and not isinstance(precision, (str, dict)):
        c.fail(("precision",), "a policy spec or a mapping data type -> policy spec", precision)
