"""The operator records (aclcts.core.prototypes) are well formed, every record has a reference and a simulator kernel,
and one family taxonomy holds: each op's record, reference, kernel, faults and case files live in modules and
folders named after its family.

Each failure names the op, the file to fix and what is missing or differs.
"""

import ast
import importlib
import io
import pkgutil
import re
import tokenize
from pathlib import Path

import numpy as np
import pytest
import yaml

import aclcts.core.prototypes as prototypes
import aclcts.reference
import aclcts.sim.faults
import aclcts.sim.kernels
from aclcts.cases.schema import SHAPE_RULES
from aclcts.core.dtypes import JSON_TYPE_NAMES, DataType, acl_data_type, has_numpy_dtype
from aclcts.core.prototypes.spec import ATTR_TYPES, REQUIRED, canonical_dtype
from aclcts.judge.policies import POLICY_FAMILIES
from aclcts.reference import OP_TYPES
from aclcts.sim.kernels import registry
from aclcts.sim.kernels.call import dtype_name

ROOT = Path(__file__).resolve().parents[2]
DTYPE_NAMES = set(JSON_TYPE_NAMES.values())
FAMILIES = set(prototypes.families())
#: Modules of each package that are not families: shared machinery.
HELPERS = {
    aclcts.reference: {"base", "numeric", "complex_math", "folded"},
    aclcts.sim.kernels: {"base", "call", "numerics", "registry", "shapes", "pointwise", "folded"},
    aclcts.sim.faults: {"contract", "domains", "events", "golden_edges", "kernels", "runtime", "values"},
}
#: Case folders that are not families: the step tests' own dynamic models.
CASE_FOLDERS = {"dynamic"}


def test_every_record_is_well_formed():
    problems = []
    for op_type in prototypes.op_types():
        record = prototypes.prototype(op_type)
        for t in record.inputs + record.outputs:
            if t.types not in record.types:
                problems.append(f"{op_type}: tensor {t.name} names type constraint {t.types!r}, not in types "
                                f"{sorted(record.types)}")
        for name, dtypes in record.types.items():
            unknown = sorted({canonical_dtype(d) for d in dtypes} - DTYPE_NAMES)
            if unknown or not dtypes:
                problems.append(f"{op_type}: type constraint {name} has unknown dtype names {unknown} or none; "
                                f"expected names from {sorted(DTYPE_NAMES)}")
        for a in record.attrs:
            if a.type not in ATTR_TYPES:
                problems.append(f"{op_type}: attribute {a.name} has type {a.type!r}; expected one of {ATTR_TYPES}")
            if a.counts and a.counts not in [t.name for t in record.inputs if t.kind == "dynamic"]:
                problems.append(f"{op_type}: attribute {a.name} counts {a.counts!r}, which is no dynamic input")
        for tensor, attr in record.dtype_from.items():
            if record.attr(attr) is None or tensor not in [t.name for t in record.inputs + record.outputs]:
                problems.append(f"{op_type}: dtype_from {tensor} <- {attr} names no such tensor or attribute")
        for name in record.samples:
            if name not in record.input_names():
                problems.append(f"{op_type}: a sample range for {name!r}, which is no input")
        for name in record.sample_attrs:
            if record.attr(name) is None:
                problems.append(f"{op_type}: a sample value for attribute {name!r}, which the record lacks")
        if record.shape_rule not in SHAPE_RULES:
            problems.append(f"{op_type}: shape rule {record.shape_rule!r}; expected one of {SHAPE_RULES}")
        if record.policy not in POLICY_FAMILIES:
            problems.append(f"{op_type}: policy {record.policy!r}; expected one of {POLICY_FAMILIES}")
        if not record.source:
            problems.append(f"{op_type}: no source (cite the documentation of the operator)")
    assert not problems, "\n".join(problems)


