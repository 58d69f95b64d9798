"""Merging shard reports into one qualification report, and shard allure-results folders into one."""

from __future__ import annotations

import filecmp
import shutil
from pathlib import Path
from typing import Any

from aclcts.report.records import FAILING, Report, ReportError, count_statuses

#: Run-record fields every shard of one qualification must agree on.
AGREED_FIELDS = ("version", "seed", "backend")
#: pytest exit statuses that mean a shard did not run to the end normally (interrupted, internal, usage).
ABNORMAL_EXITS = (2, 3, 4)


def check_compatible(reports: list[Report]) -> None:
    """Raise ReportError naming two files and the field if the shards' suite versions, seeds or backends differ."""
    first = reports[0]
    for other in reports[1:]:
        for name in AGREED_FIELDS:
            if first.run.get(name) != other.run.get(name):
                raise ReportError(f"cannot merge {first.path} and {other.path}: run field {name!r} differs "
                                  f"({first.run.get(name)!r} vs {other.run.get(name)!r})")
    for report in reports:
        if report.summary is None:
            raise ReportError(f"cannot merge {report.path}: it has no summary record (the run did not finish)")


def _exit_status(reports: list[Report], cases: list[dict[str, Any]]) -> int:
    abnormal = [r.summary["exit_status"] for r in reports if r.summary.get("exit_status") in ABNORMAL_EXITS]
    if abnormal:
        return abnormal[0]
    if not cases:
        return 5
    return 1 if any(case["status"] in FAILING for case in cases) else 0


def merge_reports(reports: list[Report]) -> list[dict[str, Any]]:
    """The records of one report holding every shard's cases; ReportError if shards disagree or overlap."""
    if not reports:
        raise ReportError("no reports to merge")
    check_compatible(reports)
    owner: dict[str, str] = {}
    cases: list[dict[str, Any]] = []
    environments: list[dict[str, Any]] = []
    for report in reports:
        for case_id, case in report.cases.items():
            if case_id in owner:
                raise ReportError(f"cannot merge: case {case_id!r} is in both {owner[case_id]} and {report.path}")
            owner[case_id] = report.path
            cases.append(case)
        for environment in report.environments:
            tagged = {**environment, "host": report.run.get("hostname")}
            if tagged not in environments:
                environments.append(tagged)
    first = reports[0].run
    run = {
        "record": "run", **{name: first.get(name) for name in AGREED_FIELDS},
        "cases": first.get("cases"), "model_dir": first.get("model_dir"),
        "hostname": sorted({str(r.run.get("hostname")) for r in reports}),
        "start": min(str(r.run.get("start")) for r in reports),
        "shard": None, "merged_from": [r.path for r in reports], "shards": [r.run.get("shard") for r in reports],
    }
    summary = {
        "record": "summary", "counts": count_statuses(cases), "total": len(cases),
        "wall_time": max(float(r.summary.get("wall_time", 0.0)) for r in reports),
        "shard_time": round(sum(float(r.summary.get("wall_time", 0.0)) for r in reports), 3),
        "exit_status": _exit_status(reports, cases),
    }
    return [run, *environments, *cases, summary]


def _files(folder: Path) -> list[Path]:
    if not folder.is_dir():
        raise ReportError(f"{folder}: not an allure-results folder")
    return sorted(p for p in folder.rglob("*") if p.is_file())


def merge_allure(folders: list[str], out: str) -> int:
    """Copy every file of the allure-results folders into out; ReportError on a name clash with other content."""
    target = Path(out)
    chosen: dict[Path, Path] = {}
    for folder in map(Path, folders):
        for path in _files(folder):
            relative = path.relative_to(folder)
            earlier = chosen.get(relative)
            if earlier is None and (target / relative).exists():
                earlier = target / relative
            if earlier is not None and not filecmp.cmp(earlier, path, shallow=False):
                raise ReportError(f"allure results clash: {earlier} and {path} have the same name and different content")
            chosen.setdefault(relative, path)
    try:
        for relative, path in chosen.items():
            (target / relative).parent.mkdir(parents=True, exist_ok=True)
            if path != target / relative:
                shutil.copyfile(path, target / relative)
    except OSError as exc:
        raise ReportError(f"{target}: cannot write the merged allure results: {exc.strerror or exc}") from None
    return len(chosen)
