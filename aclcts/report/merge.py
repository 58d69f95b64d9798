"""Merging shard reports into one qualification report, and shard allure-results folders into one."""

from __future__ import annotations

import filecmp
import shutil
from pathlib import Path
from typing import Any

from aclcts.core.inputs import MAX_YAML_BYTES, read_text
from aclcts.report.completeness import ABNORMAL_EXITS, incomplete_reason
from aclcts.report.records import FAILING, Report, ReportError, count_statuses

#: Run-record fields every shard of one qualification must agree on.
AGREED_FIELDS = ("version", "seed", "backend")
#: Run-record fields describing a shard's host set-up: kept once when the shards agree, per file when they differ.
SETUP_FIELDS = ("settings", "dependencies", "timeout")
#: The exit status a merged report gets when it is partial (a shard missing or cut short).
PARTIAL_EXIT = 2


def _digests(report: Report) -> list[str | None]:
    return [entry.get("sha256") for entry in report.run.get("expectations") or [] if isinstance(entry, dict)]


def check_compatible(reports: list[Report]) -> None:
    """Raise ReportError naming two files and the field if suite versions, seeds, backends or expectations differ."""
    first = reports[0]
    for other in reports[1:]:
        for name in AGREED_FIELDS:
            if first.run.get(name) != other.run.get(name):
                raise ReportError(f"cannot merge {first.path} and {other.path}: run field {name!r} differs "
                                  f"({first.run.get(name)!r} vs {other.run.get(name)!r})")
        if _digests(first) != _digests(other):
            raise ReportError(f"cannot merge {first.path} and {other.path}: they used different expectations files "
                              f"(sha256 {_digests(first)} vs {_digests(other)})")


def _shard(report: Report) -> tuple[int, int] | None:
    spelled = report.run.get("shard")
    if spelled is None:
        return None
    try:
        k, n = (int(part) for part in str(spelled).split("/"))
    except ValueError:
        raise ReportError(f"{report.path}: run field 'shard' is {spelled!r}, expected K/N or null") from None
    if not 1 <= k <= n:
        raise ReportError(f"{report.path}: run field 'shard' is {spelled!r}, expected 1 <= K <= N")
    return k, n


def missing_shards(reports: list[Report]) -> tuple[list[int], int]:
    """Shard numbers of the split absent from reports, and the split's count (0 for unsharded reports).

    ReportError when sharded and unsharded reports are mixed, the shards belong to different splits, or a shard
    is given twice.
    """
    shards = {report.path: _shard(report) for report in reports}
    split = {path: shard for path, shard in shards.items() if shard is not None}
    if not split:
        return [], 0
    if len(split) != len(shards):
        whole = next(path for path, shard in shards.items() if shard is None)
        path, (k, n) = next(iter(split.items()))
        raise ReportError(f"cannot merge {path} (shard {k}/{n}) with {whole} (not a shard)")
    if len({n for _, n in split.values()}) > 1:
        listed = ", ".join(f"{path} is {k}/{n}" for path, (k, n) in split.items())
        raise ReportError(f"cannot merge shards of different splits: {listed}")
    count = next(iter(split.values()))[1]
    owner: dict[int, str] = {}
    for path, (k, _) in split.items():
        if k in owner:
            raise ReportError(f"cannot merge: shard {k}/{count} is given twice, {owner[k]} and {path}")
        owner[k] = path
    return [k for k in range(1, count + 1) if k not in owner], count


def check_complete(reports: list[Report], allow_partial: bool) -> str | None:
    """What the merge lacks (missing shards, reports cut short), or None; ReportError unless allow_partial."""
    missing, count = missing_shards(reports)
    problems = []
    if missing:
        problems.append(f"shard{'s' if len(missing) > 1 else ''} {', '.join(map(str, missing))} of {count} "
                        f"missing")
    problems += [f"{report.path}: {reason}" for report in reports
                 if (reason := incomplete_reason(report)) is not None]
    if not problems:
        return None
    if not allow_partial:
        raise ReportError(f"cannot merge: {'; '.join(problems)} (--allow-partial merges what there is)")
    return "; ".join(problems)