def test_every_record_has_a_reference_and_a_kernel_and_nothing_else_does():
    records = set(prototypes.op_types())
    kernels = {op for op in registry.registered_op_types() if registry.builtin_kernel(op) is not None}
    problems = [f"{op}: no reference in aclcts/reference/{prototypes.prototype(op).family}.py"
                for op in sorted(records - set(OP_TYPES))]
    problems += [f"{op}: no kernel in aclcts/sim/kernels/{prototypes.prototype(op).family}.py"
                 for op in sorted(records - kernels)]
    problems += [f"{op}: a reference or kernel without a record in aclcts/core/prototypes/<family>.py"
                 for op in sorted((set(OP_TYPES) | kernels) - records)]
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("package", list(HELPERS), ids=lambda p: p.__name__)
def test_every_module_of_a_wing_is_a_family_or_a_named_helper(package):
    names = {m.name for m in pkgutil.iter_modules(package.__path__)}
    strays = sorted(names - FAMILIES - HELPERS[package])
    assert not strays, (f"{package.__name__}: modules {strays} are neither a family ({sorted(FAMILIES)}) nor a "
                        f"helper ({sorted(HELPERS[package])}); name a module after the family of its ops")


def test_each_reference_and_kernel_lives_in_its_records_family_module():
    problems = []
    for op_type in prototypes.op_types():
        family = prototypes.prototype(op_type).family
        module = importlib.import_module(f"aclcts.reference.{family}") if family in _modules(aclcts.reference) else None
        if module is None or op_type not in {r.op_type for r in module.OPS}:
            problems.append(f"{op_type} (family {family}): its reference is not in aclcts/reference/{family}.py")
        origin = registry.builtin_origin(op_type)
        if origin != family:
            problems.append(f"{op_type} (family {family}): its kernel is registered by aclcts/sim/kernels/{origin}.py, "
                            f"not {family}.py")
    assert not problems, "\n".join(problems)


def _modules(package) -> set[str]:
    return {m.name for m in pkgutil.iter_modules(package.__path__)}


#: The unit-test folders of the references and the kernels: test_<prefix>_<family or helper>[_<topic>].py, where the
#: helpers are the package's helper modules and its registry (the package's __init__).
TEST_FOLDERS = {"tests/reference": ("test_ref_", aclcts.reference),
                "tests/sim/kernels": ("test_kernel_", aclcts.sim.kernels)}


@pytest.mark.parametrize("folder", sorted(TEST_FOLDERS))
def test_unit_test_files_are_named_after_a_family_or_a_helper(folder):
    prefix, package = TEST_FOLDERS[folder]
    allowed = FAMILIES | HELPERS[package] | {"registry"}
    strays = []
    for path in sorted((ROOT / folder).glob("test_*.py")):
        words = path.stem.removeprefix(prefix).split("_")
        named = any("_".join(words[:n]) in allowed for n in range(1, len(words) + 1))
        if not path.stem.startswith(prefix) or not named:
            strays.append(path.name)
    assert not strays, (f"{folder}: {strays} are not named {prefix}<family or helper>[_<topic>].py "
                        f"(families {sorted(FAMILIES)}, helpers {sorted(HELPERS[package] | {'registry'})})")


def _case_files() -> list[Path]:
    return sorted(p for p in (ROOT / "cases").rglob("*") if p.suffix in (".yaml", ".yml"))


@pytest.mark.parametrize("path", _case_files(), ids=lambda p: str(p.relative_to(ROOT / "cases")))
def test_each_case_file_lives_in_its_ops_family_folder(path):
    folder = path.relative_to(ROOT / "cases").parts[0]
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    record = prototypes.prototype(data["op"])
    assert record is not None, f"cases/{folder}/{path.name}: op {data['op']} has no record in aclcts/core/prototypes"
    assert folder == record.family or folder in CASE_FOLDERS, (
        f"cases/{folder}/{path.name}: op {data['op']} is of family {record.family}; move the file to "
        f"cases/{record.family}/")


