"""Every op type the suite knows has a CANN prototype (aclcts.core.prototypes), and the reference, the simulator
kernels and the case files agree with it: names, tensor order and kinds, attribute names and defaults, dtypes.

Each failure names the op, the file to fix and what is missing or differs.
"""

import ast
import importlib
import inspect
import pkgutil
from collections import defaultdict
from pathlib import Path

import pytest
import yaml

import aclcts.core.prototypes as prototypes
import aclcts.reference
from aclcts.core.dtypes import JSON_TYPE_NAMES
from aclcts.core.prototypes.spec import ATTR_TYPES, REQUIRED, canonical_dtype
from aclcts.reference import OP_TYPES, reference
from aclcts.reference.base import REQUIRED as REF_REQUIRED
from aclcts.sim.kernels import registry

ROOT = Path(__file__).resolve().parents[2]
PROTO_DIR = Path(prototypes.__file__).parent
DTYPE_NAMES = set(JSON_TYPE_NAMES.values())


def _builtin_kernels() -> dict[str, registry.Kernel]:
    """The simulator's own kernels by op type (kernels added with register_kernel left out)."""
    found = {}
    for op_type in registry.registered_op_types():
        kernel = registry.builtin_kernel(op_type)
        if kernel is not None:
            found[op_type] = kernel
    return found


def _module_file(obj) -> str:
    return str(Path(inspect.getsourcefile(obj)).relative_to(ROOT))


def _reference_file(op_type: str) -> str:
    """The reference family module defining op_type."""
    for info in pkgutil.iter_modules(aclcts.reference.__path__):
        module = importlib.import_module(f"aclcts.reference.{info.name}")
        if any(r.op_type == op_type for r in getattr(module, "OPS", ())):
            return _module_file(module)
    return "aclcts/reference"


def test_every_reference_op_and_every_built_in_kernel_has_a_prototype():
    known = set(prototypes.op_types())
    lacking = [f"{op} (reference {_reference_file(op)})" for op in OP_TYPES if op not in known]
    lacking += [f"{op} (kernel {_module_file(k.compute)})" for op, k in sorted(_builtin_kernels().items())
                if op not in known]
    assert not lacking, ("no prototype in aclcts/core/prototypes/<family>.py for: " + "; ".join(lacking))


def test_every_prototype_is_well_formed():
    problems = []
    for op_type in prototypes.op_types():
        proto = prototypes.prototype(op_type)
        for t in proto.inputs + proto.outputs:
            if t.types not in proto.types:
                problems.append(f"{op_type}: tensor {t.name} names type constraint {t.types!r}, not in types "
                                f"{sorted(proto.types)}")
        for name, dtypes in proto.types.items():
            unknown = sorted({canonical_dtype(d) for d in dtypes} - DTYPE_NAMES)
            if unknown or not dtypes:
                problems.append(f"{op_type}: type constraint {name} has unknown dtype names {unknown} or none; "
                                f"expected names from {sorted(DTYPE_NAMES)}")
        for a in proto.attrs:
            if a.type not in ATTR_TYPES:
                problems.append(f"{op_type}: attribute {a.name} has type {a.type!r}; expected one of {ATTR_TYPES}")
        for tensor, attr in proto.dtype_from.items():
            if proto.attr(attr) is None or tensor not in [t.name for t in proto.inputs + proto.outputs]:
                problems.append(f"{op_type}: dtype_from {tensor} <- {attr} names no such tensor or attribute")
        if not proto.source:
            problems.append(f"{op_type}: no source (cite the REG_OP header)")
    assert not problems, "\n".join(problems)


def _ref_tensors(names: tuple[str, ...]) -> list[tuple[str, str]]:
    return [(n.rstrip("?*"), "optional" if n.endswith("?") else "dynamic" if n.endswith("*") else "required")
            for n in names]


def _frozen(value):
    """value with lists as tuples, so that [0.0] and (0.0,) compare (and hash) alike."""
    return tuple(_frozen(v) for v in value) if isinstance(value, (list, tuple)) else value


def _proto_default(value):
    return "REQUIRED" if value is REQUIRED else _frozen(value)


def _ref_default(value):
    return "REQUIRED" if value is REF_REQUIRED else _frozen(value)


