"""Comparing two run reports: new failures, fixes, missing and added cases, environment changes, metric drift."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from aclcts.report.completeness import incomplete_reason
from aclcts.report.ops import group_of, op_of
from aclcts.report.records import FAILING, PASSING, Report, plain

#: Error metrics of an output comparison that drift is looked for in.
DRIFT_METRICS = ("max_abs", "max_rel", "max_ulp", "mare", "mere", "rmse")
DEFAULT_THRESHOLD = 2.0
#: Smallest absolute increase that counts as drift: one ulp for max_ulp, this value for the other metrics.
DEFAULT_FLOOR = 1e-6
DEFAULT_ULP_FLOOR = 0.0
#: Run-record fields compared alongside the environment records.
RUN_FIELDS = ("version", "seed", "backend", "cases", "model_dir")
ENVIRONMENT_FIELDS = ("backend", "soc_name", "acl_version", "cann_version", "device_count", "device_id")
#: ACLCTS_* settings of the run record that say where files are kept, not what runs: not compared.
PLACE_SETTINGS = ("ACLCTS_MODEL_CACHE",)


@dataclass(frozen=True)
class Drift:
    """One metric of one output of a case passing in both runs that grew beyond the threshold."""

    case: str
    output: str
    metric: str
    old: float
    new: float

    @property
    def ratio(self) -> float:
        """NEW / OLD (infinite when OLD was 0)."""
        return self.new / self.old if self.old else math.inf


@dataclass(frozen=True)
class NewFailure:
    """A case failing in NEW (failed, error or crashed) that passed in OLD, with NEW's message and category."""

    case: str
    was: str
    now: str
    message: str
    category: str | None

    @property
    def op(self) -> str | None:
        """The op of a case-library case, None for other tests."""
        return op_of(self.case)


@dataclass
class Difference:
    """Everything that differs between an OLD and a NEW report."""

    new_failures: list[NewFailure] = field(default_factory=list)
    fixes: list[tuple[str, str, str]] = field(default_factory=list)
    other_changes: list[tuple[str, str, str]] = field(default_factory=list)
    missing: list[tuple[str, str]] = field(default_factory=list)
    added: list[tuple[str, str]] = field(default_factory=list)
    environment: list[tuple[str, list[Any], list[Any]]] = field(default_factory=list)
    drift: list[Drift] = field(default_factory=list)
    incomplete: list[tuple[str, str]] = field(default_factory=list)
    lost_coverage: list[tuple[str, str, str]] = field(default_factory=list)


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or value is None:
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(number) else number


def case_drift(case_id: str, old: dict[str, Any], new: dict[str, Any], metrics: tuple[str, ...],
               threshold: float, floor: float, ulp_floor: float) -> list[Drift]:
    """Metrics of a case's outputs whose NEW/OLD ratio exceeds threshold and whose increase exceeds the floor."""
    found = []
    for output, new_values in new.get("metrics", {}).items():
        old_values = old.get("metrics", {}).get(output)
        if not isinstance(new_values, dict) or not isinstance(old_values, dict):
            continue
        for metric in metrics:
            before, after = _number(old_values.get(metric)), _number(new_values.get(metric))
            if before is None or after is None or math.isinf(before):
                continue
            least = ulp_floor if metric == "max_ulp" else floor
            grew = after > before * threshold if before > 0 else after > 0
            if grew and after - before > least:
                found.append(Drift(case_id, output, metric, before, after))
    return found


def _values(records: list[dict[str, Any]], name: str) -> list[Any]:
    seen: list[Any] = []
    for record in records:
        if record.get(name) not in seen:
            seen.append(record.get(name))
    return seen


def environment_changes(old: Report, new: Report) -> list[tuple[str, list[Any], list[Any]]]:
    """(field, OLD values, NEW values) for every run field, ACLCTS_* setting (such as ACLCTS_SIM_FAULTS) or
    environment field whose values differ."""
    changes = []
    for name in RUN_FIELDS:
        if old.run.get(name) != new.run.get(name):
            changes.append((name, [old.run.get(name)], [new.run.get(name)]))
    settings = old.run.get("settings") or {}, new.run.get("settings") or {}
    for name in sorted(set(settings[0]) | set(settings[1])):
        if name not in PLACE_SETTINGS and settings[0].get(name) != settings[1].get(name):
            changes.append((f"settings.{name}", [settings[0].get(name)], [settings[1].get(name)]))
    for name in ENVIRONMENT_FIELDS:
        before = sorted(_values(old.environments, name), key=repr)
        after = sorted(_values(new.environments, name), key=repr)
        if before != after:
            changes.append((f"environment.{name}", before, after))
    return changes


