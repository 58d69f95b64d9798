"""The golden store: curated edge cases with fixed inputs, expected outputs, checksums and provenance.

A golden folder holds definitions.yaml (written by people), manifest.json and the .npz files it lists. The
manifest is the store: a reader takes only the files it lists, each checked against its sha256, and ignores
every other file. `generate` switches the whole store in one step, so that a writer killed at any moment leaves
either the old store or the new one, each passing `verify`:

1. every .npz the new store needs is written first (each atomically, flushed to the disk) under a name that
   the old manifest lists for other content never: a case whose content is unchanged keeps its file, any other
   content goes to `<name>-<first 12 hex digits of its sha256>.npz`, a name that fixes its content;
2. the new manifest replaces the old one in one rename: this is the switch;
3. only then are .npz files the new manifest does not list, and temporary files of killed writers, removed.

A kill before step 2 leaves the old manifest and every file it lists untouched (new files are extra, and
ignored); a kill after it leaves the new manifest with every file it lists written. Stores written before this
layout (`<name>.npz`) are read the same way and keep their files while their content is unchanged.
"""

from __future__ import annotations

import hashlib
import io
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import ml_dtypes
import numpy as np

import aclcts
from aclcts.cases import Case, CaseFileError, TensorCase
from aclcts.cases.case import DTYPE_BY_NAME
from aclcts.cases.schema import EXACT_BECAUSE
from aclcts.core.inputs import MAX_YAML_BYTES, read_text
from aclcts.core.yamlpos import YamlSyntaxError, line_of, load_with_lines
from aclcts.core.files import inside, write_atomically
from aclcts.core.opmodel import canonical_attr
from aclcts.reference import reference

DEFINITIONS = "definitions.yaml"
MANIFEST = "manifest.json"
GENERATOR = f"aclcts.judge.golden {aclcts.__version__}"
#: A golden case's name: it becomes a file name inside the golden folder.
NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,99}")
#: Temporary files a killed atomic write of this store can leave behind (core.files.write_atomically).
_TEMPORARY = re.compile(r"\.(?:.+\.npz|manifest\.json)\.[^.]+\.tmp")


class GoldenError(Exception):
    """A golden file is missing, corrupted or tampered with; the message says which and what to do."""


@dataclass(frozen=True, eq=False)
class GoldenCase:
    """One curated edge case: the case to run, its exact inputs, why it exists and its comparison policy."""

    name: str
    why: str
    case: Case
    inputs: tuple[np.ndarray, ...]
    #: For an exact case: the docs/ heading demanding exactness, and why ("" for a case with another policy).
    exact_because: str = ""


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def load_definitions(folder: Path) -> list[GoldenCase]:
    """The curated golden cases of a golden folder's definitions.yaml."""
    source = folder / DEFINITIONS
    text = read_text(source, "golden definitions", MAX_YAML_BYTES, CaseFileError)
    try:
        data, lines = load_with_lines(text, str(source))
    except YamlSyntaxError as exc:
        raise CaseFileError(f"{source}: {exc}") from None
    if not isinstance(data, list):
        raise CaseFileError(f"{source}:1: expected a list of golden cases")
    cases: list[GoldenCase] = []
    for index, item in enumerate(data):
        path = (index,)
        where = f"{source}:{line_of(lines, path)}"
        try:
            _check_name(item, folder, {c.name for c in cases})
            cases.append(_golden_case(item, str(source)))
        except _NameError as exc:
            raise CaseFileError(f"{source}:{line_of(lines, (index, 'name'))}: golden case {index}: name: {exc}") \
                from None
        except (KeyError, TypeError, ValueError) as exc:
            raise CaseFileError(f"{where}: golden case {index}: {exc}") from None
    return cases


class _NameError(Exception):
    """A golden case's name cannot name its file inside the golden folder, or is taken."""