def _exit_status(reports: list[Report], cases: list[dict[str, Any]], partial: str | None) -> int:
    abnormal = [r.summary["exit_status"] for r in reports
                if r.summary is not None and r.summary.get("exit_status") in ABNORMAL_EXITS]
    if abnormal:
        return abnormal[0]
    if partial:
        return PARTIAL_EXIT
    if not cases:
        return 5
    return 1 if any(case["status"] in FAILING for case in cases) else 0


def _setup(reports: list[Report]) -> dict[str, Any]:
    """The set-up fields of the merged run record: one value if the shards agree, else one per file."""
    merged: dict[str, Any] = {}
    for name in SETUP_FIELDS:
        values = {report.path: report.run.get(name) for report in reports}
        distinct: list[Any] = []
        for value in values.values():
            if value not in distinct:
                distinct.append(value)
        if len(distinct) == 1:
            if distinct[0] is not None:
                merged[name] = distinct[0]
        else:
            merged.setdefault("differing", {})[name] = values
    return merged


def merge_reports(reports: list[Report], allow_partial: bool = False) -> list[dict[str, Any]]:
    """The records of one report holding every shard's cases; ReportError if shards disagree, overlap or are
    missing or cut short (unless allow_partial, which marks the merged report partial)."""
    if not reports:
        raise ReportError("no reports to merge")
    check_compatible(reports)
    partial = check_complete(reports, allow_partial)
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
        "expectations": first.get("expectations", []), **_setup(reports), "partial": partial,
    }
    finished = [r.summary for r in reports if r.summary is not None]
    summary = {
        "record": "summary", "counts": count_statuses(cases), "total": len(cases),
        "wall_time": max((float(s.get("wall_time", 0.0)) for s in finished), default=0.0),
        "shard_time": round(sum(float(s.get("wall_time", 0.0)) for s in finished), 3),
        "exit_status": _exit_status(reports, cases, partial),
    }
    return [run, *environments, *cases, summary]


def _files(folder: Path) -> list[Path]:
    if not folder.is_dir():
        raise ReportError(f"{folder}: not an allure-results folder")
    return sorted(p for p in folder.rglob("*") if p.is_file())


#: Allure's run environment file: each shard writes its own, the merge combines them.
ENVIRONMENT_FILE = Path("environment.properties")


def merge_allure(folders: list[str], out: str) -> int:
    """Copy every file of the allure-results folders into out; ReportError on a name clash with other content.

    environment.properties is combined instead: a key whose value differs between shards (the shard, the host) gets
    the distinct values joined with ", ".
    """
    target = Path(out)
    chosen: dict[Path, Path] = {}
    environments = [target / ENVIRONMENT_FILE] if (target / ENVIRONMENT_FILE).is_file() else []
    for folder in map(Path, folders):
        for path in _files(folder):
            relative = path.relative_to(folder)
            if relative == ENVIRONMENT_FILE:
                environments += [] if path in environments else [path]
                continue
            earlier = chosen.get(relative)
            if earlier is None and (target / relative).exists():
                earlier = target / relative
            if earlier is not None and not filecmp.cmp(earlier, path, shallow=False):
                raise ReportError(f"allure results clash: {earlier} and {path} have the same name and different content")
            chosen.setdefault(relative, path)
    try:
        if environments:
            target.mkdir(parents=True, exist_ok=True)
            (target / ENVIRONMENT_FILE).write_text(combined_properties(environments), encoding="utf-8")
        for relative, path in chosen.items():
            (target / relative).parent.mkdir(parents=True, exist_ok=True)
            if path != target / relative:
                shutil.copyfile(path, target / relative)
    except OSError as exc:
        raise ReportError(f"{target}: cannot write the merged allure results: {exc.strerror or exc}") from None
    return len(chosen) + bool(environments)


def combined_properties(paths: list[Path]) -> str:
    """The .properties text of several files: every key in first-seen order, its distinct values joined with ", "."""
    values: dict[str, list[str]] = {}
    for path in paths:
        text = read_text(path, "Allure environment.properties", MAX_YAML_BYTES, ReportError)
        for line in text.splitlines():
            if not line.strip() or line.lstrip().startswith(("#", "!")):
                continue
            key, _, value = line.partition("=")
            seen = values.setdefault(key.strip(), [])
            if value.strip() not in seen:
                seen.append(value.strip())
    return "".join(f"{key}={', '.join(found)}\n" for key, found in values.items())