def test_kernel_and_reference_modules_part2_restate_no_tensor_name():
    """The kernels of activation .. unary_math (and pointwise) and every reference module name no tensor of their
    family's records by a literal (a string "x", or 'x' quoted in a message) and keep no dtype tuple equal to a record
    constraint: names come from call.name(i) / the record, dtypes from the record.

    A literal that is also an attribute name of the family (CumsumD's axis, Muls's value) may name that attribute, so
    only its quoted use in a message's text is checked; a message naming an attribute says "attr 'name'"."""



    kernel_families = ["activation", "binary_math", "cast", "elementwise", "logic", "norm", "reduction", "scan",
                       "softmax", "unary_math"]
    modules = {f"aclcts/sim/kernels/{f}.py": {f} for f in kernel_families}
    modules["aclcts/sim/kernels/pointwise.py"] = {"elementwise", "activation"}
    modules.update({f"aclcts/reference/{m}.py": {m} for m in _modules(aclcts.reference) & FAMILIES})
    by_name = {code: name for code, name in JSON_TYPE_NAMES.items()}

    def dtype_names(value) -> frozenset[str] | None:
        if not isinstance(value, (tuple, list, frozenset, set)) or not value:
            return None
        names = set()
        for item in value:
            try:
                names.add(by_name[acl_data_type(np.dtype(item))])
            except (TypeError, KeyError, ValueError):
                return None
        return frozenset(names)

    problems = []
    for path, families in sorted(modules.items()):
        records = [prototypes.prototype(op) for op in prototypes.op_types()
                   if prototypes.prototype(op).family in families]
        tensor_names = {t.name for r in records for t in r.inputs + r.outputs}
        attr_names = {a.name for r in records for a in r.attrs}
        quoted = re.compile(r"(?<!attr )(?<!attribute )(['\"])(" + "|".join(map(re.escape, sorted(tensor_names)))
                            + r")\1")
        tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
        attr_keys = set()  # string literals that name an attribute: attrs["axes"], call.attr_int("axis"), ...
        for node in ast.walk(tree):
            if isinstance(node, ast.JoinedStr):
                attr_keys.update(id(part) for part in node.values)
            if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
                attr_keys.add(id(node.slice))
            if isinstance(node, ast.Call):
                callee = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
                if "attr" in callee or callee in ("get", "pop"):
                    attr_keys.update(id(a) for a in node.args[:2])
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
                continue
            if node.value in tensor_names - attr_names and id(node) not in attr_keys:
                problems.append(f"{path}:{node.lineno}: the literal {node.value!r} names a tensor of a "
                                f"{'/'.join(sorted(families))} record; take it from the record (call.name(i))")
            for match in quoted.finditer(node.value):
                problems.append(f"{path}:{node.lineno}: the text {match.group(0)} names a tensor of a "
                                f"{'/'.join(sorted(families))} record; take it from the record (call.name(i))")
        module = importlib.import_module(path[:-3].replace("/", "."))
        constraints = {}
        for r in records:
            for key, dtypes in r.types.items():
                held = frozenset(by_name[c] for c in by_name if by_name[c] in map(canonical_dtype, dtypes)
                                 and has_numpy_dtype(c))
                constraints.setdefault(held, f"{r.op_type}'s {key}")
        for node in tree.body:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(
                node, ast.AnnAssign) else []
            for target in (t for t in targets if isinstance(t, ast.Name)):
                names = dtype_names(getattr(module, target.id, None))
                if names is not None and names in constraints:
                    problems.append(f"{path}:{node.lineno}: {target.id} restates the dtypes of "
                                    f"{constraints[names]} ({sorted(names)}); let the record decide "
                                    f"(call.require_dtype(i, dtype))")
    assert not problems, "\n".join(problems)


