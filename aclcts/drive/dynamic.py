"""Provisioning dynamic-shape cases (cases with -1 dims or [-2]): their single-op JSON, compiled with `aclcts atc`
and loaded from memory; running them is aclcts.drive.executor's job."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aclcts.cases import Case
from aclcts.drive.partial_models import by_position, compile_accepted, writable_json


@dataclass(frozen=True)
class DynamicModels:
    """The dynamic cases' compiled model files, and the cases whose model did not compile with the reason."""

    written: list[Path]
    refused: list[tuple[list[Case], str]]


def compile_cases(cases: Iterable[Case], folder: Path, soc: str) -> DynamicModels:
    """Compile the dynamic cases' models with `aclcts atc` into folder/models, leaving out (and naming) those it
    refuses; partial_models.SharedCompileError for a problem no model owns."""
    users: dict[Any, list[Case]] = {}
    for case in cases:
        users.setdefault(case.op_model(soc), []).append(case)
    elements, models, unwritable = writable_json(list(users))
    compiled = compile_accepted(elements, folder, soc, "dynamic_ops.json")
    owners = by_position(elements, [users[m] for m in models])
    refused = [(users[m], reason) for m, reason in unwritable.items()]
    return DynamicModels(compiled.written, refused + [(owners[p], r) for p, r in sorted(compiled.refused.items())])


def load_models(acl: Any, paths: list[Path]) -> None:
    """acl.op.load every model file from memory (bytes_to_ptr of its content)."""
    for path in paths:
        data = path.read_bytes()
        ret = acl.op.load(acl.util.bytes_to_ptr(data), len(data))
        if ret != 0:
            raise RuntimeError(f"acl.op.load of {path.name} returned {ret}")
