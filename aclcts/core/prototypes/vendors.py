"""Custom operators' prototypes in the OPP vendor folders, as CANN installs custom op packages.

Layout: $ASCEND_OPP_PATH/vendors/<vendor>/op_proto/aclcts/<OpType>.json, one record per op (`record_text` writes
one, `read_record` reads one). The vendors are searched in the order of `load_priority` in
$ASCEND_OPP_PATH/vendors/config.ini (CANN's file), then the other vendor folders by name; the first record of an op
type wins. A vendor prototype takes precedence over a built-in one, as CANN's custom operators do. Records a run was
given (`use_record`: those under the folders `pytest --cases` names) come before every OPP folder.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

from aclcts.core.prototypes.spec import ATTR_TYPES, REQUIRED, Attr, Prototype, Sample, op

#: Where a vendor keeps its aclcts prototype records, below $ASCEND_OPP_PATH/vendors/<vendor>/.
RECORD_FOLDER = Path("op_proto") / "aclcts"
#: The keys a record must have, then those it may have (what the suite runs by default, and a custom op's modules).
REQUIRED_KEYS = ("op", "inputs", "outputs", "types")
OPTIONAL_KEYS = ("attrs", "source", "policy", "shape_rule", "samples", "sample_shapes", "sample_attrs",
                 "sample_ranges", "reference", "kernel")
RECORD_KEYS = REQUIRED_KEYS + OPTIONAL_KEYS
MAX_RECORD_BYTES = 1 << 20
#: Records given to this process (use_record), by op type: searched before every OPP folder.
_USED: dict[str, Prototype] = {}


class VendorRecordError(ValueError):
    """A prototype record cannot be read; the message names the file and the field."""


def record_text(proto: Prototype) -> str:
    """The JSON record of a prototype (the form `aclcts new-op` writes)."""
    def tensors(items):
        return ", ".join(t.name + {"optional": "?", "dynamic": "*"}.get(t.kind, "") + ":" + t.types for t in items)
    attrs = [{"name": a.name, "type": a.type, **({} if a.default is REQUIRED else {"default": a.default})}
             for a in proto.attrs]
    record = {"op": proto.op_type, "inputs": tensors(proto.inputs), "outputs": tensors(proto.outputs),
              "types": {k: list(v) for k, v in proto.types.items()}, "attrs": attrs, "source": proto.source}
    optional = {"policy": proto.policy, "shape_rule": proto.shape_rule,
                "samples": {name: [s.low, s.high] for name, s in proto.samples.items()},
                "sample_shapes": [[list(shape) for shape in case] for case in proto.sample_shapes],
                "sample_attrs": dict(proto.sample_attrs),
                "sample_ranges": {name: [list(pair) for pair in pairs] for name, pairs in proto.sample_ranges.items()},
                "reference": proto.reference, "kernel": proto.kernel}
    record.update((key, value) for key, value in optional.items() if value)
    return "{\n" + ",\n".join(f" {json.dumps(key)}: {json.dumps(value)}" for key, value in record.items()) + "\n}\n"


def _field(record: dict, key: str, kind: type, path: Path) -> object:
    value = record.get(key)
    if not isinstance(value, kind):
        raise VendorRecordError(f"{path}: {key}: expected a {kind.__name__}, got {value!r}")
    return value


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _shape(value: object) -> bool:
    return isinstance(value, list) and all(_is_int(d) and d >= 0 for d in value)


def _pairs(value: object) -> bool:
    return isinstance(value, list) and all(isinstance(p, list) and len(p) == 2 and all(_is_int(d) for d in p)
                                           and 1 <= p[0] <= p[1] for p in value)


#: The optional keys holding a mapping name -> value: what each value must be, and how it reads.
_MAPPINGS: dict[str, tuple[Callable[[object], bool], str]] = {
    "samples": (lambda v: isinstance(v, list) and len(v) == 2 and all(_is_number(x) for x in v) and v[0] <= v[1],
                "input name -> [low, high] (numbers, low <= high)"),
    "sample_attrs": (lambda v: True, "attribute name -> value"),
    "sample_ranges": (_pairs, "tensor name -> one [min, max] pair per dim (1 <= min <= max)"),
}


def _samples(record: dict, path: Path) -> dict[str, object]:
    """The record's default-case keys, checked: keyword arguments of spec.op."""
    found: dict[str, object] = {}
    for key in ("policy", "shape_rule", "reference", "kernel"):
        found[key] = record.get(key, "")
        if not isinstance(found[key], str):
            raise VendorRecordError(f"{path}: {key}: expected a string, got {found[key]!r}"[:400])
    for key, (valid, expected) in _MAPPINGS.items():
        value = record.get(key, {})
        if not isinstance(value, dict) or not all(valid(v) for v in value.values()):
            raise VendorRecordError(f"{path}: {key}: expected a mapping {expected}, got {value!r}"[:400])
        found[key] = dict(value)
    found["samples"] = {name: Sample(low, high) for name, (low, high) in found["samples"].items()}
    found["sample_ranges"] = {name: tuple(tuple(p) for p in pairs) for name, pairs in found["sample_ranges"].items()}
    shapes = record.get("sample_shapes", [])
    if not isinstance(shapes, list) or not all(isinstance(case, list) and all(_shape(s) for s in case)
                                               for case in shapes):
        raise VendorRecordError(f"{path}: sample_shapes: expected a list of shape sets, one shape (a list of "
                                f"dims >= 0) per required input, got {shapes!r}"[:400])
    found["sample_shapes"] = tuple(tuple(tuple(s) for s in case) for case in shapes)
    return found


