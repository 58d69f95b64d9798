"""Custom operators' prototypes in the OPP vendor folders, as CANN installs custom op packages.

Layout: $ASCEND_OPP_PATH/vendors/<vendor>/op_proto/aclcts/<OpType>.json, one record per op (`record_text` writes
one, `read_record` reads one). The vendors are searched in the order of `load_priority` in
$ASCEND_OPP_PATH/vendors/config.ini (CANN's file), then the other vendor folders by name; the first record of an op
type wins. A vendor prototype takes precedence over a built-in one, as CANN's custom operators do.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from aclcts.core.prototypes.spec import ATTR_TYPES, REQUIRED, Attr, Prototype, op

#: Where a vendor keeps its aclcts prototype records, below $ASCEND_OPP_PATH/vendors/<vendor>/.
RECORD_FOLDER = Path("op_proto") / "aclcts"
RECORD_KEYS = ("op", "inputs", "outputs", "types", "attrs", "source")
MAX_RECORD_BYTES = 1 << 20


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
    return json.dumps(record, indent=1) + "\n"


def _field(record: dict, key: str, kind: type, path: Path) -> object:
    value = record.get(key)
    if not isinstance(value, kind):
        raise VendorRecordError(f"{path}: {key}: expected a {kind.__name__}, got {value!r}")
    return value


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
               str(record.get("source", "")))
    undeclared = sorted({t.types for t in proto.inputs + proto.outputs} - set(proto.types))
    if undeclared:
        raise VendorRecordError(f"{path}: types: no entry for constraint {undeclared[0]}")
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
    """The vendor prototype of op_type under opp_path (default $ASCEND_OPP_PATH), or None."""
    root = opp_path if opp_path is not None else os.environ.get("ASCEND_OPP_PATH", "")
    if not root:
        return None
    for vendor in _vendor_order(Path(root) / "vendors"):
        path = vendor / RECORD_FOLDER / f"{op_type}.json"
        if path.is_file():
            proto = read_record(path)
            if proto.op_type != op_type:
                raise VendorRecordError(f"{path}: op: expected {op_type!r} (the file name), got {proto.op_type!r}")
            return proto
    return None