def test_kernel_modules_part1_restate_no_tensor_name():
    """The kernels of the gather_scatter ... resize families take tensor names and dtype sets from their records:
    no string names a record's tensor in quotes (an attribute of the same name, "attr 'axis'", is the kernel's own
    word) and no module-level dtype tuple equals a record's type constraint."""



    problems = []
    for family in ("gather_scatter", "index", "reshaping", "shape", "matmul", "sparse", "conv", "pooling", "resize"):
        records = [prototypes.prototype(op) for op in prototypes.op_types()
                   if prototypes.prototype(op).family == family]
        names = sorted({t.name for r in records for t in r.inputs + r.outputs})
        constraints = {frozenset(canonical_dtype(d) for d in dtypes) for r in records for dtypes in r.types.values()}
        quoted = re.compile(r"""(?<!attr )(?<!attrs )['"](%s)['"]""" % "|".join(map(re.escape, names)))
        path = ROOT / "aclcts" / "sim" / "kernels" / f"{family}.py"
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                for match in quoted.finditer(node.value):
                    problems.append(f"aclcts/sim/kernels/{family}.py:{node.lineno}: names tensor {match.group(0)} "
                                    "(take it from the record: call.name(i), Outputs.names)")
        module = importlib.import_module(f"aclcts.sim.kernels.{family}")
        targets = [t.id for node in tree.body if isinstance(node, ast.Assign)
                   for t in node.targets if isinstance(t, ast.Name)]
        for target in targets:
            value = getattr(module, target)
            if not isinstance(value, tuple) or not value:
                continue
            try:
                dtypes = frozenset(dtype_name(np.dtype(d)) for d in value)
            except TypeError:
                continue
            if dtypes in constraints:
                problems.append(f"aclcts/sim/kernels/{family}.py: {target} = {sorted(dtypes)} restates a type "
                                f"constraint of a {family} record (let call.require_dtype(i, dtype) read it)")
    assert not problems, "\n".join(problems)


def _prose(path: Path) -> list[tuple[int, str]]:
    """The docstrings and comments of a module, each with its first line number."""

    text = path.read_text(encoding="utf-8")
    pieces = []
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            doc = ast.get_docstring(node, clean=False)
            if doc is not None:
                pieces.append((node.body[0].lineno, doc))
    pieces += [(tok.start[0], tok.string) for tok in tokenize.generate_tokens(io.StringIO(text).readline)
               if tok.type == tokenize.COMMENT]
    return pieces


def _default_spellings(attr) -> list[str]:
    """Regular expressions for the ways a prose text writes an attribute's record default (false, {-1}, DT_INT64)."""


    value = attr.default
    if attr.type == "type" and isinstance(value, int):
        name = JSON_TYPE_NAMES.get(DataType(value), "")
        return [rf"DT_{re.escape(name.upper())}\b", rf"\b{re.escape(name)}\b"] if name else []
    if isinstance(value, bool):
        return [rf"\b{str(value).lower()}\b"]
    if isinstance(value, (int, float)):
        number = f"{value:g}"
        return [rf"(?<![\w.-]){re.escape(number)}(?:\.0)?(?![\w.])"]
    if isinstance(value, str):
        return [rf"""["']?{re.escape(value)}["']?(?!\w)"""] if value else []
    if isinstance(value, tuple):
        items = r",\s*".join(re.escape(f"{v:g}" if isinstance(v, (int, float)) and not isinstance(v, bool) else
                                       str(v)) for v in value)
        return [rf"[{{\[(]\s*{items}\s*,?\s*[}}\])]"]
    return []


#: Modules whose prose speaks of other families' records than the one they are named after.
PROSE_FAMILIES = {"pointwise": {"elementwise", "activation"}}


