"""`aclcts report diff`: new failures, fixes, missing and added cases, environment changes and in-tolerance drift."""

import json
import re
from pathlib import Path

import pytest
from report_runs import ROOT, SUBSET, run_pytest

from aclcts.report.cli import main
from aclcts.report.ops import op_of
from aclcts.report.records import read_report

FAULTS = ROOT / "tests" / "suite"


def rewrite(source, target, change):
    """Copy a report, passing every record through change (which may return None to drop it)."""
    lines = [change(json.loads(line)) for line in Path(source).read_text().splitlines()]
    target.write_text("".join(json.dumps(r) + "\n" for r in lines if r is not None))
    return target


def diff(capsys, *args):
    status = main(["diff", *map(str, args)])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def section(out, title):
    """The lines of one section of the diff output."""
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(title))
    body = []
    for line in lines[start + 1:]:
        if not line.startswith("  "):
            break
        body.append(line.strip())
    return lines[start], body


def new_failure_rows(out):
    """(case id, "was -> now", detail line) of each new failure in the diff output."""
    _, rows = section(out, "new failures")
    found = []
    for index, row in enumerate(rows):
        if " -> " in row and row.endswith(tuple(f" -> {status}" for status in ("failed", "error", "crashed"))):
            case_id, change = row.rsplit(": ", 1)
            found.append((case_id, change, rows[index + 1]))
    return found


def passing_with_error(report):
    """Ids of two passing cases whose first output has a non-zero max_abs."""
    chosen = [case_id for case_id, case in report.cases.items() if case["status"] == "passed"
              and any(isinstance(m, dict) and m.get("max_abs", 0) > 0 for m in case["metrics"].values())]
    assert len(chosen) >= 2
    return chosen[:2]


def test_a_faulty_backend_shows_as_new_failures_and_in_tolerance_drift(subset_report, tmp_path, capsys):
    new = tmp_path / "fault.jsonl"
    run_pytest([*SUBSET, "-p", "no:xdist", "--backend=faults:changed_output_element"], new, PYTHONPATH=str(FAULTS))
    faulty = read_report(new)
    failing = {c for c, case in faulty.cases.items() if case["status"] == "failed"}
    assert failing and len(failing) < len(faulty.cases)
    status, out, _ = diff(capsys, subset_report.path, new)
    assert status == 1
    header, _ = section(out, "new failures")
    assert header == f"new failures, by op ({len(failing)})"
    assert {case_id for case_id, _, _ in new_failure_rows(out)} == failing
    rows = section(out, "drift")[1]
    assert rows and all(row.split(" ")[0] not in failing for row in rows)
    assert any("Add-float32" in row and "max_ulp 0 ->" in row for row in rows)
    _, rows = section(out, "environment differences")
    assert "backend: ['sim'] -> ['faults:changed_output_element']" in rows


def test_a_rewritten_regression_and_upward_metrics_are_both_reported(subset_report, tmp_path, capsys):
    regressed, drifted = passing_with_error(subset_report)

    def change(record):
        if record.get("id") == regressed:
            return {**record, "status": "failed", "message": "AssertionError: y differs"}
        if record.get("id") == drifted:
            return {**record, "metrics": {k: {**m, "max_abs": m["max_abs"] * 10 + 1e-3} if isinstance(m, dict) else m
                                          for k, m in record["metrics"].items()}}
        return record

    new = rewrite(subset_report.path, tmp_path / "new.jsonl", change)
    status, out, _ = diff(capsys, subset_report.path, new)
    assert status == 1
    assert new_failure_rows(out) == [(regressed, "passed -> failed", "uncategorised: AssertionError: y differs")]
    rows = section(out, "drift")[1]
    assert len(rows) == 1 and rows[0].startswith(f"{drifted} ") and "max_abs" in rows[0] and "max_rel" not in rows[0]
    status, out, _ = diff(capsys, new, subset_report.path)
    assert status == 0 and section(out, "fixes")[1] == [f"{regressed}: failed -> passed"]
    assert section(out, "new failures")[0] == "new failures, by op (0)"


def test_drift_respects_threshold_floor_and_metric_choice(subset_report, tmp_path, capsys):
    _, drifted = passing_with_error(subset_report)
    old_max = next(m["max_abs"] for m in subset_report.cases[drifted]["metrics"].values() if isinstance(m, dict))

    def change(record):
        if record.get("id") != drifted:
            return record
        return {**record, "metrics": {k: {**m, "max_abs": m["max_abs"] * 3} if isinstance(m, dict) else m
                                      for k, m in record["metrics"].items()}}

    new = rewrite(subset_report.path, tmp_path / "new.jsonl", change)
    grown = 2 * old_max
    assert section(diff(capsys, subset_report.path, new, "--floor", grown / 2)[1], "drift")[0].endswith("(1)")
    assert section(diff(capsys, subset_report.path, new, "--floor", grown * 2)[1], "drift")[0].endswith("(0)")
    assert section(diff(capsys, subset_report.path, new, "--floor", 0, "--threshold", 4)[1], "drift")[0].endswith("(0)")
    assert section(diff(capsys, subset_report.path, new, "--floor", 0, "--metric", "rmse")[1], "drift")[0].endswith(
        "(0)")