def diff(old: Report, new: Report, metrics: tuple[str, ...] = DRIFT_METRICS, threshold: float = DEFAULT_THRESHOLD,
         floor: float = DEFAULT_FLOOR, ulp_floor: float = DEFAULT_ULP_FLOOR) -> Difference:
    """Compare OLD with NEW."""
    result = Difference(environment=environment_changes(old, new))
    result.incomplete = [(r.path, reason) for r in (old, new) if (reason := incomplete_reason(r)) is not None]
    for case_id, after in new.cases.items():
        before = old.cases.get(case_id)
        if before is None:
            result.added.append((case_id, after["status"]))
            continue
        was, now = before["status"], after["status"]
        if now in FAILING and was in PASSING:
            result.new_failures.append(NewFailure(case_id, was, now, after.get("message", ""), after.get("category")))
        elif was in FAILING and now in PASSING:
            result.fixes.append((case_id, was, now))
        elif was != now:
            result.other_changes.append((case_id, was, now))
        elif was == "passed":
            result.drift += case_drift(case_id, before, after, metrics, threshold, floor, ulp_floor)
        if was in PASSING and now == "skipped":
            result.lost_coverage.append((case_id, was, now))
    result.missing = [(case_id, before["status"]) for case_id, before in old.cases.items() if case_id not in new.cases]
    result.lost_coverage += [(case_id, status, "missing") for case_id, status in result.missing if status in PASSING]
    return result


def by_group(failures: list[NewFailure]) -> dict[str, list[NewFailure]]:
    """New failures by op (tests without an op by test function), the largest group first."""
    groups: dict[str, list[NewFailure]] = {}
    for failure in failures:
        groups.setdefault(group_of(failure.case), []).append(failure)
    return dict(sorted(groups.items(), key=lambda item: (-len(item[1]), item[0])))


def as_data(result: Difference, old: Report, new: Report) -> dict[str, Any]:
    """The whole difference as one JSON-able document."""
    return plain({
        "old": {"path": old.path, "cases": len(old.cases)},
        "new": {"path": new.path, "cases": len(new.cases)},
        "incomplete": [{"path": path, "reason": reason} for path, reason in result.incomplete],
        "new_failures": [{"id": f.case, "op": f.op, "was": f.was, "now": f.now, "category": f.category,
                          "message": f.message} for f in result.new_failures],
        "new_failures_by_group": {name: len(rows) for name, rows in by_group(result.new_failures).items()},
        "fixes": [{"id": c, "was": was, "now": now} for c, was, now in result.fixes],
        "other_changes": [{"id": c, "was": was, "now": now} for c, was, now in result.other_changes],
        "lost_coverage": [{"id": c, "was": was, "now": now} for c, was, now in result.lost_coverage],
        "missing": [{"id": c, "status": status} for c, status in result.missing],
        "added": [{"id": c, "status": status} for c, status in result.added],
        "environment": [{"field": name, "old": before, "new": after} for name, before, after in result.environment],
        "drift": [{"id": d.case, "output": d.output, "metric": d.metric, "old": d.old, "new": d.new,
                   "ratio": d.ratio} for d in result.drift],
    })


def _format_value(value: float) -> str:
    return f"{value:.6g}"


def render(result: Difference, old: Report, new: Report, threshold: float) -> list[str]:
    """The difference as printable lines, one section per kind of change."""
    lines = [f"OLD {old.path}: {len(old.cases)} case(s); NEW {new.path}: {len(new.cases)} case(s)"]
    lines += [f"warning: {path} does not cover its whole run: {reason}; cases it did not reach show as missing"
              for path, reason in result.incomplete]

    def section(title: str, rows: list[str], count: int | None = None) -> None:
        lines.append(f"\n{title} ({len(rows) if count is None else count})")
        lines.extend(f"  {row}" for row in rows)

    rows = []
    for name, failures in by_group(result.new_failures).items():
        rows.append(f"{name} ({len(failures)})")
        for failure in failures:
            rows.append(f"  {failure.case}: {failure.was} -> {failure.now}")
            rows.append(f"    {failure.category or 'uncategorised'}: {failure.message or '(no message)'}")
    section("new failures, by op", rows, len(result.new_failures))
    section("fixes", [f"{c}: {was} -> {now}" for c, was, now in result.fixes])
    section("lost coverage (passed in OLD, skipped or missing in NEW)",
            [f"{c}: {was} -> {now}" for c, was, now in result.lost_coverage])
    section("other status changes", [f"{c}: {was} -> {now}" for c, was, now in result.other_changes])
    section("missing cases (in OLD only)", [f"{c} ({status})" for c, status in result.missing])
    section("added cases (in NEW only)", [f"{c} ({status})" for c, status in result.added])
    section("environment differences", [f"{name}: {old_v} -> {new_v}" for name, old_v, new_v in result.environment])
    grouped: dict[tuple[str, str], list[Drift]] = {}
    for drift in result.drift:
        grouped.setdefault((drift.case, drift.output), []).append(drift)
    section(f"drift (outputs of cases passing in both whose metrics grew more than x{threshold:g})",
            [f"{case} {output}: " + ", ".join(f"{d.metric} {_format_value(d.old)} -> {_format_value(d.new)} "
                                              f"(x{_format_value(d.ratio)})" for d in drifts)
             for (case, output), drifts in grouped.items()])
    return lines