def test_kernel_and_reference_prose_restates_no_prototype():
    """No docstring or comment of aclcts/sim/kernels or aclcts/reference restates a REG_OP prototype: no ATTR( /
    REQUIRED_ATTR( / INPUT( / OUTPUT(, no attribute name followed by its record default ("keep_dims, Bool, false",
    "keep_dims=false"), no tensor or attribute name followed by "default ..." and no tensor name followed by its dtypes
    ("x float16/float32"). The record (aclcts/core/prototypes/<family>.py) states those facts once; the module's prose
    says what it does and points to the record."""


    reg_op = re.compile(r"\b(?:(?:[A-Z]+_)*(?:ATTR|INPUT|OUTPUT)\("
                        r"|(?:REQUIRED|OPTIONAL|DYNAMIC)_(?:ATTR|INPUT|OUTPUT)\b|(?:INPUT|OUTPUT) [a-z_]+)")
    dtype_words = "|".join(sorted(set(JSON_TYPE_NAMES.values()) | {"float", "fp16", "fp32", "bf16"}, key=len,
                                  reverse=True))
    records = [prototypes.prototype(op) for op in prototypes.op_types()]
    problems = []
    for package in (aclcts.sim.kernels, aclcts.reference):
        folder = Path(package.__path__[0])
        for path in sorted(folder.glob("*.py")):
            family = path.stem
            families = PROSE_FAMILIES.get(family, {family})  # a helper module other than pointwise: no family
            own = [r for r in records if r.family in families]
            attrs = {(a.name, repr(a.default)): a for r in own for a in r.attrs}
            tensors = {t.name for r in own for t in r.inputs + r.outputs}
            names = "|".join(map(re.escape, sorted({a.name for a in attrs.values()} | tensors, key=len, reverse=True)))
            said_default = re.compile(rf"(?<![\w.])({names})\b[^.;\n]{{0,30}}?(?<!record's )\bdefault(?:s|ing)?\b")
            typed_tensor = re.compile(rf"(?<![\w.'\"])({'|'.join(map(re.escape, sorted(tensors)))})\s+"
                                      rf"(?:{dtype_words})\b(?:\s*/\s*(?:{dtype_words})\b)*")
            where = f"{folder.relative_to(ROOT)}/{path.name}"
            for line, text in _prose(path):
                patterns = [(reg_op, "a REG_OP prototype line")]
                if own:
                    patterns += [(said_default, "a default"), (typed_tensor, "a tensor's dtypes")]
                for pattern, what in patterns:
                    for match in pattern.finditer(text):
                        problems.append(f"{where}:{line}: {match.group(0)!r} restates {what}")
                for attr in attrs.values():
                    for spelling in [] if attr.default is REQUIRED else _default_spellings(attr):
                        restated = re.search(rf"(?<![\w.]){re.escape(attr.name)}\s*(?:,\s*\w+\s*)?[,=]\s*{spelling}",
                                             text)
                        if restated:
                            problems.append(f"{where}:{line}: {restated.group(0)!r} restates {attr.name}'s record "
                                            "default")
    assert not problems, ("the records in aclcts/core/prototypes/<family>.py state prototypes; say what the module "
                          "does and point to the record:\n" + "\n".join(problems))


def test_a_distinctive_tensor_name_is_written_only_in_its_record():
    """A tensor name no attribute shares and no generic word spells (one with an underscore: sorted_sequence,
    segment_ids, x1_shape, ...) appears in aclcts only in the record module that states it; code, messages and
    prose elsewhere take it from the record or say what the tensor is. (A keyword argument of the same spelling,
    NumPy's np.pad(..., constant_values=...), is not a name of a tensor.)"""
    tensors, attributes = set(), set()
    for op_type in prototypes.op_types():
        record = prototypes.prototype(op_type)
        tensors |= {t.name for t in record.inputs + record.outputs}
        attributes |= {a.name for a in record.attrs}
    distinctive = sorted(name for name in tensors - attributes if "_" in name)
    pattern = re.compile(r"\b(" + "|".join(distinctive) + r")\b(?!=)")
    found = [f"{path.relative_to(ROOT)}:{number}: {match.group(1)}"
             for path in sorted((ROOT / "aclcts").rglob("*.py")) if "prototypes" not in path.parts
             for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
             for match in pattern.finditer(line)]
    assert not found, "tensor names written outside their records:\n" + "\n".join(found)