def test_missing_added_and_environment_changes_are_listed(subset_report, tmp_path, capsys):
    dropped = next(iter(subset_report.cases))

    def change(record):
        if record.get("id") == dropped:
            return {**record, "id": dropped + "-renamed", "status": "failed"}
        if record["record"] == "environment":
            return {**record, "soc_name": "Ascend310P3", "acl_version": "1.1.0"}
        return record

    new = rewrite(subset_report.path, tmp_path / "new.jsonl", change)
    status, out, _ = diff(capsys, subset_report.path, new)
    assert status == 0
    assert section(out, "missing cases")[1] == [f"{dropped} (passed)"]
    assert section(out, "added cases")[1] == [f"{dropped}-renamed (failed)"]
    assert section(out, "environment differences")[1] == [
        "environment.soc_name: ['Ascend910B1'] -> ['Ascend310P3']", "environment.acl_version: ['1.0.0'] -> ['1.1.0']"]


def test_a_run_with_simulator_faults_set_shows_among_the_environment_differences(subset_report, tmp_path, capsys):
    def faulted(record):
        if record["record"] == "run":
            return {**record, "settings": {**record["settings"], "ACLCTS_SIM_FAULTS": "kernel_hangs",
                                           "ACLCTS_MODEL_CACHE": "/elsewhere"}}
        return record

    new = rewrite(subset_report.path, tmp_path / "new.jsonl", faulted)
    before = subset_report.run["settings"].get("ACLCTS_SIM_FAULTS")
    status, out, _ = diff(capsys, subset_report.path, new)
    assert status == 0
    assert section(out, "environment differences")[1] == [f"settings.ACLCTS_SIM_FAULTS: [{before!r}] -> ['kernel_hangs']"]


def test_a_report_cut_short_is_compared_with_a_warning(subset_report, tmp_path, capsys):
    cut = rewrite(subset_report.path, tmp_path / "cut.jsonl", lambda r: None if r["record"] == "summary" else r)
    status, out, _ = diff(capsys, subset_report.path, cut)
    assert status == 0 and f"warning: {cut} does not cover its whole run: it has no summary record" in out


def test_an_interrupted_report_is_compared_with_a_warning(subset_report, tmp_path, capsys):
    cut = rewrite(subset_report.path, tmp_path / "cut.jsonl",
                  lambda r: {**r, "exit_status": 2} if r["record"] == "summary" else r)
    status, out, _ = diff(capsys, subset_report.path, cut)
    assert status == 0 and f"warning: {cut} does not cover its whole run: it was interrupted (exit status 2)" in out
    data = json.loads(diff(capsys, subset_report.path, cut, "--json")[1])
    assert data["incomplete"] == [{"path": str(cut), "reason": "it was interrupted (exit status 2)"}]


@pytest.mark.parametrize("text, message", [
    ('{"record": "run", "version": "1", "seed": 1}\nnot json\n', "bad.jsonl:2: not valid JSON"),
    ("", "bad.jsonl: empty report, expected a run record on line 1"),
])
def test_malformed_input_is_a_one_line_error_with_exit_2(subset_report, tmp_path, capsys, text, message):
    bad = tmp_path / "bad.jsonl"
    bad.write_text(text)
    status, out, err = diff(capsys, subset_report.path, bad)
    assert status == 2 and out == ""
    assert err.strip().count("\n") == 0 and message in err and "Traceback" not in err


def test_help_says_what_the_exit_statuses_mean(capsys):
    assert main(["diff", "--help"]) == 0
    out = capsys.readouterr().out
    assert "1  new failures" in out and "2  usage error" in out and "0  no new failures" in out


def failing_in_two_ops(report):
    """A rewrite of report whose passing cases of two ops (two of one, one of the other) fail, with categories."""
    by_op = {}
    for case_id, case in report.cases.items():
        if case["status"] == "passed":
            by_op.setdefault(op_of(case_id), []).append(case_id)
    first, second = [op for op in by_op if op is not None][:2]
    chosen = {by_op[first][0]: ("failed", "precision"), by_op[first][1]: ("crashed", "crash"),
              by_op[second][0]: ("error", "setup")}

    def change(record):
        if record.get("id") in chosen:
            status, category = chosen[record["id"]]
            return {**record, "status": status, "category": category, "message": f"{category} went wrong"}
        return record

    return change, chosen, (first, second)