def test_the_reference_agrees_with_the_prototype_on_tensors_and_attributes():
    """A reference default of None means the reference leaves the attribute's default to the operator."""
    problems = []
    for op_type in OP_TYPES:
        proto, ref = prototypes.prototype(op_type), reference(op_type)
        if proto is None:
            continue
        where = f"{op_type} (reference {_reference_file(op_type)}, prototype {proto.source.split(' REG_OP')[0]})"
        for side, ref_names, proto_tensors in (("inputs", ref.inputs, proto.inputs),
                                               ("outputs", ref.outputs, proto.outputs)):
            want = [(t.name, t.kind) for t in proto_tensors]
            if _ref_tensors(ref_names) != want:
                problems.append(f"{where}: {side} {list(ref_names)} differ from the prototype's {want}")
        proto_attrs = {a.name: _proto_default(a.default) for a in proto.attrs}
        for name, default in ref.attrs.items():
            if name not in proto_attrs:
                problems.append(f"{where}: the reference has attribute {name}, the prototype has "
                                f"{sorted(proto_attrs)}")
            elif default is not None and _ref_default(default) != proto_attrs[name]:
                problems.append(f"{where}: attribute {name} defaults to {_ref_default(default)!r} in the reference, "
                                f"{proto_attrs[name]!r} in the prototype")
        missing = sorted(set(proto_attrs) - set(ref.attrs))
        if missing:
            problems.append(f"{where}: the reference lacks the prototype's attribute(s) {missing}")
    assert not problems, "\n".join(problems)


def _attr_reads(path: Path) -> list[tuple[str, object, int]]:
    """(attribute name, literal default or REQUIRED, line) of every call.attr_*("name", ...) in a kernel module."""
    reads = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr.startswith("attr_") and node.args
                and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
            continue
        required = any(k.arg == "required" and isinstance(k.value, ast.Constant) and k.value.value
                       for k in node.keywords)
        if required:
            default = REQUIRED
        elif len(node.args) > 1:
            try:
                default = ast.literal_eval(node.args[1])
            except ValueError:
                continue  # a computed default: not comparable here
            default = _frozen(default)
        else:
            continue
        reads.append((node.args[0].value, default, node.lineno))
    return reads


def test_the_kernels_read_only_prototype_attributes_with_the_prototype_defaults():
    """Per kernel module: every attribute a kernel reads by a literal name belongs to a prototype of an op that module
    registers, and a literal default (or required=True) matches that prototype. A kernel's fallback for a REQUIRED
    attribute is never used (the ATC refuses a model without it, and a run matches the model's attributes), so it is
    not compared."""
    by_module: dict[Path, list[str]] = defaultdict(list)
    for op_type, kernel in _builtin_kernels().items():
        by_module[Path(inspect.getsourcefile(kernel.compute))].append(op_type)
    problems = []
    for path, ops in sorted(by_module.items()):
        declared: dict[str, set] = defaultdict(set)
        for op_type in ops:
            proto = prototypes.prototype(op_type)
            for a in proto.attrs if proto else ():
                declared[a.name].add(_proto_default(a.default))
        for name, default, line in _attr_reads(path):
            where = f"{path.relative_to(ROOT)}:{line} (ops {', '.join(sorted(ops))})"
            if name not in declared:
                problems.append(f"{where}: reads attribute {name!r}, which no prototype of these ops declares")
            elif _proto_default(default) not in declared[name] and declared[name] != {"REQUIRED"}:
                problems.append(f"{where}: reads {name!r} with default {_proto_default(default)!r}; the prototypes "
                                f"say {sorted(map(repr, declared[name]))}")
    assert not problems, "\n".join(problems)


def _case_files() -> list[Path]:
    return sorted(p for p in (ROOT / "cases").rglob("*") if p.suffix in (".yaml", ".yml"))


@pytest.mark.parametrize("path", _case_files(), ids=lambda p: str(p.relative_to(ROOT / "cases")))
def test_every_op_of_the_case_library_has_a_prototype(path):
    """What `aclcts atc` would refuse for every model of the file: a built-in op type without a prototype."""
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    if ":" in str(data.get("reference", "")):
        return  # a custom op: its prototype comes from an OPP vendor record
    assert prototypes.prototype(data["op"]) is not None, (
        f"{path.relative_to(ROOT)}: op {data['op']} has no prototype; add it to aclcts/core/prototypes/<family>.py")
