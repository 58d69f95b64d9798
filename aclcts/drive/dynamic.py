"""Provisioning dynamic-shape cases (cases with -1 dims or [-2]): their single-op JSON, compiled with `aclcts atc`
and loaded from memory; running them is aclcts.drive.executor's job."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from aclcts.atc import compile_elements, generate_singleop_json
from aclcts.cases import Case


def singleop_json(cases: Iterable[Case], soc: str) -> list[dict[str, Any]]:
    """The single-op JSON array of the dynamic cases' models, for `atc --singleop` (real ATC or `aclcts atc`)."""
    return generate_singleop_json(list(dict.fromkeys(c.op_model(soc) for c in cases)))


def compile_cases(cases: Iterable[Case], folder: Path, soc: str) -> list[Path]:
    """Compile the dynamic cases' models with `aclcts atc` into folder/models; the .om paths."""
    result = compile_elements(singleop_json(cases, soc), folder, soc, "dynamic_ops.json")
    if not result.ok:
        raise RuntimeError(f"{folder}: compiling the dynamic models failed:\n" + "\n".join(result.errors))
    return list(result.written)


def load_models(acl: Any, paths: list[Path]) -> None:
    """acl.op.load every model file from memory (bytes_to_ptr of its content)."""
    for path in paths:
        data = path.read_bytes()
        ret = acl.op.load(acl.util.bytes_to_ptr(data), len(data))
        if ret != 0:
            raise RuntimeError(f"acl.op.load of {path.name} returned {ret}")