def test_new_failures_are_grouped_by_op_with_their_category_and_message(subset_report, tmp_path, capsys):
    change, chosen, (first, second) = failing_in_two_ops(subset_report)
    new = rewrite(subset_report.path, tmp_path / "new.jsonl", change)
    status, out, _ = diff(capsys, subset_report.path, new)
    assert status == 1
    header, rows = section(out, "new failures")
    assert header == "new failures, by op (3)"
    assert [row for row in rows if re.fullmatch(r"\w+ \(\d+\)", row)] == [f"{first} (2)", f"{second} (1)"]
    found = {case_id: (change_, detail) for case_id, change_, detail in new_failure_rows(out)}
    assert found == {case_id: (f"passed -> {status_}", f"{category}: {category} went wrong")
                     for case_id, (status_, category) in chosen.items()}
    assert rows.index(f"{second} (1)") > max(rows.index(f"{case_id}: passed -> {s}")
                                             for case_id, (s, _) in chosen.items() if op_of(case_id) == first)


def test_json_is_one_document_with_every_new_failure(subset_report, tmp_path, capsys):
    change, chosen, (first, second) = failing_in_two_ops(subset_report)
    new = rewrite(subset_report.path, tmp_path / "new.jsonl", change)
    status, out, _ = diff(capsys, subset_report.path, new, "--json")
    data = json.loads(out)
    assert status == 1 and data["exit_status"] == 1
    assert {f["id"]: (f["now"], f["category"], f["op"], f["message"]) for f in data["new_failures"]} == {
        case_id: (s, category, op_of(case_id), f"{category} went wrong") for case_id, (s, category) in chosen.items()}
    assert data["new_failures_by_group"] == {first: 2, second: 1}
    assert data["old"] == {"path": subset_report.path, "cases": len(subset_report.cases)}
    assert data["fixes"] == [] and data["missing"] == [] and data["incomplete"] == []


def test_lost_coverage_fails_the_diff_only_with_the_flag(subset_report, tmp_path, capsys):
    skipped, dropped = list(subset_report.cases)[:2]

    def change(record):
        if record.get("id") == skipped:
            return {**record, "status": "skipped", "message": "Skipped: no model"}
        return None if record.get("id") == dropped else record

    new = rewrite(subset_report.path, tmp_path / "new.jsonl", change)
    status, out, _ = diff(capsys, subset_report.path, new)
    assert status == 0
    assert section(out, "lost coverage")[1] == [f"{skipped}: passed -> skipped", f"{dropped}: passed -> missing"]
    assert diff(capsys, subset_report.path, new, "--fail-on-lost-coverage")[0] == 1
    data = json.loads(diff(capsys, subset_report.path, new, "--json", "--fail-on-lost-coverage")[1])
    assert data["exit_status"] == 1 and [c["id"] for c in data["lost_coverage"]] == [skipped, dropped]
    status, _, _ = diff(capsys, subset_report.path, subset_report.path, "--fail-on-lost-coverage")
    assert status == 0


def test_flaky_counts_as_passing_and_crashed_as_failing(subset_report, tmp_path, capsys):
    flaky, crashed = list(subset_report.cases)[:2]

    def change(record):
        if record.get("id") == flaky:
            return {**record, "status": "flaky"}
        return {**record, "status": "crashed", "category": "crash"} if record.get("id") == crashed else record

    new = rewrite(subset_report.path, tmp_path / "new.jsonl", change)
    status, out, _ = diff(capsys, subset_report.path, new)
    assert status == 1 and [row[0] for row in new_failure_rows(out)] == [crashed]
    assert section(out, "other status changes")[1] == [f"{flaky}: passed -> flaky"]
    worse = rewrite(new, tmp_path / "worse.jsonl",
                    lambda r: {**r, "status": "failed"} if r.get("id") == flaky else r)
    status, out, _ = diff(capsys, new, worse)
    assert status == 1 and [row[:2] for row in new_failure_rows(out)] == [(flaky, "flaky -> failed")]


def test_diff_help_names_json_and_lost_coverage(capsys):
    assert main(["diff", "--help"]) == 0
    out = capsys.readouterr().out
    assert "--json" in out and "--fail-on-lost-coverage" in out and "skipped or missing in NEW" in out


def test_diff_help_describes_old_and_new(capsys):
    assert main(["diff", "--help"]) == 0
    positional = capsys.readouterr().out.split("positional arguments:")[1].split("options:")[0]
    described = {line.split()[0]: line.split(None, 1)[1:] for line in positional.splitlines() if line.strip()
                 and line.strip().split()[0] in ("OLD", "NEW")}
    assert set(described) == {"OLD", "NEW"} and all(described.values()), positional
