"""Compiling a set of op models of which ATC may refuse some: the refused elements are named, the rest is compiled."""

from __future__ import annotations

import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from aclcts.atc import compile_elements, generate_singleop_json
from aclcts.core.opmodel import OpModel

#: The start of an ATC message naming the temporary JSON file, its line and the element.
_WHERE = re.compile(r'^.*?:\d+: element \d+ \(op "[^"]*"\): ')
#: The start of generate_singleop_json's message naming the model.
_MODEL = re.compile(r'^model \d+ \(op "[^"]*"\): ')


T = TypeVar("T")


class SharedCompileError(Exception):
    """A compile problem no single element owns (no SoC, an unwritable output folder): every model fails alike."""


@dataclass
class PartialModels:
    """What compiling a set of single-op JSON elements gave: the model files, and the refused elements' reasons."""

    folder: Path
    written: list[Path] = field(default_factory=list)
    #: Position in the JSON array -> ATC's first message for that element, without the file-and-element prefix.
    refused: dict[int, str] = field(default_factory=dict)


def one_line(message: str) -> str:
    """An ATC message without the temporary file, line and element it starts with."""
    return _WHERE.sub("", message)


def writable_json(models: list[OpModel]) -> tuple[list[dict], list[OpModel], dict[OpModel, str]]:
    """The single-op JSON elements of the models that can be written as JSON, those models, and why each other one
    cannot (checked one by one only when the whole set fails); SharedCompileError for a problem of the set."""
    try:
        return generate_singleop_json(models), models, {}
    except ValueError:
        pass
    kept, unwritable = [], {}
    for model in models:
        try:
            generate_singleop_json([model])
        except ValueError as own:
            unwritable[model] = _MODEL.sub("", str(own))
        else:
            kept.append(model)
    try:
        return generate_singleop_json(kept), kept, unwritable
    except ValueError as exc:  # the models together (their order), which no single model owns
        raise SharedCompileError(str(exc)) from None


def compile_accepted(elements: list[dict], folder: Path, soc: str, json_name: str = "op_list.json") -> PartialModels:
    """Compile elements into folder/models; if ATC refuses some operators, compile the others again without them (one
    compile for a clean set). SharedCompileError when a problem belongs to no operator or outlives their removal."""
    result = compile_elements(elements, folder, soc, json_name)
    if result.ok:
        return PartialModels(folder / "models", list(result.written))
    refused = {op.position: one_line(op.errors[0].message) for op in result.operators if op.errors}
    shared = [position for position in refused if "op" not in elements[position]]
    if not refused or shared:
        raise SharedCompileError(refused[shared[0]] if shared else result.errors[0])
    kept = [element for position, element in enumerate(elements) if position not in refused]
    shutil.rmtree(folder / "models", ignore_errors=True)
    if not any("op" in element for element in kept):
        (folder / "models").mkdir(parents=True, exist_ok=True)
        return PartialModels(folder / "models", [], refused)
    again = compile_elements(kept, folder, soc, json_name)
    if not again.ok:
        raise SharedCompileError(again.errors[0])
    return PartialModels(folder / "models", list(again.written), refused)


def by_position(elements: list[dict], owners: list[T]) -> list[T | None]:
    """The owner of each element: the next of owners (in order) for an operator element, None for a compile_flag."""
    remaining = iter(owners)
    return [next(remaining) if "op" in element else None for element in elements]
