"""The golden store: curated edge cases with fixed inputs, expected outputs, checksums and provenance."""

from __future__ import annotations

import hashlib
import io
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import ml_dtypes
import numpy as np

import aclcts
from aclcts.cases import Case, CaseFileError, TensorCase
from aclcts.cases.case import DTYPE_BY_NAME
from aclcts.core.yamlpos import YamlSyntaxError, line_of, load_with_lines
from aclcts.core.files import write_atomically
from aclcts.core.opmodel import canonical_attr
from aclcts.reference import reference

DEFINITIONS = "definitions.yaml"
MANIFEST = "manifest.json"
GENERATOR = f"aclcts.judge.golden {aclcts.__version__}"


class GoldenError(Exception):
    """A golden file is missing, corrupted or tampered with; the message says which and what to do."""


@dataclass(frozen=True, eq=False)
class GoldenCase:
    """One curated edge case: the case to run, its exact inputs, why it exists and its comparison policy."""

    name: str
    why: str
    case: Case
    inputs: tuple[np.ndarray, ...]


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def load_definitions(folder: Path) -> list[GoldenCase]:
    """The curated golden cases of a golden folder's definitions.yaml."""
    source = folder / DEFINITIONS
    try:
        data, lines = load_with_lines(source.read_text(encoding="utf-8"), str(source))
    except (OSError, YamlSyntaxError) as exc:
        raise CaseFileError(f"{source}: {exc}") from None
    if not isinstance(data, list):
        raise CaseFileError(f"{source}:1: expected a list of golden cases")
    cases = []
    for index, item in enumerate(data):
        path = (index,)
        where = f"{source}:{line_of(lines, path)}"
        try:
            cases.append(_golden_case(item, str(source)))
        except (KeyError, TypeError, ValueError) as exc:
            raise CaseFileError(f"{where}: golden case {index}: {exc}") from None
    return cases


def _golden_case(item: dict[str, Any], source: str) -> GoldenCase:
    op = item["op"]
    dtypes = item["dtypes"]
    inputs = []
    for name, spec in item["inputs"].items():
        values = spec["values"]
        shape = tuple(spec.get("shape", [len(values)] if isinstance(values, list) else []))
        const = tuple(np.ravel(np.array(values, dtype=np.float64)).tolist()) if spec.get("const") else None
        inputs.append((TensorCase(name, DTYPE_BY_NAME[dtypes[name]], shape, const), values))
    attrs = tuple(canonical_attr(n, s["type"], s["value"]) for n, s in item.get("attrs", {}).items())
    ref = reference(item.get("reference", op))
    in_cases = tuple(t for t, _ in inputs)
    values = [np.array(v, dtype=np.float64).reshape(t.shape) for t, v in inputs]
    with np.errstate(all="ignore"):
        arrays = tuple(v.astype(t.np_dtype) for t, v in zip(in_cases, values))
    shapes = ref.shape([t.shape for t in in_cases], list(arrays), {a.name: a.value for a in attrs})
    outputs = tuple(TensorCase(name, DTYPE_BY_NAME[dtypes[name]], tuple(shape))
                    for name, shape in zip(item["outputs"], shapes))
    case = Case(f"golden-{item['name']}", op, item["family"], source, item.get("source", ""), item.get("reference", op),
                in_cases, outputs, attrs, ("execute_v2",), {}, item.get("policy", "exact"))
    return GoldenCase(item["name"], item["why"], case, arrays)


def _pack(arrays: dict[str, np.ndarray]) -> bytes:
    buffer = io.BytesIO()
    stored = {}
    for key, array in arrays.items():
        width = np.dtype(f"u{array.dtype.itemsize}") if array.dtype.kind in "fV" or "float8" in array.dtype.name \
            or array.dtype.name == "bfloat16" else None
        stored[key] = np.ascontiguousarray(array).view(width) if width is not None else array
    np.savez(buffer, **stored)
    return buffer.getvalue()


def _unpack(data: bytes, dtypes: dict[str, str]) -> dict[str, np.ndarray]:
    with np.load(io.BytesIO(data), allow_pickle=False) as archive:
        return {key: archive[key].view(np.dtype(dtypes[key])) if key in dtypes else archive[key]
                for key in archive.files}


def generate(folder: Path) -> list[str]:
    """Rewrite every golden file and the manifest from the definitions (atomically); return the names written."""
    entries = {}
    for golden in load_definitions(folder):
        inputs = list(golden.inputs)
        ref = reference(golden.case.reference)
        expected = ref.compute(inputs, golden.case.attr_values(), [t.np_dtype for t in golden.case.outputs])
        arrays = {f"input_{t.name}": a for t, a in zip(golden.case.inputs, inputs)}
        arrays.update({f"expected_{t.name}": np.asarray(e) for t, e in zip(golden.case.outputs, expected)})
        payload = _pack(arrays)
        file_name = f"{golden.name}.npz"
        write_atomically(folder / file_name, payload)
        entries[golden.name] = {
            "file": file_name,
            "sha256": _sha256(payload),
            "op": golden.case.op,
            "why": golden.why,
            "inputs": "explicit values in definitions.yaml (no random draw)",
            "dtypes": {key: str(array.dtype) for key, array in arrays.items()},
            "generator": GENERATOR,
            "numpy": np.__version__,
            "ml_dtypes": ml_dtypes.__version__,
        }
    manifest = json.dumps({"generator": GENERATOR, "entries": entries}, indent=2, sort_keys=True) + "\n"
    write_atomically(folder / MANIFEST, manifest.encode("utf-8"))
    return sorted(entries)


def load_expected(folder: Path, name: str) -> dict[str, np.ndarray]:
    """The stored arrays of one golden case, after checking the file against the manifest's sha256."""
    manifest_path = folder / MANIFEST
    try:
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise GoldenError(f"{manifest_path}: unreadable golden manifest ({exc}); regenerate with --update-golden") from None
    entry = manifest.get("entries", {}).get(name)
    if entry is None:
        raise GoldenError(f"{manifest_path}: no entry for golden case {name!r}; regenerate with --update-golden")
    path = folder / entry["file"]
    try:
        data = path.read_bytes()
    except OSError:
        raise GoldenError(f"{path}: golden file is missing; regenerate deliberately with --update-golden") from None
    digest = _sha256(data)
    if digest != entry["sha256"]:
        raise GoldenError(
            f"{path}: golden file is corrupted or was modified (sha256 {digest[:16]}…, manifest says "
            f"{entry['sha256'][:16]}…); it is not regenerated automatically — restore it from version control "
            "or regenerate deliberately with --update-golden"
        )
    return _unpack(data, entry["dtypes"])
