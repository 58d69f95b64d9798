"""Cloned op types for scale experiments: N new op types in a scratch copy of the repository, each a copy of an
existing op's prototype, reference, kernel and case file under a new name (`aclcts bench ci --clone-ops N`)."""

from __future__ import annotations

import importlib
import pkgutil
import re
from pathlib import Path

import yaml

from aclcts.core import prototypes as prototype_package
from aclcts.reference import OP_TYPES as REFERENCE_OP_TYPES
from aclcts.sim.kernels import registered_op_types

#: Files the clones add to the copy, relative to its root, and the lines appended to two package modules.
PROTOTYPES_MODULE = Path("aclcts/core/prototypes/clones.py")
REFERENCE_MODULE = Path("aclcts/reference/clones.py")
KERNELS_MODULE = Path("aclcts/sim/kernels/clones.py")
CASES_FOLDER = Path("cases/clones")


def _prototype_modules() -> dict[str, str]:
    """The prototype family module of every op type, by op type."""
    found: dict[str, str] = {}
    for info in pkgutil.iter_modules(prototype_package.__path__):
        module = importlib.import_module(f"{prototype_package.__name__}.{info.name}")
        for proto in getattr(module, "PROTOTYPES", ()):
            found[proto.op_type] = info.name
    return found


def _case_files(root: Path) -> dict[str, Path]:
    """The first static case file of every op type in root/cases, by op type."""
    found: dict[str, Path] = {}
    for path in sorted((root / "cases").rglob("*.yaml")):
        if "dynamic" in path.relative_to(root / "cases").parts:
            continue
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        if isinstance(data, dict) and isinstance(data.get("op"), str):
            found.setdefault(data["op"], path)
    return found


def sources(root: Path) -> list[tuple[str, str, Path]]:
    """(op type, prototype module, case file) of every op that has a prototype, a reference, a kernel and a case
    file, sorted by op type."""
    modules = _prototype_modules()
    files = _case_files(root)
    kernels = set(registered_op_types())
    return [(op, modules[op], files[op]) for op in sorted(files)
            if op in modules and op in REFERENCE_OP_TYPES and op in kernels]


def add_clones(root: Path, count: int) -> list[str]:
    """Add count cloned op types to the repository copy at root (sources taken in turn); their names."""
    available = sources(root)
    if not available:
        raise ValueError(f"{root}: no op type with a prototype, a reference, a kernel and a case file to clone")
    chosen = [(f"{op}Clone{i:03d}", op, module, path)
              for i, (op, module, path) in ((i, available[i % len(available)]) for i in range(count))]
    pairs = ", ".join(f"({new!r}, {op!r})" for new, op, _, _ in chosen)
    modules = sorted({module for _, _, module, _ in chosen})
    (root / PROTOTYPES_MODULE).write_text(
        '"""Cloned prototypes of a scale experiment (aclcts bench ci --clone-ops)."""\n\n'
        "import dataclasses\n\n"
        + "".join(f"from aclcts.core.prototypes import {m}\n" for m in modules)
        + f"\nCLONES = ({pairs},)\n"
        + f"_BY_TYPE = {{p.op_type: p for m in ({', '.join(modules)},) for p in m.PROTOTYPES}}\n"
        + "PROTOTYPES = tuple(dataclasses.replace(_BY_TYPE[source], op_type=new) for new, source in CLONES)\n",
        encoding="utf-8")
    (root / REFERENCE_MODULE).write_text(
        '"""Cloned references of a scale experiment (aclcts bench ci --clone-ops)."""\n\n'
        "import dataclasses\n\n"
        "from aclcts.reference import reference\n\n"
        f"CLONES = ({pairs},)\n"
        "OPS = tuple(dataclasses.replace(reference(source), op_type=new) for new, source in CLONES)\n",
        encoding="utf-8")
    with (root / "aclcts/reference/__init__.py").open("a", encoding="utf-8") as handle:
        handle.write("\nfrom aclcts.reference import clones as _clones  # noqa: E402\n\n"
                     "_REGISTRY.update({op.op_type: op for op in _clones.OPS})\n"
                     "OP_TYPES = tuple(sorted(_REGISTRY))\n")
    (root / KERNELS_MODULE).write_text(
        '"""Cloned kernels of a scale experiment (aclcts bench ci --clone-ops)."""\n\n'
        "from aclcts.sim.kernels.registry import builtin, get_kernel\n\n"
        f"CLONES = ({pairs},)\n"
        "for _new, _source in CLONES:\n"
        "    builtin(_new, get_kernel(_source).compute, get_kernel(_source).infer_shape)\n",
        encoding="utf-8")
    with (root / "aclcts/sim/kernels/__init__.py").open("a", encoding="utf-8") as handle:
        handle.write("\nfrom aclcts.sim.kernels import clones  # noqa: E402,F401\n")
    (root / CASES_FOLDER).mkdir(parents=True, exist_ok=True)
    for new, op, _, path in chosen:
        text = re.sub(rf"^op: *{re.escape(op)}\s*$", f"op: {new}", path.read_text(encoding="utf-8"), count=1,
                      flags=re.MULTILINE)
        (root / CASES_FOLDER / f"{new}.yaml").write_text(text, encoding="utf-8")
    return [new for new, _, _, _ in chosen]
