"""Cloned op types for scale experiments: N new op types in a scratch copy of the repository, each a copy of an
existing op's record, reference, kernel and case file under a new name (`aclcts bench ci --clone-ops N`), added as
one new family `clones` the way any family is: aclcts/core/prototypes/clones.py, aclcts/reference/clones.py,
aclcts/sim/kernels/clones.py and cases/clones/, found by name."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from aclcts.core.prototypes import prototype
from aclcts.reference import OP_TYPES as REFERENCE_OP_TYPES
from aclcts.sim.kernels import registered_op_types

#: Files the clones add to the copy, relative to its root.
PROTOTYPES_MODULE = Path("aclcts/core/prototypes/clones.py")
REFERENCE_MODULE = Path("aclcts/reference/clones.py")
KERNELS_MODULE = Path("aclcts/sim/kernels/clones.py")
CASES_FOLDER = Path("cases/clones")


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


def sources(root: Path) -> list[tuple[str, Path]]:
    """(op type, case file) of every op that has a record, a reference, a kernel and a case file, sorted by op
    type."""
    files = _case_files(root)
    kernels = set(registered_op_types())
    return [(op, files[op]) for op in sorted(files)
            if prototype(op) is not None and op in REFERENCE_OP_TYPES and op in kernels]


def add_clones(root: Path, count: int) -> list[str]:
    """Add count cloned op types to the repository copy at root (sources taken in turn); their names."""
    available = sources(root)
    if not available:
        raise ValueError(f"{root}: no op type with a prototype, a reference, a kernel and a case file to clone")
    chosen = [(f"{op}Clone{i:03d}", op, path)
              for i, (op, path) in ((i, available[i % len(available)]) for i in range(count))]
    pairs = ", ".join(f"({new!r}, {op!r})" for new, op, _ in chosen)
    families = sorted({prototype(op).family for _, op, _ in chosen})
    (root / PROTOTYPES_MODULE).write_text(
        '"""Cloned records of a scale experiment (aclcts bench ci --clone-ops)."""\n\n'
        "import dataclasses\n\n"
        + "".join(f"from aclcts.core.prototypes import {f}\n" for f in families)
        + '\nPOLICY = "elementwise"\nSHAPE_RULE = "each"\n'
        + f"CLONES = ({pairs},)\n"
        + f"_BY_TYPE = {{p.op_type: dataclasses.replace(p, policy=p.policy or m.POLICY, "
          f"shape_rule=p.shape_rule or m.SHAPE_RULE) for m in ({', '.join(families)},) for p in m.PROTOTYPES}}\n"
        + "PROTOTYPES = tuple(dataclasses.replace(_BY_TYPE[source], op_type=new) for new, source in CLONES)\n",
        encoding="utf-8")
    (root / REFERENCE_MODULE).write_text(
        '"""Cloned references of a scale experiment (aclcts bench ci --clone-ops)."""\n\n'
        "import dataclasses\n\n"
        + "".join(f"from aclcts.reference import {f}\n" for f in families)
        + f"\nCLONES = ({pairs},)\n"
        + f"_BY_TYPE = {{r.op_type: r for m in ({', '.join(families)},) for r in m.OPS}}\n"
        + "OPS = tuple(dataclasses.replace(_BY_TYPE[source], op_type=new) for new, source in CLONES)\n",
        encoding="utf-8")
    (root / KERNELS_MODULE).write_text(
        '"""Cloned kernels of a scale experiment (aclcts bench ci --clone-ops)."""\n\n'
        + "".join(f"from aclcts.sim.kernels import {f}  # noqa: F401  (registers the sources)\n" for f in families)
        + "from aclcts.sim.kernels.registry import builtin, get_kernel\n\n"
        + f"CLONES = ({pairs},)\n"
        + "for _new, _source in CLONES:\n"
        + "    builtin(_new, get_kernel(_source).compute, get_kernel(_source).infer_shape)\n",
        encoding="utf-8")
    (root / CASES_FOLDER).mkdir(parents=True, exist_ok=True)
    for new, op, path in chosen:
        text = re.sub(rf"^op: *{re.escape(op)}\s*$", f"op: {new}", path.read_text(encoding="utf-8"), count=1,
                      flags=re.MULTILINE)
        (root / CASES_FOLDER / f"{new}.yaml").write_text(text, encoding="utf-8")
    return [new for new, _, _ in chosen]
