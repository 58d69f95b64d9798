"""The run report format: JSON Lines records, an append-and-fsync writer and a validating reader."""

from __future__ import annotations

import json
import math
import os
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aclcts.core.files import refuse_special
from aclcts.core.inputs import MAX_NESTING_DEPTH, MAX_REPORT_BYTES, DuplicateKeyError, read_text, too_deep, unique_keys
#: Record kinds in the order they appear in a report.
KINDS = ("run", "environment", "case", "summary")
#: Statuses a case record can have: flaky failed and then passed on a rerun; crashed took its xdist worker down.
STATUSES = ("passed", "failed", "skipped", "xfailed", "xpassed", "error", "flaky", "crashed")
#: Statuses counted as failing.
FAILING = ("failed", "error", "crashed")
#: Statuses of a case that ran and finally passed.
PASSING = ("passed", "flaky")
#: Run-record fields added after the first format, each with the JSON types it may have; older reports lack them.
OPTIONAL_RUN_FIELDS: dict[str, tuple[type, ...]] = {
    "settings": (dict,), "expectations": (list,), "dependencies": (dict,), "timeout": (dict, type(None)),
}


#: JSON names of the Python types a field is checked against.
JSON_TYPES = {dict: "an object", list: "an array", str: "a string", int: "an integer", type(None): "null"}


class ReportError(Exception):
    """A report cannot be read or written; the message names the file (and line) and what was expected."""


def plain(value: Any) -> Any:
    """A value as strict-JSON-able data: non-finite floats become "NaN" / "Infinity" / "-Infinity"."""
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if hasattr(value, "item"):
        return plain(value.item())
    return str(value)


def encode(record: dict[str, Any]) -> bytes:
    """One record as one line of strict JSON, newline included."""
    return (json.dumps(plain(record), allow_nan=False, separators=(",", ":")) + "\n").encode("utf-8")


class ReportWriter:
    """Appends records to a JSON Lines file, one write and one fsync per record."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        try:
            if self.path.parent != Path():
                self.path.parent.mkdir(parents=True, exist_ok=True)
            self._fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_APPEND, 0o666)
        except OSError as exc:
            raise ReportError(f"{self.path}: cannot write the report: {exc.strerror or exc}") from None

    def write(self, record: dict[str, Any]) -> None:
        """Append one record and make it durable."""
        data = encode(record)
        written = os.write(self._fd, data)
        if written != len(data):
            raise ReportError(f"{self.path}: short write of a report record ({written} of {len(data)} bytes)")
        os.fsync(self._fd)

    def close(self) -> None:
        """Close the file."""
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1


def write_report(path: str | os.PathLike[str], records: list[dict[str, Any]]) -> None:
    """Write a whole report atomically (a temporary file renamed over the target)."""
    target = Path(path)
    try:
        refuse_special(target)
    except OSError as exc:
        raise ReportError(f"{target}: cannot write the report: {exc.strerror}") from None
    temporary = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    writer = ReportWriter(temporary)
    try:
        for record in records:
            writer.write(record)
    finally:
        writer.close()
    try:
        os.replace(temporary, target)
    except OSError as exc:
        temporary.unlink(missing_ok=True)
        raise ReportError(f"{target}: cannot write the report: {exc.strerror or exc}") from None


@dataclass
class Report:
    """A report read back: its run record, environments, cases by id and summary (None if the run was cut short)."""

    path: str
    run: dict[str, Any]
    environments: list[dict[str, Any]] = field(default_factory=list)
    cases: dict[str, dict[str, Any]] = field(default_factory=dict)
    summary: dict[str, Any] | None = None


def _require(where: str, record: dict[str, Any], name: str, kinds: type | tuple[type, ...]) -> None:
    if name not in record:
        raise ReportError(f"{where}: {record['record']} record has no field {name!r}")
    if not isinstance(record[name], kinds):
        expected = " or ".join(JSON_TYPES.get(kind, kind.__name__) for kind in (kinds if isinstance(kinds, tuple)
                                                                                  else (kinds,)))
        raise ReportError(f"{where}: field {name!r} of the {record['record']} record has the wrong type "
                          f"({type(record[name]).__name__}), expected {expected}")


def _check(where: str, record: Any, line_number: int, seen_run: bool) -> None:
    if not isinstance(record, dict):
        raise ReportError(f"{where}: expected a JSON object, got {type(record).__name__}")
    kind = record.get("record")
    if kind not in KINDS:
        raise ReportError(f"{where}: field 'record' is {kind!r}, expected one of {', '.join(KINDS)}")
    if line_number == 1 and kind != "run":
        raise ReportError(f"{where}: the first record must be the run record, got {kind!r}")
    if kind == "run" and seen_run:
        raise ReportError(f"{where}: a second run record")
    if kind == "run":
        _require(where, record, "version", str)
        _require(where, record, "seed", int)
        for name, kinds in OPTIONAL_RUN_FIELDS.items():
            if name in record:
                _require(where, record, name, kinds)
    if kind == "case":
        _require(where, record, "id", str)
        _require(where, record, "status", str)
        if record["status"] not in STATUSES:
            raise ReportError(f"{where}: case status {record['status']!r}, expected one of {', '.join(STATUSES)}")
        if "metrics" in record and not isinstance(record["metrics"], dict):
            raise ReportError(f"{where}: field 'metrics' of the case record must be an object")
        if record.get("category") is not None and not isinstance(record["category"], str):
            raise ReportError(f"{where}: field 'category' of the case record must be a string or null")


def _too_deep(where: str) -> ReportError:
    return ReportError(f"{where}: expected at most {MAX_NESTING_DEPTH} levels of nesting in a record, got more")


def read_report(path: str | os.PathLike[str]) -> Report:
    """Read and validate a report; raise ReportError naming file:line for anything malformed."""
    name = str(path)
    text = read_text(path, "report", MAX_REPORT_BYTES, ReportError)
    report: Report | None = None
    for number, line in enumerate(text.splitlines(), 1):
        where = f"{name}:{number}"
        if not line.strip():
            raise ReportError(f"{where}: empty line, expected one JSON record per line")
        try:
            record = json.loads(line, object_pairs_hook=unique_keys)
        except json.JSONDecodeError as exc:
            raise ReportError(f"{where}: not valid JSON ({exc.msg} at column {exc.colno})") from None
        except DuplicateKeyError as exc:
            raise ReportError(f"{where}: expected every key once in a record, got {exc.key!r} twice") from None
        except RecursionError:
            raise _too_deep(where) from None
        if too_deep(record, line):
            raise _too_deep(where)
        _check(where, record, number, report is not None)
        if report is not None and report.summary is not None:
            raise ReportError(f"{where}: a {record['record']} record after the summary record")
        kind = record["record"]
        if kind == "run":
            report = Report(name, record)
        elif kind == "environment":
            report.environments.append(record)
        elif kind == "case":
            if record["id"] in report.cases:
                raise ReportError(f"{where}: case {record['id']!r} appears twice in the report")
            report.cases[record["id"]] = record
        else:
            report.summary = record
    if report is None:
        raise ReportError(f"{name}: empty report, expected a run record on line 1")
    return report


def count_statuses(cases: list[dict[str, Any]]) -> dict[str, int]:
    """Number of cases per status, every status present (zeros included)."""
    counts = Counter(case["status"] for case in cases)
    return {status: counts.get(status, 0) for status in STATUSES}