def _check_name(item: Any, folder: Path, taken: set[str]) -> None:
    name = item.get("name") if isinstance(item, dict) else None
    if not isinstance(name, str) or NAME.fullmatch(name) is None or name in (".", ".."):
        raise _NameError(f"expected 1 to 100 letters, digits, '_', '.' or '-' not starting with '.' or '-' (it "
                         f"names a file inside the golden folder), got {name!r}")
    if not inside(folder, folder / f"{name}.npz"):
        raise _NameError(f"{name!r} would name a file outside the golden folder")
    if name in taken:
        raise _NameError(f"{name!r} is defined twice")


def _input_array(tensor: TensorCase, values: Any) -> np.ndarray:
    """A golden input in its dtype: integers and bools straight from the file's values (exact up to 64 bits), floats
    through float64."""
    if tensor.np_dtype.kind in "iub":
        return np.array(values, dtype=tensor.np_dtype).reshape(tensor.shape)
    return np.array(values, dtype=np.float64).reshape(tensor.shape).astype(tensor.np_dtype)


def _check_exact_because(policy: Any, because: Any) -> None:
    """An exact judgement (the default policy) needs the documentation line that demands it (issue 40: no golden
    case is judged more strictly than the documentation)."""
    if policy == "exact" and not (isinstance(because, str) and EXACT_BECAUSE.fullmatch(because)):
        raise ValueError(f"exact_because: the exact policy needs the documentation line demanding exactness, as "
                         f"'docs/<page>.md#<heading>: <why>', got {because!r}; or name a policy the documented "
                         "standard sets (e.g. policy: \"ulp:1\")")


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
    with np.errstate(all="ignore"):
        arrays = tuple(_input_array(t, v) for t, v in inputs)
    shapes = ref.shape([t.shape for t in in_cases], list(arrays), {a.name: a.value for a in attrs})
    outputs = tuple(TensorCase(name, DTYPE_BY_NAME[dtypes[name]], tuple(shape))
                    for name, shape in zip(item["outputs"], shapes))
    policy = item.get("policy", "exact")
    _check_exact_because(policy, item.get("exact_because"))
    case = Case(f"golden-{item['name']}", op, item["family"], source, item.get("source", ""), item.get("reference", op),
                in_cases, outputs, attrs, ("execute_v2",), {}, policy)
    return GoldenCase(item["name"], item["why"], case, arrays, item.get("exact_because", "") if policy == "exact" else "")


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
    """Switch the store to one rebuilt from the definitions (the module docstring's three steps); return the names.

    CaseFileError for a bad definition, GoldenError if the folder cannot be written (the old store is unchanged).
    """
    try:
        return _generate(folder)
    except OSError as exc:
        raise GoldenError(f"{folder}: cannot write the golden store ({exc.strerror}); the old store is unchanged") \
            from None


def _generate(folder: Path) -> list[str]:
    old = _listed_files(folder)
    entries = {}
    for golden in load_definitions(folder):
        inputs = list(golden.inputs)
        ref = reference(golden.case.reference)
        expected = ref.compute(inputs, golden.case.reference_attr_values(), [t.np_dtype for t in golden.case.outputs])
        arrays = {f"input_{t.name}": a for t, a in zip(golden.case.inputs, inputs)}
        arrays.update({f"expected_{t.name}": np.asarray(e) for t, e in zip(golden.case.outputs, expected)})
        payload = _pack(arrays)
        digest = _sha256(payload)
        file_name = _store_file(folder, old.get(golden.name), golden.name, payload, digest)
        entries[golden.name] = {
            "file": file_name,
            "sha256": digest,
            "op": golden.case.op,
            "why": golden.why,
            "inputs": "explicit values in definitions.yaml (no random draw)",
            "dtypes": {key: str(array.dtype) for key, array in arrays.items()},
            "generator": GENERATOR,
            "numpy": np.__version__,
            "ml_dtypes": ml_dtypes.__version__,
        }
    manifest = json.dumps({"generator": GENERATOR, "entries": entries}, indent=2, sort_keys=True) + "\n"
    write_atomically(folder / MANIFEST, manifest.encode("utf-8"), durable=True)
    _remove_unlisted(folder, {entry["file"] for entry in entries.values()})
    return sorted(entries)


