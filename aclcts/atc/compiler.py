"""`atc --singleop` for the simulator: compile a single-op JSON file into one model file per operator."""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from aclcts.atc.opcheck import checked
from aclcts.atc.parser import (Diagnostic, ParsedOp, SingleOpFileError, load_singleop_json, parse_document,
                               read_singleop_text)
from aclcts.core.files import file_mode, unsafe_name, write_atomically


@dataclass
class CompileResult:
    """What one compilation did: the model files written, the errors and the warnings."""

    written: list[Path] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    operators: list[ParsedOp] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """Whether every operator compiled."""
        return not self.errors


def _read(json_path: Path, result: CompileResult) -> str | None:
    try:
        return read_singleop_text(json_path)
    except SingleOpFileError as exc:
        result.errors.append(exc.diagnostic.message)
    return None


def _confined(op: ParsedOp, source: Path, output_dir: Path) -> ParsedOp:
    """op, or op without its model and with an error naming the `op` field if its file would leave output_dir."""
    if op.model is None or op.file_name is None:
        return op
    why = unsafe_name(op.file_name)
    if why is None:  # one component, neither '.' nor '..': output_dir / name lies inside output_dir
        return op
    where = f"{source}:{op.line}" if op.line else str(source)
    message = (f'{where}: element {op.position} (op {json.dumps(op.op_type)}): op: the model file name derived from '
               f"the operator type cannot be written inside --output ({why}); expected an operator type without "
               "'/' or NUL; no model written")
    return dataclasses.replace(op, model=None, file_name=None, errors=op.errors + (Diagnostic("", message),))


def _write_models(ops: list[ParsedOp], output_dir: Path, result: CompileResult) -> None:
    try:
        output_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        result.errors.append(f"--output: {output_dir}: cannot create the directory ({exc.strerror})")
        return
    written_by: dict[str, int] = {}
    mode = file_mode()
    for op in ops:
        if op.model is None:
            continue
        if op.file_name in written_by:
            result.warnings.append(f"element {op.position} (op \"{op.op_type}\"): warning: {op.file_name} "
                                   f"replaces the model of element {written_by[op.file_name]}")
        path = output_dir / op.file_name
        try:
            write_atomically(path, op.model.to_bytes(), mode=mode)
        except OSError as exc:
            result.errors.append(f"--output: {path}: cannot be written ({exc.strerror})")
            continue
        written_by[op.file_name] = op.position
        result.written.append(path)


def compile_singleop(json_path: str | os.PathLike, output_dir: str | os.PathLike, soc_version: str, *,
                     ir_io_counts: Mapping[str, tuple[int, int]] | None = None) -> CompileResult:
    """Compile every operator of a single-op JSON file into `output_dir`; failing operators get no model.

    An E10032 error (wrong JSON value type) stops the whole file, as in ATC: then no model is written. Every operator
    is checked against its prototype (atc.opcheck): an op type with no prototype and no registered kernel fails.
    """
    result = CompileResult()
    if not soc_version:
        result.errors.append("--soc_version: must not be empty")
        return result
    json_path = Path(json_path)
    text = _read(json_path, result)
    if text is None:
        return result
    try:
        doc = load_singleop_json(text, str(json_path))
    except SingleOpFileError as exc:
        result.errors.append(exc.diagnostic.message)
        return result
    ops = parse_document(doc, str(json_path), soc_version=soc_version, ir_io_counts=ir_io_counts)
    ops = [checked(_confined(op, json_path, Path(output_dir)), doc, str(json_path)) for op in ops]
    result.operators = ops
    for op in ops:
        result.errors.extend(d.message for d in op.errors)
        result.warnings.extend(op.warnings)
    if not ops:
        result.warnings.append(f"{json_path}: warning: the file describes no operator; no model written")
    if any(d.code == "E10032" for op in ops for d in op.errors):
        result.errors.append(f"{json_path}: a value of the wrong JSON type stops the whole file; no model "
                             "written [E10032]")
        return result
    _write_models(ops, Path(output_dir), result)
    return result


def compile_elements(elements: list[dict], folder: str | os.PathLike, soc_version: str,
                     json_name: str = "op_list.json") -> CompileResult:
    """Write single-op JSON elements to folder/json_name and compile them into folder/models."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    source = folder / json_name
    source.write_text(json.dumps(elements, indent=1), encoding="utf-8")
    return compile_singleop(source, folder / "models", soc_version)