def read_record(path: Path) -> Prototype:
    """The prototype in one record file; VendorRecordError naming the file and field if it is not valid."""
    try:
        if path.stat().st_size > MAX_RECORD_BYTES:
            raise VendorRecordError(f"{path}: expected at most {MAX_RECORD_BYTES} bytes")
        record = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise VendorRecordError(f"{path}: not a readable JSON prototype record ({exc})") from None
    if not isinstance(record, dict):
        raise VendorRecordError(f"{path}: expected a JSON object with keys {', '.join(RECORD_KEYS)}")
    unknown = sorted(set(record) - set(RECORD_KEYS))
    if unknown:
        raise VendorRecordError(f"{path}: {unknown[0]}: unknown key; expected {', '.join(RECORD_KEYS)}")
    types = _field(record, "types", dict, path)
    if not all(isinstance(v, list) and all(isinstance(d, str) for d in v) for v in types.values()):
        raise VendorRecordError(f"{path}: types: expected lists of dtype names")
    attrs = []
    for k, item in enumerate(record.get("attrs", [])):
        if not isinstance(item, dict) or item.get("type") not in ATTR_TYPES or not isinstance(item.get("name"), str):
            raise VendorRecordError(f"{path}: attrs[{k}]: expected {{name, type, default?}} with type one of "
                                    f"{', '.join(ATTR_TYPES)}")
        attrs.append(Attr(item["name"], item["type"], item.get("default", REQUIRED)))
    proto = op(str(_field(record, "op", str, path)), str(_field(record, "inputs", str, path)),
               str(_field(record, "outputs", str, path)), {k: tuple(v) for k, v in types.items()}, tuple(attrs),
               str(record.get("source", "")), **_samples(record, path))
    undeclared = sorted({t.types for t in proto.inputs + proto.outputs} - set(proto.types))
    if undeclared:
        raise VendorRecordError(f"{path}: types: no entry for constraint {undeclared[0]}")
    names = {t.name for t in proto.inputs + proto.outputs}
    for key in ("samples", "sample_ranges"):
        unknown = sorted(set(getattr(proto, key)) - names)
        if unknown:
            raise VendorRecordError(f"{path}: {key}: {unknown[0]!r} is not a tensor of the record; expected one of "
                                    f"{', '.join(sorted(names))}")
    return proto


def records_under(folder: Path) -> list[Path]:
    """The record files beneath folder (any .../op_proto/aclcts/<OpType>.json, as in an OPP vendor folder), sorted."""
    return sorted(p for p in folder.rglob(f"{RECORD_FOLDER.as_posix()}/*.json") if p.is_file())


def _read_named(path: Path) -> Prototype:
    """The record at path, which must describe the op type its file is named after."""
    proto = read_record(path)
    if proto.op_type != path.stem:
        raise VendorRecordError(f"{path}: op: expected {path.stem!r} (the file name), got {proto.op_type!r}")
    return proto


def use_record(path: Path) -> Prototype:
    """Read the record at path and make it the op's record in this process, before every OPP folder's."""
    proto = _read_named(path)
    _USED[proto.op_type] = proto
    return proto


def _vendor_order(vendors: Path) -> list[Path]:
    folders = sorted(p for p in vendors.iterdir() if p.is_dir()) if vendors.is_dir() else []
    priority: list[str] = []
    config = vendors / "config.ini"
    if config.is_file():
        for line in config.read_text(encoding="utf-8", errors="replace").splitlines():
            key, _, value = line.partition("=")
            if key.strip() == "load_priority":
                priority = [v.strip() for v in value.split(",") if v.strip()]
    first = [vendors / name for name in priority if (vendors / name).is_dir()]
    return first + [f for f in folders if f not in first]


def vendor_prototype(op_type: str, opp_path: str | None = None) -> Prototype | None:
    """The prototype use_record gave op_type, else its vendor prototype under opp_path (default $ASCEND_OPP_PATH), or
    None."""
    if op_type in _USED and opp_path is None:
        return _USED[op_type]
    root = opp_path if opp_path is not None else os.environ.get("ASCEND_OPP_PATH", "")
    if not root:
        return None
    for vendor in _vendor_order(Path(root) / "vendors"):
        path = vendor / RECORD_FOLDER / f"{op_type}.json"
        if path.is_file():
            return _read_named(path)
    return None