def _listed_files(folder: Path) -> dict[str, str]:
    """The file the current manifest lists for each case name (none if it is missing or unreadable)."""
    try:
        entries = json.loads((folder / MANIFEST).read_text(encoding="utf-8")).get("entries", {})
        return {name: entry["file"] for name, entry in entries.items() if isinstance(entry.get("file"), str)}
    except (OSError, ValueError, AttributeError, TypeError):
        return {}


def _store_file(folder: Path, listed: str | None, name: str, payload: bytes, digest: str) -> str:
    """The file name that holds payload in the new store, writing it unless a file already holds exactly it."""
    if listed is not None and _holds(folder / listed, folder, digest):
        return listed
    file_name = f"{name}-{digest[:12]}.npz"
    if not _holds(folder / file_name, folder, digest):
        write_atomically(folder / file_name, payload, durable=True)
    return file_name


def _holds(path: Path, folder: Path, digest: str) -> bool:
    try:
        return inside(folder, path) and path.is_file() and _sha256(path.read_bytes()) == digest
    except OSError:
        return False


def _remove_unlisted(folder: Path, listed: set[str]) -> None:
    """Remove the .npz files the manifest does not list and temporary files of killed writers (ignored if left); only
    regular files (a folder, FIFO, device or symbolic link of that name is left as it is)."""
    for path in folder.iterdir():
        if path.is_symlink() or not path.is_file():
            continue
        if (path.suffix == ".npz" and path.name not in listed) or _TEMPORARY.fullmatch(path.name):
            try:
                path.unlink()
            except OSError:
                pass


def verify(folder: Path) -> list[str]:
    """Check every file the manifest lists against its sha256 (GoldenError naming the first problem); the names."""
    names = sorted(_manifest(folder).get("entries", {}))
    for name in names:
        load_expected(folder, name)
    return names


def _manifest(folder: Path) -> dict[str, Any]:
    manifest_path = folder / MANIFEST
    try:
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise GoldenError(f"{manifest_path}: unreadable golden manifest ({exc}); regenerate with --update-golden") \
            from None
    if not isinstance(manifest, dict) or not isinstance(manifest.get("entries", {}), dict):
        raise GoldenError(f"{manifest_path}: a golden manifest is an object with 'entries'; regenerate with "
                          "--update-golden")
    return manifest


def load_expected(folder: Path, name: str) -> dict[str, np.ndarray]:
    """The stored arrays of one golden case, after checking the file against the manifest's sha256."""
    manifest_path = folder / MANIFEST
    entry = _manifest(folder).get("entries", {}).get(name)
    if entry is None:
        raise GoldenError(f"{manifest_path}: no entry for golden case {name!r}; regenerate with --update-golden")
    if not isinstance(entry, dict) or not all(isinstance(entry.get(k), str) for k in ("file", "sha256")) \
            or not isinstance(entry.get("dtypes", {}), dict):
        raise GoldenError(f"{manifest_path}: entry {name!r}: expected 'file' and 'sha256' strings and a 'dtypes' "
                          "object; regenerate with --update-golden")
    path = folder / entry["file"]
    if not inside(folder, path):
        raise GoldenError(f"{manifest_path}: entry {name!r}: file {entry['file']!r} lies outside the golden folder; "
                          "restore the manifest from version control or regenerate with --update-golden")
    if path.exists() and not path.is_file():
        raise GoldenError(f"{path}: golden file is not a regular file; restore it from version control or "
                          "regenerate deliberately with --update-golden")
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
    return _unpack(data, entry.get("dtypes", {}))
