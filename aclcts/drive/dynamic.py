"""Provisioning dynamic-shape cases (cases with -1 dims or [-2]): their single-op JSON, compiled with `aclcts atc`
and loaded from memory; running them is aclcts.drive.executor's job."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aclcts.atc import generate_singleop_json
from aclcts.cases import Case
from aclcts.drive.partial_models import by_position, compile_accepted


@dataclass(frozen=True)
class DynamicModels:
    """The dynamic cases' compiled model files, and the cases whose model did not compile with the reason."""

    written: list[Path]
    refused: list[tuple[list[Case], str]]


def singleop_json(cases: Iterable[Case], soc: str) -> list[dict[str, Any]]:
    """The single-op JSON array of the dynamic cases' models, for `atc --singleop` (real ATC or `aclcts atc`)."""
    return generate_singleop_json(list(dict.fromkeys(c.op_model(soc) for c in cases)))


def compile_cases(cases: Iterable[Case], folder: Path, soc: str) -> DynamicModels:
    """Compile the dynamic cases' models with `aclcts atc` into folder/models, leaving out (and naming) those it
    refuses; partial_models.SharedCompileError for a problem no model owns."""
    users: dict[Any, list[Case]] = {}
    for case in cases:
        users.setdefault(case.op_model(soc), []).append(case)
    elements = generate_singleop_json(list(users))
    compiled = compile_accepted(elements, folder, soc, "dynamic_ops.json")
    owners = by_position(elements, list(users.values()))
    return DynamicModels(compiled.written, [(owners[p], reason) for p, reason in sorted(compiled.refused.items())])


def load_models(acl: Any, paths: list[Path]) -> None:
    """acl.op.load every model file from memory (bytes_to_ptr of its content)."""
    for path in paths:
        data = path.read_bytes()
        ret = acl.op.load(acl.util.bytes_to_ptr(data), len(data))
        if ret != 0:
            raise RuntimeError(f"acl.op.load of {path.name} returned {ret}")
